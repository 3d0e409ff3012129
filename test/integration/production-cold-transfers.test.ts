/**
 * Hot-wallet rules on litecoind regtest, through the real server process in production mode (docs/treasury.md
 * "Cold storage", jobs/cold-transfers.ts). The LTC hot wallet holds 10 LTC; HOT_WALLET_MIN LTC/LTC=2 and
 * HOT_WALLET_MAX LTC/LTC=6 with LTC_COLD_ADDRESS set:
 * - the surplus down to halfway between the two (10 - 4 = 6 LTC) is committed as one cold transfer; the
 *   server is killed at its broadcast (a JSON-RPC proxy kills the process group before the node sees it), and
 *   a restart broadcasts the stored bytes: the cold address receives exactly 6 LTC, in one transaction, once;
 *   no second transfer follows, and a swap under way is not touched;
 * - a server with HOT_WALLET_MIN LTC/LTC=5 then reports the asset below its minimum, and a quote the 10 LTC
 *   took before is refused now that 4 LTC are left;
 * - `ops cold list` names the transfer, and pss_cold_transferred shows what reached cold storage.
 *
 * Skipped, with the reason printed, where litecoind, anvil or PostgreSQL is missing.
 */
import { expect } from 'chai';
import { Decimal } from 'decimal.js';
import pg from 'pg';
import { createDevnetPartner, startDevnet, startDevnetServer, type Devnet, type DevnetServer } from '../support/devnet.js';
import { freePort, spawnGroup } from '../support/process.js';
import { devnetClient, DEVNET_ADMIN_URL, eventually, ltcToUsdt, skipWithoutDevnet, usdtToLtc } from '../support/production.js';
import { startRpcProxy, type RpcProxy } from '../support/rpc-proxy.js';

const ROOT = new URL('../..', import.meta.url).pathname;
/** The payout sweep (and with it the cold-storage look) runs every second with a 2-second replace window. */
const FAST_LOOKS = { ETH_REPLACE_AFTER_SECONDS: '2', LIQUIDITY_PARTNER_SHARE_PERCENT: '100' };
/** USDT asked for about 6 LTC: the 10 LTC hot wallet can pay it, the 4 LTC left after the transfer cannot. */
const LARGE_QUOTE = '500';

interface ColdRow {
  id: string;
  status: string;
  tx_hash: string | null;
  amount: string;
  address: string;
  swap_id: string | null;
}

describe('hot-wallet rules on litecoind (the server process in production mode)', function () {
  this.timeout(180_000);
  let devnet: Devnet;
  let partner: { keyId: string; secret: string };
  let db: pg.Client;
  const servers: DevnetServer[] = [];
  const proxies: RpcProxy[] = [];

  before(async function () {
    await skipWithoutDevnet(this);
    devnet = await startDevnet({ adminUrl: DEVNET_ADMIN_URL, confirmations: { LTC: 1, ETH: 1 } });
    partner = await createDevnetPartner(devnet, 'Cold storage');
    db = new pg.Client({ connectionString: devnet.database.url });
    await db.connect();
  });

  after(async () => {
    for (const server of servers) await server.stop('SIGKILL').catch(() => undefined);
    for (const proxy of proxies) await proxy.close().catch(() => undefined);
    await db?.end().catch(() => undefined);
    await devnet?.stop();
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') {
      for (const server of servers) console.log(server.child.output().slice(-6000));
      const payouts = await db.query(
        'select idempotency_key, purpose, status, tx_hash, amount, held_reason, last_error from payouts order by created_at',
      );
      console.log(JSON.stringify(payouts.rows, null, 1));
    }
  });

  async function startServer(env: Record<string, string> = {}) {
    const server = await startDevnetServer(devnet, { env: { ...FAST_LOOKS, ...env } });
    servers.push(server);
    return { server, client: devnetClient(server, partner) };
  }

  async function ops(...args: string[]): Promise<{ code: number | null; output: string }> {
    const child = spawnGroup(process.execPath, ['--import', 'tsx', 'scripts/ops.ts', ...args], devnet.env(0), ROOT);
    const code = await new Promise<number | null>((resolve) => child.process.once('exit', resolve));
    return { code, output: child.output() };
  }

  const coldTransfers = async () =>
    (
      await db.query<ColdRow>(
        `select id, status, tx_hash, amount::text as amount, address, swap_id from payouts where purpose = 'cold' order by created_at`,
      )
    ).rows;

  const receivedBy = async (address: string) =>
    new Decimal(await devnet.litecoin.call<string | number>('getreceivedbyaddress', [address, 0], devnet.wallets.customer)).toFixed();

  it('sends the surplus above HOT_WALLET_MAX to the cold address once, through a crash at its broadcast, and touches no swap', async () => {
    const coldAddress = await devnet.litecoin.call<string>('getnewaddress', ['', 'bech32'], devnet.wallets.customer);
    // Before any rule: a quote of about 6 LTC is within the 10 LTC hot wallet, and a swap waits for its deposit.
    const plain = await startServer({ QUOTE_TTL_SECONDS: '1' });
    await plain.client.quote(usdtToLtc(LARGE_QUOTE));
    const { order } = await plain.client.create(ltcToUsdt('0.5', devnet.wallets.customerAddress), {
      destinationAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    });
    const waiting = await plain.client.waitFor(order.id, (o) => typeof o.depositAddress === 'string', 30_000);
    const swapBefore = await db.query('select status, updated_at, deposits from swaps where id = $1', [order.id]);
    await plain.server.stop();
    servers.pop();
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // the quote's reservation ends

    const rules = { HOT_WALLET_MIN: 'LTC/LTC=2', HOT_WALLET_MAX: 'LTC/LTC=6', LTC_COLD_ADDRESS: coldAddress };
    const proxy = await startRpcProxy(devnet.litecoin.url(devnet.wallets.watch));
    proxies.push(proxy);
    const first = await startServer({ ...rules, LTC_RPC_URL: proxy.url });
    const killed = proxy.arm('sendrawtransaction', 'before', () => first.server.stop('SIGKILL'));
    const broadcast = await killed;
    servers.pop();

    // What the kill left: one cold transfer of 6 LTC (10, less 4: halfway between 2 and 6), signed, its version
    // stored with the bytes the proxy saw; the node never saw it.
    const [stored, ...others] = await coldTransfers();
    expect(others).to.deep.equal([]);
    expect(stored).to.deep.include({ status: 'signed', address: coldAddress, amount: '6', swap_id: null });
    const versions = await db.query<{ tx_hash: string; signed_bytes: string }>(
      'select tx_hash, signed_bytes from payout_versions where payout_id = $1',
      [stored!.id],
    );
    expect(versions.rows.map((v) => v.signed_bytes)).to.deep.equal([broadcast.params[0]]);
    expect(versions.rows[0]!.tx_hash).to.equal(stored!.tx_hash);
    expect(await receivedBy(coldAddress)).to.equal('0');

    // A restart broadcasts the stored bytes; once mined, the transfer is final (LTC_CONFIRMATIONS=1).
    const metricsPort = await freePort();
    const second = await startServer({ ...rules, LTC_RPC_URL: proxy.url, METRICS_PORT: String(metricsPort) });
    await eventually(async () => ((await coldTransfers())[0]?.status === 'broadcast' ? true : undefined), 30_000);
    // A block every 2 s until the watcher has recorded one holding it (a loaded machine may be slow to scan).
    let mined = 0;
    const [done] = await eventually(
      async () => {
        const rows = await coldTransfers();
        if (rows[0]?.status === 'confirmed') return rows;
        if (Date.now() - mined > 2_000) {
          await devnet.mineLtc(1);
          mined = Date.now();
        }
        return undefined;
      },
      90_000,
      async () =>
        JSON.stringify(
          (
            await db.query(
              "select status, tx_hash, block_height, (select tip_height from chain_cursors where network = 'LTC') as tip from payouts where purpose = 'cold'",
            )
          ).rows,
        ),
    );
    expect(done!.tx_hash).to.equal(stored!.tx_hash);
    expect(await receivedBy(coldAddress)).to.equal('6');
    const broadcasts = new Set(proxy.calls.filter((c) => c.method === 'sendrawtransaction').map((c) => c.params[0]));
    expect([...broadcasts]).to.deep.equal([broadcast.params[0]]);

    // Several looks later (one a second), the 4 LTC left are not above HOT_WALLET_MAX: nothing more goes.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    expect(await coldTransfers()).to.have.length(1);
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(metrics).to.match(/pss_cold_transferred\{network="LTC",asset="LTC"\} 6\b/);
    expect(metrics).to.match(/pss_cold_transfers_held\{network="LTC",asset="LTC"\} 0\b/);

    // The swap under way is as it was: no status, no deposit, no change.
    const swapAfter = await db.query('select status, updated_at, deposits from swaps where id = $1', [order.id]);
    expect(swapAfter.rows).to.deep.equal(swapBefore.rows);
    expect((await second.client.get(order.id)).events).to.deep.equal(waiting.events);

    const listed = await ops('cold', 'list', '--json');
    expect(listed.code, listed.output).to.equal(0);
    const list = JSON.parse(listed.output.slice(listed.output.indexOf('[')));
    expect(list).to.have.length(1);
    expect(list[0]).to.deep.include({ id: stored!.id, status: 'confirmed', amount: '6', network: 'LTC', asset: 'LTC', releasedAt: null });
    await second.server.stop();
    servers.pop();

    // Below HOT_WALLET_MIN now (4 < 5): the gauge says so, and the quote the 10 LTC took is refused.
    const lowMetrics = await freePort();
    const low = await startServer({
      HOT_WALLET_MIN: 'LTC/LTC=5',
      HOT_WALLET_MAX: 'LTC/LTC=12',
      LTC_COLD_ADDRESS: coldAddress,
      METRICS_PORT: String(lowMetrics),
    });
    const refused = await low.client.send('POST', '/api/v1/quotes', usdtToLtc(LARGE_QUOTE));
    expect(refused.status, refused.text).to.equal(409);
    const lowText = await eventually(async () => {
      const text = await (await fetch(`http://127.0.0.1:${lowMetrics}/metrics`)).text();
      return /pss_hot_wallet_below_minimum\{network="LTC",asset="LTC"\} 1\b/.test(text) ? text : undefined;
    }, 10_000);
    expect(lowText).to.match(/pss_hot_wallet_surplus\{network="LTC",asset="LTC"\} 0\b/);
    expect(await coldTransfers()).to.have.length(1);
    console.log(
      `      cold transfer ${stored!.tx_hash}: 6 LTC to ${coldAddress}, once (a kill at its broadcast, the same bytes after); ` +
        `then below HOT_WALLET_MIN: a ${LARGE_QUOTE} USDT quote refused (${refused.status})`,
    );
  });
});
