import { expect } from 'chai';
import { wrapBroadcast } from '../support/chain.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { btcToUsdt, swapClient } from '../support/swaps.js';

// A payout the chain accepted but no block ever holds (a mempool dropped it) is broadcast again, the same
// bytes, after the rebroadcast wait (jobs/payout-sender.ts); a refusal of that second broadcast proves nothing
// and holds the payout for review.
describe('a broadcast payout that no block holds (the outbox, docs/architecture.md#production)', function () {
  this.timeout(60_000);
  const REBROADCAST_MS = 400;
  let server: TestServer;
  // How ETH broadcasts are answered: 'drop' accepts and forgets (the chain never sees it), 'refuse' refuses,
  // 'pass' hands the broadcast to the simulated chain.
  let mode: 'drop' | 'refuse' | 'pass' = 'pass';
  const broadcasts: Array<{ txHash: string; bytes: string; mode: string }> = [];

  before(async () => {
    server = await startTestServer({
      payoutRebroadcastMs: REBROADCAST_MS,
      wrapChains: wrapBroadcast('ETH', async (_order, signed, pass) => {
        broadcasts.push({ txHash: signed.txHash, bytes: signed.bytes, mode });
        if (mode === 'drop') {
          mode = 'pass'; // the next broadcast reaches the chain
          return { kind: 'accepted' };
        }
        if (mode === 'refuse') return { kind: 'rejected', reason: 'txn-mempool-conflict', passing: false };
        return pass();
      }),
    });
  });
  after(() => server?.close());

  it('broadcasts the same signed bytes again and finishes with one payout', async () => {
    const client = swapClient(server.origin, await server.createSigner('Dropped'));
    const { order } = await client.create(btcToUsdt('0.015', { rateType: 'fixed' }));
    mode = 'drop';
    await client.pay(order);
    const { order: done } = await client.waitFor(order.id, (o) => o.terminal);
    expect(done.status).to.equal('finished');
    const mine = broadcasts.filter((b) => b.txHash === done.settlementTxHash);
    expect(mine.map((b) => b.mode)).to.deep.equal(['drop', 'pass']);
    expect(new Set(mine.map((b) => b.bytes)).size).to.equal(1);
    const [payout] = await server.knex('payouts').where({ swap_id: order.id });
    expect(payout).to.include({ status: 'confirmed', tx_hash: done.settlementTxHash, attempts: 3 });
    const sent = await server.knex('sandbox_payouts').where('idempotency_key', 'like', `${order.id}:%`);
    expect(sent.map((p) => p.tx_hash)).to.deep.equal([done.settlementTxHash]);
  });

  it('holds the swap for review when the second broadcast is refused', async () => {
    const client = swapClient(server.origin, await server.createSigner('Refused'));
    const { order } = await client.create(btcToUsdt('0.015', { rateType: 'fixed' }));
    const dropped = broadcasts.length;
    mode = 'drop';
    await client.pay(order);
    await client.waitFor(order.id, (o) => o.status === 'sending');
    // Only once the first broadcast has been answered: from then on every broadcast is refused.
    while (broadcasts.length === dropped) await new Promise((r) => setTimeout(r, 20));
    mode = 'refuse';
    const { order: held } = await client.waitFor(order.id, (o) => o.status === 'review');
    expect(held).to.include({ actionRequired: 'operator', failureCode: 'payout_failed' });
    const [payout] = await server.knex('payouts').where({ swap_id: order.id });
    expect(payout.status).to.equal('review');
    expect(payout.last_error).to.equal('broadcast again and refused: txn-mempool-conflict');
    expect(await server.knex('sandbox_payouts').where('idempotency_key', 'like', `${order.id}:%`)).to.deep.equal([]);

    // Approved while the chain still refuses it: accepted once, it may be on the chain, so it is never marked
    // failed (which would let another payment be committed): it is held for review again.
    const approve = () => client.send('POST', `/api/v1/sandbox/swaps/${order.id}/review-decision`, { decision: 'approve' });
    expect((await approve()).status).to.equal(200);
    await client.waitFor(order.id, (o) => o.status === 'review' && o.updatedAt !== held.updatedAt);
    const [again] = await server.knex('payouts').where({ swap_id: order.id });
    expect(again).to.include({ status: 'review', last_error: 'accepted before, refused now: txn-mempool-conflict' });
    expect(again.accepted_at).to.be.instanceOf(Date);
    // Approved once the chain takes it: the same transaction, and the swap finishes.
    mode = 'pass';
    expect((await approve()).status).to.equal(200);
    const { order: done } = await client.waitFor(order.id, (o) => o.terminal);
    expect(done).to.include({ status: 'finished', settlementTxHash: held.settlementTxHash });
    expect((await server.knex('payouts').where({ swap_id: order.id })).map((p) => p.tx_hash)).to.deep.equal([held.settlementTxHash]);
  });
});
