import { expect } from 'chai';
import { loadSandboxCatalog } from '../../server/adapters/sandbox/catalog.js';
import { createSandboxRates } from '../../server/adapters/sandbox/rates.js';
import type { RatesAdapter } from '../../server/adapters/rates.js';
import { listOutputsToAddresses } from '../../server/store/chain-ledger.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { swapClient } from '../support/swaps.js';
import { createVerifiedRoute } from '../support/routes.js';

// The sweeper leaves the route alone (its first poll is an hour away): the test polls it itself. Short
// blocks confirm a USDT/TRX payment (19 blocks) in about a second.
const ENV = { ROUTE_POLL_SECONDS: '3600', SANDBOX_BLOCK_SECONDS: '0.05' };
// The statement that locks a route for its poll (store/routes.ts lockDueRoute).
const POLL_LOCK = /from "permanent_routes" where .* for update skip locked/;

describe('the route service (services/routes.ts)', function () {
  this.timeout(60_000);
  let server: TestServer;
  let client: ReturnType<typeof swapClient>;
  // The transactions that hold a route for a poll now, and each price asked with whether one was open.
  const polling = new Set<string>();
  const asked: Array<{ asset: string; duringPoll: boolean }> = [];

  before(async () => {
    const sandbox = createSandboxRates(loadSandboxCatalog());
    const rates: RatesAdapter = {
      priceUsd: (symbol, network, at) => {
        asked.push({ asset: `${symbol}/${network}`, duringPoll: polling.size > 0 });
        return sandbox.priceUsd(symbol, network, at);
      },
    };
    server = await startTestServer({ env: ENV, deps: { rates } });
    server.knex.on('query', (query: { sql: string; __knexTxId?: string }) => {
      if (!query.__knexTxId) return;
      if (POLL_LOCK.test(query.sql)) polling.add(query.__knexTxId);
      else if (/^(COMMIT|ROLLBACK)/i.test(query.sql)) polling.delete(query.__knexTxId);
    });
    client = swapClient(server.origin, { ...(await server.createSigner('Route service')), user: 'service-user' });
  });
  after(() => server?.close());

  // Waits until the payment to `address` has, on the ledger, the 19 confirmations USDT on TRX needs.
  async function confirmedOnLedger(address: string): Promise<void> {
    for (const deadline = Date.now() + 30_000; ;) {
      const [output] = await listOutputsToAddresses(server.knex, [address]);
      if (output && output.confirmations >= 19) return;
      if (Date.now() > deadline) throw new Error('the payment did not confirm');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('asks every price before the poll transaction: a payment first seen confirmed converts in that one poll', async () => {
    const route = await createVerifiedRoute(client, 'service-user');
    const address = route.addresses['USDT/TRX'];
    const paid = await client.send('POST', '/api/v1/sandbox/deposits', { address, asset: 'USDT', network: 'TRX', amount: '30' });
    expect(paid.status, paid.text).to.equal(202);
    // Confirmed on the ledger before the route's first poll, and the route holds no deposit yet.
    await confirmedOnLedger(address);
    asked.length = 0;

    const { orderIds } = await server.engine.routes.poll(route.route_id, { force: true });

    expect(orderIds).to.have.length(1);
    const deposits = await server.knex('route_deposits').where({ route_id: route.route_id });
    expect(deposits.map((d: { order_id: string; status: string }) => [d.order_id, d.status])).to.deep.equal([[orderIds[0], 'ordered']]);
    expect(asked.map((a) => a.asset)).to.include.members(['USDT/TRX', `${route.destination_asset}/${route.destination_network}`]);
    expect(
      asked.filter((a) => a.duringPoll),
      'prices asked while a poll held its route',
    ).to.deep.equal([]);
  });

  it("credits a payment the node saw at a time before the route's creation (its clock behind the server's, or the same second)", async () => {
    const route = await createVerifiedRoute(client, 'service-user');
    const address = route.addresses['USDT/TRX'];
    const paid = await client.send('POST', '/api/v1/sandbox/deposits', { address, asset: 'USDT', network: 'TRX', amount: '30' });
    expect(paid.status, paid.text).to.equal(202);
    await confirmedOnLedger(address);
    // A real node stamps what it sees with its own clock, in whole seconds: here, a minute before the route existed.
    await server.knex.raw(`update chain_outputs set seen_at = ?::timestamptz - interval '1 minute' where address = ?`, [
      route.created_at,
      address,
    ]);

    const { orderIds } = await server.engine.routes.poll(route.route_id, { force: true });

    expect(orderIds).to.have.length(1);
    const deposits = await server.knex('route_deposits').where({ route_id: route.route_id });
    expect(deposits.map((d: { status: string }) => d.status)).to.deep.equal(['ordered']);
  });
});
