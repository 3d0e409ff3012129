import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Decimal } from 'decimal.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectError } from '../support/http.js';
import { btcToUsdt, swapClient, type Swap, type SwapEvent } from '../support/swaps.js';
import { loadSandboxCatalog } from '../../server/adapters/sandbox/catalog.js';
import { createSimulatedExchange } from '../../server/adapters/sandbox/exchange.js';
import type { RatesAdapter } from '../../server/adapters/rates.js';
import { findAsset } from '../../server/domain/catalog.js';
import { AppError } from '../../server/domain/errors.js';
import { Money } from '../../server/domain/money.js';
import { armSandboxFailure } from '../../server/store/sandbox-chain.js';

// Prices fixed at the catalogue's reference (the sandbox's drift around it aside), so a refund's amount is known:
// the deposit less Bitcoin's 2.00 USD network fee at 68250 USD, 0.00002931 BTC (8 places, rounded up).
const catalog = loadSandboxCatalog();
const referencePrice = (symbol: string, network: string) => new Money(findAsset(catalog, symbol, network)!.priceUsd);
const fixedRates: RatesAdapter = { priceUsd: async (symbol, network) => referencePrice(symbol, network) };

// docs/architecture.md#lifecycle, written out again here so the test checks the code against the design, not against itself.
const EXPECTED: Record<string, [terminal: boolean, actionRequired: string, reasonCode: string, retryable: boolean]> = {
  waiting: [false, 'customer', 'payment_required', false],
  confirming: [false, 'none', 'confirming', false],
  exchanging: [false, 'none', 'processing', false],
  sending: [false, 'none', 'processing', false],
  overdue: [false, 'none', 'payment_required', false],
  review: [false, 'operator', 'manual_review', false],
  finished: [true, 'none', 'completed', false],
  refunded: [true, 'none', 'refunded', true],
  expired: [true, 'none', 'payment_required', true],
  failed: [true, 'operator', 'support_required', false],
};

function expectAttributes(item: Swap | SwapEvent): void {
  const [terminal, actionRequired, reasonCode, retryable] = EXPECTED[item.status];
  expect({
    status: item.status,
    terminal: item.terminal,
    actionRequired: item.actionRequired,
    reasonCode: item.reasonCode,
    retryable: item.retryable,
  }).to.deep.equal({
    status: item.status,
    terminal,
    actionRequired,
    reasonCode,
    retryable,
  });
}

describe('The swap lifecycle through the sandbox', function () {
  this.timeout(60_000);
  let server: TestServer;
  let client: ReturnType<typeof swapClient>;
  const terminal = (o: Swap) => o.terminal;
  // The statuses a timeline passes through, each once. A swap records `confirming` again each time it sees
  // more confirmations (how often depends on how soon its worker looks after each block), each entry with a
  // higher count than the one before.
  const statuses = (events: SwapEvent[]) => {
    const counts = events.filter((e) => e.status === 'confirming').map((e) => e.confirmationCount ?? 0);
    counts.forEach((count, i) => expect(i === 0 || count > counts[i - 1], `confirmation counts ${counts.join(', ')}`).to.equal(true));
    return events.map((e) => e.status).filter((status, i, all) => i === 0 || status !== all[i - 1]);
  };
  const sandbox = <T = { order: Swap }>(path: string, body: unknown) => client.send<T>('POST', `/api/v1/sandbox/swaps/${path}`, body);

  before(async () => {
    server = await startTestServer({
      env: { RATE_LIMIT_SWAPS_PER_MINUTE: '10000', RATE_LIMIT_QUOTES_PER_MINUTE: '10000', RATE_LIMIT_SIGNED_PER_MINUTE: '100000' },
      deps: { rates: fixedRates },
    });
    client = swapClient(server.origin, await server.createSigner('Lifecycle'));
  });
  after(() => server.close());

  it('runs a fixed swap from waiting to finished with confirmations, a payout hash and the quoted amount', async () => {
    const { order } = await client.create(btcToUsdt('0.015', { rateType: 'fixed' }));
    await client.pay(order);
    const { order: done, events } = await client.waitFor(order.id, terminal);
    expect(done.status).to.equal('finished');
    expect(done.actualOutputAmount).to.equal(order.expectedOutputAmount);
    expect(done.settlementTxHash).to.match(/^0x[0-9a-f]{64}$/);
    expect(done.sourceTxHash).to.match(/^[0-9a-f]{64}$/);
    expect(statuses(events)).to.deep.equal(['waiting', 'confirming', 'exchanging', 'sending', 'finished']);
    const confirming = events.find((e) => e.status === 'confirming')!;
    expect(confirming.requiredConfirmations).to.equal(2);
    expect(confirming.confirmationCount).to.be.within(0, 2);
    expect(events.find((e) => e.status === 'sending')!.settlementTxHash).to.equal(done.settlementTxHash);
    for (const item of [done, ...events]) expectAttributes(item);
    // Oldest first.
    const times = events.map((e) => Date.parse(e.occurredAt));
    expect([...times].sort((a, b) => a - b)).to.deep.equal(times);
  });

  it('reads back the whole timeline as stored, oldest first, signed and with the access token alike', async () => {
    const { order, accessToken } = await client.create(btcToUsdt('0.015', { rateType: 'fixed' }));
    await client.pay(order);
    const { events } = await client.waitFor(order.id, terminal);
    const rows = await server.knex('swap_events').where({ swap_id: order.id }).orderBy('seq');
    const stored = rows.map((r) => ({
      id: r.id,
      orderId: r.swap_id,
      status: r.status,
      confirmationCount: r.confirmation_count,
      requiredConfirmations: r.required_confirmations,
      sourceTxHash: r.source_tx_hash,
      settlementTxHash: r.settlement_tx_hash,
      occurredAt: (r.occurred_at as Date).toISOString(),
    }));
    const read = (list: SwapEvent[]) =>
      list.map((e) => ({
        id: e.id,
        orderId: e.orderId,
        status: e.status,
        confirmationCount: e.confirmationCount,
        requiredConfirmations: e.requiredConfirmations,
        sourceTxHash: e.sourceTxHash,
        settlementTxHash: e.settlementTxHash,
        occurredAt: e.occurredAt,
      }));
    expect(stored.length).to.be.at.least(5);
    expect(read(events)).to.deep.equal(stored);
    const byToken = await fetch(`${server.origin}/api/v1/swaps/${order.id}`, { headers: { authorization: `Bearer ${accessToken}` } });
    expect(byToken.status).to.equal(200);
    expect(read(((await byToken.json()) as { events: SwapEvent[] }).events)).to.deep.equal(stored);
  });

  it('pays a floating swap at the market rate, at least its minimum', async () => {
    const { order } = await client.create(btcToUsdt('0.015', { rateType: 'floating' }));
    await client.pay(order);
    const { order: done } = await client.waitFor(order.id, terminal);
    expect(done.status).to.equal('finished');
    expect(new Decimal(done.actualOutputAmount!).greaterThanOrEqualTo(done.minimumOutputAmount!)).to.equal(true);
  });

  it('refunds a fixed swap that received another amount', async () => {
    const { order } = await client.create(btcToUsdt('0.015', { rateType: 'fixed' }));
    await client.pay(order, '0.014');
    const { order: done } = await client.waitFor(order.id, terminal);
    // 0.014 less the 0.00002931 BTC network fee.
    expect(done).to.include({ status: 'refunded', failureCode: 'amount_mismatch', refundAmount: '0.01397069' });
    expect(done.refundTxHash).to.match(/^[0-9a-f]{64}$/);
    expect(done.deposits![0]).to.include({ role: 'swap', status: 'refunded', amount: '0.014', refundAmount: '0.01397069' });
    const [payout] = await server.knex('payouts').where({ swap_id: order.id, purpose: 'refund' }).select('amount');
    expect(new Money(payout.amount).toFixed()).to.equal('0.01397069');
    expectAttributes(done);
  });

  it('refunds a deposit below the limits, less the network fee', async () => {
    const { order } = await client.create(btcToUsdt('0.015', { rateType: 'floating' }));
    // 13.65 USD, under the 20 USD minimum.
    await client.pay(order, '0.0002');
    const { order: done } = await client.waitFor(order.id, terminal);
    expect(done).to.include({ status: 'refunded', failureCode: 'amount_out_of_range', refundAmount: '0.00017069' });
  });

  it('holds for an operator a deposit the network fee would leave at dust, rather than refunding it', async () => {
    const { order } = await client.create(btcToUsdt('0.015', { rateType: 'floating' }));
    // 0.00001 BTC is less than the 0.00002931 BTC fee: nothing would go back.
    await client.pay(order, '0.00001');
    const { order: held } = await client.waitFor(order.id, (o) => o.status === 'review');
    expect(held).to.include({ status: 'review', failureCode: 'amount_out_of_range', refundAmount: null, refundTxHash: null });
    expect(held.deposits![0]).to.include({ role: 'swap', status: 'review', amount: '0.00001', refundAmount: null });
    expect(await server.knex('payouts').where({ swap_id: order.id })).to.deep.equal([]);
    expectAttributes(held);
    // Nor does a refund decision make one: the operator fails it (the deposit kept for support) or approves it.
    expectError(await sandbox(`${order.id}/review-decision`, { decision: 'refund' }), 409, 'invalid_state');
  });

  it('sends a deposit above the automatic maximum to review, where approve carries it on to finished', async () => {
    const { order } = await client.create(btcToUsdt('0.5', { rateType: 'fixed' }));
    await client.pay(order);
    const { order: held } = await client.waitFor(order.id, (o) => o.status === 'review');
    expectAttributes(held);
    const decided = await sandbox(`${order.id}/review-decision`, { decision: 'approve' });
    expect(decided.status, decided.text).to.equal(200);
    const { order: done, events } = await client.waitFor(order.id, terminal);
    expect(done.status).to.equal('finished');
    expect(statuses(events)).to.deep.equal(['waiting', 'confirming', 'review', 'exchanging', 'sending', 'finished']);
  });

  it('pays an approved fixed swap that received another amount at the market, not the quoted amount', async () => {
    // 1.3 BTC quoted (under the 100,000 USD maximum); 0.5 BTC paid (above the 25,000 USD automatic maximum).
    const { order } = await client.create(btcToUsdt('1.3', { rateType: 'fixed' }));
    await client.pay(order, '0.5');
    await client.waitFor(order.id, (o) => o.status === 'review');
    await sandbox(`${order.id}/review-decision`, { decision: 'approve' });
    const { order: done } = await client.waitFor(order.id, terminal);
    expect(done.status).to.equal('finished');
    const paid = new Decimal(done.actualOutputAmount!);
    expect(paid.lessThan(new Decimal(order.expectedOutputAmount!).times(0.5))).to.equal(true);
    expect(paid.greaterThan(0)).to.equal(true);
  });

  it('keeps one future job per swap however often it is nudged (sandbox actions, restarts)', async () => {
    const { order } = await client.create();
    await client.waitFor(order.id, (o) => !!o.depositAddress);
    for (let i = 0; i < 5; i++) await server.engine.jobs.scheduleAdvance(order.id);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const schema = server.jobSchema ?? 'pgboss';
    const [{ n }] = (
      await server.knex.raw(`select count(*) as n from ??.job where name = 'swap-advance' and data->>'swapId' = ? and state = 'created'`, [
        schema,
        order.id,
      ])
    ).rows;
    expect(Number(n)).to.equal(1);
  });

  it('arms a failure on a waiting swap in one statement: it stays waiting, with one future job at its deposit deadline', async () => {
    const { order } = await client.create();
    await client.waitFor(order.id, (o) => !!o.depositAddress);
    for (let i = 0; i < 3; i++) {
      const armed = await sandbox(`${order.id}/failures`, { stage: 'exchange' });
      expect(armed.status, armed.text).to.equal(200);
      expect(armed.body.order.status).to.equal('waiting');
    }
    const schema = server.jobSchema ?? 'pgboss';
    const jobs = (
      await server.knex.raw(`select start_after from ??.job where name = 'swap-advance' and data->>'swapId' = ? and state = 'created'`, [
        schema,
        order.id,
      ])
    ).rows as Array<{ start_after: Date }>;
    const swap = await server.knex('swaps').where({ id: order.id }).first();
    expect(swap.armed_failure).to.equal('exchange');
    expect(jobs.map((j) => new Date(j.start_after).getTime())).to.deep.equal([(swap.quote_expires_at as Date).getTime()]);
  });

  it('arms the same failure again, also many times at once, without writing: each answer is 200 with the swap unchanged', async () => {
    const { order } = await client.create();
    const ready = await client.waitFor(order.id, (o) => !!o.depositAddress);
    const first = await sandbox(`${order.id}/failures`, { stage: 'payout' });
    expect(first.status, first.text).to.equal(200);
    const armedAt = (await server.knex('swaps').where({ id: order.id }).first()).updated_at as Date;
    const again = await Promise.all(Array.from({ length: 10 }, () => sandbox(`${order.id}/failures`, { stage: 'payout' })));
    for (const res of again) {
      expect(res.status, res.text).to.equal(200);
      expect(res.body.order).to.deep.equal(first.body.order);
    }
    expect((await server.knex('swaps').where({ id: order.id }).first()).updated_at).to.deep.equal(armedAt);
    // Another stage is a change: it is written.
    const other = await sandbox(`${order.id}/failures`, { stage: 'exchange' });
    expect(other.status, other.text).to.equal(200);
    const swap = await server.knex('swaps').where({ id: order.id }).first();
    expect(swap.armed_failure).to.equal('exchange');
    expect((swap.updated_at as Date).getTime()).to.be.greaterThan(armedAt.getTime());
    expect(first.body.order.status).to.equal(ready.order.status);

    // Many first armings at once: on PostgreSQL all but one wait for the row, find it armed, and answer 200 too.
    const { order: fresh } = await client.create();
    await client.waitFor(fresh.id, (o) => !!o.depositAddress);
    const together = await Promise.all(Array.from({ length: 10 }, () => sandbox(`${fresh.id}/failures`, { stage: 'exchange' })));
    expect(together.map((res) => res.status)).to.deep.equal(Array<number>(10).fill(200));
    expect((await server.knex('swaps').where({ id: fresh.id }).first()).armed_failure).to.equal('exchange');
  });

  it('refunds or fails a swap in review on the operator’s decision', async () => {
    for (const [decision, status] of [
      ['refund', 'refunded'],
      ['fail', 'failed'],
    ] as const) {
      const { order } = await client.create(btcToUsdt('0.5'));
      await client.pay(order);
      await client.waitFor(order.id, (o) => o.status === 'review');
      const decided = await sandbox(`${order.id}/review-decision`, { decision });
      expect(decided.status).to.equal(200);
      expect(decided.body.order.status).to.equal(status);
      // 0.5 less the 0.00002931 BTC network fee.
      expect(decided.body.order.refundAmount).to.equal(decision === 'refund' ? '0.49997069' : null);
      expectAttributes(decided.body.order);
    }
  });

  it('answers invalid_state for a review decision on a swap that is not in review', async () => {
    const { order } = await client.create();
    expectError(await sandbox(`${order.id}/review-decision`, { decision: 'approve' }), 409, 'invalid_state');
  });

  it('makes a waiting swap overdue, then expired, with the test clock', async () => {
    const { order } = await client.create();
    await client.waitFor(order.id, (o) => !!o.depositAddress);
    const overdue = await sandbox(`${order.id}/clock`, { deadline: 'deposit' });
    expect(overdue.status, overdue.text).to.equal(200);
    expect(overdue.body.order.status).to.equal('overdue');
    expectAttributes(overdue.body.order);
    const expired = await sandbox(`${order.id}/clock`, { deadline: 'expiry' });
    expect(expired.body.order.status).to.equal('expired');
    expectAttributes(expired.body.order);
    // Terminal statuses never change.
    expectError(await sandbox(`${order.id}/clock`, { deadline: 'expiry' }), 409, 'invalid_state');
    const { events } = await client.get(order.id);
    expect(statuses(events)).to.deep.equal(['waiting', 'overdue', 'expired']);
  });

  it('refunds a late deposit under lateDepositPolicy refund (fixed)', async () => {
    const { order } = await client.create(btcToUsdt('0.015', { rateType: 'fixed' }));
    expect(order.lateDepositPolicy).to.equal('refund');
    await client.waitFor(order.id, (o) => !!o.depositAddress);
    await sandbox(`${order.id}/clock`, { deadline: 'deposit' });
    await client.pay(order);
    const { order: done, events } = await client.waitFor(order.id, terminal);
    expect(done).to.include({ status: 'refunded', failureCode: 'late_deposit', refundAmount: '0.01497069' });
    expect(statuses(events)).to.deep.equal(['waiting', 'overdue', 'confirming', 'refunded']);
  });

  it('exchanges a late deposit at the market rate under lateDepositPolicy market_rate (floating)', async () => {
    const { order } = await client.create(btcToUsdt('0.015', { rateType: 'floating' }));
    expect(order.lateDepositPolicy).to.equal('market_rate');
    await client.waitFor(order.id, (o) => !!o.depositAddress);
    await sandbox(`${order.id}/clock`, { deadline: 'deposit' });
    await client.pay(order);
    const { order: done } = await client.waitFor(order.id, terminal);
    expect(done.status).to.equal('finished');
  });

  it('refunds the deposit when an injected exchange failure fires', async () => {
    const { order } = await client.create();
    const armed = await sandbox(`${order.id}/failures`, { stage: 'exchange' });
    expect(armed.status, armed.text).to.equal(200);
    await client.pay(order);
    const { order: done } = await client.waitFor(order.id, terminal);
    expect(done).to.include({ status: 'refunded', failureCode: 'exchange_failed', refundAmount: '0.01497069' });
  });

  it('fires an exchange failure armed in review on the exchange the approval starts, once', async () => {
    // 0.5 BTC is above the automatic maximum: the swap waits in review, where the failure is armed.
    const { order } = await client.create(btcToUsdt('0.5'));
    await client.pay(order);
    await client.waitFor(order.id, (o) => o.status === 'review');
    expect((await sandbox(`${order.id}/failures`, { stage: 'exchange' })).status).to.equal(200);
    const approved = await sandbox(`${order.id}/review-decision`, { decision: 'approve' });
    expect(approved.status, approved.text).to.equal(200);
    const { order: done, events } = await client.waitFor(order.id, terminal);
    expect(done).to.include({ status: 'refunded', failureCode: 'exchange_failed' });
    expect(statuses(events)).to.deep.equal(['waiting', 'confirming', 'review', 'exchanging', 'refunded']);
  });

  it("keeps an armed exchange failure in the sandbox's venue: it fires on the swap as it is, then refuses until the refusal took effect", async () => {
    const { order } = await client.create();
    await client.waitFor(order.id, (o) => !!o.depositAddress);
    const version = async () => (await server.knex('swaps').where({ id: order.id }).first()).updated_at as Date;
    const before = await version();
    expect((await sandbox(`${order.id}/failures`, { stage: 'exchange' })).status).to.equal(200);
    const venue = createSimulatedExchange({ knex: server.knex });
    const attempt = (swapVersion: Date) => venue.refusal({ swapId: order.id, swapVersion });
    const armed = async () => (await server.knex('swaps').where({ id: order.id }).first()).armed_failure as string | null;
    // A step that read the swap before the arming is thrown away: its attempt leaves the failure armed.
    expect(await attempt(before)).to.equal(null);
    expect(await armed()).to.equal('exchange');
    const first = await version();
    expect(await attempt(first)).to.match(/exchange failure was armed/);
    expect(await attempt(first)).to.match(/exchange failure was armed/);
    expect(await armed()).to.equal(null);
    // The refused step may be thrown away because something else changed the swap before it saved its
    // decision: the next step, on a newer version, is refused as well.
    expect(await attempt(new Date(first.getTime() + 1))).to.match(/exchange failure was armed/);
    // Fired, so arming it again is new; an attempt on a version before this arming fires nothing.
    expect((await sandbox(`${order.id}/failures`, { stage: 'exchange' })).status).to.equal(200);
    expect(await armed()).to.equal('exchange');
    expect(await attempt(first)).to.equal(null);
    expect(await armed()).to.equal('exchange');
    const third = await version();
    expect(await attempt(third)).to.match(/exchange failure was armed/);
    expect(await attempt(first)).to.match(/exchange failure was armed/);
    // Another swap's venue answer is its own.
    expect(await venue.refusal({ swapId: randomUUID(), swapVersion: first })).to.equal(null);
    // Fired here, in `waiting`, it has not taken effect: the swap's own step in `exchanging` is refused, and
    // the swap refunded. Then the failure is spent: the venue refuses nothing more.
    await client.pay(order);
    const { order: done } = await client.waitFor(order.id, terminal);
    expect(done).to.include({ status: 'refunded', failureCode: 'exchange_failed' });
    expect(await attempt(await version())).to.equal(null);
    expect(await attempt(third)).to.equal(null);
  });

  it('fires an armed exchange failure only on the swap as it is now: a step that read it before another change spends nothing', async () => {
    const { order } = await client.create();
    await client.waitFor(order.id, (o) => !!o.depositAddress);
    const version = async () => (await server.knex('swaps').where({ id: order.id }).first()).updated_at as Date;
    expect((await sandbox(`${order.id}/failures`, { stage: 'exchange' })).status).to.equal(200);
    const armedAt = await version();
    const venue = createSimulatedExchange({ knex: server.knex });
    // Another change after the arming (as a deposit seen would make): a step that read the swap at the
    // arming's version is thrown away, so its attempt leaves the failure armed.
    const changed = new Date(armedAt.getTime() + 1000);
    await server.knex('swaps').where({ id: order.id }).update({ updated_at: changed });
    expect(await venue.refusal({ swapId: order.id, swapVersion: armedAt })).to.equal(null);
    expect((await server.knex('swaps').where({ id: order.id }).first()).armed_failure).to.equal('exchange');
    expect(await venue.refusal({ swapId: order.id, swapVersion: changed })).to.match(/exchange failure was armed/);
  });

  it('keeps a failure armed when an attempt read before the arming waits for the arming to commit', async () => {
    const { order } = await client.create();
    await client.waitFor(order.id, (o) => !!o.depositAddress);
    const row = async () => server.knex('swaps').where({ id: order.id }).first();
    const venue = createSimulatedExchange({ knex: server.knex });
    // Fired once, so the venue keeps a row for the swap and the next arming updates it (under a row lock).
    expect((await sandbox(`${order.id}/failures`, { stage: 'exchange' })).status).to.equal(200);
    expect(await venue.refusal({ swapId: order.id, swapVersion: (await row()).updated_at })).to.match(/exchange failure was armed/);
    const { updated_at: stale, partner_id: partnerId } = (await row()) as { updated_at: Date; partner_id: string };
    const armedAt = new Date(stale.getTime() + 1000);
    let attempt: Promise<string | null> | undefined;
    // (Nothing in the transaction but the attempt uses another connection: PGlite has one session.)
    await server.knex.transaction(async (trx) => {
      // As POST /sandbox/swaps/{id}/failures arms it, in a transaction held open here.
      const arming = await armSandboxFailure(trx, partnerId, order.id, 'exchange', ['waiting'], armedAt);
      expect(arming).to.include({ armed: true, newly: true });
      // A step that read the swap before this arming asks now, and waits for the arming's commit.
      attempt = venue.refusal({ swapId: order.id, swapVersion: stale });
      await new Promise((resolve) => setTimeout(resolve, 200));
    });
    expect(await attempt).to.equal(null);
    expect((await row()).armed_failure).to.equal('exchange');
    expect(await venue.refusal({ swapId: order.id, swapVersion: armedAt })).to.match(/exchange failure was armed/);
  });

  it('holds the swap for an operator when an injected payout failure fires, and an approval pays again once', async () => {
    const { order } = await client.create();
    await sandbox(`${order.id}/failures`, { stage: 'payout' });
    await client.pay(order);
    // The chain refused the payout for good: it paid nothing, and the swap waits for an operator (never failed
    // with the deposit kept and no way out).
    const { order: held } = await client.waitFor(order.id, (o) => o.status === 'review');
    expect(held).to.include({ status: 'review', failureCode: 'payout_failed', settlementTxHash: null });
    expectAttributes(held);
    // Approved: the refused payout is proven dead, so a second payout (a new key) goes out, and the swap ends.
    const decided = await sandbox(`${order.id}/review-decision`, { decision: 'approve' });
    expect(decided.status, decided.text).to.equal(200);
    const { order: done, events } = await client.waitFor(order.id, terminal);
    expect(done.status).to.equal('finished');
    expect(done.settlementTxHash).to.be.a('string');
    expect(statuses(events)).to.include('review');
    const rows = await server
      .knex('payouts')
      .where({ swap_id: order.id, purpose: 'payout' })
      .orderBy('created_at')
      .select('idempotency_key', 'status', 'tx_hash');
    expect(rows.map((r: { idempotency_key: string }) => r.idempotency_key)).to.deep.equal([`${order.id}:payout`, `${order.id}:payout#2`]);
    expect(rows[0].status).to.equal('failed');
    expect(rows[1].tx_hash).to.equal(done.settlementTxHash);
  });

  it('pays out once even when the step runs many times at once (retried jobs, several workers)', async () => {
    const { order } = await client.create();
    await client.pay(order);
    await Promise.all(Array.from({ length: 8 }, () => server.engine.lifecycle.advance(order.id)));
    const { order: done } = await client.waitFor(order.id, terminal);
    expect(done.status).to.equal('finished');
    const payouts = await server.knex('sandbox_payouts').where('idempotency_key', 'like', `${order.id}:%`);
    expect(payouts).to.have.length(1);
    const { events } = await client.get(order.id);
    expect(statuses(events).filter((s) => s === 'sending')).to.have.length(1);
  });

  it('keeps a finished swap finished when more is paid to its address', async () => {
    const { order } = await client.create();
    await client.pay(order);
    const { order: done } = await client.waitFor(order.id, terminal);
    await client.pay(order);
    await server.engine.lifecycle.advance(order.id);
    expect((await client.get(order.id)).order).to.deep.equal(done);
  });

  it('answers 404 for a deposit to an address no swap of the partner uses', async () => {
    const other = swapClient(server.origin, await server.createSigner('Other'));
    const { order } = await client.create();
    const ready = await client.waitFor(order.id, (o) => !!o.depositAddress);
    const res = await other.send('POST', '/api/v1/sandbox/deposits', {
      address: ready.order.depositAddress,
      asset: 'BTC',
      network: 'BTC',
      amount: '0.015',
    });
    expectError(res, 404, 'not_found');
  });

  it("answers 404 to sandbox actions on another partner's swap or an unknown id, and changes nothing", async () => {
    const other = swapClient(server.origin, await server.createSigner('Stranger'));
    const { order } = await client.create();
    const actions: Array<[string, unknown]> = [
      ['failures', { stage: 'exchange' }],
      ['clock', { deadline: 'deposit' }],
      ['review-decision', { decision: 'approve' }],
    ];
    for (const [action, body] of actions) {
      expectError(await other.send('POST', `/api/v1/sandbox/swaps/${order.id}/${action}`, body), 404, 'not_found');
      expectError(await sandbox(`00000000-0000-4000-8000-000000000000/${action}`, body), 404, 'not_found');
      expectError(await sandbox(`not-a-uuid/${action}`, body), 404, 'not_found');
    }
    const row = await server.knex('swaps').where({ id: order.id }).first();
    expect(row.armed_failure).to.equal(null);
    expect(row.status).to.equal('waiting');
  });
});

describe('A sandbox failure armed on a swap already at its stage', function () {
  this.timeout(60_000);
  let server: TestServer;
  let client: ReturnType<typeof swapClient>;
  // While `broken`, USDT has no price. Confirming a BTC deposit prices only BTC; a floating exchange prices
  // both, so the swap stays in exchanging, its step failing and retried, until the failure is armed.
  let broken = false;

  before(async () => {
    // At the reference prices, so the refund's amount is known (the refund needs only the source's).
    const rates: RatesAdapter = {
      priceUsd: async (symbol, network) => {
        if (broken && symbol === 'USDT') throw new AppError(503, 'rates_unavailable', 'USDT has no price in this test.');
        return referencePrice(symbol, network);
      },
    };
    server = await startTestServer({ deps: { rates } });
    client = swapClient(server.origin, await server.createSigner('Armed at the stage'));
  });
  after(() => server.close());

  it('fires an exchange failure at once on a swap in exchanging, and answers with the refunded swap', async () => {
    const { order } = await client.create(btcToUsdt('0.015', { rateType: 'floating' }));
    broken = true;
    await client.pay(order);
    await client.waitFor(order.id, (o) => o.status === 'exchanging');
    const armed = await client.send<{ order: Swap }>('POST', `/api/v1/sandbox/swaps/${order.id}/failures`, { stage: 'exchange' });
    expect(armed.status, armed.text).to.equal(200);
    expect(armed.body.order).to.include({ status: 'refunded', failureCode: 'exchange_failed' });
    const { order: read, events } = await client.get(order.id);
    // The 0.015 deposit less the 0.00002931 BTC network fee.
    expect(read).to.include({ status: 'refunded', failureCode: 'exchange_failed', refundAmount: '0.01497069' });
    expect(events.map((e) => e.status).slice(-2)).to.deep.equal(['exchanging', 'refunded']);
    broken = false;
  });
});
