/**
 * Zano in production mode, end to end through the real server process and HTTP (docs/architecture.md#production), on the wallet RPC
 * stand-ins (test/support/zano-wallet.ts: no Zano software installs here) next to real Litecoin Core and anvil:
 * - an fUSD to LTC swap: its deposit address is an integrated address of the service's wallet, a payment with
 *   another payment id credits nothing, confirmations grow as the stand-in mines, the deposit is credited at
 *   ZANO_CONFIRMATIONS and the LTC payout (watch-only wallet, signer) finishes it;
 * - a deposit in an unknown asset and one with unlock_time set are never credited: each is recorded held, listed
 *   by `ops outputs held` (also after a restart, once), resolved by `ops outputs resolve`, and logged;
 * - an fUSD payout (an LTC payment to a permanent route) with the server killed between `sign_transfer` and
 *   `submit_transfer`: a restart submits the committed signed tx, once, and nothing is signed twice.
 *
 * Skipped, with the reason printed, where litecoind, anvil or PostgreSQL is missing.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import pg from 'pg';
import { decodeZanoAddress } from '../../server/domain/zano-address.js';
import { Money } from '../../server/domain/money.js';
import { createDevnetPartner, startDevnet, startDevnetServer, type Devnet, type DevnetServer } from '../support/devnet.js';
import { spawnGroup } from '../support/process.js';
import { devnetClient, DEVNET_ADMIN_URL, eventually, expireLeasesOf, skipWithoutDevnet } from '../support/production.js';
import { startRpcProxy, type RpcProxy } from '../support/rpc-proxy.js';
import { freshZanoWallet, signRouteRequest, waitForAddresses, type DepositList, type Route } from '../support/routes.js';
import { swapClient, type Swap } from '../support/swaps.js';
import { FUSD_ASSET_ID } from '../support/zano-wallet.js';

const USER = 'zano-customer';
/** Deposit confirmations on ZANO (and what a Zano payout needs), and on LTC. */
const ZANO_CONFIRMATIONS = 3;
const LTC_CONFIRMATIONS = 1;
/** Faster route polling, for the route of the last test. */
const SERVER_ENV = { ROUTE_POLL_SECONDS: '1', ROUTE_EXPECT_POLL_SECONDS: '1' };

const fusdToLtc = (sourceAmount: string) => ({
  sourceAsset: 'fUSD',
  sourceNetwork: 'ZANO',
  destinationAsset: 'LTC',
  destinationNetwork: 'LTC',
  sourceAmount,
  refundMode: 'address',
  refundAddress: freshZanoWallet().address,
});

/** The payment id (hex) an integrated address carries. */
function paymentIdOf(address: string): string {
  const decoded = decodeZanoAddress(address);
  expect(decoded.kind, address).to.equal('integrated');
  expect(decoded.paymentId, address).to.not.equal(undefined);
  return Buffer.from(decoded.paymentId!).toString('hex');
}

/** `amount` (a decimal string) in atomic units of an asset of `decimals` decimals. */
const atomic = (amount: string, decimals: number) => BigInt(new Money(amount).times(10 ** decimals).toFixed(0));

interface PayoutRow {
  id: string;
  status: string;
  tx_hash: string | null;
  signed_bytes: string | null;
  amount: string;
}

const ROOT = new URL('../..', import.meta.url).pathname;

describe('Zano in production (fUSD in and out, through the server process)', function () {
  this.timeout(180_000);
  let devnet: Devnet;
  let zano: NonNullable<Devnet['zano']>;
  let partner: { keyId: string; secret: string };
  let db: pg.Client;
  let server: DevnetServer;
  let client: ReturnType<typeof swapClient>;
  const servers: DevnetServer[] = [];
  const proxies: RpcProxy[] = [];

  async function startServer(env: Record<string, string> = {}) {
    const started = await startDevnetServer(devnet, { env: { ...SERVER_ENV, ...env } });
    servers.push(started);
    return {
      server: started,
      client: devnetClient(started, partner, USER),
    };
  }

  before(async function () {
    await skipWithoutDevnet(this);
    devnet = await startDevnet({
      adminUrl: DEVNET_ADMIN_URL,
      confirmations: { LTC: LTC_CONFIRMATIONS, ZANO: ZANO_CONFIRMATIONS },
      zano: true,
    });
    zano = devnet.zano!;
    partner = await createDevnetPartner(devnet, 'Production Zano');
    db = new pg.Client({ connectionString: devnet.database.url });
    await db.connect();
    ({ server, client } = await startServer());
  });

  after(async () => {
    for (const started of servers) await started.stop('SIGKILL').catch(() => undefined);
    for (const proxy of proxies) await proxy.close().catch(() => undefined);
    await db?.end().catch(() => undefined);
    await devnet?.stop();
  });

  const waitForAddress = (order: Swap) => client.waitFor(order.id, (o) => typeof o.depositAddress === 'string', 30_000);

  it('swaps fUSD to LTC: an integrated deposit address, credited by payment id at ZANO_CONFIRMATIONS, paid out in LTC', async () => {
    const destination = await devnet.litecoin.call<string>('getnewaddress', ['', 'bech32'], devnet.wallets.customer);
    const { order, quote } = await client.create(fusdToLtc('50'), { destinationAddress: destination });
    const ready = await waitForAddress(order);
    const address = ready.order.depositAddress!;
    expect(address).to.match(/^iZ/);
    expect(ready.order.depositMemo ?? null).to.equal(null);
    const paymentId = paymentIdOf(address);
    // The integrated address is of the service's (watch-only) wallet.
    const decoded = decodeZanoAddress(address);
    const wallet = decodeZanoAddress(zano.hot.control.address);
    expect(Buffer.from(decoded.spendPublicKey).equals(Buffer.from(wallet.spendPublicKey))).to.equal(true);
    const amount = atomic(ready.order.depositAmount ?? ready.order.sourceAmount, 4);
    expect(amount).to.equal(500_000n);

    // Someone pays fUSD with another payment id (in the same pool as the customer's): it credits nothing.
    const otherPid = randomBytes(8).toString('hex');
    const stranger = zano.hot.control.receive({ paymentId: otherPid, assetId: FUSD_ASSET_ID, amount });
    // The customer pays, in the pool: seen, no confirmation.
    const txHash = zano.hot.control.receive({ paymentId, assetId: FUSD_ASSET_ID, amount });
    const seen = await client.waitFor(order.id, (o) => o.status === 'confirming', 30_000);
    expect(seen.order.sourceTxHash).to.equal(txHash);
    expect(seen.order.deposits?.map((d) => d.confirmationCount ?? 0)).to.deep.equal([0]);

    // Confirmations grow with blocks; it is credited only at ZANO_CONFIRMATIONS.
    for (let n = 1; n < ZANO_CONFIRMATIONS; n++) {
      zano.hot.control.mine(1);
      const at = await client.waitFor(order.id, (o) => o.deposits?.[0]?.confirmationCount === n, 30_000);
      expect(at.order.status, `at ${n} confirmation(s)`).to.equal('confirming');
    }
    zano.hot.control.mine(1);
    await client.waitFor(order.id, (o) => o.status === 'sending', 60_000);
    await devnet.mineLtc(LTC_CONFIRMATIONS);
    const done = await client.waitFor(order.id, (o) => ['finished', 'review', 'refunded'].includes(o.status), 60_000);
    expect(done.order.status, JSON.stringify(done)).to.equal('finished');
    // An event per confirmation count below ZANO_CONFIRMATIONS (0, 1, 2), then exchanged and paid.
    expect(done.events.map((e) => e.status)).to.deep.equal([
      'waiting',
      ...Array.from({ length: ZANO_CONFIRMATIONS }, () => 'confirming'),
      'exchanging',
      'sending',
      'finished',
    ]);
    expect(done.order.actualOutputAmount).to.equal(quote.receiveAmount);
    // One deposit, the customer's; the stranger's payment is in no swap and in no ledger row of the swap's address.
    expect(done.order.deposits?.map((d) => d.txHash)).to.deep.equal([txHash]);
    const ledger = await db.query<{ tx_hash: string }>("select tx_hash from chain_outputs where network = 'ZANO'");
    expect(ledger.rows.map((r) => r.tx_hash)).to.not.include(stranger);
    // The LTC arrived, exactly.
    const received = await devnet.litecoin.call<Array<{ txids: string[]; amount: number | string }>>(
      'listreceivedbyaddress',
      [0, true, false, destination],
      devnet.wallets.customer,
    );
    expect(received.map((r) => r.txids)).to.deep.equal([[done.order.settlementTxHash]]);
    expect(new Money(String(received[0]!.amount)).eq(new Money(quote.receiveAmount))).to.equal(true);
  });

  async function ops(...args: string[]): Promise<{ code: number | null; output: string }> {
    const child = spawnGroup(process.execPath, ['--import', 'tsx', 'scripts/ops.ts', ...args], devnet.env(0), ROOT);
    const code = await new Promise<number | null>((resolve) => child.process.once('exit', resolve));
    return { code, output: child.output() };
  }
  const heldOutputs = async () => {
    const listed = await ops('outputs', 'held', '--json');
    expect(listed.code, listed.output).to.equal(0);
    return JSON.parse(listed.output.slice(listed.output.indexOf('['))) as Array<Record<string, unknown>>;
  };

  it('never credits an unknown asset or a transfer with unlock_time to a swap address: both are held for an operator', async () => {
    const destination = await devnet.litecoin.call<string>('getnewaddress', ['', 'bech32'], devnet.wallets.customer);
    const { order } = await client.create(fusdToLtc('40'), { destinationAddress: destination });
    const ready = await waitForAddress(order);
    const paymentId = paymentIdOf(ready.order.depositAddress!);
    const amount = atomic(ready.order.depositAmount ?? ready.order.sourceAmount, 4);
    const top = zano.hot.control.height();
    const unknownAsset = randomBytes(32).toString('hex');
    const strange = zano.hot.control.receive({
      paymentId,
      assetId: unknownAsset,
      amount: 400_000n,
      height: top,
      assetInfo: { ticker: 'FAKE', full_name: 'Not fUSD', decimal_point: 4 },
    });
    // The right asset and amount, but locked until a height far ahead.
    const locked = zano.hot.control.receive({ paymentId, assetId: FUSD_ASSET_ID, amount, height: top, unlockTime: top + 1000 });
    zano.hot.control.mine(ZANO_CONFIRMATIONS + 2);

    const logged = () => server.child.output();
    await eventually(async () => (logged().includes(strange) && logged().includes(locked) ? true : undefined), 30_000);
    const lines = logged()
      .split('\n')
      .filter((line) => line.includes(strange) || line.includes(locked))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const about = (txHash: string) => lines.filter((l) => l.txHash === txHash);
    expect(about(strange), 'logged once').to.have.length(1);
    expect(about(strange)[0]).to.include({ paymentId, assetId: unknownAsset, address: ready.order.depositAddress });
    expect(String(about(strange)[0]!.msg)).to.match(/unknown asset.*not credited/);
    expect(about(locked), 'logged once').to.have.length(1);
    expect(about(locked)[0]).to.include({ paymentId, assetId: FUSD_ASSET_ID, unlockTime: String(top + 1000) });
    expect(String(about(locked)[0]!.msg)).to.match(/unlock_time.*not credited/);

    // Scans go on (more blocks, a few scans): the swap still waits, with no deposit.
    zano.hot.control.mine(2);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const after = await client.get(order.id);
    expect(after.order.status).to.equal('waiting');
    expect(after.order.deposits ?? []).to.deep.equal([]);
    // Both are in the ledger, held (credited by nothing), and the ops CLI lists them with their reasons.
    const ledger = await db.query(
      "select tx_hash, asset, held_reason from chain_outputs where network = 'ZANO' and tx_hash = any($1) order by tx_hash",
      [[strange, locked]],
    );
    expect(ledger.rows.map((r) => [r.tx_hash, r.asset])).to.have.deep.members([
      [strange, `zano-asset:${unknownAsset}`],
      [locked, 'fUSD'],
    ]);
    const listed = await heldOutputs();
    const entry = (hash: string) => listed.filter((o) => o.txHash === hash);
    expect(entry(strange)).to.have.length(1);
    expect(entry(strange)[0]).to.include({ network: 'ZANO', address: ready.order.depositAddress, amount: '400000' });
    expect(String(entry(strange)[0]!.reason)).to.match(/unknown asset/);
    expect(entry(locked)).to.have.length(1);
    expect(entry(locked)[0]).to.include({ asset: 'fUSD', address: ready.order.depositAddress });
    expect(String(entry(locked)[0]!.reason)).to.match(/unlock_time/);

    // They survive a restart, once each (the new process scans the same history again).
    expect(await server.stop()).to.equal(0);
    ({ server, client } = await startServer());
    zano.hot.control.mine(1);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const again = await heldOutputs();
    expect(again.filter((o) => o.txHash === strange || o.txHash === locked)).to.have.length(2);
    expect((await client.get(order.id)).order.status).to.equal('waiting');

    // An operator deals with one: it leaves the list, and the trail keeps who and why.
    const key = String(entry(strange)[0]!.key);
    const resolved = await ops('outputs', 'resolve', key, '--reason', 'sent back to the sender by hand');
    expect(resolved.code, resolved.output).to.equal(0);
    expect((await heldOutputs()).map((o) => o.txHash)).to.not.include(strange);
    console.log(`      held: ${strange} (unknown asset), ${locked} (unlock_time); ${key} resolved`);
  });

  it('an fUSD payout killed between signing and submit_transfer: a restart submits the committed tx once, signed once', async () => {
    // The shared server steps aside (stopped, it gives its leases up): the servers here do the payout.
    expect(await server.stop()).to.equal(0);
    const proxy = await startRpcProxy(zano.hot.url);
    proxies.push(proxy);
    const first = await startServer({ ZANO_RPC_URL: proxy.url });
    const signsBefore = zano.signer.control.calls.filter((c) => c.method === 'sign_transfer').length;
    const transfersBefore = zano.hot.control.calls.filter((c) => c.method === 'transfer').length;
    const submissionsBefore = zano.hot.control.submissions.length;

    const wallet = freshZanoWallet();
    const created = await first.client.send<Route>(
      'POST',
      '/api/v1/permanent-routes',
      await signRouteRequest(first.client, USER, { destinationAsset: 'fUSD', wallet }),
    );
    expect(created.status, created.text).to.equal(201);
    const route = await waitForAddresses(first.client, created.body.route_id, 30_000);
    const killed = proxy.arm('submit_transfer', 'before', () => first.server.stop('SIGKILL'));
    const txid = await devnet.payLtc(route.addresses['LTC/LTC']!, '0.5');
    await devnet.mineLtc(LTC_CONFIRMATIONS);
    const submit = await killed;
    expect(first.server.child.process.signalCode).to.equal('SIGKILL');
    const signedHex = (submit.params as unknown as { tx_signed_hex: string }).tx_signed_hex;

    // What the kill left: the payout signed and committed, never submitted to the wallet.
    const payoutsTo = async () =>
      (
        await db.query<PayoutRow>(
          "select id, status, tx_hash, signed_bytes, amount::text from payouts where network = 'ZANO' and address = $1",
          [wallet.address],
        )
      ).rows;
    const [left, ...others] = await payoutsTo();
    expect(others).to.deep.equal([]);
    expect(left).to.include({ status: 'signed', signed_bytes: signedHex });
    const hash = left!.tx_hash!;
    expect(hash).to.match(/^[0-9a-f]{64}$/);
    expect(zano.hot.control.submissions.length).to.equal(submissionsBefore);
    const signs = () => zano.signer.control.calls.filter((c) => c.method === 'sign_transfer');
    expect(signs().length - signsBefore, 'signed once before the kill').to.equal(1);

    // A restart, the proxy passing everything, on the expired leases of the killed process.
    await expireLeasesOf(db, first.server);
    const second = await startServer({ ZANO_RPC_URL: proxy.url });
    const submitted = await eventually(async () => {
      const found = zano.hot.control.submissions.filter((s) => s.txHash === hash);
      return found.length > 0 ? found : undefined;
    }, 30_000);
    zano.hot.control.mine(ZANO_CONFIRMATIONS);
    const deposits = `/api/v1/permanent-routes/${route.route_id}/deposits`;
    const finished = await eventually(async () => {
      const list = await second.client.send<DepositList>('GET', deposits);
      const deposit = list.body.deposits.find((d) => d.txHash === txid);
      return deposit?.status === 'finished' ? deposit : undefined;
    }, 60_000);
    expect(finished.settlementTxHash).to.equal(hash);

    // Exactly one submit_transfer reached the wallet for it, with the committed bytes; it was accepted.
    const forPayout = zano.hot.control.submissions.slice(submissionsBefore);
    expect(
      forPayout.map((s) => [s.txHash, s.accepted]),
      `submissions; the proxy saw ${proxy.calls.map((c) => c.method).join(', ')}`,
    ).to.deep.equal([[hash, true]]);
    expect(submitted).to.have.length(1);
    const submits = proxy.calls.filter((c) => c.method === 'submit_transfer');
    expect(submits.map((c) => (c.params as unknown as { tx_signed_hex: string }).tx_signed_hex)).to.deep.equal([signedHex, signedHex]);
    // One unsigned tx built by the watch-only wallet, signed once by the signer: never signed again.
    expect(zano.hot.control.calls.filter((c) => c.method === 'transfer').length - transfersBefore, 'one transfer built').to.equal(1);
    expect(signs().length - signsBefore, 'one sign_transfer').to.equal(1);
    const unsigned = signs().map((c) => (c.params as { tx_unsigned_hex: string }).tx_unsigned_hex);
    expect(new Set(unsigned).size, 'no unsigned tx signed twice').to.equal(unsigned.length);
    const [done] = await payoutsTo();
    expect(done).to.include({ status: 'confirmed', tx_hash: hash, signed_bytes: signedHex });
    expect(await second.server.stop()).to.equal(0);
  });
});
