import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/server.js';
import { swapClient } from '../support/swaps.js';
import { changeSwapOrder } from '../../server/store/swap-transitions.js';
import { lockSwap } from '../../server/store/swaps.js';

// A change of a swap is written in one statement with its timeline entry and its webhook message, both
// built before the write. These check that what was built is what a read of the swap then says.
describe('Swap changes: the swap, its timeline entry and its message written together', function () {
  this.timeout(60_000);
  let server: TestServer;
  let client: ReturnType<typeof swapClient>;

  before(async () => {
    server = await startTestServer();
    client = swapClient(server.origin, await server.createSigner());
  });
  after(() => server?.close());

  // The last swap.updated message queued for `swapId`.
  const lastMessage = async (swapId: string) => {
    const row = await server
      .knex('webhook_outbox')
      .where({ type: 'swap.updated' })
      .whereRaw(`payload->'order'->>'id' = ?`, [swapId])
      .orderBy('seq', 'desc')
      .first('payload');
    return row.payload as { order: Record<string, unknown>; event: Record<string, unknown> | null };
  };

  it('queues a message equal to the swap and the timeline entry a read returns', async () => {
    const { order } = await client.create();
    const { order: ready, events } = await client.waitFor(order.id, (o) => o.depositAddress !== null && o.depositAddress !== undefined);
    const message = await lastMessage(order.id);
    const allocation = events.find((event) => event.id === message.event?.id);
    expect(allocation, 'the message names a timeline entry of the swap').to.not.equal(undefined);
    expect(message).to.deep.equal({ order: ready, event: allocation });
  });

  it('rewrites the message from the stored row when the database writes a value in another notation', async () => {
    const { order } = await client.create();
    await client.waitFor(order.id, (o) => o.depositAddress !== null && o.depositAddress !== undefined);
    const change = await server.knex.transaction(async (trx) => {
      const locked = await lockSwap(trx, order.id);
      return changeSwapOrder(trx, locked!, { refundAmount: '1.5e-7' }, new Date(), { withEvent: true });
    });
    expect(change.swap.refundAmount).to.equal('0.00000015');
    expect(change.event?.seq).to.match(/^\d+$/);
    const read = await client.get(order.id);
    expect(read.order.refundAmount).to.equal('0.00000015');
    const message = await lastMessage(order.id);
    expect(message.order).to.deep.equal(read.order);
    expect(message.event).to.deep.equal(read.events.at(-1));
  });
});
