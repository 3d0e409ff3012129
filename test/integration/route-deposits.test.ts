import { expect } from 'chai';
import knexFactory from 'knex';
import { Money } from '../../server/domain/money.js';
import { openExpectWindow } from '../../server/store/routes.js';
import { createAddressOwnerReader } from '../../server/store/sandbox-chain.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectError } from '../support/http.js';
import type { SignerOptions } from '../support/signer.js';
import { swapClient, type Swap } from '../support/swaps.js';
import { createVerifiedRoute, waitForDeposits, type Deposit, type Route } from '../support/routes.js';
import { createReceiver, LOCAL_RECEIVER_ENV } from '../support/webhook-receiver.js';
import type { components } from '../../generated/api.js';

type EarningsPage = components['schemas']['EarningsPage'];

// Regular polls are far apart, so only an expect-deposit window (fast polls) finds a deposit within a test.
const ENV = { ROUTE_POLL_SECONDS: '30', ROUTE_EXPECT_POLL_SECONDS: '0.1', EXPECT_DEPOSIT_SECONDS: '60' };

describe('Permanent routes: deposits, accumulation, conversion and earnings', () => {
  let server: TestServer;
  let signer: SignerOptions;
  let client: ReturnType<typeof swapClient>;

  before(async () => {
    server = await startTestServer({ env: { ...ENV, ...LOCAL_RECEIVER_ENV } });
    signer = { ...(await server.createSigner('Router')), user: 'user-7' };
    client = swapClient(server.origin, signer);
    expect((await client.send('PUT', '/api/v1/partner/markup', { percent: 0.5 })).status).to.equal(200);
  });
  after(() => server.close());

  const pay = async (route: Route, asset: string, network: string, amount: string) => {
    const res = await client.send<{ txHash: string }>('POST', '/api/v1/sandbox/deposits', {
      address: route.addresses[`${asset}/${network}`],
      asset,
      network,
      amount,
    });
    expect(res.status, res.text).to.equal(202);
    return res.body.txHash;
  };
  const expectDeposit = async (route: Route) => {
    const res = await client.send<{ ok: true; expect_deposit_until: string }>(
      'POST',
      `/api/v1/permanent-routes/${route.route_id}/expect-deposit`,
    );
    expect(res.status, res.text).to.equal(200);
    return res.body;
  };

  it('accumulates small same-asset deposits, then converts them in one order at the route fee and records the markup', async () => {
    const route = await createVerifiedRoute(client, 'user-7');
    expect(route.fee).to.deep.equal({ percent: 1.5, floor_usd: 1 });
    await expectDeposit(route);

    await pay(route, 'USDT', 'TRX', '10');
    await pay(route, 'USDT', 'TRX', '9.5');
    const waiting = await waitForDeposits(
      client,
      route.route_id,
      (l) => l.deposits.length === 2 && l.deposits.every((d) => d.status === 'accumulating'),
    );
    expect(waiting.accumulations).to.have.length(1);
    const [bucket] = waiting.accumulations;
    expect(bucket).to.include({ asset: 'USDT', network: 'TRX', threshold_usd: '25.00', same_asset_required: true });
    expect(new Money(bucket.accumulated_usd).plus(bucket.remaining_usd).toFixed(2)).to.equal('25.00');
    expect(bucket.message).to.match(/^Send at least \d+\.\d\d USD more of USDT on TRX to start the conversion\.$/);
    for (const d of waiting.deposits) {
      expect(d).to.include({
        actionRequired: 'customer',
        reasonCode: 'accumulating',
        orderId: null,
        // The route's buckets come from another read than the deposit list; both must show the same figures.
        accumulated_usd: bucket.accumulated_usd,
        threshold_usd: bucket.threshold_usd,
        valued_at: bucket.valued_at,
      });
      expect(d.confirmationCount).to.equal(d.requiredConfirmations);
    }
    expect(waiting.deposits.map((d) => d.amountBaseUnits).sort()).to.deep.equal(['10000000', '9500000']);
    // The route shows the same bucket.
    const shown = (await client.send<Route>('GET', `/api/v1/permanent-routes/${route.route_id}`)).body;
    expect(shown.accumulations).to.deep.equal(waiting.accumulations);

    await pay(route, 'USDT', 'TRX', '6');
    const done = await waitForDeposits(
      client,
      route.route_id,
      (l) => l.deposits.length === 3 && l.deposits.every((d) => d.status === 'finished'),
    );
    const orderIds = new Set(done.deposits.map((d) => d.orderId));
    expect(orderIds.size, 'one order for the bucket').to.equal(1);
    expect(done.accumulations).to.deep.equal([]);
    const orderId = [...orderIds][0]!;
    const order = await client.get(orderId);
    expect(order.order).to.include({
      mode: 'permanent',
      sourceAsset: 'USDT',
      sourceNetwork: 'TRX',
      destinationAsset: 'ZANO',
      status: 'finished',
    });
    expect(order.order.destination).to.equal(route.destination_address);
    expect(order.events.map((e) => e.status)).to.deep.equal(['accumulating', 'exchanging', 'sending', 'finished']);
    for (const d of done.deposits) {
      expect(d.settlementTxHash).to.equal(order.order.settlementTxHash);
      expect(d.actualOutputAmount).to.equal(order.order.actualOutputAmount);
    }

    const earnings = await client.send<EarningsPage>('GET', '/api/v1/partner/earnings');
    expect(earnings.status, earnings.text).to.equal(200);
    const entry = earnings.body.earnings.find((e) => e.orderId === orderId)!;
    expect(entry).to.include({ routeId: route.route_id, asset: 'ZANO', network: 'ZANO', markupPercent: 0.5 });
    // 25.5 USDT at about 1 USD: the markup is 0.5 % of about 25.5 USD, in ZANO.
    expect(Number(entry.amountUsd)).to.be.within(0.12, 0.13);
    expect(earnings.body.totals).to.deep.equal([{ asset: 'ZANO', network: 'ZANO', amount: entry.amount, amountUsd: entry.amountUsd }]);
    // Fee 1.5 % of the value: what arrives is the value less that fee, in ZANO.
    const received = new Money(order.order.actualOutputAmount!);
    expect(received.greaterThan(0)).to.equal(true);
  });

  it('sends a deposit above max_auto_swap_usd alone to review; the review decides it', async () => {
    const route = await createVerifiedRoute(client, 'user-7', 'fUSD');
    await expectDeposit(route);
    await pay(route, 'USDT', 'TRX', '3');
    await pay(route, 'USDT', 'TRX', '10500');
    const list = await waitForDeposits(
      client,
      route.route_id,
      (l) => l.deposits.some((d) => d.status === 'review') && l.deposits.some((d) => d.status === 'accumulating'),
    );
    const inReview = list.deposits.find((d) => d.status === 'review')!;
    expect(inReview).to.include({ actionRequired: 'operator', reasonCode: 'manual_review', amountBaseUnits: '10500000000' });
    const decided = await client.send<{ order: Swap }>('POST', `/api/v1/sandbox/swaps/${inReview.orderId}/review-decision`, {
      decision: 'refund',
    });
    expect(decided.status, decided.text).to.equal(200);
    const order = await client.waitFor(inReview.orderId!, (o) => o.status === 'refunded');
    // 10500 USDT less Tron's 1.00 USD network fee (USDT does not drift from 1.00): 1 USDT.
    expect(order.order.refundAmount).to.equal('10499');
    // The small deposit still waits in its bucket.
    const after = await waitForDeposits(client, route.route_id, (l) => l.deposits.some((d) => d.status === 'refunded'));
    expect(after.deposits.find((d) => d.amountBaseUnits === '3000000')!.status).to.equal('accumulating');
    const refunded = after.deposits.find((d) => d.status === 'refunded')!;
    expect(refunded.refundTxHash).to.equal(order.order.refundTxHash);
  });

  it('picks up a deposit made inside an expect-deposit window sooner than one made outside it', async () => {
    const route = await createVerifiedRoute(client, 'user-7');
    await pay(route, 'USDT', 'TRX', '1');
    // Outside a window the route is polled every 30 s: after 1.5 s the payment is still unseen.
    await new Promise((r) => setTimeout(r, 1500));
    expect(
      (await client.send<{ deposits: Deposit[] }>('GET', `/api/v1/permanent-routes/${route.route_id}/deposits`)).body.deposits,
    ).to.deep.equal([]);
    const opened = Date.now();
    const window = await expectDeposit(route);
    expect(Date.parse(window.expect_deposit_until) - opened).to.be.within(59_000, 61_000);
    await pay(route, 'USDT', 'TRX', '2');
    const seen = await waitForDeposits(client, route.route_id, (l) => l.deposits.length === 2, 5_000);
    expect(seen.deposits.map((d) => d.amountBaseUnits).sort()).to.deep.equal(['1000000', '2000000']);
    const shown = (await client.send<Route>('GET', `/api/v1/permanent-routes/${route.route_id}`)).body;
    expect(shown.expect_deposit_until).to.equal(window.expect_deposit_until);
  });

  it('polls a route once per sweep gap however often expect-deposit is called, and still finds the payment', async () => {
    const route = await createVerifiedRoute(client, 'user-7');
    const routes = server.engine.routes;
    const poll = routes.poll;
    const polled: number[] = [];
    routes.poll = (routeId, options) => {
      if (routeId === route.route_id) polled.push(performance.now());
      return poll.call(routes, routeId, options);
    };
    try {
      await pay(route, 'USDT', 'TRX', '3');
      // Each call makes the route due at once and wakes this instance's sweeper.
      for (let i = 0; i < 40; i++) await expectDeposit(route);
      await waitForDeposits(client, route.route_id, (l) => l.deposits.length === 1, 5_000);
    } finally {
      routes.poll = poll;
    }
    // Sweeps start 50 ms apart at least. A poll starts after its sweep's first read, whose time varies, so
    // single gaps can be shorter: count the polls over their span instead (one per call without the gap).
    const span = polled[polled.length - 1] - polled[0];
    const gaps = polled.slice(1).map((at, i) => (at - polled[i]).toFixed(0));
    expect(polled.length, `polls ${gaps.join(' ')} ms apart`).to.be.within(1, 1 + (span + 100) / 50);
  });

  it("commits an expect-deposit window without waiting for the disk, and leaves its connection's setting as it was", async () => {
    const route = await createVerifiedRoute(client, 'user-7');
    const { partner_id: partnerId } = await server.knex('permanent_routes').where({ id: route.route_id }).first('partner_id');
    // A pool of one connection: the statement and the reads after it run on the same session.
    const single = knexFactory({ ...server.knex.client.config, pool: { min: 1, max: 1 } });
    try {
      const setting = async () => (await single.raw('show synchronous_commit')).rows[0].synchronous_commit as string;
      const before = await setting();
      const at = new Date();
      expect(await openExpectWindow(single, partnerId, route.route_id, new Date(at.getTime() + 60_000), at)).to.equal(true);
      expect(await setting()).to.equal(before);
      expect(await openExpectWindow(single, partnerId, '00000000-0000-4000-8000-000000000000', at, at)).to.equal(false);
      const stored = await single('permanent_routes').where({ id: route.route_id }).first('expect_deposit_until', 'next_poll_at');
      expect(stored).to.deep.equal({ expect_deposit_until: new Date(at.getTime() + 60_000), next_poll_at: at });
      // Inside the transaction it runs in, the commit it leads to does not wait for the disk.
      await single.transaction(async (trx) => {
        expect(await openExpectWindow(trx, partnerId, route.route_id, new Date(at.getTime() + 60_000), at)).to.equal(true);
        expect((await trx.raw('show synchronous_commit')).rows[0].synchronous_commit).to.equal('off');
      });
      expect(await setting()).to.equal(before);
    } finally {
      await single.destroy();
    }
  });

  it('finds the route of a paid address through an index, even in a generic plan of the prepared statement', async () => {
    const route = await createVerifiedRoute(client, 'user-7');
    const address = route.addresses['BTC/BTC'];
    // The statement as the store builds it (store/sandbox-chain.ts), captured from the knex it runs on.
    let captured: { sql: string; bindings: unknown[] } | undefined;
    const capture = (query: { sql: string; bindings: unknown[] }) => {
      if (query.sql.includes('route_addresses')) captured ??= query;
    };
    server.knex.on('query', capture);
    try {
      expect((await createAddressOwnerReader(server.knex)(address)).route?.assetKeys).to.deep.equal(['BTC/BTC']);
    } finally {
      server.knex.off('query', capture);
    }
    // 20,000 more address rows (on this route, under networks no request uses) and fresh statistics, so
    // that the planner weighs the read as it would over many routes; then the statement is prepared with
    // parameters and planned generically, as node-postgres's prepared statements are after a few runs.
    const filler = `route_id = '${route.route_id}' and network like 'filler-%'`;
    await server.knex.raw(
      `insert into route_addresses (route_id, network, address)
       select ?, 'filler-' || g, 'filler-address-' || g from generate_series(1, 20000) as g`,
      [route.route_id],
    );
    try {
      await server.knex.raw('analyze route_addresses');
      const plan = await server.knex.transaction(async (trx) => {
        await trx.raw('set local plan_cache_mode = force_generic_plan');
        let n = 0;
        const text = /\$1\b/.test(captured!.sql) ? captured!.sql : captured!.sql.replace(/\?/g, () => `$${++n}`);
        await trx.raw(`prepare pss_address_owners (int[], text[]) as ${text.replace(/\?/g, '\\?')}`);
        // EXPLAIN EXECUTE takes no bind parameters: the address (base58, no quotes) is written in as a literal.
        const literal = `array['${address.replace(/'/g, "''")}']`;
        const rows = (await trx.raw(`explain execute pss_address_owners (array[0], ${literal})`)).rows as Array<{
          'QUERY PLAN': string;
        }>;
        await trx.raw('deallocate pss_address_owners');
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      });
      expect(plan, plan).to.include('using route_addresses_address_index');
      expect(plan, plan).to.not.include('Seq Scan on route_addresses');
    } finally {
      await server.knex.raw(`delete from route_addresses where ${filler}`);
    }
  });

  // Payments are looked up and recorded in groups (store/sandbox-chain.ts): payments sent at once, to routes
  // of two partners, twice to one address, with refusals among them, must each be answered and stored as
  // when sent alone, and a refused one must store nothing.
  it('answers payments sent at once each for its own address, storing each accepted one and no refused one', async () => {
    const otherClient = swapClient(server.origin, { ...(await server.createSigner('Other payer')), user: 'user-8' });
    const [mine, theirs] = [await createVerifiedRoute(client, 'user-7'), await createVerifiedRoute(otherClient, 'user-8')];
    const payments = [
      { by: client, body: { address: mine.addresses['BTC/BTC'], asset: 'BTC', network: 'BTC', amount: '0.001' }, status: 202 },
      { by: client, body: { address: mine.addresses['BTC/BTC'], asset: 'BTC', network: 'BTC', amount: '0.002' }, status: 202 },
      { by: client, body: { address: mine.addresses['USDT/TRX'], asset: 'USDT', network: 'TRX', amount: '12.5' }, status: 202 },
      { by: otherClient, body: { address: theirs.addresses['BTC/BTC'], asset: 'BTC', network: 'BTC', amount: '0.003' }, status: 202 },
      // Another partner's address, the wrong asset for an address, an address nobody uses.
      { by: client, body: { address: theirs.addresses['BTC/BTC'], asset: 'BTC', network: 'BTC', amount: '1' }, status: 404 },
      { by: client, body: { address: mine.addresses['USDT/TRX'], asset: 'BTC', network: 'BTC', amount: '1' }, status: 400 },
      { by: client, body: { address: 'bc1qnobodyusesthisaddressxxxxxxxxxxxxxxx', asset: 'BTC', network: 'BTC', amount: '1' }, status: 404 },
    ];
    const answers = await Promise.all(
      payments.map((p) => p.by.send<{ txHash: string; address: string; amount: string }>('POST', '/api/v1/sandbox/deposits', p.body)),
    );
    expect(answers.map((a) => a.status)).to.deep.equal(payments.map((p) => p.status));
    const accepted = payments.flatMap((p, i) => (p.status === 202 ? [{ ...p.body, txHash: answers[i].body.txHash }] : []));
    for (const [i, p] of payments.entries()) {
      if (p.status === 202) expect(answers[i].body).to.include({ address: p.body.address, amount: p.body.amount });
    }
    const addresses = [mine.addresses['BTC/BTC'], mine.addresses['USDT/TRX'], theirs.addresses['BTC/BTC']];
    const stored = (await server.knex('sandbox_transactions').whereIn('address', addresses).orderBy('amount')) as Array<{
      tx_hash: string;
      address: string;
      asset: string;
      amount: string;
    }>;
    expect(stored.map((t) => ({ txHash: t.tx_hash, address: t.address, asset: t.asset, amount: t.amount }))).to.deep.equal(
      accepted
        .map((a) => ({ txHash: a.txHash, address: a.address, asset: a.asset, amount: a.amount }))
        .sort((x, y) => Number(x.amount) - Number(y.amount)),
    );
  });

  it('refuses a payment of an asset the address does not take, and pages deposits with a cursor', async () => {
    const route = await createVerifiedRoute(client, 'user-7');
    expectError(
      await client.send('POST', '/api/v1/sandbox/deposits', {
        address: route.addresses['USDT/TRX'],
        asset: 'BTC',
        network: 'BTC',
        amount: '1',
      }),
      400,
      'invalid_request',
    );
    await expectDeposit(route);
    for (const amount of ['1', '2', '3']) await pay(route, 'USDT', 'TRX', amount);
    await waitForDeposits(client, route.route_id, (l) => l.deposits.length === 3);
    const first = await client.send<{ deposits: Deposit[]; next_cursor: string | null }>(
      'GET',
      `/api/v1/permanent-routes/${route.route_id}/deposits?limit=2`,
    );
    expect(first.body.deposits).to.have.length(2);
    const second = await client.send<{ deposits: Deposit[]; next_cursor: string | null }>(
      'GET',
      `/api/v1/permanent-routes/${route.route_id}/deposits?limit=2&cursor=${first.body.next_cursor}`,
    );
    expect(second.body.deposits).to.have.length(1);
    expect(second.body.next_cursor).to.equal(null);
    const ids = [...first.body.deposits, ...second.body.deposits].map((d) => d.id);
    expect(new Set(ids).size).to.equal(3);
    // The cursor works with the route id in upper case too, and names its route: another route refuses it.
    const upper = await client.send<{ deposits: Deposit[] }>(
      'GET',
      `/api/v1/permanent-routes/${route.route_id.toUpperCase()}/deposits?limit=2&cursor=${first.body.next_cursor}`,
    );
    expect(upper.status, upper.text).to.equal(200);
    expect(upper.body.deposits.map((d) => d.id)).to.deep.equal(second.body.deposits.map((d) => d.id));
    const sibling = await createVerifiedRoute(client, 'user-7');
    expectError(
      await client.send('GET', `/api/v1/permanent-routes/${sibling.route_id}/deposits?cursor=${first.body.next_cursor}`),
      400,
      'invalid_request',
    );
    const other = swapClient(server.origin, await server.createSigner('Other'));
    expectError(await other.send('GET', `/api/v1/permanent-routes/${route.route_id}/deposits`), 404, 'not_found');
    // Another partner's route is a 404 whatever the cursor: a cursor is not checked before the route is found.
    expectError(await other.send('GET', `/api/v1/permanent-routes/${route.route_id}/deposits?cursor=not-a-cursor`), 404, 'not_found');
    // Another partner's expect-deposit changes nothing of the route: not its window, not its updated_at (its
    // next poll moves on its own, the window of the test's own expect-deposit being open).
    const window = () =>
      server.knex('permanent_routes').where({ id: route.route_id }).first('expect_deposit_until', 'updated_at', 'partner_id');
    const before = await window();
    expectError(await other.send('POST', `/api/v1/permanent-routes/${route.route_id}/expect-deposit`), 404, 'not_found');
    expect(await window()).to.deep.equal(before);
  });

  // Issue 37 item 6: the requirement shows a route's deposits without paging: a client written from it reads
  // the newest 100, and the cursor says there are more.
  it('returns 100 deposits without limit, with next_cursor when there are more, and all of them with limit=500', async () => {
    const route = await createVerifiedRoute(client, 'user-7');
    await expectDeposit(route);
    await pay(route, 'USDT', 'TRX', '1');
    const [paid] = (await waitForDeposits(client, route.route_id, (l) => l.deposits.length === 1)).deposits;
    // 100 more deposits, copied in the database as dust (never valued or converted, so no job looks at them):
    // paying each through the chain simulator would only slow the test.
    await server.knex.raw(
      `insert into route_deposits
       select (jsonb_populate_record(d, jsonb_build_object('id', gen_random_uuid(), 'tx_hash', md5(d.tx_hash || n),
               'status', 'dust', 'created_at', d.created_at - n * interval '1 second'))).*
         from route_deposits d cross join generate_series(1, 100) n where d.id = ?`,
      [paid.id],
    );
    const page = await client.send<{ deposits: Deposit[]; next_cursor: string | null }>(
      'GET',
      `/api/v1/permanent-routes/${route.route_id}/deposits`,
    );
    expect(page.status, page.text).to.equal(200);
    expect(page.body.deposits).to.have.length(100);
    expect(page.body.deposits[0].id).to.equal(paid.id);
    expect(page.body.next_cursor).to.be.a('string');
    const all = await client.send<{ deposits: Deposit[]; next_cursor: string | null }>(
      'GET',
      `/api/v1/permanent-routes/${route.route_id}/deposits?limit=500`,
    );
    expect(all.body.deposits).to.have.length(101);
    expect(all.body).to.have.property('next_cursor', null);
  });

  it('sends permanent_deposit.updated for every change of a deposit: seen, confirmations, the statuses of its order', async () => {
    const receiver = await createReceiver();
    await receiver.listen();
    try {
      const partner = { ...(await server.createSigner('Hooked')), user: 'user-9' };
      const hooked = swapClient(server.origin, partner);
      expect((await hooked.send('PUT', '/api/v1/partner/webhook', { url: receiver.url })).status).to.equal(200);
      const route = await createVerifiedRoute(hooked, 'user-9');
      expect((await hooked.send('POST', `/api/v1/permanent-routes/${route.route_id}/expect-deposit`)).status).to.equal(200);
      const paid = await hooked.send<{ txHash: string }>('POST', '/api/v1/sandbox/deposits', {
        address: route.addresses['USDT/TRX'],
        asset: 'USDT',
        network: 'TRX',
        amount: '30',
      });
      expect(paid.status, paid.text).to.equal(202);
      type Message = { type: string; data: { route_id: string; deposit: Deposit } };
      const messages = () =>
        receiver.received.map((r) => JSON.parse(r.body) as Message).filter((m) => m.type === 'permanent_deposit.updated');
      // Deliveries may arrive out of order: wait for each status the deposit goes through.
      const seen = () =>
        new Set(
          messages()
            .filter((m) => m.data.deposit.txHash === paid.body.txHash)
            .map((m): string => m.data.deposit.status),
        );
      await receiver.waitFor(() => ['confirming', 'exchanging', 'sending', 'finished'].every((status) => seen().has(status)), 20_000);
      const mine = messages().filter((m) => m.data.deposit.txHash === paid.body.txHash);
      expect(mine.every((m) => m.data.route_id === route.route_id)).to.equal(true);
      const statuses = [...new Set(mine.map((m) => m.data.deposit.status))];
      expect(statuses).to.include.members(['confirming', 'exchanging', 'sending', 'finished']);
      // Confirmation progress is reported as it grows.
      const counts = mine
        .filter((m) => m.data.deposit.status === 'confirming' && m.data.deposit.orderId === null)
        .map((m) => m.data.deposit.confirmationCount);
      // (Deliveries may arrive out of order: only the set of counts is checked.)
      expect(new Set(counts).size).to.be.greaterThan(1);
      expect(Math.max(...counts)).to.be.at.most(19);
      // The finished one (deliveries may arrive out of order, and an order also changes without a new status).
      const last = mine.find((m) => m.data.deposit.status === 'finished')!.data.deposit;
      expect(last.orderId).to.be.a('string');
      expect(last.settlementTxHash).to.be.a('string');
      expect(receiver.received.every((r) => String(r.headers['webhook-signature']).startsWith('v1,'))).to.equal(true);
    } finally {
      await receiver.close();
    }
  });

  it('lists earnings page by page, filtered by time, with totals over every matching entry', async () => {
    const partner = { ...(await server.createSigner('Earner')), user: 'user-11' };
    const earner = swapClient(server.origin, partner);
    expect((await earner.send('PUT', '/api/v1/partner/markup', { percent: 1.25 })).status).to.equal(200);
    const route = await createVerifiedRoute(earner, 'user-11', 'fUSD');
    expect((await earner.send('POST', `/api/v1/permanent-routes/${route.route_id}/expect-deposit`)).status).to.equal(200);
    // Three orders, one after the other: each deposit is above the minimum and converts alone.
    for (const [i, amount] of ['30', '40', '50'].entries()) {
      const paid = await earner.send('POST', '/api/v1/sandbox/deposits', {
        address: route.addresses['USDC/ETH'],
        asset: 'USDC',
        network: 'ETH',
        amount,
      });
      expect(paid.status, paid.text).to.equal(202);
      await waitForDeposits(earner, route.route_id, (l) => l.deposits.length === i + 1 && l.deposits.every((d) => d.status === 'finished'));
    }
    const all = await earner.send<EarningsPage>('GET', '/api/v1/partner/earnings');
    expect(all.status, all.text).to.equal(200);
    expect(all.body.earnings).to.have.length(3);
    expect(all.body.nextCursor).to.equal(null);
    for (const e of all.body.earnings)
      expect(e).to.include({ routeId: route.route_id, asset: 'fUSD', network: 'ZANO', markupPercent: 1.25 });
    // fUSD is worth 1 USD: 1.25 % of 30, 40 and 50 USDC (at about 1 USD each).
    const amounts = all.body.earnings.map((e) => Number(e.amount)).sort((a, b) => a - b);
    expect(amounts[0]).to.be.within(0.37, 0.38);
    expect(amounts[2]).to.be.within(0.62, 0.63);
    const sum = (field: 'amount' | 'amountUsd', entries = all.body.earnings) => Money.sum(...entries.map((e) => e[field])).toFixed();
    expect(all.body.totals).to.deep.equal([{ asset: 'fUSD', network: 'ZANO', amount: sum('amount'), amountUsd: sum('amountUsd') }]);

    // Pages of two, newest first; totals always cover every matching entry.
    const first = await earner.send<EarningsPage>('GET', '/api/v1/partner/earnings?limit=2');
    expect(first.body.earnings.map((e) => e.id)).to.deep.equal(all.body.earnings.slice(0, 2).map((e) => e.id));
    expect(first.body.totals).to.deep.equal(all.body.totals);
    const second = await earner.send<EarningsPage>('GET', `/api/v1/partner/earnings?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.earnings.map((e) => e.id)).to.deep.equal([all.body.earnings[2].id]);
    expect(second.body.nextCursor).to.equal(null);

    // from (inclusive) and to (exclusive) around the middle entry.
    const middle = all.body.earnings[1];
    const window = `from=${encodeURIComponent(middle.createdAt)}&to=${encodeURIComponent(all.body.earnings[0].createdAt)}`;
    const filtered = await earner.send<EarningsPage>('GET', `/api/v1/partner/earnings?${window}`);
    expect(filtered.body.earnings.map((e) => e.id)).to.deep.equal([middle.id]);
    expect(filtered.body.totals).to.deep.equal([
      { asset: 'fUSD', network: 'ZANO', amount: sum('amount', [middle]), amountUsd: sum('amountUsd', [middle]) },
    ]);
    const none = await earner.send<EarningsPage>(
      'GET',
      `/api/v1/partner/earnings?to=${encodeURIComponent(all.body.earnings[2].createdAt)}`,
    );
    expect(none.body).to.deep.equal({ earnings: [], totals: [], nextCursor: null });

    expectError(
      await earner.send('GET', `/api/v1/partner/earnings?limit=2&${window}&cursor=${first.body.nextCursor}`),
      400,
      'invalid_request',
    );
    expectError(
      await earner.send(
        'GET',
        `/api/v1/partner/earnings?from=${encodeURIComponent(middle.createdAt)}&to=${encodeURIComponent(middle.createdAt)}`,
      ),
      400,
      'invalid_request',
    );
    // `:` unencoded in the times is accepted as well (allowReserved).
    const raw = await earner.send<EarningsPage>(
      'GET',
      `/api/v1/partner/earnings?from=${middle.createdAt}&to=${all.body.earnings[0].createdAt}`,
    );
    expect(raw.status, raw.text).to.equal(200);
    expect(raw.body.earnings.map((e) => e.id)).to.deep.equal([middle.id]);
    // A cursor of the right shape naming an impossible time is a 400 on every list, not a 500.
    const impossible = (filter: string | null) =>
      Buffer.from(JSON.stringify({ p: { c: '2026-99-99T00:00:00.000Z', i: middle.id }, f: filter })).toString('base64url');
    expectError(await earner.send('GET', `/api/v1/partner/earnings?cursor=${impossible('..')}`), 400, 'invalid_request');
    expectError(await earner.send('GET', `/api/v1/swaps?cursor=${impossible(null)}`), 400, 'invalid_request');
    expectError(await earner.send('GET', `/api/v1/permanent-routes?cursor=${impossible(null)}`), 400, 'invalid_request');
    expectError(
      await earner.send('GET', `/api/v1/permanent-routes/${route.route_id}/deposits?cursor=${impossible(route.route_id)}`),
      400,
      'invalid_request',
    );
    const upper = await earner.send('GET', `/api/v1/permanent-routes/${route.route_id.toUpperCase()}/deposits`);
    expect(upper.status, 'an upper-case route id names the same route').to.equal(200);
    // Another partner sees none of it.
    expect(
      (await client.send<EarningsPage>('GET', '/api/v1/partner/earnings')).body.earnings.some((e) => e.routeId === route.route_id),
    ).to.equal(false);
  });
});
