import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectError } from '../support/http.js';
import { swapClient } from '../support/swaps.js';
import { listDueRoutes } from '../../server/store/routes.js';
import { createVerifiedRoute, freshZanoWallet, signRouteRequest, waitForDeposits, type Route } from '../support/routes.js';

// A clock the test moves forward (within the 300 s signing window): idle time passes without waiting for it.
function testClock() {
  let offsetMs = 0;
  return {
    now: () => new Date(Date.now() + offsetMs),
    advance: (seconds: number) => {
      offsetMs += seconds * 1000;
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Permanent routes: limits on how many there are and how often they are polled', function () {
  this.timeout(120_000);

  describe('the per-partner route quota (ROUTE_MAX_PER_PARTNER=2)', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ env: { ROUTE_MAX_PER_PARTNER: '2', ROUTE_POLL_SECONDS: '3600' } });
    });
    after(() => server?.close());

    it('refuses a route past the quota with 409 route_limit_reached naming the limit, and still recovers an existing route', async () => {
      const client = swapClient(server.origin, { ...(await server.createSigner('Quota')), user: 'quota-user' });
      const wallet = freshZanoWallet();
      const first = await client.send<Route>('POST', '/api/v1/permanent-routes', await signRouteRequest(client, 'quota-user', { wallet }));
      expect(first.status, first.text).to.equal(201);
      const second = await client.send<Route>('POST', '/api/v1/permanent-routes', await signRouteRequest(client, 'quota-user'));
      expect(second.status, second.text).to.equal(201);

      const refusedBody = await signRouteRequest(client, 'quota-user');
      const refused = await client.send('POST', '/api/v1/permanent-routes', refusedBody);
      expectError(refused, 409, 'route_limit_reached');
      expect((refused.body as { error: { details: unknown } }).error.details).to.deep.equal({ limit: 2 });

      // The same user, asset and address: the existing route, at the limit.
      const recovered = await client.send<Route>(
        'POST',
        '/api/v1/permanent-routes',
        await signRouteRequest(client, 'quota-user', { wallet }),
      );
      expect(recovered.status, recovered.text).to.equal(201);
      expect(recovered.body.route_id).to.equal(first.body.route_id);
      // Another user of the same partner counts against the same quota; another partner has its own.
      const other = swapClient(server.origin, { ...(await server.createSigner('Other')), user: 'other-user' });
      const elsewhere = await other.send('POST', '/api/v1/permanent-routes', await signRouteRequest(other, 'other-user'));
      expect(elsewhere.status, elsewhere.text).to.equal(201);
      const list = await client.send<{ routes: Route[] }>('GET', '/api/v1/permanent-routes');
      expect(list.body.routes).to.have.length(2);
    });
  });

  describe('idle backoff (ROUTE_POLL_SECONDS=1, doubling after each ROUTE_IDLE_SECONDS=10 idle, ROUTE_POLL_MAX_SECONDS=8)', () => {
    const clock = testClock();
    let server: TestServer;
    before(async () => {
      server = await startTestServer({
        env: { ROUTE_POLL_SECONDS: '1', ROUTE_IDLE_SECONDS: '10', ROUTE_POLL_MAX_SECONDS: '8', SANDBOX_BLOCK_SECONDS: '0.05' },
        deps: { now: clock.now },
      });
    });
    after(() => server?.close());

    const nextPollAt = async (routeId: string) =>
      ((await server.knex('permanent_routes').where({ id: routeId }).first()) as { next_poll_at: Date }).next_poll_at;

    it('polls a long-idle route at the cap, not every second, and still finds a payment within the cap', async () => {
      const client = swapClient(server.origin, { ...(await server.createSigner('Idle')), user: 'idle-user' });
      const route = await createVerifiedRoute(client, 'idle-user');
      // 100 s without a deposit: ten idle periods, so the interval is at its 8 s cap.
      clock.advance(100);
      const jumpedAt = clock.now();
      const deadline = Date.now() + 5_000;
      while ((await nextPollAt(route.route_id)) <= jumpedAt && Date.now() < deadline) await sleep(20);
      const polledAt = clock.now();
      // The poll ran between the jump and now: the next one is 8 s after it.
      const next = (await nextPollAt(route.route_id)).getTime();
      expect((next - jumpedAt.getTime()) / 1000, 'seconds from the jump to the next poll').to.be.at.least(8);
      expect((next - polledAt.getTime()) / 1000, 'seconds from the poll to the next').to.be.at.most(8);

      const pay = await client.send<{ txHash: string; createdAt: string }>('POST', '/api/v1/sandbox/deposits', {
        address: route.addresses['USDT/TRX'],
        asset: 'USDT',
        network: 'TRX',
        amount: '5',
      });
      expect(pay.status, pay.text).to.equal(202);
      // Two seconds later (two regular intervals) it is not found yet: the route is polled less often.
      await sleep(2_000);
      const early = await client.send<{ deposits: unknown[] }>('GET', `/api/v1/permanent-routes/${route.route_id}/deposits`);
      expect(early.body.deposits, 'deposits found 2 s after the payment').to.have.length(0);
      // Past the cap it is found: the stated worst case.
      clock.advance(8 - (clock.now().getTime() - polledAt.getTime()) / 1000);
      const found = await waitForDeposits(client, route.route_id, (l) => l.deposits.length === 1, 3_000);
      // At most the cap after the payment, plus one sweep (the sweeper sleeps a second at most).
      const delay = (new Date(found.deposits[0].firstSeenAt).getTime() - new Date(pay.body.createdAt).getTime()) / 1000;
      expect(delay, 'seconds from the payment to its detection').to.be.at.most(8 + 2);
      // A deposit resets the backoff: the route is polled every second (or every block while it confirms) again.
      const afterDeposit = ((await nextPollAt(route.route_id)).getTime() - clock.now().getTime()) / 1000;
      expect(afterDeposit, 'seconds to the next poll after a deposit').to.be.at.most(1.5);
    });
  });

  // Idle routes for the backlog tests, created ten at a time.
  async function createIdleRoutes(client: ReturnType<typeof swapClient>, user: string, count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i += 10) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(10, count - i) }, async () => {
          const res = await client.send<Route>('POST', '/api/v1/permanent-routes', await signRouteRequest(client, user));
          expect(res.status, res.text).to.equal(201);
          return res.body.route_id;
        }),
      );
      ids.push(...batch);
    }
    return ids;
  }

  describe('listDueRoutes: routes in an expect-deposit window first, whenever they fell due (the store, on the real database)', () => {
    const clock = testClock();
    let server: TestServer;
    before(async () => {
      // An expect-deposit poll interval longer than the regular one: after its first poll the awaited route falls
      // due after every idle route, so only the window can put it first.
      server = await startTestServer({ env: { ROUTE_POLL_SECONDS: '30', ROUTE_EXPECT_POLL_SECONDS: '60' }, deps: { now: clock.now } });
    });
    after(() => server?.close());

    const nextPollAt = async (id: string) =>
      ((await server.knex('permanent_routes').where({ id }).first()) as { next_poll_at: Date }).next_poll_at.getTime();

    it('lists the awaited route before idle routes that fell due earlier, then the idle ones most overdue first', async () => {
      const client = swapClient(server.origin, { ...(await server.createSigner('Order')), user: 'order' });
      const idle = await createIdleRoutes(client, 'order', 20);
      const awaited = await createVerifiedRoute(client, 'order');
      const expecting = await client.send('POST', `/api/v1/permanent-routes/${awaited.route_id}/expect-deposit`);
      expect(expecting.status, expecting.text).to.equal(200);
      // The sweeper polls the awaited route once (it is due at once), which makes it due again in 60 s. The clock
      // does not move on by itself, so nothing else is polled while the test reads.
      for (const deadline = Date.now() + 10_000; (await nextPollAt(awaited.route_id)) < clock.now().getTime() + 50_000;) {
        expect(Date.now(), 'the awaited route was polled').to.be.below(deadline);
        await sleep(20);
      }
      const idleDue = await Promise.all(idle.map(async (id) => ({ id, at: await nextPollAt(id) })));
      const awaitedDue = await nextPollAt(awaited.route_id);
      expect(Math.max(...idleDue.map((r) => r.at)), 'every idle route falls due before the awaited one').to.be.below(awaitedDue);
      const dueAt = new Map(idleDue.map((r) => [r.id, r.at]));

      // When everything is due: the awaited route first, then a batch of the most overdue idle routes.
      const everything = new Date(awaitedDue + 1_000);
      const batch = await listDueRoutes(server.knex, everything, 16);
      expect(batch).to.have.length(16);
      expect(batch[0]).to.equal(awaited.route_id);
      const rest = batch.slice(1);
      expect(new Set(rest).size).to.equal(15);
      expect(rest.every((id) => dueAt.has(id))).to.equal(true);
      // Most overdue first (routes created together may tie, in any order): none left out fell due before one taken.
      const left = idle.filter((id) => !rest.includes(id)).map((id) => dueAt.get(id)!);
      expect(Math.max(...rest.map((id) => dueAt.get(id)!))).to.be.at.most(Math.min(...left));
      expect(await listDueRoutes(server.knex, everything, 1)).to.deep.equal([awaited.route_id]);
      // Before the awaited route falls due, only idle routes are listed.
      const idleOnly = await listDueRoutes(server.knex, new Date(awaitedDue - 1_000), 100);
      expect(new Set(idleOnly)).to.deep.equal(new Set(idle));
      // Nothing is due yet now.
      expect(await listDueRoutes(server.knex, clock.now(), 100)).to.deep.equal([]);
    });
  });

  describe('expect-deposit routes ahead of a backlog of idle routes (HTTP)', () => {
    const clock = testClock();
    let server: TestServer;
    before(async () => {
      server = await startTestServer({
        env: { ROUTE_POLL_SECONDS: '30', ROUTE_EXPECT_POLL_SECONDS: '0.1', SANDBOX_BLOCK_SECONDS: '0.05' },
        deps: { now: clock.now },
      });
    });
    after(() => server?.close());

    it('finds the payment on an expect-deposit route within a few sweeps, with most of a backlog that fell due earlier still waiting', async () => {
      const client = swapClient(server.origin, { ...(await server.createSigner('Backlog')), user: 'backlog' });
      const BACKLOG = 120;
      // The idle routes first, so each falls due before the awaited route: polled strictly by due time, the
      // awaited route would wait for all of them.
      const idle = await createIdleRoutes(client, 'backlog', BACKLOG);
      const awaited = await createVerifiedRoute(client, 'backlog');
      const pay = await client.send('POST', '/api/v1/sandbox/deposits', {
        address: awaited.addresses['USDT/TRX'],
        asset: 'USDT',
        network: 'TRX',
        amount: '5',
      });
      expect(pay.status, pay.text).to.equal(202);

      // A minute later every route is due: the idle ones since their creation, the awaited one from now on.
      clock.advance(60);
      const jumpedAt = clock.now().getTime();
      const expecting = await client.send('POST', `/api/v1/permanent-routes/${awaited.route_id}/expect-deposit`);
      expect(expecting.status, expecting.text).to.equal(200);
      const found = await waitForDeposits(client, awaited.route_id, (l) => l.deposits.length === 1, 10_000);
      const seenAt = new Date(found.deposits[0].firstSeenAt).getTime();

      // Let the sweeper clear the backlog, then read from each idle route when it was polled: its next poll is
      // exactly ROUTE_POLL_SECONDS after it (60 s idle is far from the 86,400 s idle period). That record does
      // not change while the test reads it, so how fast the sweeper is does not matter.
      const dueNow = () =>
        server.knex('permanent_routes').whereIn('id', idle).andWhere('next_poll_at', '<=', clock.now()).count({ n: '*' });
      for (const deadline = Date.now() + 30_000; Number((await dueNow())[0].n) > 0;) {
        expect(Date.now(), 'the sweeper cleared the backlog').to.be.below(deadline);
        await sleep(50);
      }
      const rows = (await server.knex('permanent_routes').whereIn('id', idle).select('next_poll_at')) as Array<{ next_poll_at: Date }>;
      const polledAt = rows.map((r) => r.next_poll_at.getTime() - 30_000);
      expect(Math.min(...polledAt), 'every idle route was polled after the jump').to.be.at.least(jumpedAt);
      const polledBefore = polledAt.filter((at) => at < seenAt).length;
      console.log(`      ${polledBefore} of ${BACKLOG} idle routes were polled before the awaited payment was found`);
      // A sweep takes 16 due routes. The window puts the awaited route first in the sweep after the call; before
      // it, at most the sweep under way when the call came, and one more if the sweeper woke between the clock
      // jump and the call (3 x 16 leaves room for that). Polled by due time alone, all 120 would come first.
      expect(polledBefore, 'idle routes polled before the awaited payment was found').to.be.at.most(3 * 16);
    });
  });
});
