/**
 * Batched payouts (docs/payouts.md "Batching", jobs/payout-sender.ts sendBatches), proved on litecoind regtest
 * with the real server process in production mode (test/support/devnet.ts), LTC_PAYOUT_BATCH_MAX=4 (a batch
 * leaves as soon as four payouts wait; the window, LTC_PAYOUT_BATCH_SECONDS, is long so that nothing leaves
 * earlier):
 * - four payouts due together leave in one transaction, each destination paid its own amount (read from the
 *   node), each payout its own swap, all finished on that hash;
 * - killed between storing the batch and broadcasting it (a JSON-RPC proxy kills the server's process group at
 *   the broadcast), a restart broadcasts the stored transaction: one transaction, nothing signed again;
 * - a batch left out of blocks by the mining node's -blockmintxfee is bumped as one (CPFP through its change:
 *   litecoind 0.21 takes no replacement) until mined, every output kept;
 * - a payout whose address the node refuses is taken out and held; the three others go out together;
 * - the virtual size per payout of a batch of 1, 4 and 10 against one transaction each (printed).
 *
 * Skipped, with the reason printed, where litecoind, anvil or PostgreSQL is missing.
 */
import { expect } from 'chai';
import { Decimal } from 'decimal.js';
import pg from 'pg';
import { createBitcoinAdapters, parseBitcoinParams } from '../../server/adapters/bitcoin/index.js';
import type { CatalogAsset } from '../../server/domain/catalog.js';
import { ANVIL_KEY_1 } from '../support/anvil.js';
import { createDevnetPartner, startDevnet, startDevnetServer, type Devnet, type DevnetServer } from '../support/devnet.js';
import { devnetClient, DEVNET_ADMIN_URL, eventually, skipWithoutDevnet, usdtToLtc } from '../support/production.js';
import { startRpcProxy, type RpcProxy } from '../support/rpc-proxy.js';

/** The Litecoin node that mines leaves out anything paying less than this (coin per kvB). */
const BLOCK_MIN_TX_FEE = '0.0005';
/** Every server here: a batch of at most four leaves once four wait (the window never runs out in a test). */
const BATCHING = {
  LTC_PAYOUT_BATCH_SECONDS: '600',
  LTC_PAYOUT_BATCH_MAX: '4',
  // Above the mining node's -blockmintxfee: a batch is mined in the next block.
  LTC_FALLBACK_FEE_RATE: '0.001',
  RATE_LIMIT_SIGNED_PER_MINUTE: '100000',
  RATE_LIMIT_SWAPS_PER_MINUTE: '1000',
  RATE_LIMIT_QUOTES_PER_MINUTE: '1000',
};
/** USDT paid in by each of four swaps (about 0.3 LTC out each: one 2 LTC coin of the hot wallet pays all four). */
const AMOUNTS = ['25', '26', '27', '28'];

interface PayoutRow {
  id: string;
  swap_id: string;
  status: string;
  tx_hash: string | null;
  batch_id: string | null;
  address: string;
  amount: string;
  held_reason: string | null;
}

interface Vout {
  n: number;
  value: string | number;
  scriptPubKey: { address?: string; addresses?: string[] };
}

describe('batched payouts on litecoind (the server process in production mode)', function () {
  this.timeout(120_000);
  let devnet: Devnet;
  let partner: { keyId: string; secret: string };
  let db: pg.Client;
  const servers: DevnetServer[] = [];
  const proxies: RpcProxy[] = [];

  before(async function () {
    await skipWithoutDevnet(this);
    devnet = await startDevnet({
      adminUrl: DEVNET_ADMIN_URL,
      confirmations: { LTC: 1, ETH: 1 },
      ltcNode: { args: [`-blockmintxfee=${BLOCK_MIN_TX_FEE}`], fallbackFee: '0.001' },
    });
    partner = await createDevnetPartner(devnet, 'Payout batches');
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
        'select idempotency_key, status, tx_hash, batch_id, refusals, held_reason, last_error from payouts order by created_at',
      );
      console.log(JSON.stringify(payouts.rows, null, 1));
    }
    while (servers.length > 0)
      await servers
        .pop()!
        .stop()
        .catch(() => undefined);
  });

  async function startServer(env: Record<string, string> = {}) {
    const server = await startDevnetServer(devnet, { env: { ...BATCHING, ...env } });
    servers.push(server);
    return { server, client: devnetClient(server, partner) };
  }

  const payoutsOf = async (swapIds: string[]) =>
    (
      await db.query<PayoutRow>(
        `select id, swap_id, status, tx_hash, batch_id, address, amount::text as amount, held_reason from payouts
          where swap_id = any($1::uuid[]) order by created_at`,
        [swapIds],
      )
    ).rows;

  const swapStatuses = async (swapIds: string[]) =>
    (
      await db.query<{ id: string; status: string; settlement_tx_hash: string | null }>(
        'select id, status, settlement_tx_hash from swaps where id = any($1::uuid[])',
        [swapIds],
      )
    ).rows;

  /** Four USDT -> LTC swaps to fresh addresses of the customer's, paid and mined (anvil mines at once). */
  async function fourSwaps(client: ReturnType<typeof devnetClient>, corrupt?: number) {
    const created: Array<{ id: string; destination: string; amount: string }> = [];
    for (const amount of AMOUNTS) {
      const destination = await devnet.litecoin.call<string>('getnewaddress', ['', 'bech32'], devnet.wallets.customer);
      const { order } = await client.create(usdtToLtc(amount), { destinationAddress: destination });
      created.push({ id: order.id, destination, amount });
    }
    if (corrupt !== undefined) {
      // A destination the node refuses (the API checks addresses by their format; this stands for one the node
      // will not pay): the payout is committed to it.
      created[corrupt]!.destination = 'rltc1qthisisnotanaddress';
      await db.query('update swaps set destination = $1 where id = $2', [created[corrupt]!.destination, created[corrupt]!.id]);
    }
    const addresses = await eventually(async () => {
      const { rows } = await db.query<{ id: string; deposit_address: string | null }>(
        'select id, deposit_address from swaps where id = any($1::uuid[])',
        [created.map((c) => c.id)],
      );
      return rows.length === created.length && rows.every((r) => r.deposit_address)
        ? new Map(rows.map((r) => [r.id, r.deposit_address!]))
        : undefined;
    }, 30_000);
    for (const swap of created) await devnet.payUsdt(ANVIL_KEY_1, addresses.get(swap.id)!, swap.amount);
    return created;
  }

  /** The payouts of `swapIds` once every one has a hash (or is held), as the database has them. */
  const signedPayouts = (swapIds: string[], count = swapIds.length) =>
    eventually(
      async () => {
        const rows = await payoutsOf(swapIds);
        return rows.length === count && rows.every((r) => r.tx_hash !== null || r.status === 'failed') ? rows : undefined;
      },
      60_000,
      async () => JSON.stringify(await payoutsOf(swapIds)),
    );

  // From the watch-only wallet (mined or not: the node keeps no transaction index).
  const decoded = async (txid: string) => {
    const { hex } = await devnet.litecoin.call<{ hex: string }>('gettransaction', [txid, true], devnet.wallets.watch);
    return devnet.litecoin.call<{ txid: string; vsize: number; vout: Vout[] }>('decoderawtransaction', [hex]);
  };
  const addressOf = (o: Vout) => o.scriptPubKey.address ?? o.scriptPubKey.addresses?.[0];

  /** Asserts `txid` pays every payout of `payouts` its own amount, at the output its batch version names. */
  async function expectPaysEach(txid: string, payouts: PayoutRow[]) {
    const tx = await decoded(txid);
    const [version] = (
      await db.query<{ outputs: Record<string, number> }>(
        "select outputs from payout_batch_versions where tx_hash = $1 and kind = 'payment'",
        [txid],
      )
    ).rows;
    expect(version, 'the batch version is stored').to.not.equal(undefined);
    for (const payout of payouts) {
      const paying = tx.vout.filter((o) => addressOf(o) === payout.address);
      expect(paying, payout.address).to.have.length(1);
      expect(new Decimal(String(paying[0]!.value)).eq(payout.amount), `${paying[0]!.value} to ${payout.address}`).to.equal(true);
      expect(version!.outputs[payout.id]).to.equal(paying[0]!.n);
    }
    // And the change, nothing else.
    expect(tx.vout).to.have.length(payouts.length + 1);
    return tx;
  }

  const finished = (swapIds: string[], timeoutMs = 60_000) =>
    eventually(async () => {
      const rows = await swapStatuses(swapIds);
      return rows.every((r) => ['finished', 'review', 'refunded', 'failed'].includes(r.status)) ? rows : undefined;
    }, timeoutMs);

  /** The hot wallet's sends since block `startHash`. */
  const sendsSince = async (startHash: string) => {
    const since = await devnet.litecoin.call<{ transactions: Array<{ category: string; txid: string }> }>(
      'listsinceblock',
      [startHash, 1, true],
      devnet.wallets.watch,
    );
    return [...new Set(since.transactions.filter((t) => t.category === 'send').map((t) => t.txid))];
  };

  it('sends four payouts due together in one transaction, each destination its own amount, each swap finished on it', async () => {
    const { client } = await startServer();
    const startHash = await devnet.litecoin.call<string>('getbestblockhash');
    const swaps = await fourSwaps(client);
    const ids = swaps.map((s) => s.id);
    const payouts = await signedPayouts(ids);
    const hashes = new Set(payouts.map((p) => p.tx_hash));
    expect(hashes.size, JSON.stringify(payouts)).to.equal(1);
    expect(new Set(payouts.map((p) => p.batch_id)).size).to.equal(1);
    const [txid] = [...hashes] as string[];
    await eventually(async () => ((await devnet.litecoin.call<string[]>('getrawmempool')).includes(txid!) ? true : undefined), 30_000);
    const tx = await expectPaysEach(txid!, payouts);
    for (const swap of swaps)
      expect(
        payouts.find((p) => p.address === swap.destination),
        swap.destination,
      ).to.not.equal(undefined);

    await devnet.mineLtc(1);
    const done = await finished(ids);
    for (const swap of done) expect(swap, JSON.stringify(swap)).to.include({ status: 'finished', settlement_tx_hash: txid });
    expect(await sendsSince(startHash)).to.deep.equal([txid]);
    console.log(`      one transaction ${txid}: ${tx.vout.length} outputs, ${tx.vsize} vB for ${payouts.length} payouts`);
  });

  it('killed between storing the batch and broadcasting it, a restart broadcasts the stored transaction; one transaction', async () => {
    const proxy = await startRpcProxy(devnet.litecoin.url(devnet.wallets.watch));
    proxies.push(proxy);
    const first = await startServer({ LTC_RPC_URL: proxy.url });
    const startHash = await devnet.litecoin.call<string>('getbestblockhash');
    const killed = proxy.arm('sendrawtransaction', 'before', () => first.server.stop('SIGKILL'));
    const swaps = await fourSwaps(first.client);
    const ids = swaps.map((s) => s.id);
    const broadcast = await killed;
    const { txid } = await devnet.litecoin.call<{ txid: string }>('decoderawtransaction', [broadcast.params[0]]);

    // What the kill left: the batch stored with the bytes the proxy saw, every payout signed with its hash.
    const left = await payoutsOf(ids);
    expect(left.map((p) => p.status)).to.deep.equal(['signed', 'signed', 'signed', 'signed']);
    expect(new Set(left.map((p) => p.tx_hash))).to.deep.equal(new Set([txid]));
    const stored = await db.query<{ signed_bytes: string; broadcast_at: Date | null }>(
      'select signed_bytes, broadcast_at from payout_batch_versions where batch_id = $1',
      [left[0]!.batch_id],
    );
    expect(stored.rows).to.have.length(1);
    expect(stored.rows[0]).to.include({ signed_bytes: broadcast.params[0], broadcast_at: null });
    expect(await devnet.litecoin.call<string[]>('getrawmempool')).to.not.include(txid);

    await db.query("update chain_watch_leases set expires_at = now() - interval '1 second'");
    await startServer({ LTC_RPC_URL: proxy.url });
    await eventually(async () => ((await devnet.litecoin.call<string[]>('getrawmempool')).includes(txid) ? true : undefined), 30_000);
    await devnet.mineLtc(1);
    const done = await finished(ids);
    for (const swap of done) expect(swap, JSON.stringify(swap)).to.include({ status: 'finished', settlement_tx_hash: txid });
    // One transaction: the stored one, broadcast again; nothing was signed again.
    expect(await sendsSince(startHash)).to.deep.equal([txid]);
    const broadcasts = proxy.calls.filter((c) => c.method === 'sendrawtransaction').map((c) => c.params[0]);
    expect(new Set(broadcasts)).to.deep.equal(new Set([broadcast.params[0]]));
    const versions = await db.query('select 1 from payout_batch_versions where batch_id = $1', [left[0]!.batch_id]);
    expect(versions.rows).to.have.length(1);
    const batches = await db.query('select distinct batch_id from payouts where swap_id = any($1::uuid[])', [ids]);
    expect(batches.rows).to.have.length(1);
    await expectPaysEach(txid, left);
  });

  it('bumps a batch left out of blocks by -blockmintxfee as one (CPFP through its change) until mined, every output kept', async () => {
    const { client } = await startServer({ LTC_FALLBACK_FEE_RATE: '0.0003', LTC_REPLACE_AFTER_SECONDS: '2', LTC_MAX_FEE_RATE: '0.01' });
    const swaps = await fourSwaps(client);
    const ids = swaps.map((s) => s.id);
    const payouts = await signedPayouts(ids);
    const payment = payouts[0]!.tx_hash!;
    const miner = setInterval(() => void devnet.mineLtc(1).catch(() => undefined), 1_000);
    try {
      const done = await finished(ids, 90_000);
      for (const swap of done) expect(swap, JSON.stringify(swap)).to.include({ status: 'finished', settlement_tx_hash: payment });
    } finally {
      clearInterval(miner);
    }
    const versions = (
      await db.query<{ version: number; kind: string; tx_hash: string; fee: string }>(
        'select version, kind, tx_hash, fee from payout_batch_versions where batch_id = $1 order by version',
        [payouts[0]!.batch_id],
      )
    ).rows;
    // One payment (the hash every payout and swap names), and the children that paid for it.
    expect(versions.filter((v) => v.kind === 'payment').map((v) => v.tx_hash)).to.deep.equal([payment]);
    expect(versions.filter((v) => v.kind === 'boost').length).to.be.at.least(1);
    expect(new Decimal(versions[0]!.fee).lessThan(BLOCK_MIN_TX_FEE)).to.equal(true);
    expect(new Decimal(versions.at(-1)!.fee).greaterThanOrEqualTo(BLOCK_MIN_TX_FEE)).to.equal(true);
    for (const version of versions) {
      const tx = await devnet.litecoin.call<{ confirmations: number }>('gettransaction', [version.tx_hash, true], devnet.wallets.watch);
      expect(tx.confirmations, version.tx_hash).to.be.above(0);
    }
    // Every output kept: the mined payment pays each destination its amount.
    await expectPaysEach(payment, await payoutsOf(ids));
    console.log(`      batch bumped: ${versions.map((v) => `v${v.version} ${v.kind} ${v.fee} LTC/kvB`).join(', ')}`);
  });

  it('takes a payout whose address the node refuses out of its batch and holds it; the three others go out together', async () => {
    const { client } = await startServer();
    const swaps = await fourSwaps(client, 1);
    const ids = swaps.map((s) => s.id);
    const payouts = await signedPayouts(ids);
    const refused = payouts.find((p) => p.swap_id === swaps[1]!.id)!;
    expect(refused).to.include({ status: 'failed', tx_hash: null, batch_id: null });
    expect(refused.held_reason).to.match(/invalid/i);
    const sent = payouts.filter((p) => p.id !== refused.id);
    expect(new Set(sent.map((p) => p.tx_hash)).size, JSON.stringify(payouts)).to.equal(1);
    const txid = sent[0]!.tx_hash!;
    await eventually(async () => ((await devnet.litecoin.call<string[]>('getrawmempool')).includes(txid) ? true : undefined), 30_000);
    await expectPaysEach(txid, sent);
    await devnet.mineLtc(1);
    const done = await finished(ids);
    for (const swap of done) {
      if (swap.id === refused.swap_id) expect(swap.status).to.equal('review');
      else expect(swap, JSON.stringify(swap)).to.include({ status: 'finished', settlement_tx_hash: txid });
    }
    console.log(`      refused: ${refused.held_reason}`);
  });

  it('measures the virtual size per payout of a batch of 1, 4 and 10 against one transaction each', async () => {
    const env = devnet.env(0);
    const sender = createBitcoinAdapters({
      network: 'LTC',
      rpcUrl: devnet.litecoin.url(devnet.wallets.watch),
      signerRpcUrl: devnet.signerNode.url(devnet.wallets.signer),
      xpub: env.LTC_XPUB!,
      params: parseBitcoinParams('LTC', 'regtest'),
      payoutConfirmations: 1,
      fallbackFeeRate: '0.001',
    }).sender;
    await devnet.mineLtc(1);
    const asset = { symbol: 'LTC', network: 'LTC' } as CatalogAsset;
    const orders = [];
    for (let i = 0; i < 10; i++) {
      const address = await devnet.litecoin.call<string>('getnewaddress', ['', 'bech32'], devnet.wallets.customer);
      orders.push({ key: `vsize-${i}`, swapId: 'vsize', asset, address, memo: null, amount: '0.01' });
    }
    const vsizeOf = async (hex: string) => (await devnet.litecoin.call<{ vsize: number }>('decoderawtransaction', [hex])).vsize;
    const single = [];
    for (const order of orders) {
      const signed = await sender.prepare(order);
      single.push(await vsizeOf(signed.bytes));
      await sender.discard!(signed);
    }
    const rows: Array<{ n: number; batch: number; alone: number }> = [];
    for (const n of [1, 4, 10]) {
      const { signed } = await sender.prepareBatch!(orders.slice(0, n));
      const batch = await vsizeOf(signed!.bytes);
      await sender.discard!(signed!);
      rows.push({ n, batch, alone: single.slice(0, n).reduce((a, b) => a + b, 0) });
    }
    for (const { n, batch, alone } of rows) {
      console.log(
        `      ${String(n).padStart(2)} payouts: batch ${batch} vB (${(batch / n).toFixed(1)} vB each); one each ${alone} vB (${(alone / n).toFixed(1)} vB each)`,
      );
    }
    expect(rows[0]!.batch).to.be.closeTo(rows[0]!.alone, 1);
    expect(rows[1]!.batch / 4).to.be.below(rows[1]!.alone / 4 / 2);
    expect(rows[2]!.batch / 10).to.be.below(rows[2]!.alone / 10 / 3);
  });
});
