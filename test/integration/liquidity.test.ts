/**
 * Liquidity (services/liquidity.ts, docs/treasury.md): what quotes and payouts may promise of a hot wallet,
 * checked under the asset's lock. Production's liquidity on balances the test sets, on the sandbox's chain and
 * prices, through HTTP, on PGlite or (DATABASE_URL) PostgreSQL; then a property test of the arithmetic on the
 * same database.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { loadSandboxCatalog } from '../../server/adapters/sandbox/catalog.js';
import { findAsset, type CatalogAsset } from '../../server/domain/catalog.js';
import { createHotWalletLiquidity, type Liquidity } from '../../server/services/liquidity.js';
import { transaction } from '../../server/store/after-commit.js';
import { readCommitments } from '../../server/store/liquidity.js';
import { insertPayoutIntents } from '../../server/store/payouts.js';
import { insertQuote } from '../../server/store/quotes.js';
import { insertSwap } from '../../server/store/swaps.js';
import { migrate, openDatabase, type Database } from '../../server/store/database.js';
import { createSecretBox } from '../../server/store/secret-box.js';
import { provisionPartner } from '../../server/partners.js';
import type { Knex } from 'knex';
import { startTestServer, type TestServer } from '../support/server.js';
import { swapRecord } from '../support/swap-record.js';
import { btcToUsdt, swapBody, swapClient, type Quote } from '../support/swaps.js';

const catalog = loadSandboxCatalog();
const USDT = findAsset(catalog, 'USDT', 'ETH')!;

/** A hot wallet whose balances the test sets, read "at" height `height`, and a clock the test moves. */
function treasury() {
  const balances = new Map<string, string>();
  let height = 0;
  let offsetMs = 0;
  return {
    status: {
      balance: (asset: CatalogAsset) => {
        const spendable = balances.get(`${asset.symbol}/${asset.network}`);
        return spendable === undefined ? undefined : { spendable, height };
      },
      feeEstimate: () => undefined,
    },
    set(asset: CatalogAsset, spendable: string, at = height) {
      balances.set(`${asset.symbol}/${asset.network}`, spendable);
      height = at;
    },
    now: () => new Date(Date.now() + offsetMs),
    advance(seconds: number) {
      offsetMs += seconds * 1000;
    },
  };
}

describe('liquidity: quotes and payouts never promise more than the hot wallet holds', () => {
  describe('through HTTP', () => {
    let server: TestServer;
    let wallet: ReturnType<typeof treasury>;
    // What a fixed quote of 0.015 BTC receives, learned once.
    let receive: Decimal;

    let liquidity: Liquidity;
    const start = async (
      sharePercent: string,
      rules: { hotWalletMin?: Record<string, string>; hotWalletMax?: Record<string, string> } = {},
    ) => {
      wallet = treasury();
      liquidity = createHotWalletLiquidity({ catalog, status: wallet.status, partnerSharePercent: sharePercent, ...rules });
      server = await startTestServer({
        env: { RATE_LIMIT_QUOTES_PER_MINUTE: '10000', RATE_LIMIT_SWAPS_PER_MINUTE: '10000' },
        liquidity,
        deps: { now: () => wallet.now() },
      });
      wallet.set(USDT, '1000000000');
      const probe = swapClient(server.origin, await server.createSigner('Probe'));
      receive = new Decimal((await probe.quote(btcToUsdt('0.015', { rateType: 'fixed' }))).receiveAmount);
      // The probe's reservation ends with its quote.
      wallet.advance(server.config.quoteTtlSeconds + 1);
    };
    afterEach(() => server?.close());

    const tryQuoteAndCreate = async (client: ReturnType<typeof swapClient>) => {
      const request = btcToUsdt('0.015', { rateType: 'fixed' });
      const quoted = await client.send<{ quote: Quote; error?: { code: string } }>('POST', '/api/v1/quotes', request);
      if (quoted.status !== 200) return { quoted };
      const created = await client.createRaw(swapBody(quoted.body.quote, request));
      return { quoted, created };
    };

    it('8 concurrent quote-and-create pairs against a hot wallet that can pay two create two swaps, and nothing more is promised', async () => {
      await start('100');
      const balance = receive.times('2.5');
      wallet.set(USDT, balance.toFixed());
      const client = swapClient(server.origin, await server.createSigner('Eager'));
      const results = await Promise.all(Array.from({ length: 8 }, () => tryQuoteAndCreate(client)));

      const created = results.filter((r) => r.created?.status === 202);
      expect(created, JSON.stringify(results.map((r) => r.quoted.status))).to.have.length(2);
      for (const refused of results.filter((r) => r.quoted.status !== 200)) {
        expect(refused.quoted.status, refused.quoted.text).to.equal(409);
        expect(refused.quoted.body.error?.code).to.be.oneOf(['amount_above_maximum', 'pair_unavailable']);
      }
      const promised = await readCommitments(server.knex, {
        network: 'ETH',
        asset: 'USDT',
        at: wallet.now(),
        balanceHeight: 0,
      });
      const outputs = created.map((r) => new Decimal(r.created!.body.order.expectedOutputAmount!));
      expect(new Decimal(promised.reserved).toFixed()).to.equal(outputs[0].plus(outputs[1]).toFixed());
      expect(new Decimal(promised.reserved).lessThanOrEqualTo(balance)).to.equal(true);

      // The partner's view: a quote's maximum is what is left (half a swap's worth), never the whole wallet.
      const small = await client.send<{ quote: Quote }>('POST', '/api/v1/quotes', btcToUsdt('0.005', { rateType: 'fixed' }));
      expect(small.status, small.text).to.equal(200);
      expect(new Decimal(small.body.quote.maximumSourceAmount!).lessThanOrEqualTo('0.0075')).to.equal(true);
      expect(new Decimal(small.body.quote.maximumSourceAmount!).greaterThan('0.0070')).to.equal(true);
    });

    it('pays both swaps it promised (a swap does not count its own reservation), then counts their payouts until a balance shows them', async () => {
      await start('100');
      wallet.set(USDT, receive.times('2.5').toFixed());
      const client = swapClient(server.origin, await server.createSigner('Payer'));
      const swaps = [
        await client.create(btcToUsdt('0.015', { rateType: 'fixed' })),
        await client.create(btcToUsdt('0.015', { rateType: 'fixed' })),
      ];
      for (const { order } of swaps) await client.pay(order);
      for (const { order } of swaps) {
        const done = await client.waitFor(order.id, (o) => o.terminal === true);
        expect(done.order.status).to.equal('finished');
        expect(done.order.actualOutputAmount).to.equal(order.expectedOutputAmount);
      }
      // The balance was read at height 0, below both payouts' blocks: they are still owed from it.
      const refused = await client.send<{ error: { code: string } }>('POST', '/api/v1/quotes', btcToUsdt('0.015', { rateType: 'fixed' }));
      expect(refused.status, refused.text).to.equal(409);
      // A balance read above their blocks shows them spent: what it says is what is left.
      const [{ top }] = (await server.knex.raw('select max(block_height)::int as top from payouts')).rows;
      wallet.set(USDT, receive.times('0.5').toFixed(), top);
      const after = await client.send<{ quote: Quote }>('POST', '/api/v1/quotes', btcToUsdt('0.005', { rateType: 'fixed' }));
      expect(after.status, after.text).to.equal(200);
    });

    it('makes a floating quote fit with its slippage bound (1.5 %), not only its receive amount', async () => {
      await start('100');
      const client = swapClient(server.origin, await server.createSigner('Floating'));
      wallet.set(USDT, '1000000000');
      const floating = new Decimal((await client.quote(btcToUsdt('0.015', { rateType: 'floating' }))).receiveAmount);
      wallet.advance(server.config.quoteTtlSeconds + 1);
      // Room for the receive amount, not for the bound above it.
      wallet.set(USDT, floating.times('1.007').toFixed(6));
      const refused = await client.send<{ error: { code: string } }>(
        'POST',
        '/api/v1/quotes',
        btcToUsdt('0.015', { rateType: 'floating' }),
      );
      expect(refused.status, refused.text).to.equal(409);
      expect(refused.body.error.code).to.equal('amount_above_maximum');
      wallet.set(USDT, floating.times('1.022').toFixed(6));
      const taken = await client.send<{ quote: Quote }>('POST', '/api/v1/quotes', btcToUsdt('0.015', { rateType: 'floating' }));
      expect(taken.status, taken.text).to.equal(200);
      const [{ reserved }] = (
        await server.knex.raw('select reserved_amount::text as reserved from quotes where id = ?', [taken.body.quote.id])
      ).rows;
      expect(reserved).to.equal(new Decimal(taken.body.quote.receiveAmount).times('1.015').toDecimalPlaces(6, Decimal.ROUND_UP).toFixed());
    });

    it('keeps one partner to LIQUIDITY_PARTNER_SHARE_PERCENT of an asset, leaving the rest to others', async () => {
      await start('50');
      wallet.set(USDT, receive.times('2.5').toFixed());
      const first = swapClient(server.origin, await server.createSigner('First'));
      const second = swapClient(server.origin, await server.createSigner('Second'));
      expect((await tryQuoteAndCreate(first)).created?.status).to.equal(202);
      const again = await tryQuoteAndCreate(first);
      expect(again.quoted.status, again.quoted.text).to.equal(409);
      expect(again.quoted.body.error?.code).to.equal('amount_above_maximum');
      expect((await tryQuoteAndCreate(second)).created?.status).to.equal(202);
    });

    it('reports each asset for the metrics: balance, reservations, what is left, below HOT_WALLET_MIN, the surplus above HOT_WALLET_MAX', async () => {
      await start('100', { hotWalletMin: { 'USDT/ETH': '1000' }, hotWalletMax: { 'USDT/ETH': '5000' } });
      wallet.set(USDT, '9000');
      const client = swapClient(server.origin, await server.createSigner('Metered'));
      const { order } = await client.create(btcToUsdt('0.015', { rateType: 'fixed' }));
      const [state] = await liquidity.snapshot(server.knex, [USDT], wallet.now());
      expect(state).to.deep.include({ network: 'ETH', asset: 'USDT', spendable: '9000', payouts: '0', rule: 'above_maximum' });
      expect(state.reserved).to.equal(order.expectedOutputAmount);
      expect(state.available).to.equal(new Decimal(9000).minus(order.expectedOutputAmount!).toFixed());
      // Down to halfway between the two: 9000 - 3000.
      expect(state.surplus).to.equal('6000');
      wallet.set(USDT, '999');
      const [low] = await liquidity.snapshot(server.knex, [USDT], wallet.now());
      expect(low).to.deep.include({ rule: 'below_minimum', surplus: '0' });
    });

    it("ends a quote's reservation when it expires, and a swap's at its deposit deadline", async () => {
      await start('100');
      wallet.set(USDT, receive.times('1.5').toFixed());
      const client = swapClient(server.origin, await server.createSigner('Patient'));
      await client.quote(btcToUsdt('0.015', { rateType: 'fixed' }));
      expect((await tryQuoteAndCreate(client)).quoted.status).to.equal(409);
      wallet.advance(server.config.quoteTtlSeconds + 1);
      const { created } = await tryQuoteAndCreate(client);
      expect(created?.status, created?.text).to.equal(202);
      expect((await tryQuoteAndCreate(client)).quoted.status).to.equal(409);
      // The sandbox's clock control moves the swap's deposit deadline to now.
      const overdue = await client.send('POST', `/api/v1/sandbox/swaps/${created!.body.order.id}/clock`, { deadline: 'deposit' });
      expect(overdue.status, overdue.text).to.equal(200);
      const later = await tryQuoteAndCreate(client);
      expect(later.created?.status, later.quoted.text).to.equal(202);
    });
  });

  describe('the arithmetic (property test)', () => {
    // A database of its own and no engine: nothing but the test moves its rows.
    let database: Database;
    let knex: Knex;
    let partners: string[];
    const schema = process.env.DATABASE_URL ? `test_${randomBytes(6).toString('hex')}` : undefined;
    before(async () => {
      database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, schema, poolSize: 3 });
      knex = database.knex;
      const secretBox = createSecretBox(randomBytes(32));
      await migrate(knex, { secretBox });
      partners = [
        (await provisionPartner(knex, secretBox, { name: 'A', mode: 'sandbox' })).partnerId,
        (await provisionPartner(knex, secretBox, { name: 'B', mode: 'sandbox' })).partnerId,
      ];
    });
    after(async () => {
      if (schema) await knex.raw('drop schema if exists ?? cascade', [schema]);
      await database.close();
    });

    type Action =
      | { kind: 'quote'; partner: number; amount: number }
      | { kind: 'swap' | 'deposit' | 'payout' | 'broadcast' | 'mine' | 'fail'; pick: number }
      | { kind: 'probe' }
      | { kind: 'time'; seconds: number };
    const pick = (kind: 'swap' | 'deposit' | 'payout' | 'broadcast' | 'mine' | 'fail') =>
      fc.record({ kind: fc.constant(kind), pick: fc.nat() });
    // Weighted so that long chains (quote, swap, payout, broadcast, mine, then a balance read) are common.
    const action: fc.Arbitrary<Action> = fc.oneof(
      {
        arbitrary: fc.record({
          kind: fc.constant('quote' as const),
          partner: fc.integer({ min: 0, max: 1 }),
          amount: fc.integer({ min: 1, max: 60 }),
        }),
        weight: 4,
      },
      { arbitrary: pick('swap'), weight: 4 },
      { arbitrary: pick('deposit'), weight: 1 },
      { arbitrary: pick('payout'), weight: 3 },
      { arbitrary: pick('broadcast'), weight: 3 },
      { arbitrary: pick('mine'), weight: 3 },
      { arbitrary: pick('fail'), weight: 1 },
      { arbitrary: fc.record({ kind: fc.constant('probe' as const) }), weight: 1 },
      { arbitrary: fc.record({ kind: fc.constant('time' as const), seconds: fc.constantFrom(30, 121, 1801, 3601) }), weight: 1 },
    );

    it('for any interleaving of quotes, swaps, payouts, mined payouts and expiries: reserved <= spendable, nothing counted twice', async () => {
      const start = Date.UTC(2026, 11, 1);
      await fc.assert(
        fc.asyncProperty(
          fc.array(action, { minLength: 10, maxLength: 40, size: 'max' }),
          fc.integer({ min: 50, max: 200 }),
          async (actions, funds) => {
            await knex.raw('truncate payouts, swaps, quotes, liquidity_locks cascade');
            // The model: what the service promised, and the truth of the hot wallet.
            type Q = { id: string; partner: string; amount: number; expiresAt: number; used: boolean };
            type S = {
              id: string;
              partner: string;
              amount: number;
              deadline: number;
              status: 'waiting' | 'confirming' | 'sending' | 'review';
            };
            type P = { id: string; swap: string; amount: number; status: 'pending' | 'broadcast' | 'failed'; height: number | null };
            const quotes: Q[] = [];
            const swaps: S[] = [];
            const payouts: P[] = [];
            let now = start;
            let tip = 0;
            let balanceHeight = 0;
            const minedBy = (height: number) =>
              payouts.filter((p) => p.height !== null && p.height <= height).reduce((t, p) => t + p.amount, 0);
            let spendable = funds;
            const status = {
              balance: () => ({ spendable: String(spendable), height: balanceHeight }),
              feeEstimate: () => undefined,
            };
            const liquidity = createHotWalletLiquidity({ catalog, status, partnerSharePercent: '60' });
            const live = (q: Q) => !q.used && q.expiresAt > now;
            const reserving = (s: S) => (s.status === 'waiting' || s.status === 'confirming') && s.deadline > now;
            const reservedBy = (partner?: string) =>
              quotes.filter((q) => live(q) && (!partner || q.partner === partner)).reduce((t, q) => t + q.amount, 0) +
              swaps.filter((s) => reserving(s) && (!partner || s.partner === partner)).reduce((t, s) => t + s.amount, 0);
            const outstanding = () =>
              payouts
                .filter((p) => p.status !== 'failed' && (p.height === null || p.height > balanceHeight))
                .reduce((t, p) => t + p.amount, 0);

            for (const a of actions) {
              const at = new Date(now);
              if (a.kind === 'quote') {
                const partner = partners[a.partner];
                const base = spendable - outstanding();
                const expected = a.amount <= Math.min(base - reservedBy(), base * 0.6 - reservedBy(partner));
                const accepted = await transaction(knex, async (trx) => {
                  const room = await liquidity.lock(trx, USDT, at, { partnerId: partner });
                  if (room.forPartner.lessThan(a.amount)) return false;
                  const id = (await insertQuote(trx, quoteRow(partner, a.amount, new Date(now + 120_000)))).id;
                  quotes.push({ id, partner, amount: a.amount, expiresAt: now + 120_000, used: false });
                  return true;
                });
                expect(accepted, `quote of ${a.amount}`).to.equal(expected);
              } else if (a.kind === 'swap') {
                const open = quotes.filter(live);
                if (open.length === 0) continue;
                const q = open[a.pick % open.length];
                q.used = true;
                const id = randomUUID();
                await transaction(knex, async (trx) => {
                  await trx('quotes').where({ id: q.id }).update({ used_at: at });
                  await insertSwap(trx, swapFrom(id, q, now));
                });
                swaps.push({ id, partner: q.partner, amount: q.amount, deadline: now + 1_800_000, status: 'waiting' });
              } else if (a.kind === 'deposit') {
                const waiting = swaps.filter((s) => s.status === 'waiting' && s.deadline > now);
                if (waiting.length === 0) continue;
                const s = waiting[a.pick % waiting.length];
                s.status = 'confirming';
                s.deadline = now + 3_600_000;
                await knex('swaps')
                  .where({ id: s.id })
                  .update({ status: 'confirming', confirmation_deadline: new Date(s.deadline) });
              } else if (a.kind === 'payout') {
                const due = swaps.filter(reserving);
                if (due.length === 0) continue;
                const s = due[a.pick % due.length];
                const expected = s.amount <= spendable - outstanding() - (reservedBy() - s.amount);
                const paid = await transaction(knex, async (trx) => {
                  const room = await liquidity.lock(trx, USDT, at, { exceptSwapId: s.id });
                  if (room.available.lessThan(s.amount)) {
                    await trx('swaps').where({ id: s.id }).update({ status: 'review' });
                    return false;
                  }
                  const [payoutId] = await insertPayoutIntents(
                    trx,
                    [
                      {
                        idempotencyKey: `${s.id}:payout`,
                        swapId: s.id,
                        purpose: 'payout',
                        network: 'ETH',
                        asset: 'USDT',
                        address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
                        memo: null,
                        amount: String(s.amount),
                      },
                    ],
                    at,
                  );
                  await trx('swaps').where({ id: s.id }).update({ status: 'sending' });
                  payouts.push({ id: payoutId, swap: s.id, amount: s.amount, status: 'pending', height: null });
                  return true;
                });
                expect(paid, `payout of ${s.amount}`).to.equal(expected);
                s.status = paid ? 'sending' : 'review';
              } else if (a.kind === 'broadcast' || a.kind === 'mine' || a.kind === 'fail') {
                const open = payouts.filter(
                  (p) => p.status !== 'failed' && p.height === null && (a.kind !== 'mine' || p.status === 'broadcast'),
                );
                if (open.length === 0) continue;
                const p = open[a.pick % open.length];
                if (a.kind === 'broadcast') p.status = 'broadcast';
                else if (a.kind === 'fail') p.status = 'failed';
                else p.height = ++tip;
                await knex('payouts').where({ id: p.id }).update({ status: p.status, block_height: p.height });
              } else if (a.kind === 'probe') {
                // A new balance read: the hot wallet less every payout mined up to the tip.
                balanceHeight = tip;
                spendable = funds - minedBy(tip);
              } else if (a.kind === 'time') {
                now += a.seconds * 1000;
              }

              const read = await readCommitments(knex, {
                network: 'ETH',
                asset: 'USDT',
                at: new Date(now),
                balanceHeight,
                partnerId: partners[0],
              });
              // Nothing counted twice, nothing left out.
              expect(Number(read.reserved), 'reserved').to.equal(reservedBy());
              expect(Number(read.partnerReserved), 'partner reserved').to.equal(reservedBy(partners[0]));
              expect(Number(read.payouts), 'payouts').to.equal(outstanding());
              // The truth: what the wallet holds covers every payout not proven unpaid and every live promise.
              const unpaid = payouts.filter((p) => p.status !== 'failed' && p.height === null).reduce((t, p) => t + p.amount, 0);
              expect(unpaid + reservedBy(), 'promised').to.be.at.most(funds - minedBy(tip));
            }
          },
        ),
        { numRuns: 60 },
      );
    });
  });
});

function quoteRow(partnerId: string, amount: number, expiresAt: Date) {
  return {
    partnerId,
    sourceAsset: 'BTC',
    sourceNetwork: 'BTC',
    destinationAsset: 'USDT',
    destinationNetwork: 'ETH',
    sourceAmount: '0.01',
    depositAmount: '0.01',
    receiveAmount: String(amount),
    minimumReceiveAmount: null,
    feeUsd: '1',
    rate: '60000',
    rateType: 'fixed' as const,
    minimumSourceAmount: '0.0005',
    maximumSourceAmount: '5',
    estimatedMinutes: 30,
    lateDepositPolicy: 'refund' as const,
    refundMode: 'sender' as const,
    refundAddress: null,
    refundMemo: null,
    expiresAt,
    reservedAmount: String(amount),
  };
}

function swapFrom(id: string, quote: { id: string; partner: string; amount: number }, now: number): Parameters<typeof insertSwap>[1] {
  const { updatedAt: _updated, ...record } = swapRecord({
    id,
    partnerId: quote.partner,
    quoteId: quote.id,
    depositAddress: `address-${id}`,
    expectedOutputAmount: String(quote.amount),
    quoteExpiresAt: new Date(now + 1_800_000),
    confirmationDeadline: new Date(now + 5_400_000),
    expiresAt: new Date(now + 88_200_000),
    createdAt: new Date(now),
  });
  void _updated;
  return record as unknown as Parameters<typeof insertSwap>[1];
}
