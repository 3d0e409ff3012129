import { expect } from 'chai';
import fc from 'fast-check';
import type { RatesAdapter } from '../../server/adapters/rates.js';
import { loadSandboxCatalog } from '../../server/adapters/sandbox/catalog.js';
import { findAsset } from '../../server/domain/catalog.js';
import { Money } from '../../server/domain/money.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { swapClient } from '../support/swaps.js';
import { createVerifiedRoute } from '../support/routes.js';

// Prices fixed at the catalogue's reference, so every poll values a bucket the same way and the expected
// outcome can be computed; polls only on request (the regular interval is an hour).
const catalog = loadSandboxCatalog();
const fixedRates: RatesAdapter = {
  async priceUsd(symbol, network) {
    return new Money(findAsset(catalog, symbol, network)!.priceUsd);
  },
};
const ENV = { ROUTE_POLL_SECONDS: '3600', SANDBOX_BLOCK_SECONDS: '0.005' };
const MIN_USD = new Money(catalog.routes.minSwapUsd);
const MAX_USD = new Money(catalog.routes.maxAutoSwapUsd);
// Four buckets: two assets on Tron (separate addresses), and two tokens on Ethereum that share one address;
// the buckets must never mix either way.
const BUCKETS = [
  { asset: 'USDT', network: 'TRX' },
  { asset: 'TRX', network: 'TRX' },
  { asset: 'USDT', network: 'ETH' },
  { asset: 'USDC', network: 'ETH' },
] as const;

interface Row {
  id: string;
  asset: string;
  network: string;
  amount: string;
  status: string;
  order_id: string | null;
  tx_hash: string;
}

describe('Permanent routes: accumulation on the real store, with two workers (properties)', function () {
  this.timeout(180_000);
  let server: TestServer;
  let second: TestServer;
  let client: ReturnType<typeof swapClient>;

  before(async () => {
    server = await startTestServer({ env: ENV, deps: { rates: fixedRates } });
    second = await startTestServer({ env: ENV, deps: { rates: fixedRates }, sameDatabaseAs: server });
    client = swapClient(server.origin, { ...(await server.createSigner('Accumulator')), user: 'prop-user' });
  });
  after(async () => {
    await second?.close();
    await server?.close();
  });

  // Two workers, one per server instance (each with its own pool), poll the same route at the same time.
  const pollTwice = (routeId: string) =>
    Promise.all([server.engine.routes.poll(routeId, { force: true }), second.engine.routes.poll(routeId, { force: true })]);

  const deposit = fc.record({
    bucket: fc.integer({ min: 0, max: BUCKETS.length - 1 }),
    // USD value in cents, mostly below the 25 USD minimum, sometimes above the automatic maximum.
    cents: fc.oneof(
      { weight: 8, arbitrary: fc.integer({ min: 50, max: 3_000 }) },
      { weight: 1, arbitrary: fc.integer({ min: 1_000_001, max: 1_100_000 }) },
    ),
    pollAfter: fc.boolean(),
  });

  it('converts each deposit at most once, never mixes buckets, loses nothing, and leaves only sub-minimum buckets waiting', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(deposit, { minLength: 1, maxLength: 7 }), async (plan) => {
        const route = await createVerifiedRoute(client, 'prop-user');
        const paid: string[] = [];
        for (const step of plan) {
          const { asset, network } = BUCKETS[step.bucket];
          const spec = findAsset(catalog, asset, network)!;
          const amount = new Money(step.cents).div(100).div(spec.priceUsd).toDecimalPlaces(Math.min(spec.precision, 6), Money.ROUND_DOWN);
          const res = await client.send<{ txHash: string }>('POST', '/api/v1/sandbox/deposits', {
            address: route.addresses[`${asset}/${network}`],
            asset,
            network,
            amount: amount.toFixed(),
          });
          expect(res.status, res.text).to.equal(202);
          paid.push(res.body.txHash);
          if (step.pollAfter) await pollTwice(route.route_id);
        }
        // Every deposit confirmed (20 blocks of 5 ms at most), then two rounds of concurrent polls.
        // A forced poll skips a route another worker (an instance's own sweeper) holds at that moment, and a
        // payment the chain watcher has not reached yet has no row, so poll until every payment is recorded
        // and decided, then once more at the same time on both.
        await new Promise((r) => setTimeout(r, 250));
        const deadline = Date.now() + 10_000;
        for (;;) {
          await pollTwice(route.route_id);
          const [{ recorded, undecided }] = await server
            .knex('route_deposits')
            .where({ route_id: route.route_id })
            .select(
              server.knex.raw('count(*)::int as recorded'),
              server.knex.raw(`count(*) filter (where status = 'confirming')::int as undecided`),
            );
          if ((recorded === paid.length && undecided === 0) || Date.now() > deadline) break;
        }
        await pollTwice(route.route_id);

        const rows: Row[] = await server.knex('route_deposits').where({ route_id: route.route_id });
        const orders = await server.knex('swaps').where({ route_id: route.route_id });
        // Every payment recorded exactly once.
        expect(rows.map((r) => r.tx_hash).sort()).to.deep.equal(paid.slice().sort());
        // Every order converts deposits of one bucket, exactly the sum of them.
        for (const order of orders) {
          const members = rows.filter((r) => r.order_id === order.id);
          expect(members.length).to.be.greaterThan(0);
          expect(new Set(members.map((m) => `${m.asset}/${m.network}`))).to.deep.equal(
            new Set([`${order.source_asset}/${order.source_network}`]),
          );
          expect(new Money(order.received_amount).equals(Money.sum(...members.map((m) => m.amount)))).to.equal(true);
          const value = new Money(order.received_amount).times(findAsset(catalog, order.source_asset, order.source_network)!.priceUsd);
          expect(value.greaterThanOrEqualTo(MIN_USD), `order ${order.id} of ${value} USD`).to.equal(true);
          // The instances' own sweepers may poll the route too (it is due at each block while a deposit
          // confirms) and move its orders on: only review is decided by the value.
          expect(order.status === 'review', `order of ${value} USD is ${order.status}`).to.equal(value.greaterThan(MAX_USD));
        }
        // Deposits without an order all wait, and each bucket that waits is below the minimum.
        for (const { asset, network } of BUCKETS) {
          const waiting = rows.filter((r) => r.asset === asset && r.network === network && r.order_id === null);
          expect(waiting.every((r) => r.status === 'accumulating')).to.equal(true);
          const price = findAsset(catalog, asset, network)!.priceUsd;
          const value = Money.sum(0, ...waiting.map((r) => r.amount)).times(price);
          expect(value.lessThan(MIN_USD), `${asset}/${network} waits with ${value} USD`).to.equal(true);
        }
        // Without polls between the payments, each bucket converts its whole non-review total in at most one order.
        if (plan.every((s) => !s.pollAfter)) {
          const pooledOrders = orders.filter((o) => rows.filter((r) => r.order_id === o.id).length > 1 || o.status !== 'review');
          const perBucket = new Map<string, number>();
          for (const o of pooledOrders)
            perBucket.set(`${o.source_asset}/${o.source_network}`, (perBucket.get(`${o.source_asset}/${o.source_network}`) ?? 0) + 1);
          for (const count of perBucket.values()) expect(count).to.equal(1);
        }
      }),
      { numRuns: 12 },
    );
  });
});
