import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { SwapRecord } from '../../server/domain/swap-view.js';
import { fromRow } from '../../server/store/rows.js';
import { createSwapWriter } from '../../server/store/swap-creation.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createVerifiedRoute, waitForAddresses } from '../support/routes.js';
import { btcToUsdt, swapClient } from '../support/swaps.js';

// New swaps and routes get their first job after the statement that stores them commits (jobs/swap-steps.ts
// startSwaps, jobs/route-addresses.ts). These tests leave a committed swap and a committed route without it, as a process
// killed between the commit and the job's insert does, and check that the engine's sweep starts them.
describe('the sweep of unstarted swaps and routes', function () {
  this.timeout(60_000);
  const SWEEP_MS = 300;
  let server: TestServer;
  let client: ReturnType<typeof swapClient>;
  before(async () => {
    server = await startTestServer({ startSweepMs: SWEEP_MS });
    client = swapClient(server.origin, { ...(await server.createSigner('Sweep')), user: 'sweep-user' });
  });
  after(() => server?.close());

  const jobsOf = async (swapId: string) =>
    Number(
      (
        await server.knex.raw(`select count(*) as n from ??.job where name = 'swap-advance' and data->>'swapId' = ?`, [
          server.jobSchema ?? 'pgboss',
          swapId,
        ])
      ).rows[0].n,
    );

  it('allocates the deposit address of a swap whose first step was never queued', async () => {
    const made = await client.create(btcToUsdt());
    const template = fromRow<SwapRecord>(await server.knex('swaps').where({ id: made.order.id }).first());
    const quote = await client.quote(btcToUsdt());
    const id = randomUUID();
    const at = new Date();
    // The store's writer alone, as if the process died right after its commit: the swap commits, and no job of
    // it is ever queued (the handler queues it once the writer answers).
    const write = createSwapWriter(server.knex);
    const outcome = await write({
      partnerId: template.partnerId,
      key: randomUUID(),
      requestHash: 'unstarted',
      swap: { ...template, id, quoteId: quote.id, depositAddress: null, depositMemo: null, createdAt: at, updatedAt: at },
      response: { status: 202, body: {} },
      now: at,
      keyExpiresAt: new Date(at.getTime() + 60_000),
      waitSeconds: 5,
    });
    expect(outcome).to.equal('created');
    expect(await jobsOf(id)).to.equal(0);

    const started = await client.waitFor(id, (o) => Boolean(o.depositAddress), 10_000);
    expect(started.order.status).to.equal('waiting');
    expect(started.order.depositAddress).to.match(/^bc1q/);
    // Not before it was a sweep's age: a swap whose job is merely on its way is left to that job.
    const allocatedAt = (await server.knex('swap_events').where({ swap_id: id }).orderBy('seq').first()).occurred_at as Date;
    expect(allocatedAt.getTime() - at.getTime()).to.be.at.least(SWEEP_MS);
  });

  it('moves on a waiting swap whose deadline passed with no job for it (its insert was lost)', async () => {
    const { order } = await client.create(btcToUsdt());
    await client.waitFor(order.id, (o) => Boolean(o.depositAddress));
    // The state a lost insert leaves: no job for the deadline, which has passed.
    await server.knex.raw(`delete from ??.job where name = 'swap-advance' and data->>'swapId' = ?`, [
      server.jobSchema ?? 'pgboss',
      order.id,
    ]);
    const past = new Date(Date.now() - 2 * SWEEP_MS);
    await server
      .knex('swaps')
      .where({ id: order.id })
      .update({ quote_expires_at: past, expires_at: new Date(Date.now() + 3_600_000) });
    const moved = await client.waitFor(order.id, (o) => o.status === 'overdue', 10_000);
    expect(moved.order.status).to.equal('overdue');
  });

  it('allocates the addresses of a route whose allocation job was never queued', async () => {
    const route = await createVerifiedRoute(client, 'sweep-user');
    // The state a lost job leaves: the route committed, none of its addresses stored.
    const removed = await server.knex('route_addresses').where({ route_id: route.route_id }).delete();
    expect(removed).to.be.greaterThan(0);

    const again = await waitForAddresses(client, route.route_id, 10_000);
    // Derived from the route and the network: the same addresses as before.
    expect(again.addresses).to.deep.equal(route.addresses);
  });
});
