import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectError } from '../support/http.js';
import { swapClient } from '../support/swaps.js';
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

  describe('expect-deposit routes ahead of a backlog of idle routes', () => {
    const clock = testClock();
    let server: TestServer;
    before(async () => {
      server = await startTestServer({
        env: { ROUTE_POLL_SECONDS: '30', ROUTE_EXPECT_POLL_SECONDS: '0.1', SANDBOX_BLOCK_SECONDS: '0.05' },
        deps: { now: clock.now },
      });
    });
    after(() => server?.close());

    it('polls a route in an expect-deposit window before the idle routes that were due earlier', async () => {
      const client = swapClient(server.origin, { ...(await server.createSigner('Backlog')), user: 'backlog' });
      const awaited = await createVerifiedRoute(client, 'backlog');
      const BACKLOG = 120;
      const idle: string[] = [];
      for (let i = 0; i < BACKLOG; i += 10) {
        const batch = await Promise.all(
          Array.from({ length: Math.min(10, BACKLOG - i) }, async () => {
            const res = await client.send<Route>('POST', '/api/v1/permanent-routes', await signRouteRequest(client, 'backlog'));
            expect(res.status, res.text).to.equal(201);
            return res.body.route_id;
          }),
        );
        idle.push(...batch);
      }
      const pay = await client.send('POST', '/api/v1/sandbox/deposits', {
        address: awaited.addresses['USDT/TRX'],
        asset: 'USDT',
        network: 'TRX',
        amount: '5',
      });
      expect(pay.status, pay.text).to.equal(202);

      // A minute later every route is due: the idle ones since their creation, the awaited one from now on.
      clock.advance(60);
      const expecting = await client.send('POST', `/api/v1/permanent-routes/${awaited.route_id}/expect-deposit`);
      expect(expecting.status, expecting.text).to.equal(200);
      await waitForDeposits(client, awaited.route_id, (l) => l.deposits.length === 1, 10_000);
      const stillDue = await server
        .knex('permanent_routes')
        .whereIn('id', idle)
        .andWhere('next_poll_at', '<=', clock.now())
        .count({ n: '*' });
      console.log(`      payment found with ${stillDue[0].n} of ${BACKLOG} idle routes still due`);
      expect(Number(stillDue[0].n), 'idle routes not yet polled when the awaited payment was found').to.be.at.least(BACKLOG / 2);
    });
  });
});
