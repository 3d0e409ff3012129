/**
 * A chosen outcome for a fixed-rate deposit of another amount (POST /swaps `amountMismatchPolicy`): each
 * policy with an underpayment and an overpayment of a 0.015 BTC fixed-rate swap, and with a deposit below the
 * pair's minimum, through HTTP on the sandbox to the swap's end; the timeline says which rule applied and why.
 * And through the SDK.
 */
import { expect } from 'chai';
import { partnerClient } from '../../sdk/test/support/partner-client.js';
import { loadSandboxCatalog } from '../../server/adapters/sandbox/catalog.js';
import { createSandboxRates } from '../../server/adapters/sandbox/rates.js';
import { Money } from '../../server/domain/money.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectError } from '../support/http.js';
import { btcToUsdt, ETH_ADDRESS, swapBody, swapClient, type Swap, type SwapEvent } from '../support/swaps.js';

const REFUND_ADDRESS = 'bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh';
const FIXED = btcToUsdt('0.015', { rateType: 'fixed', refundMode: 'address', refundAddress: REFUND_ADDRESS });
type Policy = 'refund' | 'market_rate' | 'refund_excess';
const ENDED = (o: Swap) => o.terminal === true;

describe('amountMismatchPolicy: a fixed-rate deposit of another amount', function () {
  this.timeout(120_000);
  const catalog = loadSandboxCatalog();
  // The sandbox's prices drift with time; held at one moment, the network fee and the market output are known.
  const drifting = createSandboxRates(catalog);
  const held = new Date('2026-06-14T10:00:00.000Z');
  let btcUsd: InstanceType<typeof Money>;
  // A refund returns the amount less BTC's payout fee at the BTC price, rounded up to 8 places.
  const lessTheFee = (amount: string) =>
    new Money(amount)
      .minus(new Money(catalog.networks.BTC.payoutFeeUsd).div(btcUsd).toDecimalPlaces(8, Money.ROUND_UP))
      .toDecimalPlaces(8, Money.ROUND_DOWN)
      .toFixed();
  let server: TestServer;
  let client: ReturnType<typeof swapClient>;
  before(async () => {
    btcUsd = new Money(await drifting.priceUsd('BTC', 'BTC', held));
    server = await startTestServer({
      env: { RATE_LIMIT_QUOTES_PER_MINUTE: '10000', RATE_LIMIT_SWAPS_PER_MINUTE: '10000' },
      deps: { rates: { priceUsd: (symbol, network) => drifting.priceUsd(symbol, network, held) } },
    });
    client = swapClient(server.origin, await server.createSigner('Merchant'));
  });
  after(() => server.close());

  // A fixed 0.015 BTC swap under `policy` (none given: the default), paid `amount`, followed to its end.
  async function paidSwap(policy: Policy | undefined, amount: string): Promise<{ order: Swap; events: SwapEvent[] }> {
    const { order } = await client.create(FIXED, policy ? { amountMismatchPolicy: policy } : {});
    expect(order.amountMismatchPolicy).to.equal(policy ?? 'refund');
    await client.pay(order, amount);
    return client.waitFor(order.id, ENDED, 60_000);
  }
  const noteOf = (events: SwapEvent[], status: string) => events.find((e) => e.status === status && e.note)?.note;

  for (const [policy, amount, case_] of [
    [undefined, '0.014', 'underpaid'],
    ['refund', '0.016', 'overpaid'],
    ['refund_excess', '0.014', 'underpaid'],
  ] as const) {
    it(`${policy ?? 'refund (the default)'}, ${case_} (${amount} of 0.015 BTC): refunded less the network fee, amount_mismatch`, async () => {
      const { order, events } = await paidSwap(policy, amount);
      expect(order).to.include({
        status: 'refunded',
        failureCode: 'amount_mismatch',
        refundAmount: lessTheFee(amount),
        actualOutputAmount: null,
      });
      expect(order.refundTxHash).to.be.a('string');
      expect(noteOf(events, 'refunded')).to.equal(
        `${case_ === 'underpaid' ? 'Underpaid' : 'Overpaid'}: ${amount} BTC arrived, not the depositAmount of 0.015 BTC. amountMismatchPolicy ${policy ?? 'refund'}: ${policy === 'refund_excess' ? 'an underpayment' : 'a deposit of another amount'} is returned, less the network fee.`,
      );
    });
  }

  for (const [amount, case_] of [
    ['0.014', 'underpaid'],
    ['0.016', 'overpaid'],
  ] as const) {
    it(`market_rate, ${case_} (${amount} of 0.015 BTC): what arrived is exchanged at the market rate`, async () => {
      // The market's output for the amount paid, quoted floating at the held prices.
      const market = await client.quote(btcToUsdt(amount, { rateType: 'floating' }));
      const { order, events } = await paidSwap('market_rate', amount);
      expect(order).to.include({ status: 'finished', failureCode: null, actualOutputAmount: market.receiveAmount, refundTxHash: null });
      const quoted = new Money(order.expectedOutputAmount!);
      expect(new Money(order.actualOutputAmount!).comparedTo(quoted)).to.equal(case_ === 'underpaid' ? -1 : 1);
      expect(noteOf(events, 'exchanging')).to.match(/amountMismatchPolicy market_rate: what arrived is exchanged at the market rate\.$/);
    });
  }

  it('refund_excess, overpaid (0.0162 of 0.015 BTC): the quoted output, and the excess back less the network fee', async () => {
    const { order, events } = await paidSwap('refund_excess', '0.0162');
    const excessBack = lessTheFee('0.0012');
    expect(order).to.include({
      status: 'finished',
      failureCode: null,
      actualOutputAmount: order.expectedOutputAmount,
      excessRefundAmount: excessBack,
      refundTxHash: null,
    });
    expect(order.excessRefundTxHash).to.be.a('string').and.not.equal(order.settlementTxHash);
    expect(noteOf(events, 'exchanging')).to.equal(
      `Overpaid: 0.0162 BTC arrived, not the depositAmount of 0.015 BTC. amountMismatchPolicy refund_excess: the quoted ${order.expectedOutputAmount} USDT is paid for 0.015 BTC, and the excess of 0.0012 BTC goes back less the network fee of ${new Money('0.0012').minus(excessBack).toFixed()} BTC: ${excessBack} BTC (excessRefundAmount).`,
    );
    // The deposit itself is credited: only its excess went back.
    const deposit = order.deposits!.find((d) => d.role === 'swap')!;
    expect(deposit).to.include({ status: 'credited', amount: '0.0162' });
  });

  it('refund_excess, overpaid by an excess the network fee would leave at dust: the quoted output, the excess kept, and the timeline says so', async () => {
    const { order, events } = await paidSwap('refund_excess', '0.01500001');
    expect(order).to.include({
      status: 'finished',
      actualOutputAmount: order.expectedOutputAmount,
      excessRefundAmount: null,
      excessRefundTxHash: null,
    });
    expect(noteOf(events, 'exchanging')).to.match(
      /the excess of 0\.00000001 BTC is kept: less the network fee of .* not above the dust floor/,
    );
  });

  it('refund_excess, overpaid above the automatic maximum: held for review, and once approved the quoted output and the excess back', async () => {
    const { order } = await client.create(FIXED, { amountMismatchPolicy: 'refund_excess' });
    await client.pay(order, '0.4');
    const held = await client.waitFor(order.id, (o) => o.status === 'review');
    expect(held.order.excessRefundAmount).to.equal(null);
    const decided = await client.send('POST', `/api/v1/sandbox/swaps/${order.id}/review-decision`, { decision: 'approve' });
    expect(decided.status, decided.text).to.equal(200);
    const done = await client.waitFor(order.id, ENDED, 60_000);
    expect(done.order).to.include({
      status: 'finished',
      actualOutputAmount: order.expectedOutputAmount,
      excessRefundAmount: lessTheFee('0.385'),
    });
    expect(done.order.excessRefundTxHash).to.be.a('string');
  });

  for (const policy of ['market_rate', 'refund_excess'] as const) {
    it(`${policy}, below the pair's minimum: refunded (amount_out_of_range) whatever the policy`, async () => {
      const { order } = await paidSwap(policy, '0.0002');
      expect(order).to.include({ status: 'refunded', failureCode: 'amount_out_of_range', refundAmount: lessTheFee('0.0002') });
    });
  }

  it('refuses a policy it does not know (400), and is echoed on reads and replays', async () => {
    const quote = await client.quote(FIXED);
    expectError(await client.createRaw(swapBody(quote, FIXED, { amountMismatchPolicy: 'keep' })), 400, 'invalid_request');
    const key = 'mismatch-replay-1';
    const first = await client.createRaw(swapBody(quote, FIXED, { amountMismatchPolicy: 'refund_excess' }), key);
    expect(first.status, first.text).to.equal(202);
    const replay = await client.createRaw(swapBody(quote, FIXED, { amountMismatchPolicy: 'refund_excess' }), key);
    expect(replay.status).to.equal(202);
    expect(replay.body.order.amountMismatchPolicy).to.equal('refund_excess');
    expect((await client.get(first.body.order.id)).order.amountMismatchPolicy).to.equal('refund_excess');
  });

  it('is in the SDK: swaps.create({ amountMismatchPolicy })', async () => {
    const sdk = await partnerClient(server);
    const quoted = await sdk.quotes.create({ ...FIXED, refundMode: 'address' });
    expect(quoted.error).to.equal(undefined);
    const { data, error } = await sdk.swaps.create({
      ...FIXED,
      refundMode: 'address',
      rateType: 'fixed',
      quoteId: quoted.data!.quote.id,
      destinationAddress: ETH_ADDRESS,
      amountMismatchPolicy: 'market_rate',
    });
    expect(error).to.equal(undefined);
    expect(data!.order.amountMismatchPolicy).to.equal('market_rate');
  });
});
