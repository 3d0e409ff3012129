/**
 * PgBouncer in transaction mode hands each transaction to any server connection, so a statement prepared
 * by name on one may be missing (or a different one) on the next. The service must never prepare by name on
 * PostgreSQL: after real traffic over HTTP, none of the server's pooled connections holds one.
 */
import { expect } from 'chai';
import type { Knex } from 'knex';
import { startTestServer, type TestServer } from '../support/server.js';
import { btcToUsdt, swapClient } from '../support/swaps.js';
import { createVerifiedRoute } from '../support/routes.js';
import { createReceiver, LOCAL_RECEIVER_ENV, type Receiver } from '../support/webhook-receiver.js';

const ENV = { ...LOCAL_RECEIVER_ENV, WEBHOOK_RETRY_SECONDS: '0.2,0.2,0.5', WEBHOOK_TIMEOUT_SECONDS: '1' };

/**
 * Named statements of every connection in the server's pool. pg_prepared_statements is per session, so
 * `max` transactions are held open together: each is on a connection of its own, and together they are all
 * of the pool's (a connection the pool opens for this has none, which is the point too).
 */
async function preparedStatementsPerConnection(knex: Knex, max: number): Promise<{ pid: number; names: string[] }[]> {
  let release!: () => void;
  const allIn = new Promise<void>((resolve) => (release = resolve));
  let started = 0;
  const sessions = Array.from({ length: max }, () =>
    knex.transaction(async (trx) => {
      const pid = (await trx.raw('select pg_backend_pid() as pid')).rows[0].pid as number;
      const names = (await trx.raw('select name from pg_prepared_statements')).rows.map((r: { name: string }) => r.name);
      if (++started === max) release();
      await allIn;
      return { pid, names };
    }),
  );
  return Promise.all(sessions);
}

describe('PgBouncer safety: no named prepared statements on PostgreSQL', function () {
  this.timeout(60_000);
  let server: TestServer;
  let receiver: Receiver;
  before(async function () {
    if (!process.env.DATABASE_URL) {
      console.log('      skipped: needs PostgreSQL (DATABASE_URL); the embedded PGlite is never behind PgBouncer');
      this.skip();
    }
    receiver = await createReceiver();
    await receiver.listen();
    server = await startTestServer({ env: ENV });
  });
  after(async () => {
    await server?.close();
    await receiver?.close();
  });

  it('leaves none on any pooled connection after quotes, swaps, reads, a route and a webhook', async () => {
    const partner = { ...(await server.createSigner('PgBouncer partner')), user: 'pgbouncer-user' };
    const client = swapClient(server.origin, partner);
    const hook = await client.send<{ secret: string }>('PUT', '/api/v1/partner/webhook', { url: receiver.url });
    expect(hook.status, hook.text).to.equal(200);

    // Each operation twice, concurrently, so repeated texts run on more than one connection.
    const swaps = await Promise.all([client.create(btcToUsdt('0.015')), client.create(btcToUsdt('0.02'))]);
    for (const { order } of swaps) await client.get(order.id);
    const list = await client.send('GET', '/api/v1/swaps');
    expect(list.status, list.text).to.equal(200);
    await client.pay(swaps[0].order);
    await client.waitFor(swaps[0].order.id, (o) => o.status !== 'waiting');
    const route = await createVerifiedRoute(client, 'pgbouncer-user');
    expect((await client.send('GET', `/api/v1/permanent-routes/${route.route_id}`)).status).to.equal(200);
    await receiver.waitFor((received) => received.some((d) => JSON.parse(d.body).type === 'swap.updated'));

    const max = server.knex.client.config.pool.max as number;
    const sessions = await preparedStatementsPerConnection(server.knex, max);
    expect(new Set(sessions.map((s) => s.pid)).size, 'one transaction per connection').to.equal(max);
    const perConnection = sessions.map((s) => `${s.pid}: ${s.names.length}${s.names.length ? ` (${s.names[0]}, ...)` : ''}`);
    const total = sessions.reduce((sum, s) => sum + s.names.length, 0);
    expect(total, `named prepared statements per connection: ${perConnection.join('; ')}`).to.equal(0);
  });
});
