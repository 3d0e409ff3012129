/**
 * The grouped readers of the store, called directly and all in one turn of the event loop, so that each call
 * is certain to share its group (HTTP requests sent at once usually do, but not certainly). Each kind of read
 * must be one statement for the whole group, give each lookup its own answer (another partner's row is no
 * answer), and read a lookup asked for twice once.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { createRouteDepositsReader, createRoutePageReader, createRouteViewReader } from '../../server/store/routes.js';
import { createEarningsReader } from '../../server/store/route-deposits.js';
import { createAddressOwnerReader } from '../../server/store/sandbox-chain.js';
import { createSwapPageReader, createSwapViewReader } from '../../server/store/swaps.js';
import { createAttemptPageReader } from '../../server/store/webhooks.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { signedFetch, type SignerOptions } from '../support/signer.js';
import { createVerifiedRoute, waitForDeposits, type Route } from '../support/routes.js';
import { swapClient, type Swap } from '../support/swaps.js';
import { createReceiver, type Receiver, LOCAL_RECEIVER_ENV } from '../support/webhook-receiver.js';

/**
 * Runs `reads` (started in this very turn) and lists the statements sent meanwhile that read `table` (the
 * server's own work, such as webhook deliveries, runs on the same knex and is left out).
 */
async function counted<T>(knex: Knex, table: string, reads: () => Array<Promise<T>>): Promise<{ results: T[]; statements: string[] }> {
  const statements: string[] = [];
  const record = (query: { sql: string }) => {
    if (new RegExp(`\\b(from|join) ${table}\\b`).test(query.sql)) statements.push(query.sql);
  };
  knex.on('query', record);
  try {
    return { results: await Promise.all(reads()), statements };
  } finally {
    knex.off('query', record);
  }
}

describe('Grouped reads (one statement per group, each lookup its own answer)', () => {
  let server: TestServer;
  let receiver: Receiver;
  const partners: Array<{ id: string; signer: SignerOptions; client: ReturnType<typeof swapClient>; swaps: Swap[]; routes: Route[] }> = [];

  before(async () => {
    server = await startTestServer({ env: LOCAL_RECEIVER_ENV });
    receiver = await createReceiver('/hooks');
    await receiver.listen();
    for (const name of ['Grouped A', 'Grouped B']) {
      const signer = { ...(await server.createSigner(name)), user: 'u-1' };
      const client = swapClient(server.origin, signer);
      const { id } = await server.knex('partners').where({ key_id: signer.keyId }).first('id');
      const swaps: Swap[] = [];
      for (let i = 0; i < 2; i++) swaps.push((await client.waitFor((await client.create()).order.id, (o) => !!o.depositAddress)).order);
      const routes = [await createVerifiedRoute(client, 'u-1'), await createVerifiedRoute(client, 'u-1')];
      expect((await client.send('PUT', '/api/v1/partner/webhook', { url: receiver.url })).status).to.equal(200);
      for (let i = 0; i < 2; i++)
        expect((await signedFetch(server.origin, signer, 'POST', '/api/v1/partner/webhook/test')).status).to.equal(200);
      partners.push({ id, signer, client, swaps, routes });
    }
  });
  after(async () => {
    await receiver.close();
    await server.close();
  });

  it('reads swaps by id together: token and signed lookups, twice each, another partner’s and an unknown id', async () => {
    const read = createSwapViewReader(server.knex);
    const [a, b] = partners;
    const lookups: Array<[string, string | undefined]> = [
      [a.swaps[0].id, a.id],
      [a.swaps[0].id.toUpperCase(), a.id],
      [a.swaps[1].id, undefined],
      [b.swaps[0].id, b.id],
      [b.swaps[0].id, a.id],
      [randomUUID(), undefined],
    ];
    const { results, statements } = await counted(server.knex, 'swaps', () => lookups.map(([id, partnerId]) => read(id, partnerId)));
    expect(statements).to.have.length(1);
    expect(results.map((r) => r?.swap.id)).to.deep.equal([
      a.swaps[0].id,
      a.swaps[0].id,
      a.swaps[1].id,
      b.swaps[0].id,
      undefined,
      undefined,
    ]);
    expect(results[0]).to.equal(results[1]);
    expect(results[0]!.events.length).to.be.greaterThan(0);
  });

  it('reads pages of swaps together, one statement per kind, each partner its own', async () => {
    const read = createSwapPageReader(server.knex);
    const [a, b] = partners;
    const { results, statements } = await counted(server.knex, 'swaps', () => [
      read(a.id, { limit: 10 }),
      read(a.id, { limit: 10 }),
      read(b.id, { limit: 1 }),
      read(a.id, { limit: 10, status: 'waiting' }),
      read(b.id, { limit: 10, status: 'finished' }),
    ]);
    expect(statements).to.have.length(2);
    const ids = (page: Array<{ id: string }>) => page.map((s) => s.id);
    expect(ids(results[0])).to.have.members(a.swaps.map((s) => s.id));
    expect(results[1]).to.equal(results[0]);
    expect(ids(results[2]))
      .to.have.length(1)
      .and.to.satisfy((page: string[]) => b.swaps.some((s) => s.id === page[0]));
    expect(ids(results[3])).to.have.members(a.swaps.map((s) => s.id));
    expect(results[4]).to.deep.equal([]);
  });

  it('reads routes by id and pages of routes together, each partner its own', async () => {
    const view = createRouteViewReader(server.knex);
    const pages = createRoutePageReader(server.knex);
    const [a, b] = partners;
    const byId = await counted(server.knex, 'permanent_routes', () => [
      view(a.id, a.routes[0].route_id),
      view(a.id, a.routes[0].route_id),
      view(b.id, b.routes[1].route_id),
      view(a.id, b.routes[1].route_id),
      view(b.id, randomUUID()),
    ]);
    expect(byId.statements).to.have.length(1);
    expect(byId.results.map((r) => r?.route.id)).to.deep.equal([
      a.routes[0].route_id,
      a.routes[0].route_id,
      b.routes[1].route_id,
      undefined,
      undefined,
    ]);
    const listed = await counted(server.knex, 'permanent_routes', () => [
      pages(a.id, { limit: 10 }),
      pages(b.id, { limit: 1 }),
      pages(a.id, { limit: 10 }),
    ]);
    expect(listed.statements).to.have.length(1);
    expect(listed.results[0].map((r) => r.route.id)).to.have.members(a.routes.map((r) => r.route_id));
    expect(listed.results[1].map((r) => r.route.id)).to.deep.equal([b.routes[1].route_id]);
    expect(listed.results[2]).to.equal(listed.results[0]);
  });

  it("reads pages of routes' deposits together: first pages, a next page, twice, another partner's route", async () => {
    const [a, b] = partners;
    const route = a.routes[1];
    for (const amount of ['1', '2']) {
      const paid = await a.client.send('POST', '/api/v1/sandbox/deposits', {
        address: route.addresses['USDT/TRX'],
        asset: 'USDT',
        network: 'TRX',
        amount,
      });
      expect(paid.status, paid.text).to.equal(202);
    }
    expect((await a.client.send('POST', `/api/v1/permanent-routes/${route.route_id}/expect-deposit`)).status).to.equal(200);
    const listed = await waitForDeposits(a.client, route.route_id, (list) => list.deposits.length === 2);
    const [newest, older] = listed.deposits;
    const deposits = createRouteDepositsReader(server.knex);
    const { created_at: createdAt } = await server.knex('route_deposits').where({ id: newest.id }).first('created_at');
    const after = { createdAt: createdAt as Date, id: newest.id };
    const read = await counted(server.knex, 'route_deposits', () => [
      deposits(a.id, route.route_id, { limit: 10 }),
      deposits(a.id, route.route_id, { limit: 1, after }),
      deposits(a.id, route.route_id, { limit: 10 }),
      deposits(b.id, b.routes[0].route_id, { limit: 10 }),
      deposits(b.id, route.route_id, { limit: 10 }),
    ]);
    expect(read.statements).to.have.length(1);
    const ids = read.results.map((r) => r?.page.map((d) => d.deposit.id));
    expect(ids).to.deep.equal([[newest.id, older.id], [older.id], [newest.id, older.id], [], undefined]);
    expect(read.results[2]).to.equal(read.results[0]);
    expect(read.results[3]?.route.id).to.equal(b.routes[0].route_id);
  });

  it("reads a partner's identical earnings lookups once, and another partner's or another page on its own", async () => {
    const [a, b] = partners;
    const earnings = createEarningsReader(server.knex);
    // knex writes this one with quoted names: count the statements that name the table so.
    const read = await counted(server.knex, '"partner_earnings', () => [
      earnings(a.id, {}, { limit: 51 }),
      earnings(a.id, {}, { limit: 51 }),
      earnings(a.id, {}, { limit: 2 }),
      earnings(b.id, {}, { limit: 51 }),
    ]);
    expect(read.statements).to.have.length(3);
    expect(read.results[1]).to.equal(read.results[0]);
    expect(read.results[3]).to.not.equal(read.results[0]);
  });

  it('reads pages of delivery attempts together, one statement per kind, each partner its own', async () => {
    const read = createAttemptPageReader(server.knex);
    const [a, b] = partners;
    // Each partner's attempts: its two test deliveries and whatever its swaps' updates made. Deliveries
    // go on while the test runs, so a page holds every attempt stored before it and none stored after.
    const stored = async (partnerId: string) =>
      (await server.knex('webhook_attempts').where({ partner_id: partnerId }).pluck('id')) as string[];
    const before = { a: await stored(a.id), b: await stored(b.id) };
    // Only the page statements (`from webhook_attempts w`): a delivery that runs meanwhile reads the table too
    // (`from webhook_attempts a`, store/webhooks.ts createDeliveryContextReader), and is not this read.
    const { results, statements } = await counted(server.knex, 'webhook_attempts w', () => [
      read(a.id, { limit: 10 }),
      read(b.id, { limit: 10 }),
      read(a.id, { limit: 10 }),
      read(b.id, { limit: 10, messageId: randomUUID() }),
    ]);
    expect(statements).to.have.length(2);
    const after = { a: await stored(a.id), b: await stored(b.id) };
    for (const [page, partner] of [
      [results[0], 'a'],
      [results[1], 'b'],
    ] as const) {
      const ids = page.map((attempt) => attempt.id);
      expect(ids).to.include.members(before[partner]);
      expect(after[partner]).to.include.members(ids);
    }
    expect(results[0].length).to.be.at.least(2);
    expect(results[0].every((attempt) => attempt.partnerId === a.id)).to.equal(true);
    expect(results[1].every((attempt) => attempt.partnerId === b.id)).to.equal(true);
    expect(results[2]).to.equal(results[0]);
    expect(results[3]).to.deep.equal([]);
  });

  it("reads the owners of deposit addresses together: a swap's, a route's, twice, and one nobody uses", async () => {
    const read = createAddressOwnerReader(server.knex);
    const [a, b] = partners;
    const addresses = [
      a.swaps[0].depositAddress!,
      b.routes[0].addresses['BTC/BTC'],
      b.routes[0].addresses['BTC/BTC'],
      'nobody-uses-this',
      b.routes[0].addresses['USDT/ETH'],
    ];
    const { results, statements } = await counted(server.knex, 'route_addresses', () => addresses.map(read));
    expect(statements).to.have.length(1);
    expect(results[0].swap).to.include({ id: a.swaps[0].id, partnerId: a.id });
    expect(results[0].route).to.equal(undefined);
    expect(results[1].route).to.deep.equal({ partnerId: b.id, assetKeys: ['BTC/BTC'] });
    expect(results[2]).to.equal(results[1]);
    expect(results[3]).to.deep.equal({});
    // An address serves every asset the route takes on its network, listed in the route's (sorted) order.
    expect(results[4].route).to.deep.equal({ partnerId: b.id, assetKeys: ['ETH/ETH', 'USDC/ETH', 'USDT/ETH'] });
  });
});
