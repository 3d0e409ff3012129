import { expect } from 'chai';
import { Money } from '../../server/domain/money.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectError } from '../support/http.js';
import type { SignerOptions } from '../support/signer.js';
import { swapClient, type Swap } from '../support/swaps.js';
import { createVerifiedRoute, waitForDeposits, type Deposit, type Route } from '../support/routes.js';
import type { components } from '../../generated/api.js';

type EarningsPage = components['schemas']['EarningsPage'];

// Regular polls are far apart, so only an expect-deposit window (fast polls) finds a deposit within a test.
const ENV = { ROUTE_POLL_SECONDS: '30', ROUTE_EXPECT_POLL_SECONDS: '0.1', EXPECT_DEPOSIT_SECONDS: '60' };

describe('Permanent routes: deposits, accumulation, conversion and earnings', () => {
  let server: TestServer;
  let signer: SignerOptions;
  let client: ReturnType<typeof swapClient>;

  before(async () => {
    server = await startTestServer({ env: ENV });
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
        accumulated_usd: bucket.accumulated_usd,
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
    expect(order.order.refundAmount).to.equal('10500');
    // The small deposit still waits in its bucket.
    const after = await waitForDeposits(client, route.route_id, (l) => l.deposits.some((d) => d.status === 'refunded'));
    expect(after.deposits.find((d) => d.amountBaseUnits === '3000000')!.status).to.equal('accumulating');
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
    const first = await client.send<{ deposits: Deposit[]; nextCursor: string | null }>(
      'GET',
      `/api/v1/permanent-routes/${route.route_id}/deposits?limit=2`,
    );
    expect(first.body.deposits).to.have.length(2);
    const second = await client.send<{ deposits: Deposit[]; nextCursor: string | null }>(
      'GET',
      `/api/v1/permanent-routes/${route.route_id}/deposits?limit=2&cursor=${first.body.nextCursor}`,
    );
    expect(second.body.deposits).to.have.length(1);
    expect(second.body.nextCursor).to.equal(null);
    const ids = [...first.body.deposits, ...second.body.deposits].map((d) => d.id);
    expect(new Set(ids).size).to.equal(3);
    const other = swapClient(server.origin, await server.createSigner('Other'));
    expectError(await other.send('GET', `/api/v1/permanent-routes/${route.route_id}/deposits`), 404, 'not_found');
    expectError(await other.send('POST', `/api/v1/permanent-routes/${route.route_id}/expect-deposit`), 404, 'not_found');
  });
});
