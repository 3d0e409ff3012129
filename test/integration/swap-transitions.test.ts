import { expect } from 'chai';
import type { components } from '../../generated/api.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { openStream } from '../support/sse.js';
import { swapClient } from '../support/swaps.js';
import { transaction } from '../../server/store/after-commit.js';
import { changeSwapOrder, changeSwapOrdersIfUnchanged } from '../../server/store/swap-transitions.js';
import { findSwap, lockSwap } from '../../server/store/swaps.js';
import type { SwapRecord } from '../../server/domain/swap-view.js';

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

  // One change of a swap read without a lock (a group of one); undefined when the swap changed meanwhile.
  const changeOne = async (swap: SwapRecord, fields: Partial<SwapRecord>, withEvent = true) =>
    (await changeSwapOrdersIfUnchanged(server.knex, [{ swap, fields, at: new Date(), withEvent }]))[0];

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
    const change = await transaction(server.knex, async (trx) => {
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

  it('changes a swap read without a lock only if it is still as read, and writes nothing otherwise', async () => {
    const { order } = await client.create();
    await client.waitFor(order.id, (o) => o.depositAddress !== null && o.depositAddress !== undefined);
    const counts = async () => ({
      events: Number((await server.knex('swap_events').where({ swap_id: order.id }).count({ n: '*' }))[0].n),
      messages: Number((await server.knex('webhook_outbox').whereRaw(`payload->'order'->>'id' = ?`, [order.id]).count({ n: '*' }))[0].n),
    });
    const read = (await findSwap(server.knex, order.id))!;
    const before = await counts();
    // Another change came between the read and the write: the stale record's updatedAt no longer matches.
    const stale = { ...read, updatedAt: new Date(read.updatedAt.getTime() - 1) };
    expect(await changeOne(stale, { depositMemo: 'stale' })).to.equal(undefined);
    expect(await counts()).to.deep.equal(before);
    expect((await findSwap(server.knex, order.id))!.depositMemo).to.equal(read.depositMemo);

    const change = await changeOne(read, { depositMemo: 'fresh' });
    expect(change?.swap.depositMemo).to.equal('fresh');
    expect(await counts()).to.deep.equal({ events: before.events + 1, messages: before.messages + 1 });
    const message = await lastMessage(order.id);
    const after = await client.get(order.id);
    expect(message).to.deep.equal({ order: after.order, event: after.events.at(-1) });
  });

  it('changes several swaps read without a lock in one statement, each only if it is still as read, with its own entry and message', async () => {
    const orders = await Promise.all([0, 1, 2].map(async () => (await client.create()).order));
    for (const order of orders) await client.waitFor(order.id, (o) => o.depositAddress !== null && o.depositAddress !== undefined);
    const reads = await Promise.all(orders.map(async (o) => (await findSwap(server.knex, o.id))!));
    const counts = async (id: string) => ({
      events: Number((await server.knex('swap_events').where({ swap_id: id }).count({ n: '*' }))[0].n),
      messages: Number((await server.knex('webhook_outbox').whereRaw(`payload->'order'->>'id' = ?`, [id]).count({ n: '*' }))[0].n),
    });
    const before = await Promise.all(orders.map((o) => counts(o.id)));
    // The second changed between its read and the write.
    const stale = { ...reads[1], updatedAt: new Date(reads[1].updatedAt.getTime() - 1) };
    const at = new Date();
    const changes = await changeSwapOrdersIfUnchanged(
      server.knex,
      [reads[0], stale, reads[2]].map((swap, i) => ({ swap, fields: { depositMemo: `memo-${i}` }, at, withEvent: true })),
    );
    expect(changes[1]).to.equal(undefined);
    expect(await counts(orders[1].id)).to.deep.equal(before[1]);
    expect((await findSwap(server.knex, orders[1].id))!.depositMemo).to.equal(reads[1].depositMemo);
    for (const i of [0, 2]) {
      expect(changes[i]?.swap).to.include({ id: orders[i].id, depositMemo: `memo-${i}` });
      expect(await counts(orders[i].id)).to.deep.equal({ events: before[i].events + 1, messages: before[i].messages + 1 });
      const after = await client.get(orders[i].id);
      expect(changes[i]?.event?.seq).to.match(/^\d+$/);
      expect(await lastMessage(orders[i].id)).to.deep.equal({ order: after.order, event: after.events.at(-1) });
    }
  });

  // On PostgreSQL the NOTIFY rides in the statement that writes the change (store/swap-notifications.ts
  // announcementSql); on PGlite the in-process bus fires after it. Either way an open stream is told.
  it('announces a change made without a lock to an open stream of the swap', async () => {
    const { order, accessToken } = await client.create();
    await client.waitFor(order.id, (o) => o.depositAddress !== null && o.depositAddress !== undefined);
    const session = await openStream(`${server.origin}/api/v1/swaps/${order.id}/stream`, { authorization: `Bearer ${accessToken}` });
    try {
      expect(session.status).to.equal(200);
      await session.waitFor((m) => m.event === 'order');
      const read = (await findSwap(server.knex, order.id))!;
      expect(await changeOne(read, { depositMemo: 'announced' }, false)).to.not.equal(undefined);
      const changed = await session.waitFor(
        (m) => m.event === 'order' && (JSON.parse(m.data) as components['schemas']['Swap']).depositMemo === 'announced',
        10_000,
      );
      expect((JSON.parse(changed.data) as components['schemas']['Swap']).id).to.equal(order.id);
    } finally {
      session.abort();
    }
  });
});
