import { expect } from 'chai';
import { loadSandboxCatalog } from '../../server/adapters/sandbox/catalog.js';
import { findAsset } from '../../server/domain/catalog.js';
import { Money } from '../../server/domain/money.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { swapClient } from '../support/swaps.js';
import { createVerifiedRoute, waitForDeposits, type Deposit, type Route } from '../support/routes.js';

// Anyone can pay a route address: n small payments must cost O(n) work, and payments below the dust floor
// are recorded but cost nothing more. Blocks of 5 ms and expect-deposit polls every 50 ms keep it to seconds.
const ENV = {
  SANDBOX_BLOCK_SECONDS: '0.005',
  ROUTE_POLL_SECONDS: '3600',
  ROUTE_EXPECT_POLL_SECONDS: '0.05',
  EXPECT_DEPOSIT_SECONDS: '600',
};
const catalog = loadSandboxCatalog();
// (The fallback is the catalogue's value, for a run against code from before catalogue floors.)
const BTC_FLOOR = findAsset(catalog, 'BTC', 'BTC')!.dustFloor ?? '0.00000546';

describe('Permanent routes under a rain of small payments', function () {
  this.timeout(120_000);

  // Counts every row written to the deposits and buckets tables (inserts and updates), from a trigger of the
  // suite's own schema: the writes a poll makes, whatever code makes them.
  async function countWrites(server: TestServer): Promise<() => Promise<number>> {
    const knex = server.knex;
    await knex.raw('create table test_row_writes (n bigint not null)');
    await knex.raw('insert into test_row_writes values (0)');
    await knex.raw(`create function test_count_write() returns trigger language plpgsql as $$
      begin update test_row_writes set n = n + 1; return null; end $$`);
    for (const table of ['route_deposits', 'route_buckets']) {
      const exists = await knex.schema.hasTable(table);
      if (exists)
        await knex.raw(`create trigger ?? after insert or update on ?? for each row execute function test_count_write()`, [
          `count_${table}`,
          table,
        ]);
    }
    return async () => Number((await knex('test_row_writes').first()).n);
  }

  const outboxCount = async (server: TestServer) =>
    Number((await server.knex('webhook_outbox').where({ type: 'permanent_deposit.updated' }).count({ n: '*' }))[0].n);

  describe('with dust floors lowered a hundredfold (ROUTE_DUST_FLOOR_FACTOR=0.01)', () => {
    let server: TestServer;
    let client: ReturnType<typeof swapClient>;
    before(async () => {
      server = await startTestServer({ env: { ...ENV, ROUTE_DUST_FLOOR_FACTOR: '0.01' } });
      client = swapClient(server.origin, { ...(await server.createSigner('Rained on')), user: 'rain' });
    });
    after(() => server?.close());

    it('handles 200 small payments to one route with O(n) messages and deposit writes, not one per waiting deposit per poll', async () => {
      const n = 200;
      const route: Route = await createVerifiedRoute(client, 'rain');
      const writes = await countWrites(server);
      const expect200 = await client.send('POST', `/api/v1/permanent-routes/${route.route_id}/expect-deposit`);
      expect(expect200.status, expect200.text).to.equal(200);
      // 100 satoshi each (about 0.07 USD): above the lowered floor, 200 of them still below the 25 USD minimum.
      const amount = '0.000001';
      for (let i = 0; i < n; i++) {
        const res = await client.send('POST', '/api/v1/sandbox/deposits', {
          address: route.addresses['BTC/BTC'],
          asset: 'BTC',
          network: 'BTC',
          amount,
        });
        expect(res.status, res.text).to.equal(202);
        // A poll every ten payments at least, so the bucket grows over many polls (the sweeper adds more).
        if (i % 10 === 9) await server.engine.routes.poll(route.route_id, { force: true });
      }
      // Wait until every payment has confirmed and joined the bucket (the list below shows only its first page).
      const accumulating = async () =>
        Number((await server.knex('route_deposits').where({ route_id: route.route_id, status: 'accumulating' }).count({ n: '*' }))[0].n);
      for (const deadline = Date.now() + 60_000; (await accumulating()) < n && Date.now() < deadline;) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const list = await waitForDeposits(
        client,
        route.route_id,
        (l) => l.accumulations.length === 1 && l.deposits.length === 100 && l.deposits.every((d) => d.status === 'accumulating'),
      );
      // Every one of the 200 waits in the one bucket, which is worth all of them.
      expect(await accumulating()).to.equal(n);
      const [bucket] = list.accumulations;
      const price = new Money(bucket.accumulated_usd).div(new Money(amount).times(n));
      expect(price.greaterThan(60_000) && price.lessThan(80_000), `bucket of ${bucket.accumulated_usd} USD`).to.equal(true);
      // A waiting deposit shows its bucket's current figures, whenever it joined.
      for (const d of list.deposits) {
        expect({ accumulated_usd: d.accumulated_usd, threshold_usd: d.threshold_usd, valued_at: d.valued_at }).to.deep.equal({
          accumulated_usd: bucket.accumulated_usd,
          threshold_usd: bucket.threshold_usd,
          valued_at: bucket.valued_at,
        });
      }

      const messages = await outboxCount(server);
      const written = await writes();
      console.log(`      ${n} payments: ${messages} permanent_deposit.updated messages, ${written} deposit and bucket row writes`);
      // Each deposit: seen, confirmed, joins the bucket (often in one poll), plus the bucket's own row.
      expect(messages, 'permanent_deposit.updated messages').to.be.at.most(3 * n);
      expect(written, 'deposit and bucket row writes').to.be.at.most(5 * n);
    });
  });

  describe('with the catalogue dust floors', () => {
    let server: TestServer;
    let client: ReturnType<typeof swapClient>;
    before(async () => {
      server = await startTestServer({ env: ENV });
      client = swapClient(server.origin, { ...(await server.createSigner('Dusted')), user: 'dust' });
    });
    after(() => server?.close());

    it('records and lists a payment below the floor as dust, but neither values, accumulates nor announces it', async () => {
      const route: Route = await createVerifiedRoute(client, 'dust');
      expect((await client.send('POST', `/api/v1/permanent-routes/${route.route_id}/expect-deposit`)).status).to.equal(200);
      const pay = async (amount: string) => {
        const res = await client.send<{ txHash: string }>('POST', '/api/v1/sandbox/deposits', {
          address: route.addresses['BTC/BTC'],
          asset: 'BTC',
          network: 'BTC',
          amount,
        });
        expect(res.status, res.text).to.equal(202);
        return res.body.txHash;
      };
      // One satoshi, and one satoshi below the floor; then a payment at the floor, which counts.
      const below = new Money(BTC_FLOOR).minus('0.00000001').toFixed();
      const dust = [await pay('0.00000001'), await pay(below)];
      const counted = await pay(BTC_FLOOR);
      const list = await waitForDeposits(client, route.route_id, (l) =>
        l.deposits.some((d) => d.txHash === counted && d.status === 'accumulating'),
      );
      // Polled a few more times: dust stays as it was.
      await new Promise((r) => setTimeout(r, 300));
      const after = (
        await client.send<{ deposits: Deposit[]; accumulations: unknown[] }>('GET', `/api/v1/permanent-routes/${route.route_id}/deposits`)
      ).body;
      expect(after.deposits).to.have.length(3);
      for (const txHash of dust) {
        const d = after.deposits.find((x) => x.txHash === txHash)!;
        expect(d, `dust ${txHash}`).to.include({
          status: 'dust',
          terminal: true,
          actionRequired: 'none',
          reasonCode: 'below_dust_floor',
          retryable: false,
          accumulated_usd: null,
          same_asset_required: false,
          orderId: null,
          message: null,
        });
      }
      // The bucket is worth the counted payment alone.
      const price = findAsset(catalog, 'BTC', 'BTC')!.priceUsd;
      const [bucket] = list.accumulations;
      const value = new Money(bucket.accumulated_usd);
      expect(value.lessThanOrEqualTo(new Money(BTC_FLOOR).times(price).times(1.05)), `bucket of ${bucket.accumulated_usd} USD`).to.equal(
        true,
      );
      // Only the counted payment was announced.
      const announced = await server.knex('webhook_outbox').where({ type: 'permanent_deposit.updated' }).select('payload');
      const hashes = new Set(
        announced.map(
          (m: { payload: string | { deposit: { txHash: string } } }) =>
            (typeof m.payload === 'string' ? JSON.parse(m.payload) : m.payload).deposit.txHash,
        ),
      );
      expect([...hashes]).to.deep.equal([counted]);
    });
  });
});
