import { expect } from 'chai';
import { AmbiguousBroadcastError } from '../../server/adapters/chain.js';
import type { RatesAdapter } from '../../server/adapters/rates.js';
import { loadSandboxCatalog } from '../../server/adapters/sandbox/catalog.js';
import { findAsset } from '../../server/domain/catalog.js';
import { AppError } from '../../server/domain/errors.js';
import { Money } from '../../server/domain/money.js';
import { listOperatorQueue, returnHeldPayment } from '../../server/operator.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { wrapBroadcast, type SandboxPayment } from '../support/chain.js';
import { btcToUsdt, swapClient, type Swap } from '../support/swaps.js';

const BTC_REFUND_ADDRESS = 'bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh';
const OPERATOR_ADDRESS = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
// Prices fixed at the catalogue's reference: an automatic refund returns the payment less Bitcoin's 2.00 USD
// network fee at 68250 USD, 0.00002931 BTC (8 places, rounded up). An operator's return to an address they
// give returns the payment whole.
const catalog = loadSandboxCatalog();
const fixedRates: RatesAdapter = { priceUsd: async (symbol, network) => new Money(findAsset(catalog, symbol, network)!.priceUsd) };

// A payment held for an operator (an extra payment whose refund the chain refused, or that no safe
// destination could take back) is returned by an operator's decision to an address they give: a new refund
// under the payment's next key, through the outbox, recorded in the operator action trail.
describe('payments held for an operator, returned by their decision (server/operator.ts returnHeldPayment)', function () {
  this.timeout(60_000);
  let server: TestServer;
  let client: ReturnType<typeof swapClient>;
  // While set, the simulated BTC chain refuses the broadcast of extra payments' refunds, or answers it like a
  // node that timed out.
  let refuseExtraRefunds = false;
  let ambiguousExtraRefunds = false;

  before(async () => {
    server = await startTestServer({
      env: { SANDBOX_BLOCK_SECONDS: '0.1' },
      deps: { rates: fixedRates },
      wrapChains: wrapBroadcast('BTC', async (order, _signed, pass) => {
        if (!order.key.includes(':extra:')) return pass();
        if (ambiguousExtraRefunds) throw new AmbiguousBroadcastError('the node did not answer within its timeout');
        return refuseExtraRefunds ? { kind: 'rejected', reason: 'bad-txns-inputs-missingorspent', passing: false } : pass();
      }),
    });
    client = swapClient(server.origin, await server.createSigner('Held payments'));
  });
  after(() => server?.close());

  const deps = () => ({ knex: server.knex, lifecycle: server.engine.lifecycle, jobs: server.engine.jobs as never, now: () => new Date() });
  const acting = { actor: 'ops-alice', reason: 'the customer asked for it back to their new wallet' };
  const extraOf = (order: Swap, txHash: string) => order.deposits?.find((d) => d.txHash === txHash);
  const refused = async (run: Promise<unknown>): Promise<AppError> => {
    try {
      await run;
    } catch (err) {
      if (err instanceof AppError) return err;
      throw err;
    }
    throw new Error('the return was not refused');
  };

  // A finished swap paid again with `amount` while the chain answers that payment's refund as `answer` says:
  // the extra payment ends held for an operator.
  async function heldExtra(amount: string, answer: 'refuse' | 'ambiguous') {
    const { order } = await client.create(
      btcToUsdt('0.015', { rateType: 'fixed', refundMode: 'address', refundAddress: BTC_REFUND_ADDRESS }),
    );
    await client.pay(order);
    await client.waitFor(order.id, (o) => o.status === 'finished');
    refuseExtraRefunds = answer === 'refuse';
    ambiguousExtraRefunds = answer === 'ambiguous';
    try {
      const late = (await client.pay(order, amount)).body as SandboxPayment;
      const { order: held } = await client.waitFor(order.id, (o) => extraOf(o, late.txHash)?.status === 'review');
      return { order, late, held };
    } finally {
      refuseExtraRefunds = false;
      ambiguousExtraRefunds = false;
    }
  }

  it('lists the held payment, returns it to the operator’s address once, and refuses a second return', async () => {
    const { order, late, held } = await heldExtra('0.002', 'refuse');
    expect(held.status).to.equal('finished');

    const queue = await listOperatorQueue(server.knex, 100);
    expect(queue.find((item) => item.id === order.id)?.heldPaymentList).to.deep.equal([
      { payment: `${late.txHash}:0`, amount: '0.002', returnBy: 'to' },
    ]);

    const input = { swapId: order.id, txHash: late.txHash, outputIndex: 0, ...acting };
    const toOperator = { to: { address: OPERATOR_ADDRESS, memo: null } };
    // An address of another network, the swap's own deposit, a payment that is not there: refused, nothing moves.
    const badAddress = await refused(
      returnHeldPayment(deps(), { ...input, to: { address: '0x71C7656EC7ab88b098defB751B7401B5f6d8976F', memo: null } }),
    );
    expect([badAddress.status, badAddress.code]).to.deep.equal([400, 'invalid_request']);
    const own = await refused(returnHeldPayment(deps(), { ...input, ...toOperator, txHash: held.sourceTxHash! }));
    expect([own.status, own.code]).to.deep.equal([409, 'invalid_state']);
    expect(own.message).to.contain("the swap's own deposit");
    const missing = await refused(returnHeldPayment(deps(), { ...input, ...toOperator, outputIndex: 7 }));
    expect(missing.status).to.equal(409);
    // Its refund failed for good (refused before any acceptance): nothing to broadcast again.
    const nothingHeld = await refused(returnHeldPayment(deps(), { ...input, to: 'rebroadcast' }));
    expect(nothingHeld.message).to.contain('has no refund held after an ambiguous broadcast');

    const { payment } = await returnHeldPayment(deps(), { ...input, ...toOperator });
    expect(payment).to.include({ status: 'refunding', refundAmount: '0.002' });
    const again = await refused(returnHeldPayment(deps(), { ...input, ...toOperator }));
    expect([again.status, again.code]).to.deep.equal([409, 'invalid_state']);

    const { order: returned } = await client.waitFor(order.id, (o) => extraOf(o, late.txHash)?.status === 'refunded');
    expect(returned.status).to.equal('finished');
    const refunds = await server.knex('payouts').where({ swap_id: order.id, purpose: 'extra_refund' }).orderBy('created_at');
    expect(refunds.map((r) => [r.idempotency_key, r.status, r.address, new Money(r.amount).toFixed()])).to.deep.equal([
      [`${order.id}:extra:${late.txHash}:0`, 'failed', BTC_REFUND_ADDRESS, '0.00197069'],
      [`${order.id}:extra:${late.txHash}:0#2`, refunds[1].status, OPERATOR_ADDRESS, '0.002'],
    ]);
    expect(['broadcast', 'confirmed']).to.include(refunds[1].status);
    expect(extraOf(returned, late.txHash)!.refundTxHash).to.equal(refunds[1].tx_hash);
    // On the chain: the operator's refund, once; the refused one never.
    const sent = await server.knex('sandbox_payouts').where('idempotency_key', 'like', `${order.id}:extra:%`);
    expect(sent.map((p) => [p.idempotency_key, p.address])).to.deep.equal([[`${order.id}:extra:${late.txHash}:0#2`, OPERATOR_ADDRESS]]);

    const trail = await server.knex('operator_actions').where({ action: 'payment.return', target: order.id }).orderBy('id');
    expect(trail.map((t) => t.outcome)).to.deep.equal(['refused', 'refused', 'refused', 'refused', 'succeeded', 'refused']);
    expect(trail[4]).to.include({ actor: 'ops-alice', reason: acting.reason });
  });

  it('sends a refund held after an ambiguous broadcast again, the same transaction, and refuses another address for it', async () => {
    const { order, late } = await heldExtra('0.003', 'ambiguous');
    const [heldRefund] = await server.knex('payouts').where({ swap_id: order.id, purpose: 'extra_refund' });
    expect(heldRefund).to.include({ status: 'review', address: BTC_REFUND_ADDRESS });
    // 0.003 less the 0.00002931 BTC network fee.
    expect(new Money(heldRefund.amount).toFixed()).to.equal('0.00297069');

    const queue = await listOperatorQueue(server.knex, 100);
    expect(queue.find((item) => item.id === order.id)?.heldPaymentList).to.deep.equal([
      { payment: `${late.txHash}:0`, amount: '0.003', returnBy: 'rebroadcast' },
    ]);
    const input = { swapId: order.id, txHash: late.txHash, outputIndex: 0, ...acting };
    const elsewhere = await refused(returnHeldPayment(deps(), { ...input, to: { address: OPERATOR_ADDRESS, memo: null } }));
    expect([elsewhere.status, elsewhere.code]).to.deep.equal([409, 'invalid_state']);
    expect(elsewhere.message).to.contain('--rebroadcast');

    const { payment } = await returnHeldPayment(deps(), { ...input, to: 'rebroadcast' });
    // The held refund, as it was committed: the payment less the network fee.
    expect(payment).to.include({ status: 'refunding', refundAmount: '0.00297069' });
    const { order: returned } = await client.waitFor(order.id, (o) => extraOf(o, late.txHash)?.status === 'refunded');
    expect(extraOf(returned, late.txHash)!.refundTxHash).to.equal(heldRefund.tx_hash);
    const refunds = await server.knex('payouts').where({ swap_id: order.id, purpose: 'extra_refund' });
    expect(refunds.map((r) => [r.idempotency_key, r.tx_hash])).to.deep.equal([[heldRefund.idempotency_key, heldRefund.tx_hash]]);
    const sent = await server.knex('sandbox_payouts').where('idempotency_key', 'like', `${order.id}:extra:%`);
    expect(sent.map((p) => p.tx_hash)).to.deep.equal([heldRefund.tx_hash]);
  });
});
