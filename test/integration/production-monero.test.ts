/**
 * Monero in production mode, end to end through the real server process and HTTP, on real monerod (`--regtest
 * --offline`, test/support/monerod.ts) next to real Litecoin Core and anvil (test/support/devnet.ts):
 * - XMR to LTC: the deposit address is an integrated address of the service's view-only wallet, the customer
 *   pays it from a regtest wallet, confirmations count by height, the deposit is credited at XMR_CONFIRMATIONS
 *   and the LTC payout finishes the swap;
 * - LTC to XMR: the payout by cold signing (the view-only wallet builds, the offline signer signs, the
 *   view-only wallet submits); the customer's wallet receives exactly actualOutputAmount, once, and
 *   settlementTxHash is the Monero transaction's hash;
 * - the server killed between sign_transfer and submit_transfer: a restart submits the committed signed set,
 *   once, and nothing is signed again;
 * - a reorganisation (monerod pop_blocks) that removes an XMR deposit before it is credited returns the swap
 *   to waiting;
 * - quotes paying XMR are bounded by the view-only wallet's unlocked balance (a locked coinbase does not
 *   count), and refundMode sender is refused on XMR;
 * - a permanent route takes XMR: its XMR address is an integrated address of the view-only wallet, and a
 *   payment to it converts and settles in fUSD;
 * - Monero has no fee bumping: a payout left out of blocks XMR_HOLD_UNMINED_SECONDS is held for an operator,
 *   whose approval broadcasts the same transaction again; it is mined and paid once.
 *
 * Skipped, with the reason printed, where monerod, litecoind, anvil or PostgreSQL is missing.
 */
import { expect } from 'chai';
import { Decimal } from 'decimal.js';
import pg from 'pg';
import { decodeMoneroAddress } from '../../server/domain/monero-address.js';
import { formatPiconero, parsePiconero } from '../../server/adapters/monero/rpc.js';
import { createDevnetPartner, startDevnet, startDevnetServer, type Devnet, type DevnetServer } from '../support/devnet.js';
import { expectError } from '../support/http.js';
import { moneroMissing, type MoneroNet } from '../support/monerod.js';
import { spawnGroup } from '../support/process.js';
import { devnetClient, DEVNET_ADMIN_URL, eventually, expireLeasesOf, skipWithoutDevnet } from '../support/production.js';
import { startRpcProxy, type RpcProxy } from '../support/rpc-proxy.js';
import { freshZanoWallet, signRouteRequest, waitForAddresses, type DepositList, type Route } from '../support/routes.js';
import { swapClient } from '../support/swaps.js';

const USER = 'monero-customer';
const ROOT = new URL('../..', import.meta.url).pathname;
const XMR_CONFIRMATIONS = 2;
const LTC_CONFIRMATIONS = 1;

interface PayoutRow {
  id: string;
  status: string;
  tx_hash: string | null;
  signed_bytes: string | null;
  amount: string;
}

describe('Monero in production (XMR in and out, through the server process, on real monerod)', function () {
  this.timeout(300_000);
  let devnet: Devnet;
  let xmr: MoneroNet;
  let partner: { keyId: string; secret: string };
  let db: pg.Client;
  let server: DevnetServer;
  let client: ReturnType<typeof swapClient>;
  const servers: DevnetServer[] = [];
  const proxies: RpcProxy[] = [];

  async function startServer(env: Record<string, string> = {}) {
    const started = await startDevnetServer(devnet, {
      env: { LIQUIDITY_PARTNER_SHARE_PERCENT: '100', ROUTE_POLL_SECONDS: '1', ROUTE_EXPECT_POLL_SECONDS: '1', ...env },
    });
    servers.push(started);
    return { server: started, client: devnetClient(started, partner, USER) };
  }

  before(async function () {
    await skipWithoutDevnet(this);
    if (moneroMissing) {
      console.log(`      skipped: ${moneroMissing}`);
      this.skip();
    }
    devnet = await startDevnet({
      adminUrl: DEVNET_ADMIN_URL,
      confirmations: { LTC: LTC_CONFIRMATIONS, XMR: XMR_CONFIRMATIONS, ZANO: 1 },
      monero: { hotBlocks: 2 },
      // Permanent routes settle in fUSD or ZANO (the Zano wallet RPC stand-ins).
      zano: true,
    });
    xmr = devnet.monero!;
    partner = await createDevnetPartner(devnet, 'Production Monero');
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

  /** The customer pays `amount` XMR to `address` from its regtest wallet; the transaction's hash. */
  const payXmr = async (address: string, amount: string) => {
    await xmr.customer.call('refresh', {});
    const paid = await xmr.customer.call<{ tx_hash: string }>('transfer', { destinations: [{ address, amount: parsePiconero(amount) }] });
    return paid.tx_hash;
  };
  /** A fresh subaddress of the customer's wallet, and what it received so far. */
  const customerSubaddress = async () => {
    const { address, address_index: index } = await xmr.customer.call<{ address: string; address_index: number }>('create_address', {
      account_index: 0,
    });
    const received = async () => {
      await xmr.customer.call('refresh', {});
      const { in: incoming = [] } = await xmr.customer.call<{ in?: Array<{ txid: string; amount: bigint }> }>('get_transfers', {
        in: true,
        subaddr_indices: [index],
        account_index: 0,
      });
      return incoming;
    };
    return { address, received };
  };
  /** Mines a block (to the customer) each poll until `probe` holds. */
  const minedUntil = <T>(probe: () => Promise<T | undefined>, timeoutMs = 90_000) =>
    eventually(async () => {
      const found = await probe();
      if (found !== undefined) return found;
      await xmr.mine(1);
      return undefined;
    }, timeoutMs);
  /** A fresh address of the customer's Litecoin wallet. */
  const ltcAddress = () => devnet.litecoin.call<string>('getnewaddress', ['', 'bech32'], devnet.wallets.customer);
  /** A quote request of `sourceAmount` XMR to LTC, refunded to the customer's Monero wallet. */
  const xmrToLtc = (sourceAmount: string) => ({
    sourceAsset: 'XMR',
    sourceNetwork: 'XMR',
    destinationAsset: 'LTC',
    destinationNetwork: 'LTC',
    sourceAmount,
    refundMode: 'address',
    refundAddress: xmr.customerAddress,
  });
  const ltcToXmr = (sourceAmount: string, extra: Record<string, unknown> = {}) => ({
    sourceAsset: 'LTC',
    sourceNetwork: 'LTC',
    destinationAsset: 'XMR',
    destinationNetwork: 'XMR',
    sourceAmount,
    refundMode: 'address',
    ...extra,
  });

  it('swaps XMR to LTC: an integrated deposit address, credited at XMR_CONFIRMATIONS by height, paid out in LTC', async () => {
    const destination = await ltcAddress();
    const { order } = await client.create(xmrToLtc('0.5'), { destinationAddress: destination });
    const ready = await client.waitFor(order.id, (o) => typeof o.depositAddress === 'string', 30_000);
    const address = ready.order.depositAddress!;
    // An integrated address of the service's view-only wallet: its keys, and a payment id of its own.
    const decoded = decodeMoneroAddress(address);
    expect(decoded.kind).to.equal('integrated');
    const hot = decodeMoneroAddress(xmr.hotAddress);
    expect(Buffer.from(decoded.spendPublicKey).equals(Buffer.from(hot.spendPublicKey))).to.equal(true);

    const amount = ready.order.depositAmount ?? ready.order.sourceAmount;
    const txHash = await payXmr(address, amount);
    const seen = await eventually(async () => {
      const { order: o } = await client.get(order.id);
      return o.status === 'confirming' ? o : undefined;
    }, 30_000);
    expect(seen.sourceTxHash).to.equal(txHash);
    expect(seen.deposits?.[0]).to.include({ txHash, amount });
    await xmr.mine(XMR_CONFIRMATIONS);
    const paid = await eventually(async () => {
      const { order: o } = await client.get(order.id);
      if (o.status === 'sending') await devnet.mineLtc(1);
      return o.status === 'finished' ? o : undefined;
    }, 90_000);
    expect(paid.deposits?.[0]?.confirmationCount).to.be.at.least(XMR_CONFIRMATIONS);
    const received = await devnet.litecoin.call<unknown>('getreceivedbyaddress', [destination, 0], devnet.wallets.customer);
    expect(new Decimal(String(received)).toFixed(8)).to.equal(new Decimal(paid.actualOutputAmount!).toFixed(8));
    console.log(`      XMR deposit ${txHash} (${amount} XMR) -> ${paid.actualOutputAmount} LTC in ${paid.settlementTxHash}`);
  });

  it('swaps LTC to XMR by cold signing: the customer receives exactly actualOutputAmount, once, under the Monero hash', async () => {
    const target = await customerSubaddress();
    const refundAddress = await ltcAddress();
    const { order } = await client.create(ltcToXmr('0.5', { refundAddress }), { destinationAddress: target.address });
    const ready = await client.waitFor(order.id, (o) => typeof o.depositAddress === 'string', 30_000);
    await devnet.payLtc(ready.order.depositAddress!, ready.order.depositAmount ?? ready.order.sourceAmount);
    await devnet.mineLtc(LTC_CONFIRMATIONS);
    const done = await minedUntil(async () => {
      const { order: o } = await client.get(order.id);
      return o.status === 'finished' ? o : undefined;
    });
    expect(done.settlementTxHash).to.match(/^[0-9a-f]{64}$/);
    const incoming = await target.received();
    expect(incoming.map((t) => [t.txid, formatPiconero(t.amount)])).to.deep.equal([[done.settlementTxHash, done.actualOutputAmount]]);
    console.log(`      ${ready.order.sourceAmount} LTC -> ${done.actualOutputAmount} XMR in ${done.settlementTxHash}`);
  });

  it('a payout killed between sign_transfer and submit_transfer: a restart submits the committed set once, signed once', async () => {
    // The shared server steps aside (stopped, it gives its leases up), and comes back after.
    expect(await server.stop()).to.equal(0);
    try {
      await killedBetweenSignAndSubmit();
    } finally {
      ({ server, client } = await startServer());
    }
  });

  async function killedBetweenSignAndSubmit() {
    const view = await startRpcProxy(xmr.viewUrl);
    const signer = await startRpcProxy(xmr.signerUrl);
    proxies.push(view, signer);
    const proxied = { XMR_RPC_URL: view.url, XMR_SIGNER_RPC_URL: signer.url };
    const first = await startServer(proxied);
    const target = await customerSubaddress();
    const refundAddress = await ltcAddress();
    const { order } = await first.client.create(ltcToXmr('0.3', { refundAddress }), { destinationAddress: target.address });
    const ready = await first.client.waitFor(order.id, (o) => typeof o.depositAddress === 'string', 30_000);
    const killed = view.arm('submit_transfer', 'before', () => first.server.stop('SIGKILL'));
    await devnet.payLtc(ready.order.depositAddress!, ready.order.depositAmount ?? ready.order.sourceAmount);
    await devnet.mineLtc(LTC_CONFIRMATIONS);
    const submit = await killed;
    expect(first.server.child.process.signalCode).to.equal('SIGKILL');
    const signedSet = (submit.params as unknown as { tx_data_hex: string }).tx_data_hex;

    // What the kill left: the payout signed and committed with its hash, never submitted.
    const payouts = async () =>
      (
        await db.query<PayoutRow>(
          "select id, status, tx_hash, signed_bytes, amount::text from payouts where swap_id = $1 and purpose = 'payout'",
          [order.id],
        )
      ).rows;
    const [left, ...others] = await payouts();
    expect(others).to.deep.equal([]);
    expect(left).to.include({ status: 'signed', signed_bytes: signedSet });
    expect(left!.tx_hash).to.match(/^[0-9a-f]{64}$/);
    const signs = () => signer.calls.filter((c) => c.method === 'sign_transfer').length;
    expect(signs(), 'signed once before the kill').to.equal(1);

    // A restart on the killed process's expired leases: it submits the same set, and the swap finishes.
    await expireLeasesOf(db, first.server);
    const second = await startServer(proxied);
    const done = await minedUntil(async () => {
      const { order: o } = await second.client.get(order.id);
      return o.status === 'finished' ? o : undefined;
    });
    expect(done.settlementTxHash).to.equal(left!.tx_hash);
    const submits = view.calls.filter((c) => c.method === 'submit_transfer');
    expect(submits.map((c) => (c.params as unknown as { tx_data_hex: string }).tx_data_hex)).to.deep.equal([signedSet, signedSet]);
    expect(signs(), 'never signed again').to.equal(1);
    const incoming = await target.received();
    expect(incoming.map((t) => [t.txid, formatPiconero(t.amount)])).to.deep.equal([[left!.tx_hash, done.actualOutputAmount]]);
    const [final] = await payouts();
    expect(final).to.include({ status: 'confirmed', signed_bytes: signedSet });
    expect(await second.server.stop()).to.equal(0);
  }

  it('returns a swap to waiting when a reorganisation removes its XMR deposit before it is credited', async () => {
    const destination = await ltcAddress();
    const { order } = await client.create(xmrToLtc('0.4'), { destinationAddress: destination });
    const ready = await client.waitFor(order.id, (o) => typeof o.depositAddress === 'string', 30_000);
    const txHash = await payXmr(ready.order.depositAddress!, ready.order.depositAmount ?? ready.order.sourceAmount);
    // One block holds it: one confirmation of two.
    await xmr.mine(1);
    await eventually(async () => {
      const { order: o } = await client.get(order.id);
      return o.status === 'confirming' && o.deposits?.[0]?.confirmationCount === 1 ? o : undefined;
    }, 30_000);
    // The block goes, and the pool is emptied: the payment is gone from the chain. Two new blocks take its place
    // (a wallet sees a reorganisation once the daemon's chain has passed the height it had).
    await xmr.popBlocks(1);
    await xmr.mine(2);
    const back = await eventually(async () => {
      const { order: o } = await client.get(order.id);
      return o.status === 'waiting' ? o : undefined;
    }, 60_000);
    expect(back.sourceTxHash).to.equal(null);
    const [output] = (await db.query("select removed_at from chain_outputs where network = 'XMR' and tx_hash = $1", [txHash])).rows;
    expect(output.removed_at).to.not.equal(null);
    console.log(`      ${txHash} removed by pop_blocks: the swap waits again`);
  });

  it('bounds quotes paying XMR by the unlocked balance, and refuses refundMode sender on XMR', async () => {
    await xmr.view.call('refresh', {});
    const before = await xmr.view.call<{ balance: bigint; unlocked_balance: bigint }>('get_balance', { account_index: 0 });
    // A coinbase to the hot wallet: in the balance at once, locked for 60 blocks.
    await xmr.mine(1, xmr.hotAddress);
    await xmr.view.call('refresh', {});
    const after = await xmr.view.call<{ balance: bigint; unlocked_balance: bigint }>('get_balance', { account_index: 0 });
    expect(after.balance > before.balance).to.equal(true);
    const unlocked = Number(formatPiconero(after.unlocked_balance));
    const total = Number(formatPiconero(after.balance));
    expect(total).to.be.greaterThan(unlocked);
    // At the devnet's medians (LTC 80.05 USD, XMR 160.10 USD) an LTC is worth half an XMR: this many LTC are
    // worth an XMR amount between what is unlocked and the whole balance.
    const between = (unlocked + total).toFixed(4);
    const refundAddress = await ltcAddress();
    const refused = await client.send('POST', '/api/v1/quotes', ltcToXmr(between, { refundAddress }));
    expectError(refused, 409, 'amount_above_maximum');
    // The maximum is what the unlocked balance can pay (less what other quotes hold), valued in LTC.
    const maximum = Number((refused.body as { error: { details: { maximumSourceAmount: string } } }).error.details.maximumSourceAmount);
    expect(maximum).to.be.greaterThan(0);
    expect(maximum / 2).to.be.at.most(unlocked);
    const small = await client.send('POST', '/api/v1/quotes', ltcToXmr('0.3', { refundAddress }));
    expect(small.status, small.text).to.equal(200);

    const { refundAddress: _none, ...request } = xmrToLtc('0.5');
    const sender = await client.send('POST', '/api/v1/quotes', { ...request, refundMode: 'sender' });
    expectError(sender, 400, 'invalid_refund_address');
    console.log(
      `      unlocked ${unlocked} XMR, balance ${total} XMR: ${between} LTC (${(Number(between) / 2).toFixed(4)} XMR) refused, maximum ${maximum} LTC`,
    );
  });

  it('takes an XMR deposit to a permanent route: an integrated route address, converted and settled in fUSD', async () => {
    const wallet = freshZanoWallet();
    const created = await client.send<Route>(
      'POST',
      '/api/v1/permanent-routes',
      await signRouteRequest(client, USER, { destinationAsset: 'fUSD', wallet }),
    );
    expect(created.status, created.text).to.equal(201);
    const route = await waitForAddresses(client, created.body.route_id, 30_000);
    const address = route.addresses['XMR/XMR']!;
    expect(decodeMoneroAddress(address).kind).to.equal('integrated');
    const txHash = await payXmr(address, '0.5');
    const deposits = `/api/v1/permanent-routes/${route.route_id}/deposits`;
    const finished = await minedUntil(async () => {
      devnet.zano!.hot.control.mine(1);
      const list = await client.send<DepositList>('GET', deposits);
      const deposit = list.body.deposits.find((d) => d.txHash === txHash);
      return deposit?.status === 'finished' ? deposit : undefined;
    });
    expect(finished).to.include({ asset: 'XMR', network: 'XMR', amountBaseUnits: '500000000000' });
    expect(finished.settlementTxHash).to.be.a('string');
    console.log(`      route deposit ${txHash} (0.5 XMR) -> ${finished.actualOutputAmount} fUSD in ${finished.settlementTxHash}`);
  });

  it('holds a payout left out of blocks for an operator (no fee bumping); approved, the same transaction goes again, paid once', async () => {
    expect(await server.stop()).to.equal(0);
    try {
      const held = await startServer({ XMR_HOLD_UNMINED_SECONDS: '3' });
      const target = await customerSubaddress();
      const refundAddress = await ltcAddress();
      const { order } = await held.client.create(ltcToXmr('0.3', { refundAddress }), { destinationAddress: target.address });
      const ready = await held.client.waitFor(order.id, (o) => typeof o.depositAddress === 'string', 30_000);
      await devnet.payLtc(ready.order.depositAddress!, ready.order.sourceAmount);
      await devnet.mineLtc(LTC_CONFIRMATIONS);
      // No XMR block is mined: the payout stays in the pool, and is held once its time is up.
      const inReview = await eventually(async () => {
        const { order: o } = await held.client.get(order.id);
        return o.status === 'review' ? o : undefined;
      }, 90_000);
      expect(inReview.failureCode).to.equal('payout_failed');
      const [payout] = (
        await db.query<PayoutRow & { held_reason: string }>(
          "select id, status, tx_hash, signed_bytes, amount::text, held_reason from payouts where swap_id = $1 and purpose = 'payout'",
          [order.id],
        )
      ).rows;
      expect(payout).to.include({ status: 'review' });
      expect(payout!.held_reason).to.match(
        /^in no block \d+ s after its broadcast \(XMR_HOLD_UNMINED_SECONDS is 3\), and XMR has no fee bumping/,
      );

      const run = spawnGroup(
        process.execPath,
        [
          '--import',
          'tsx',
          'scripts/ops.ts',
          'review',
          'decide',
          order.id,
          '--exchange',
          '--reason',
          'still in the pool',
          '--actor',
          'ops',
        ],
        devnet.env(0),
        ROOT,
      );
      const code = await new Promise<number | null>((resolve) => run.process.once('exit', resolve));
      expect(code, run.output()).to.equal(0);
      const done = await minedUntil(async () => {
        const { order: o } = await held.client.get(order.id);
        return o.status === 'finished' ? o : undefined;
      });
      expect(done.settlementTxHash).to.equal(payout!.tx_hash);
      const incoming = await target.received();
      expect(incoming.map((t) => [t.txid, formatPiconero(t.amount)])).to.deep.equal([[payout!.tx_hash, done.actualOutputAmount]]);
      console.log(`      ${payout!.tx_hash}: ${payout!.held_reason.slice(0, 60)}...; approved, mined, paid once`);
      expect(await held.server.stop()).to.equal(0);
    } finally {
      ({ server, client } = await startServer());
    }
  });
});
