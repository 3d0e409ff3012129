import { expect } from 'chai';
import { AmbiguousBroadcastError } from '../../server/adapters/chain.js';
import { wrapBroadcast } from '../support/chain.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { btcToUsdt, swapClient, type Swap } from '../support/swaps.js';

const terminal = (o: Swap) => o.terminal;

describe('a payout broadcast whose outcome is unknown (the outbox, docs/architecture.md#production)', function () {
  this.timeout(60_000);
  let server: TestServer;
  // Broadcasts on ETH answer like a node that timed out, while this is set.
  let ambiguous = false;
  const broadcasts: string[] = [];

  before(async () => {
    server = await startTestServer({
      wrapChains: wrapBroadcast('ETH', async (_order, signed, pass) => {
        broadcasts.push(signed.txHash);
        if (ambiguous) throw new AmbiguousBroadcastError('the node did not answer within its timeout');
        return pass();
      }),
    });
  });
  after(() => server?.close());

  it('holds the swap for review, and an approval broadcasts the same signed bytes: one payout, one hash', async () => {
    const client = swapClient(server.origin, await server.createSigner('Ambiguous'));
    ambiguous = true;
    const { order } = await client.create(btcToUsdt('0.015', { rateType: 'fixed' }));
    await client.pay(order);
    const { order: held, events } = await client.waitFor(order.id, (o) => o.status === 'review');
    expect(held).to.include({ status: 'review', failureCode: 'payout_failed', actionRequired: 'operator' });
    expect(events.map((e) => e.status)).to.include.members(['sending', 'review']);
    const [row] = await server.knex('payouts').where({ swap_id: order.id, purpose: 'payout' });
    expect(row).to.include({ status: 'review', tx_hash: held.settlementTxHash });
    expect(await server.knex('sandbox_payouts').where({ idempotency_key: `${order.id}:payout` })).to.have.length(0);

    // A refund now would pay twice if the payout did go out: refused.
    const refund = await client.send<{ error: { code: string } }>('POST', `/api/v1/sandbox/swaps/${order.id}/review-decision`, {
      decision: 'refund',
    });
    expect(refund.status, refund.text).to.equal(409);
    expect(refund.body.error.code).to.equal('invalid_state');

    ambiguous = false;
    const approved = await client.send('POST', `/api/v1/sandbox/swaps/${order.id}/review-decision`, { decision: 'approve' });
    expect(approved.status, approved.text).to.equal(200);
    const { order: done } = await client.waitFor(order.id, terminal);
    expect(done).to.include({ status: 'finished', settlementTxHash: held.settlementTxHash });
    const sent = await server.knex('sandbox_payouts').where('idempotency_key', 'like', `${order.id}:%`);
    expect(sent.map((p) => [p.idempotency_key, p.tx_hash])).to.deep.equal([[`${order.id}:payout`, held.settlementTxHash]]);
    // Every broadcast, before and after the review, carried the one signed transaction.
    expect(new Set(broadcasts.filter((hash) => hash === held.settlementTxHash)).size).to.equal(1);
    expect(broadcasts.filter((hash) => hash === held.settlementTxHash).length).to.be.at.least(2);
  });
});
