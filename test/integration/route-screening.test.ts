/**
 * Address screening of permanent-route deposits (docs/screening.md): the route poll screens the sender of each
 * new payment to a route's addresses, once per deposit, before its transaction. A deposit from a sender the
 * denylist or the provider denies (or holds) is converted alone into an order held for an operator
 * (`screening_hold`), never accumulated with the route's other deposits and never refunded to that sender;
 * the verdict is in the operator action trail, its target the route.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { expectError } from '../support/http.js';
import { createVerifiedRoute, waitForDeposits, type Route } from '../support/routes.js';
import { allow, deny, startScreeningProvider } from '../support/screening-provider.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { swapClient, type Swap } from '../support/swaps.js';

// A BTC sender on the denylist, one the provider denies, and TRX senders.
const DENYLISTED_SENDER = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
const TRX_CLEAN = 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL';
const TRX_DENIED = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

// Regular polls are far apart, so only an expect-deposit window (fast polls) finds a deposit within a test.
const ENV = { ROUTE_POLL_SECONDS: '30', ROUTE_EXPECT_POLL_SECONDS: '0.1', EXPECT_DEPOSIT_SECONDS: '60' };

describe('address screening of permanent-route deposits', function () {
  this.timeout(120_000);
  let provider: Awaited<ReturnType<typeof startScreeningProvider>>;
  let dir: string;
  let server: TestServer;
  let client: ReturnType<typeof swapClient>;

  before(async () => {
    provider = await startScreeningProvider();
    provider.answer = (subject) => (subject.address === TRX_DENIED ? deny('OFAC SDN list') : allow);
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pss-route-screening-'));
    const denylist = path.join(dir, 'denylist.txt');
    await fs.writeFile(denylist, `BTC:${DENYLISTED_SENDER}\n`);
    server = await startTestServer({
      env: { ...ENV, SCREENING_URL: provider.url, SCREENING_DENYLIST_FILE: denylist, SCREENING_TIMEOUT_MS: '2000' },
    });
    client = swapClient(server.origin, { ...(await server.createSigner('Router')), user: 'user-9' });
  });
  after(async () => {
    await server?.close();
    await provider?.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  // A verified route of user-9 polled fast (an expect-deposit window).
  const openRoute = async () => {
    const route = await createVerifiedRoute(client, 'user-9');
    const res = await client.send('POST', `/api/v1/permanent-routes/${route.route_id}/expect-deposit`);
    expect(res.status, res.text).to.equal(200);
    return route;
  };
  const pay = async (route: Route, asset: string, network: string, amount: string, fromAddress: string) => {
    const res = await client.send<{ txHash: string }>('POST', '/api/v1/sandbox/deposits', {
      address: route.addresses[`${asset}/${network}`],
      asset,
      network,
      amount,
      fromAddress,
    });
    expect(res.status, res.text).to.equal(202);
    return res.body.txHash;
  };
  const verdictsOf = (route: Route) =>
    server
      .knex('route_deposit_verdicts as v')
      .join('route_deposits as d', 'd.id', 'v.deposit_id')
      .where('d.route_id', route.route_id)
      .select('v.*', 'd.tx_hash');

  it('holds a deposit from a denylisted sender in an order of its own in review (screening_hold), and never refunds to it', async () => {
    const route = await openRoute();
    const txHash = await pay(route, 'BTC', 'BTC', '0.001', DENYLISTED_SENDER);
    const list = await waitForDeposits(client, route.route_id, (l) => l.deposits.some((d) => d.orderId !== null));
    const [deposit] = list.deposits;
    expect(deposit).to.include({ txHash, status: 'review' });
    const { order } = await client.waitFor(deposit.orderId!, (o) => o.status === 'review');
    expect(order).to.include({ failureCode: 'screening_hold', sourceAsset: 'BTC', depositAmount: '0.001' });

    const [verdict] = await verdictsOf(route);
    expect(verdict).to.include({ address: DENYLISTED_SENDER, decision: 'deny', provider: 'denylist', tx_hash: txHash });
    // The denylist decided: the provider was never asked about this sender.
    expect(provider.asked.map((a) => a.address)).not.to.include(DENYLISTED_SENDER);
    const [entry] = await server.knex('operator_actions').where({ action: 'screening.verdict', target: route.route_id });
    expect(entry).to.include({ actor: 'screening' });
    expect(entry.details).to.include({ role: 'sender', decision: 'deny', address: DENYLISTED_SENDER, txHash });

    // A route order is refunded to each deposit's sender: refused for this one, saying why.
    const refund = await client.send<{ error: { message: string } }>('POST', `/api/v1/sandbox/swaps/${order.id}/review-decision`, {
      decision: 'refund',
    });
    expectError(refund, 409, 'invalid_state');
    expect(refund.body.error.message).to.match(new RegExp(`came from ${DENYLISTED_SENDER}, which address screening did not allow`));
    expect(await server.knex('payouts').where({ swap_id: order.id, purpose: 'refund' })).to.have.length(0);

    // An operator who finds screening wrong approves: the order converts and settles.
    const approved = await client.send('POST', `/api/v1/sandbox/swaps/${order.id}/review-decision`, { decision: 'approve' });
    expect(approved.status, approved.text).to.equal(200);
    const { order: done } = await client.waitFor(order.id, (o: Swap) => o.status === 'finished');
    expect(done.settlementTxHash).to.be.a('string');
  });

  it('keeps a held deposit out of its bucket: the clean one accumulates alone, each sender asked once', async () => {
    const route = await openRoute();
    const clean = await pay(route, 'USDT', 'TRX', '10', TRX_CLEAN);
    const denied = await pay(route, 'USDT', 'TRX', '12', TRX_DENIED);
    const list = await waitForDeposits(
      client,
      route.route_id,
      (l) => l.deposits.length === 2 && l.deposits.some((d) => d.orderId !== null) && l.deposits.some((d) => d.status === 'accumulating'),
    );
    const byTx = new Map(list.deposits.map((d) => [d.txHash, d]));
    expect(byTx.get(clean)).to.include({ status: 'accumulating', orderId: null });
    expect(byTx.get(denied)).to.include({ status: 'review' });
    // The bucket holds the clean deposit only (10 USDT, well under the 25 USD threshold).
    expect(list.accumulations).to.have.length(1);
    expect(Number(list.accumulations[0].accumulated_usd)).to.be.lessThan(11);

    const { order } = await client.waitFor(byTx.get(denied)!.orderId!, (o) => o.status === 'review');
    expect(order).to.include({ failureCode: 'screening_hold', depositAmount: '12' });
    const verdicts = await verdictsOf(route);
    expect(verdicts.map((v) => [v.address, v.decision, v.reason]).sort()).to.deep.equal([
      [TRX_CLEAN, 'allow', null],
      [TRX_DENIED, 'deny', 'OFAC SDN list'],
    ]);
    // Polled again and again while the clean one waits, each sender was screened once.
    await new Promise((r) => setTimeout(r, 500));
    for (const sender of [TRX_CLEAN, TRX_DENIED]) {
      expect(
        provider.asked.filter((a) => a.address === sender),
        sender,
      ).to.have.length(1);
    }
    // Only the denial is in the trail.
    const trail = await server.knex('operator_actions').where({ action: 'screening.verdict', target: route.route_id });
    expect(trail.map((e) => e.details.address)).to.deep.equal([TRX_DENIED]);
  });
});
