import { expect } from 'chai';
import { loadSandboxCatalog } from '../../server/adapters/sandbox/catalog.js';
import { createSandboxRates } from '../../server/adapters/sandbox/rates.js';
import type { RatesAdapter } from '../../server/adapters/rates.js';
import { AppError } from '../../server/domain/errors.js';
import { expectError } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { blocksSince, reorganize, type SandboxPayment } from '../support/chain.js';
import { createVerifiedRoute, waitForDeposits } from '../support/routes.js';
import { freshZanoWallet } from '../support/routes.js';
import { btcToUsdt, swapClient, type Swap } from '../support/swaps.js';

// Slow enough blocks that a test acts between two of them, even on a busy machine: ZANO's 10 confirmations take
// about 3 s, TRX's 19 about 6 s (no test waits those out).
const BLOCK_SECONDS = 0.3;
// refundMode sender is refused on ZANO (its transactions do not reveal their sender): refunds go to an address.
const zanoToUsdt = (sourceAmount: string, extra: Record<string, unknown> = {}) =>
  btcToUsdt(sourceAmount, {
    sourceAsset: 'ZANO',
    sourceNetwork: 'ZANO',
    refundMode: 'address',
    refundAddress: freshZanoWallet().address,
    ...extra,
  });
const trxUsdtToUsdt = (sourceAmount: string, extra: Record<string, unknown> = {}) =>
  btcToUsdt(sourceAmount, { sourceAsset: 'USDT', sourceNetwork: 'TRX', ...extra });
const dogeToUsdt = (sourceAmount: string, extra: Record<string, unknown> = {}) =>
  btcToUsdt(sourceAmount, { sourceAsset: 'DOGE', sourceNetwork: 'DOGE', ...extra });

// Each test reorganises a network where no earlier test has a live payment, so it removes no other test's payments.
describe('chain reorganisations through the sandbox (POST /sandbox/networks/{network}/reorganizations)', function () {
  this.timeout(60_000);
  let server: TestServer;
  let client: ReturnType<typeof swapClient>;
  // While `pricesDown`, USDT has no price: a floating swap in exchanging stays there, its step retried. While
  // `heldRoute` names a route that has an order, ZANO has no price: the order stays in exchanging likewise.
  let pricesDown = false;
  let heldRoute: string | undefined;

  before(async () => {
    const sandboxRates = createSandboxRates(loadSandboxCatalog());
    const rates: RatesAdapter = {
      priceUsd: async (symbol, network, at) => {
        if (pricesDown && symbol === 'USDT') throw new AppError(503, 'rates_unavailable', 'USDT has no price in this test.');
        if (symbol === 'ZANO' && heldRoute && (await server.knex('swaps').where({ route_id: heldRoute }).first())) {
          throw new AppError(503, 'rates_unavailable', 'ZANO has no price for this route order in this test.');
        }
        return sandboxRates.priceUsd(symbol, network, at);
      },
    };
    server = await startTestServer({
      env: { SANDBOX_BLOCK_SECONDS: String(BLOCK_SECONDS), ROUTE_EXPECT_POLL_SECONDS: '0.1' },
      deps: { rates },
    });
    client = swapClient(server.origin, await server.createSigner('Reorganisations'));
  });
  after(() => server.close());

  const paid = async (order: Swap, amount?: string) => (await client.pay(order, amount)).body as SandboxPayment;

  it('sends a confirming swap back to waiting when its deposit leaves the chain, and finishes it on the next payment', async () => {
    const { order } = await client.create(zanoToUsdt('100', { rateType: 'floating' }));
    const payment = await paid(order);
    expect(payment.requiredConfirmations).to.equal(10);
    const confirmations = (o: Swap) => o.deposits?.[0]?.confirmationCount ?? 0;
    const { order: confirming } = await client.waitFor(order.id, (o) => o.status === 'confirming' && confirmations(o) >= 1);
    expect(confirmations(confirming)).to.be.below(10);
    expect(confirming.sourceTxHash).to.equal(payment.txHash);

    const blocks = blocksSince(payment.createdAt, BLOCK_SECONDS);
    const reorg = await reorganize(client, 'ZANO', blocks);
    expect(reorg.status, reorg.text).to.equal(200);
    expect(reorg.body.network).to.equal('ZANO');
    expect(reorg.body.removedBlocks).to.equal(blocks);
    expect(reorg.body.tip.height).to.be.a('number');
    expect(reorg.body.tip.hash).to.match(/^[0-9a-f]{64}$/);
    expect(reorg.body.removedTransactions).to.deep.include({ txHash: payment.txHash, outputIndex: 0 });

    const { order: back, events } = await client.waitFor(order.id, (o) => o.status === 'waiting');
    expect(back).to.include({ sourceTxHash: null, failureCode: null, actionRequired: 'customer', retryable: false });
    expect(back.deposits).to.have.length(1);
    expect(back.deposits![0]).to.include({ txHash: payment.txHash, outputIndex: 0, role: 'swap', status: 'removed', confirmationCount: 0 });
    expect(events.map((e) => e.status).slice(-1)).to.deep.equal(['waiting']);

    const second = await paid(order);
    const { order: done, events: timeline } = await client.waitFor(order.id, (o) => o.terminal);
    expect(done.status).to.equal('finished');
    expect(done.sourceTxHash).to.equal(second.txHash);
    expect(done.actualOutputAmount).to.be.a('string');
    expect(done.deposits!.map((d) => [d.txHash, d.role, d.status])).to.deep.equal([
      [payment.txHash, 'swap', 'removed'],
      [second.txHash, 'swap', 'credited'],
    ]);
    const statuses = timeline.map((e) => e.status).filter((s, i, all) => i === 0 || s !== all[i - 1]);
    expect(statuses).to.deep.equal(['waiting', 'confirming', 'waiting', 'confirming', 'exchanging', 'sending', 'finished']);
  });

  it('keeps a swap in review when its credited deposit (above the automatic maximum) leaves the chain, the deposit removed', async () => {
    const { order } = await client.create(btcToUsdt('0.5', { rateType: 'fixed' }));
    const payment = await paid(order);
    const { order: held } = await client.waitFor(order.id, (o) => o.status === 'review');
    expect(held.deposits!.map((d) => [d.txHash, d.role, d.status])).to.deep.equal([[payment.txHash, 'swap', 'review']]);

    const reorg = await reorganize(client, 'BTC', blocksSince(payment.createdAt, BLOCK_SECONDS));
    expect(reorg.status, reorg.text).to.equal(200);
    expect(reorg.body.removedTransactions).to.deep.include({ txHash: payment.txHash, outputIndex: 0 });

    const { order: after } = await client.waitFor(order.id, (o) => o.deposits?.[0]?.status === 'removed');
    expect(after).to.include({ status: 'review', actionRequired: 'operator', retryable: false });
    expect(after.deposits!.map((d) => [d.txHash, d.role, d.status, d.confirmationCount])).to.deep.equal([
      [payment.txHash, 'swap', 'removed', 0],
    ]);
  });

  it('moves a swap from exchanging to review (deposit_removed) when its credited deposit leaves the chain', async () => {
    const { order } = await client.create(dogeToUsdt('500', { rateType: 'floating' }));
    pricesDown = true;
    try {
      const payment = await paid(order);
      await client.waitFor(order.id, (o) => o.status === 'exchanging');
      const reorg = await reorganize(client, 'DOGE', blocksSince(payment.createdAt, BLOCK_SECONDS));
      expect(reorg.status, reorg.text).to.equal(200);
      expect(reorg.body.removedTransactions).to.deep.include({ txHash: payment.txHash, outputIndex: 0 });

      const { order: after, events } = await client.waitFor(order.id, (o) => o.status === 'review');
      expect(after).to.include({ failureCode: 'deposit_removed', actionRequired: 'operator', retryable: false });
      expect(after.deposits!.map((d) => [d.txHash, d.role, d.status])).to.deep.equal([[payment.txHash, 'swap', 'removed']]);
      expect(events.map((e) => e.status).slice(-2)).to.deep.equal(['exchanging', 'review']);
      // Nothing was paid out for it.
      expect(await server.knex('payouts').where({ swap_id: order.id })).to.deep.equal([]);
    } finally {
      pricesDown = false;
    }
  });

  it('sends a late deposit that leaves the chain while confirming back to overdue', async () => {
    const { order } = await client.create(trxUsdtToUsdt('100', { rateType: 'floating' }));
    await client.waitFor(order.id, (o) => !!o.depositAddress);
    const overdue = await client.send<{ order: Swap }>('POST', `/api/v1/sandbox/swaps/${order.id}/clock`, { deadline: 'deposit' });
    expect(overdue.body.order.status).to.equal('overdue');
    const payment = await paid(order);
    // Mined (one confirmation at least): a payment still waiting for its block is not in the blocks removed.
    await client.waitFor(order.id, (o) => o.status === 'confirming' && (o.deposits?.[0]?.confirmationCount ?? 0) >= 1);
    const reorg = await reorganize(client, 'TRX', blocksSince(payment.createdAt, BLOCK_SECONDS));
    expect(reorg.status, reorg.text).to.equal(200);
    expect(reorg.body.removedTransactions).to.deep.include({ txHash: payment.txHash, outputIndex: 0 });
    const { order: back } = await client.waitFor(order.id, (o) => o.status !== 'confirming');
    expect(back).to.include({ status: 'overdue', sourceTxHash: null });
    expect(back.deposits!.map((d) => [d.txHash, d.role, d.status])).to.deep.equal([[payment.txHash, 'swap', 'removed']]);
    expect(await server.knex('payouts').where({ swap_id: order.id })).to.deep.equal([]);
  });

  it('counts an extra payment that leaves the chain before its refund for nothing: removed, no refund, retryable again', async () => {
    const { order } = await client.create(trxUsdtToUsdt('100', { rateType: 'fixed' }));
    await client.waitFor(order.id, (o) => !!o.depositAddress);
    await client.send('POST', `/api/v1/sandbox/swaps/${order.id}/clock`, { deadline: 'deposit' });
    const expired = await client.send<{ order: Swap }>('POST', `/api/v1/sandbox/swaps/${order.id}/clock`, { deadline: 'expiry' });
    expect(expired.body.order.status).to.equal('expired');
    const payment = await paid(order);
    const { order: confirming } = await client.waitFor(
      order.id,
      (o) => o.deposits?.[0]?.status === 'confirming' && o.deposits[0].confirmationCount >= 1,
    );
    expect(confirming).to.include({ status: 'expired', retryable: false });
    const reorg = await reorganize(client, 'TRX', blocksSince(payment.createdAt, BLOCK_SECONDS));
    expect(reorg.status, reorg.text).to.equal(200);
    expect(reorg.body.removedTransactions).to.deep.include({ txHash: payment.txHash, outputIndex: 0 });
    const { order: after } = await client.waitFor(order.id, (o) => o.deposits?.[0]?.status !== 'confirming');
    expect(after).to.include({ status: 'expired', retryable: true });
    expect(after.deposits!.map((d) => [d.txHash, d.role, d.status, d.refundTxHash])).to.deep.equal([
      [payment.txHash, 'extra', 'removed', null],
    ]);
    // The blocks that follow do not bring it back: still removed, and nothing refunded, a few blocks on.
    await new Promise((resolve) => setTimeout(resolve, 4 * BLOCK_SECONDS * 1000));
    expect((await client.get(order.id)).order.deposits![0].status).to.equal('removed');
    expect(await server.knex('payouts').where({ swap_id: order.id })).to.deep.equal([]);
  });

  it("takes a route's accumulating deposit out of its bucket when the payment leaves the chain: it confirms again from 0", async () => {
    const routes = swapClient(server.origin, { ...(await server.createSigner('Route reorganisations')), user: 'reorg-user' });
    const route = await createVerifiedRoute(routes, 'reorg-user');
    expect((await routes.send('POST', `/api/v1/permanent-routes/${route.route_id}/expect-deposit`)).status).to.equal(200);
    // 0.01 LTC (about 0.81 USD): below the route's minimum, so it accumulates once confirmed (6 blocks).
    const paid = await routes.send<SandboxPayment>('POST', '/api/v1/sandbox/deposits', {
      address: route.addresses['LTC/LTC'],
      asset: 'LTC',
      network: 'LTC',
      amount: '0.01',
    });
    expect(paid.status, paid.text).to.equal(202);
    const accumulating = await waitForDeposits(routes, route.route_id, (list) => list.deposits[0]?.status === 'accumulating');
    expect(accumulating.accumulations.map((a) => `${a.asset}/${a.network}`)).to.deep.equal(['LTC/LTC']);

    const reorg = await reorganize(routes, 'LTC', blocksSince(paid.body.createdAt, BLOCK_SECONDS));
    expect(reorg.status, reorg.text).to.equal(200);
    expect(reorg.body.removedTransactions).to.deep.include({ txHash: paid.body.txHash, outputIndex: 0 });
    const back = await waitForDeposits(routes, route.route_id, (list) => list.deposits[0]?.status === 'confirming');
    expect(back.deposits[0]).to.include({ txHash: paid.body.txHash, confirmationCount: 0 });
    expect(back.accumulations).to.deep.equal([]);
    // Not mined again (the sandbox's removed payments stay removed): a few blocks later it still counts nothing.
    await new Promise((r) => setTimeout(r, 4 * BLOCK_SECONDS * 1000));
    const later = await routes.send<{ deposits: Array<{ status: string; confirmationCount: number }> }>(
      'GET',
      `/api/v1/permanent-routes/${route.route_id}/deposits`,
    );
    expect(later.body.deposits[0]).to.include({ status: 'confirming', confirmationCount: 0 });
  });

  it('holds a route order in review (deposit_removed) when a deposit it converts leaves the chain; nothing is paid out', async () => {
    const routes = swapClient(server.origin, { ...(await server.createSigner('Route order reorganisations')), user: 'reorg-order' });
    const route = await createVerifiedRoute(routes, 'reorg-order');
    expect((await routes.send('POST', `/api/v1/permanent-routes/${route.route_id}/expect-deposit`)).status).to.equal(200);
    heldRoute = route.route_id;
    try {
      // 500 DOGE (about 40 USD): above the route's minimum, converted alone once confirmed; ZANO has no price
      // once the order exists, so the order waits in exchanging.
      const paid = await routes.send<SandboxPayment>('POST', '/api/v1/sandbox/deposits', {
        address: route.addresses['DOGE/DOGE'],
        asset: 'DOGE',
        network: 'DOGE',
        amount: '500',
      });
      expect(paid.status, paid.text).to.equal(202);
      const ordered = await waitForDeposits(routes, route.route_id, (list) => list.deposits[0]?.orderId != null);
      const orderId = ordered.deposits[0].orderId!;
      await routes.waitFor(orderId, (o) => o.status === 'exchanging');

      const reorg = await reorganize(routes, 'DOGE', blocksSince(paid.body.createdAt, BLOCK_SECONDS));
      expect(reorg.status, reorg.text).to.equal(200);
      expect(reorg.body.removedTransactions).to.deep.include({ txHash: paid.body.txHash, outputIndex: 0 });
      const { order, events } = await routes.waitFor(orderId, (o) => o.status === 'review');
      expect(order).to.include({ failureCode: 'deposit_removed', actionRequired: 'operator' });
      expect(events.map((e) => e.status).slice(-2)).to.deep.equal(['exchanging', 'review']);
      // An operator cannot exchange or refund what left the chain; failing it is the way out.
      const approve = await routes.send('POST', `/api/v1/sandbox/swaps/${orderId}/review-decision`, { decision: 'approve' });
      expectError(approve, 409, 'invalid_state');
      expect(approve.text).to.match(/left the chain/);
      heldRoute = undefined;
      await new Promise((r) => setTimeout(r, 4 * BLOCK_SECONDS * 1000));
      expect((await routes.get(orderId)).order.status).to.equal('review');
      expect(await server.knex('payouts').where({ swap_id: orderId })).to.deep.equal([]);
    } finally {
      heldRoute = undefined;
    }
  });

  // Every simulated network answers its tip's hash as 64 lowercase hex digits, as the spec says.
  it('answers 200 with the new tip for a reorganisation of every network of the catalogue', async () => {
    for (const network of Object.keys(loadSandboxCatalog().networks)) {
      const res = await reorganize(client, network, 1);
      expect(res.status, `${network}: ${res.text}`).to.equal(200);
      expect(res.body).to.deep.include({ network, removedBlocks: 1 });
    }
  });

  it('answers 400 invalid_request (details.field network) for a network the catalogue does not list', async () => {
    const res = await reorganize(client, 'NOPE', 1);
    expectError(res, 400, 'invalid_request');
    expect((res.body as unknown as { error: { details: { field: string } } }).error.details.field).to.equal('network');
  });

  it('answers 400 for a number of blocks outside 1-100', async () => {
    for (const blocks of [0, 101]) expectError(await reorganize(client, 'LTC', blocks), 400, 'invalid_request');
  });
});
