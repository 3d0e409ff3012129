import { expect } from 'chai';
import { createPartnerClient, PartnerApiError, type EarningsPage, type PartnerClient, type PermanentRoute } from '../src/index.js';
import { signZanoMessage } from '../../server/domain/zano-proof.js';
import { startTestServer, type TestServer } from '../../test/support/server.js';
import { freshScalar, freshZanoWallet } from '../../test/support/routes.js';

// Regular polls are far apart, so only an expect-deposit window (fast polls) finds a deposit within a test.
const ROUTE_POLLING_ENV = { ROUTE_POLL_SECONDS: '30', ROUTE_EXPECT_POLL_SECONDS: '0.1' };

const EMPTY_PAGE: EarningsPage = { earnings: [], totals: [], nextCursor: null };

describe('sdk earnings against the real server', function () {
  this.timeout(90_000);
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ env: ROUTE_POLLING_ENV });
  });
  after(() => server.close());

  // Every test acts as a partner of its own, so earnings never leak from one test into another.
  async function newClient(): Promise<PartnerClient> {
    const { keyId, secret } = await server.createPartner();
    return createPartnerClient({ baseUrl: server.baseUrl, audience: server.config.publicOrigin, keyId, secret, userId: 'user-42' });
  }

  /** A ZANO route to a fresh wallet, once its USDT/TRX address is allocated. */
  async function createPayableRoute(client: PartnerClient): Promise<PermanentRoute> {
    const wallet = freshZanoWallet();
    const created = await client.routes.createVerified({
      target: { destinationAsset: 'ZANO', destinationNetwork: 'ZANO', destinationAddress: wallet.address },
      sign: (text) => signZanoMessage(wallet.secret, text, freshScalar(), 'v2'),
    });
    if (created.error) throw created.error;
    let route = created.data;
    const deadline = Date.now() + 10_000;
    while (!route.addresses['USDT/TRX']) {
      if (Date.now() > deadline) throw new Error('the route address for USDT/TRX was not allocated in 10 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
      const read = await client.routes.get(route.route_id);
      if (read.error) throw read.error;
      route = read.data;
    }
    return route;
  }

  describe('.list(query)', () => {
    it('returns an empty page with no totals for a partner without earnings', async () => {
      const client = await newClient();
      const { data, error, response } = await client.earnings.list();
      expect(error).to.equal(undefined);
      expect(response.status).to.equal(200);
      expect(data).to.deep.equal(EMPTY_PAGE);
    });

    it('returns invalid_request as a value for a cursor the API did not issue', async () => {
      const client = await newClient();
      const { data, error, response } = await client.earnings.list({ cursor: 'not-a-cursor' });
      expect(data).to.equal(undefined);
      expect(error).to.be.instanceOf(PartnerApiError).and.include({ status: 400, code: 'invalid_request' });
      expect(response.status).to.equal(400);
    });

    it('returns invalid_request as a value when from is not before to', async () => {
      const client = await newClient();
      const at = '2026-06-01T00:00:00.000Z';
      const { error } = await client.earnings.list({ from: at, to: at });
      expect(error).to.include({ status: 400, code: 'invalid_request' });
    });

    it("records the route's markup once its deposits convert, with totals per asset", async () => {
      const client = await newClient();
      // The markup applies to routes created after it is set.
      const markup = await client.setMarkup(0.5);
      if (markup.error) throw markup.error;
      const route = await createPayableRoute(client);
      const expected = await client.routes.expectDeposit(route.route_id);
      if (expected.error) throw expected.error;

      // 10 waits in its bucket below the 25 USD minimum; 20 more of the same asset starts one conversion.
      for (const amount of ['10', '20']) {
        const paid = await client.sandbox.deposit({ address: route.addresses['USDT/TRX']!, asset: 'USDT', network: 'TRX', amount });
        if (paid.error) throw paid.error;
      }
      const deadline = Date.now() + 60_000;
      let deposits = (await client.routes.deposits(route.route_id)).data!;
      while (deposits.deposits.length < 2 || deposits.deposits.some((d) => d.status !== 'finished')) {
        if (Date.now() > deadline) throw new Error(`the deposits did not finish: ${JSON.stringify(deposits)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
        const read = await client.routes.deposits(route.route_id);
        if (read.error) throw read.error;
        deposits = read.data;
      }
      const orderIds = [...new Set(deposits.deposits.map((d) => d.orderId))];
      expect(orderIds, 'one order for the bucket').to.have.length(1);

      const { data, error } = await client.earnings.list();
      expect(error, error?.message).to.equal(undefined);
      expect(data?.earnings).to.have.length(1);
      const [earning] = data!.earnings;
      expect(earning).to.include({ routeId: route.route_id, orderId: orderIds[0], asset: 'ZANO', network: 'ZANO', markupPercent: 0.5 });
      // 30 USDT at about 1 USD each: 0.5 % of it is about 0.15 USD, paid in ZANO.
      expect(Number(earning!.amountUsd)).to.be.within(0.14, 0.16);
      expect(Number(earning!.amount)).to.be.greaterThan(0);
      expect(data?.totals).to.deep.equal([{ asset: 'ZANO', network: 'ZANO', amount: earning!.amount, amountUsd: earning!.amountUsd }]);
      expect(data?.nextCursor).to.equal(null);

      // from is inclusive and to exclusive on createdAt.
      const later = new Date(Date.parse(earning!.createdAt) + 1).toISOString();
      expect((await client.earnings.list({ from: later })).data).to.deep.equal(EMPTY_PAGE);
      expect((await client.earnings.list({ to: earning!.createdAt })).data).to.deep.equal(EMPTY_PAGE);
      expect((await client.earnings.list({ from: earning!.createdAt, to: later })).data?.earnings).to.have.length(1);
    });
  });

  describe('.listAll(filter)', () => {
    it('yields the one page of a partner without earnings', async () => {
      const client = await newClient();
      const pages = [];
      for await (const page of client.earnings.listAll({ limit: 1 })) pages.push(page);
      expect(pages).to.have.length(1);
      expect(pages[0]?.data).to.deep.equal(EMPTY_PAGE);
    });

    it('yields an error page last and stops', async () => {
      const client = await newClient();
      const pages = [];
      for await (const page of client.earnings.listAll({ limit: 0 })) pages.push(page);
      expect(pages).to.have.length(1);
      expect(pages[0]?.error).to.include({ status: 400, code: 'invalid_request' });
    });
  });
});
