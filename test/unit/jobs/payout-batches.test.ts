/**
 * Batched payouts, the core's side (jobs/payout-sender.ts sendBatches, store/payouts.ts, store/chain-ledger.ts):
 * the real sender on an embedded database (PGlite, migrated), over a scripted Bitcoin-family adapter, with a
 * clock moved by hand. What litecoind itself does with a batch is test/integration/production-payout-batches.
 */
import { expect } from 'chai';
import type { Knex } from 'knex';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import {
  createAdapterRegistry,
  PayoutBuildError,
  type BroadcastOutcome,
  type PayoutOrder,
  type PayoutSender,
  type PreparedBatch,
  type SignedBatch,
  type SignedPayout,
} from '../../../server/adapters/chain.js';
import { createBitcoinAdapters, parseBitcoinParams } from '../../../server/adapters/bitcoin/index.js';
import { loadSandboxCatalog } from '../../../server/adapters/sandbox/catalog.js';
import { payoutBatchingOf } from '../../../server/jobs/payout-sends.js';
import { BUILD_ATTEMPTS, createPayoutSender, pickBatch, type PayoutBatching } from '../../../server/jobs/payout-sender.js';
import { readProductionConfig } from '../../../server/production-config.js';
import { recordPayoutBlocks } from '../../../server/store/chain-ledger.js';
import { migrate, openDatabase, type Database } from '../../../server/store/database.js';
import { listOpenPayoutIds, listUnminedPayoutIds, type PayoutRecord } from '../../../server/store/payouts.js';

const T0 = Date.parse('2026-06-14T09:00:00Z');
const BATCHING: PayoutBatching = { windowMs: 60_000, max: 3 };

const payout = (address: string, createdAt: number, retryAt: number | null = null) =>
  ({ id: randomUUID(), address, createdAt: new Date(createdAt), retryAt: retryAt === null ? null : new Date(retryAt) }) as PayoutRecord;

describe('batched payouts: the core (jobs/payout-sender.ts)', () => {
  describe('pickBatch(candidates, now, batching)', () => {
    it('waits while fewer than the most wait and the oldest came due less than the window ago', () => {
      expect(pickBatch([payout('a', T0), payout('b', T0 + 10_000)], new Date(T0 + 59_999), BATCHING)).to.equal(null);
    });

    it('sends what waits once the oldest came due the window ago', () => {
      const due = [payout('a', T0), payout('b', T0 + 50_000)];
      expect(pickBatch(due, new Date(T0 + 60_000), BATCHING)?.map((p) => p.address)).to.deep.equal(['a', 'b']);
    });

    it('sends a full batch at once, and no more than the most', () => {
      const due = ['a', 'b', 'c', 'd'].map((a) => payout(a, T0));
      expect(pickBatch(due, new Date(T0), BATCHING)?.map((p) => p.address)).to.deep.equal(['a', 'b', 'c']);
    });

    it('pays an address once per batch (an upper-case bech32 address is the same): a second payout to it waits', () => {
      const due = [payout('rltc1qx', T0), payout('RLTC1QX', T0), payout('b', T0), payout('c', T0)];
      expect(pickBatch(due, new Date(T0), BATCHING)?.map((p) => p.address)).to.deep.equal(['rltc1qx', 'b', 'c']);
    });

    it('counts a payout backing off as due at its retry time', () => {
      expect(pickBatch([payout('a', T0 - 600_000, T0)], new Date(T0 + 30_000), BATCHING)).to.equal(null);
    });
  });

  describe('configuration: <NET>_PAYOUT_BATCH_SECONDS and <NET>_PAYOUT_BATCH_MAX', () => {
    const read = (env: Record<string, string>) => {
      const problems: string[] = [];
      const config = readProductionConfig({ NETWORKS: 'LTC,ETH,ZANO', ...env }, problems);
      return { config, problems: problems.filter((p) => p.includes('PAYOUT_BATCH')) };
    };

    it('is off by default: every payout alone', () => {
      const { config, problems } = read({});
      expect(problems).to.deep.equal([]);
      expect(payoutBatchingOf({ production: config })).to.deep.equal({});
    });

    it('batches a Bitcoin-family network with a window, at most 50 by default', () => {
      const { config, problems } = read({ LTC_PAYOUT_BATCH_SECONDS: '60' });
      expect(problems).to.deep.equal([]);
      expect(payoutBatchingOf({ production: config })).to.deep.equal({ LTC: { windowMs: 60_000, max: 50 } });
      expect(payoutBatchingOf({ production: read({ LTC_PAYOUT_BATCH_SECONDS: '5', LTC_PAYOUT_BATCH_MAX: '7' }).config })).to.deep.equal({
        LTC: { windowMs: 5_000, max: 7 },
      });
    });

    for (const [name, value] of [
      ['LTC_PAYOUT_BATCH_MAX', '0'],
      ['LTC_PAYOUT_BATCH_MAX', '-3'],
      ['LTC_PAYOUT_BATCH_MAX', '2.5'],
      ['LTC_PAYOUT_BATCH_MAX', '501'],
      ['LTC_PAYOUT_BATCH_SECONDS', 'soon'],
    ] as const) {
      it(`refuses ${name}=${value}, naming the variable`, () => {
        const { problems } = read({ [name]: value });
        expect(problems).to.have.length(1);
        expect(problems[0]).to.match(new RegExp(`^${name}="${value.replace('.', '\\.')}" must be a whole number`));
      });
    }

    it('refuses the variables on EVM and Zano networks (one transaction pays one destination there)', () => {
      const { problems } = read({ ETH_PAYOUT_BATCH_SECONDS: '60', ZANO_PAYOUT_BATCH_MAX: '5' });
      expect(problems).to.have.length(2);
      expect(problems[0]).to.match(/^ETH_PAYOUT_BATCH_SECONDS is for Bitcoin-family networks/);
      expect(problems[1]).to.match(/^ZANO_PAYOUT_BATCH_MAX is for Bitcoin-family networks/);
    });
  });

  describe('the batch flow on a database', function () {
    this.timeout(60_000);
    let database: Database;
    let knex: Knex;
    const catalog = loadSandboxCatalog();
    const clock = { ms: T0 };
    const now = () => new Date(clock.ms);

    // The scripted adapter: what each call did, and how the next broadcasts are answered.
    let calls: Array<{ method: string; keys?: string[]; txHash?: string }>;
    let answers: BroadcastOutcome[];
    let refusedAddresses: Set<string>;
    let counter: number;
    const signedOf = (keys: string[], kind: 'payment' | 'boost' = 'payment'): SignedBatch => {
      const txHash = `tx${++counter}`;
      return { txHash, bytes: `bytes-of-${txHash}`, fee: '0.0003', kind, outputs: Object.fromEntries(keys.map((k, i) => [k, i])) };
    };
    const fake: PayoutSender = {
      async prepare(order) {
        calls.push({ method: 'prepare', keys: [order.key] });
        if (refusedAddresses.has(order.address)) throw new PayoutBuildError(`payout ${order.key}: invalid address`, false);
        const { outputs: _outputs, ...signed } = signedOf([order.key]);
        return signed;
      },
      async prepareBatch(orders: PayoutOrder[]): Promise<PreparedBatch> {
        calls.push({ method: 'prepareBatch', keys: orders.map((o) => o.key) });
        const excluded = orders
          .filter((o) => refusedAddresses.has(o.address))
          .map((o) => ({ key: o.key, error: new PayoutBuildError(`payout ${o.key}: invalid address`, false) }));
        const kept = orders.filter((o) => !refusedAddresses.has(o.address)).map((o) => o.key);
        return { signed: kept.length > 0 ? signedOf(kept) : null, excluded };
      },
      async replaceBatch(orders: PayoutOrder[], versions: SignedPayout[]) {
        calls.push({ method: 'replaceBatch', keys: orders.map((o) => o.key), txHash: versions.at(-1)!.txHash });
        return signedOf([], 'boost');
      },
      async discard(signed) {
        calls.push({ method: 'discard', txHash: signed.txHash });
      },
      async broadcast(_order, signed) {
        calls.push({ method: 'broadcast', txHash: signed.txHash });
        return answers.shift() ?? { kind: 'accepted' };
      },
      async spendable() {
        return '100';
      },
      async feeEstimate() {
        return '0.0001';
      },
    };
    const woken: string[] = [];
    const adapters = createAdapterRegistry({
      LTC: {
        addresses: {} as never,
        watcher: {} as never,
        sender: fake,
        payoutConfirmations: 1,
        replaceAfterSeconds: 600,
      },
    });
    let sender: ReturnType<typeof createPayoutSender>;

    before(async () => {
      database = await openDatabase({});
      knex = database.knex;
      await migrate(knex);
      // Payouts without their swaps: the sender and the ledger never read the swap.
      await knex.raw('alter table payouts drop constraint payouts_swap_id_fkey');
      sender = createPayoutSender({
        knex,
        catalog,
        adapters,
        now,
        logger: pino({ level: 'silent' }),
        wakeSwap: async (swapId) => void woken.push(swapId),
        batching: { LTC: BATCHING },
      });
    });
    after(() => database?.close());

    beforeEach(async () => {
      await knex.raw('truncate payouts, payout_batches, payout_versions cascade');
      calls = [];
      answers = [];
      refusedAddresses = new Set();
      counter = 0;
      woken.length = 0;
      clock.ms = T0;
    });

    /** Commits `n` pending LTC payouts, created at the clock's now. */
    async function pending(n: number, prefix = 'rltc1qdest') {
      const rows = Array.from({ length: n }, (_, i) => ({
        id: randomUUID(),
        idempotency_key: `${randomUUID()}:payout`,
        swap_id: randomUUID(),
        purpose: i % 2 === 0 ? 'payout' : 'refund',
        network: 'LTC',
        asset: 'LTC',
        address: `${prefix}${i}`,
        amount: `0.${i + 1}`,
        status: 'pending',
        created_at: now(),
        updated_at: now(),
      }));
      await knex('payouts').insert(rows);
      return rows;
    }
    const rowsOf = async (ids: string[]) => knex('payouts').whereIn('id', ids).orderBy('address');

    it('waits for the window, then stores one batch (its outputs, every payout signed) before it broadcasts it', async () => {
      const rows = await pending(2);
      await sender.sendBatches('LTC');
      expect(calls).to.deep.equal([]);
      // A payout sent by its own job waits for the batch too.
      await sender.send(rows[0]!.id);
      expect(calls).to.deep.equal([]);
      clock.ms += BATCHING.windowMs;
      await sender.sendBatches('LTC');
      expect(calls.map((c) => c.method)).to.deep.equal(['prepareBatch', 'broadcast']);
      const after = await rowsOf(rows.map((r) => r.id));
      expect(after.map((r) => r.status)).to.deep.equal(['broadcast', 'broadcast']);
      expect(new Set(after.map((r) => r.tx_hash))).to.deep.equal(new Set(['tx1']));
      expect(new Set(after.map((r) => r.batch_id)).size).to.equal(1);
      const [version] = await knex('payout_batch_versions').where({ batch_id: after[0].batch_id });
      expect(version).to.include({ version: 1, kind: 'payment', tx_hash: 'tx1', signed_bytes: 'bytes-of-tx1' });
      // Each payout at the output the transaction pays it at (the adapter's, by its key).
      const keys = calls[0]!.keys!;
      expect(version.outputs).to.deep.equal(Object.fromEntries(rows.map((r) => [r.id, keys.indexOf(r.idempotency_key)])));
      expect(Object.values(version.outputs).sort()).to.deep.equal([0, 1]);
      expect(version.broadcast_at).to.not.equal(null);
      // Each swap woken when it was signed and when it was broadcast.
      expect(woken.filter((s) => s === rows[0]!.swap_id)).to.have.length(2);
    });

    it('sends a full batch at once; more than the most wait for the next', async () => {
      const rows = await pending(4);
      await sender.sendBatches('LTC');
      expect(calls.filter((c) => c.method === 'prepareBatch').map((c) => c.keys!.length)).to.deep.equal([3]);
      const left = (await rowsOf(rows.map((r) => r.id))).filter((r) => r.status === 'pending');
      expect(left).to.have.length(1);
      clock.ms += BATCHING.windowMs;
      await sender.sendBatches('LTC');
      // Alone in its batch: it takes the single path.
      expect(calls.at(-2)).to.deep.include({ method: 'prepare' });
      expect((await rowsOf([left[0].id]))[0]).to.include({ status: 'broadcast', batch_id: null });
    });

    it('takes out a payout whose destination the node refuses (held, failed) and sends the rest', async () => {
      const rows = await pending(3);
      refusedAddresses.add(rows[1]!.address);
      await sender.sendBatches('LTC');
      const after = await rowsOf(rows.map((r) => r.id));
      expect(after.map((r) => r.status)).to.deep.equal(['broadcast', 'failed', 'broadcast']);
      expect(after[1]).to.include({ tx_hash: null, batch_id: null });
      expect(after[1].held_reason).to.match(/invalid address/);
      expect(after[0].tx_hash).to.equal(after[2].tx_hash);
    });

    it('backs the batch off on a refusal that can pass, and batches it again after the wait', async () => {
      const rows = await pending(3);
      answers.push({ kind: 'rejected', reason: 'mempool min fee not met', passing: true });
      await sender.sendBatches('LTC');
      const backedOff = await rowsOf(rows.map((r) => r.id));
      expect(backedOff.map((r) => [r.status, r.refusals, r.batch_id, r.tx_hash])).to.deep.equal(Array(3).fill(['pending', 1, null, null]));
      expect((await knex('payout_batches').first()).status).to.equal('dissolved');
      await sender.sendBatches('LTC');
      expect(calls.filter((c) => c.method === 'prepareBatch')).to.have.length(1);
      clock.ms += 5_000 + BATCHING.windowMs;
      await sender.sendBatches('LTC');
      const sent = await rowsOf(rows.map((r) => r.id));
      expect(sent.map((r) => r.status)).to.deep.equal(['broadcast', 'broadcast', 'broadcast']);
      expect(new Set(sent.map((r) => r.tx_hash))).to.deep.equal(new Set(['tx2']));
    });

    it('holds each payout after BUILD_ATTEMPTS builds of the batch that failed for the funds', async () => {
      const rows = await pending(3);
      const original = fake.prepareBatch!;
      fake.prepareBatch = async () => {
        throw new PayoutBuildError('the hot wallet cannot pay it now', true);
      };
      try {
        for (let attempt = 0; attempt < BUILD_ATTEMPTS; attempt++) {
          await sender.sendBatches('LTC');
          clock.ms += 3_600_000;
        }
      } finally {
        fake.prepareBatch = original;
      }
      expect((await rowsOf(rows.map((r) => r.id))).map((r) => r.status)).to.deep.equal(['failed', 'failed', 'failed']);
    });

    it('sends each payout alone after a refusal for good of the batch, where the refusal finds its own', async () => {
      const rows = await pending(3);
      answers.push({ kind: 'rejected', reason: 'dust', passing: false });
      refusedAddresses.add(rows[2]!.address);
      // Not refused by the batch build (the scripted node finds out only at the broadcast).
      const original = fake.prepareBatch!;
      fake.prepareBatch = async (orders) => ({ signed: signedOf(orders.map((o) => o.key)), excluded: [] });
      try {
        await sender.sendBatches('LTC');
      } finally {
        fake.prepareBatch = original;
      }
      const after = await rowsOf(rows.map((r) => r.id));
      expect(after.map((r) => [r.status, r.solo, r.batch_id])).to.deep.equal([
        ['broadcast', true, null],
        ['broadcast', true, null],
        ['failed', true, null],
      ]);
      expect(calls.filter((c) => c.method === 'prepare')).to.have.length(3);
      expect(new Set(after.slice(0, 2).map((r) => r.tx_hash)).size).to.equal(2);
    });

    it('stores nothing when a payout moved while the batch was built, and releases what it reserved', async () => {
      const rows = await pending(3);
      const original = fake.prepareBatch!;
      fake.prepareBatch = async (orders) => {
        await knex('payouts').where({ id: rows[1]!.id }).update({ status: 'failed' });
        return original(orders);
      };
      try {
        await sender.sendBatches('LTC');
      } finally {
        fake.prepareBatch = original;
      }
      expect(calls.map((c) => c.method)).to.deep.equal(['prepareBatch', 'discard']);
      expect(await knex('payout_batches')).to.have.length(0);
      expect((await rowsOf(rows.map((r) => r.id))).map((r) => r.status)).to.deep.equal(['pending', 'failed', 'pending']);
    });

    it('after a crash between storing and broadcasting, one job broadcasts the stored bytes; nothing is signed again', async () => {
      const rows = await pending(3);
      const original = fake.broadcast;
      fake.broadcast = async () => {
        throw new Error('the process died here');
      };
      try {
        await sender.sendBatches('LTC').catch(() => undefined);
      } finally {
        fake.broadcast = original;
      }
      expect((await rowsOf(rows.map((r) => r.id))).map((r) => r.status)).to.deep.equal(['signed', 'signed', 'signed']);
      // At a restart: one job for the batch (its three payouts are one), which broadcasts the same transaction.
      const open = await listOpenPayoutIds(knex);
      expect(open).to.have.length(1);
      await sender.send(open[0]!);
      expect(calls.filter((c) => c.method === 'prepareBatch')).to.have.length(1);
      expect(calls.filter((c) => c.method === 'broadcast').map((c) => c.txHash)).to.deep.equal(['tx1']);
      expect((await rowsOf(rows.map((r) => r.id))).map((r) => r.status)).to.deep.equal(['broadcast', 'broadcast', 'broadcast']);
    });

    it('bumps an unmined batch as one, once its replacement is due; the watcher records the block on every payout', async () => {
      const rows = await pending(3);
      await sender.sendBatches('LTC');
      clock.ms += 600_000;
      const due = await listUnminedPayoutIds(knex, new Date(clock.ms - 600_000 + 1), 'LTC');
      expect(due, 'one job for the batch').to.have.length(1);
      await sender.send(due[0]!);
      const replaced = calls.filter((c) => c.method === 'replaceBatch');
      expect(replaced.map((c) => c.txHash)).to.deep.equal(['tx1']);
      expect([...replaced[0]!.keys!].sort()).to.deep.equal(rows.map((r) => r.idempotency_key).sort());
      const versions = await knex('payout_batch_versions').orderBy('version');
      expect(versions.map((v) => [v.kind, v.tx_hash, v.broadcast_at !== null])).to.deep.equal([
        ['payment', 'tx1', true],
        ['boost', 'tx2', true],
      ]);
      // The boost is no payment: the payouts keep the payment's hash, and a block of the boost pays none.
      await knex.transaction((trx) => recordPayoutBlocks(trx, 'LTC', [{ txHash: 'tx2', block: { height: 7, hash: 'b7' } }], now()));
      expect((await rowsOf(rows.map((r) => r.id))).map((r) => r.block_height)).to.deep.equal([null, null, null]);
      await knex.transaction((trx) => recordPayoutBlocks(trx, 'LTC', [{ txHash: 'tx1', block: { height: 7, hash: 'b7' } }], now()));
      const mined = await rowsOf(rows.map((r) => r.id));
      expect(mined.map((r) => [r.tx_hash, r.block_height])).to.deep.equal(Array(3).fill(['tx1', '7']));
    });
  });

  describe('the Bitcoin sender: prepareBatch and replaceBatch (a scripted node)', () => {
    const TPUB = 'tpubDDNRbZGvdA33cgpY5uy2mmphT7sK4uciRjcQScSd64S5KRyZDxHcPuzs24or84Hywugb2JbEEt2jWH8fduiN9cmZzkSj8sSSx6txXkhXyZs';
    const order = (key: string, address: string, amount: string) =>
      ({ key, swapId: 's', asset: { network: 'BTC' }, address, memo: null, amount }) as unknown as PayoutOrder;

    /** A sender whose node answers `answer(method, params)` (a result, or an RPC error). */
    function senderAnswering(bump: 'bip125' | 'cpfp', answer: (method: string, params: unknown[]) => unknown) {
      const fetch: typeof globalThis.fetch = async (_url, init) => {
        const { method, params } = JSON.parse(String(init!.body)) as { method: string; params: unknown[] };
        let body: Record<string, unknown>;
        try {
          body = { result: answer(method, params) ?? null, error: null };
        } catch (err) {
          body = { result: null, error: err };
        }
        return new Response(JSON.stringify({ id: 1, ...body }), { status: body.error ? 500 : 200 });
      };
      return createBitcoinAdapters({
        network: 'BTC',
        rpcUrl: 'http://u:p@127.0.0.1:1/wallet/watch',
        signerRpcUrl: 'http://u:p@127.0.0.1:1/wallet/signer',
        xpub: TPUB,
        params: { ...parseBitcoinParams('BTC', 'regtest'), bump },
        payoutConfirmations: 1,
        fallbackFeeRate: '0.0001',
        fetch,
      }).sender;
    }

    // A node with one 1 BTC coin; the transaction it builds pays the PSBT's outputs in order, change last.
    const node = (refused: string[], built: { outputs?: Array<Record<string, string>> }) => (method: string, params: unknown[]) => {
      switch (method) {
        case 'getaddressinfo':
          return { iswatchonly: true };
        case 'estimatesmartfee':
          return {};
        case 'listunspent':
          return [{ txid: 'c'.repeat(64), vout: 0, amount: '1', solvable: true }];
        case 'walletcreatefundedpsbt': {
          const outputs = params[1] as Array<Record<string, string>>;
          const bad = outputs.map((o) => Object.keys(o)[0]!).find((a) => refused.includes(a));
          if (bad) throw { code: -5, message: `Invalid Bitcoin address: ${bad}` };
          built.outputs = outputs;
          return { psbt: 'psbt' };
        }
        case 'decodepsbt':
          return { tx: { vin: [{ txid: 'c'.repeat(64), vout: 0 }] } };
        case 'walletprocesspsbt':
          return { psbt: 'signed', complete: true };
        case 'finalizepsbt':
          return { hex: 'hex', complete: true };
        case 'psbtbumpfee':
          return { psbt: 'bumped' };
        case 'decoderawtransaction':
          return {
            txid: 'd'.repeat(64),
            vin: [],
            vout: [...(built.outputs ?? []), { bcrt1qchange: '0.1' }].map((o, n) => ({
              n,
              value: Object.values(o)[0],
              scriptPubKey: { address: Object.keys(o)[0] },
            })),
          };
        case 'lockunspent':
          return true;
        default:
          throw { code: -32601, message: `unexpected ${method}` };
      }
    };

    it('builds one transaction paying each order at its output, and leaves out the one whose address the node refuses', async () => {
      const built: { outputs?: Array<Record<string, string>> } = {};
      const sender = senderAnswering('bip125', node(['bcrt1qbad'], built));
      const prepared = await sender.prepareBatch!([
        order('a', 'bcrt1qa', '0.1'),
        order('bad', 'bcrt1qbad', '0.2'),
        order('c', 'bcrt1qc', '0.3'),
      ]);
      expect(prepared.excluded.map((e) => [e.key, e.error.passing])).to.deep.equal([['bad', false]]);
      expect(prepared.excluded[0]!.error.message).to.match(/Invalid Bitcoin address: bcrt1qbad/);
      expect(prepared.signed).to.deep.include({ txHash: 'd'.repeat(64), outputs: { a: 0, c: 1 } });
      expect(built.outputs).to.deep.equal([{ bcrt1qa: '0.1' }, { bcrt1qc: '0.3' }]);
    });

    it('refuses a BIP125 replacement that does not pay every output of the batch', async () => {
      const built: { outputs?: Array<Record<string, string>> } = { outputs: [{ bcrt1qa: '0.1' }] };
      const sender = senderAnswering('bip125', node([], built));
      const last = { txHash: 'e'.repeat(64), bytes: 'hex', fee: '0.0001' };
      const err = await sender.replaceBatch!([order('a', 'bcrt1qa', '0.1'), order('c', 'bcrt1qc', '0.3')], [last]).catch((e: unknown) => e);
      expect(String(err)).to.match(/does not pay 0.3 to bcrt1qc/);
      built.outputs = [{ bcrt1qc: '0.3' }, { bcrt1qa: '0.1' }];
      const replaced = await sender.replaceBatch!([order('a', 'bcrt1qa', '0.1'), order('c', 'bcrt1qc', '0.3')], [last]);
      expect(replaced).to.deep.include({ outputs: { a: 1, c: 0 }, fee: '0.000125' });
    });
  });
});
