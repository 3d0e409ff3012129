import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import {
  createPartnerClient,
  PartnerApiError,
  type PartnerClient,
  type PermanentDepositList,
  type PermanentRoute,
  type PermanentRouteTarget,
  type SignChallenge,
} from '../src/index.js';
import { signZanoMessage } from '../../server/domain/zano-proof.js';
import { startTestServer, type TestServer } from '../../test/support/server.js';

// zano-vectors.md: a standard address and its spend secret key.
const ADDRESS = 'ZxDFpn4k7xVYyc9VZ3LphrJbkpc46xfREace5bme1aXiMzKPAHA8jsTWcHSXhv9AdodSaoGXK9Mg7bk3ec4FkQrj357fZPWZX';
const SECRET = Buffer.from('80b3e96a3eb765332b0fd3e44e0fefa58747a70025bf91aa4a7b758ab6f5590d', 'hex');
const ZANO_TARGET: PermanentRouteTarget = {
  destinationAsset: 'ZANO',
  destinationNetwork: 'ZANO',
  destinationAddress: ADDRESS,
  label: 'Main wallet',
};
const FUSD_TARGET: PermanentRouteTarget = { destinationAsset: 'fUSD', destinationNetwork: 'ZANO', destinationAddress: ADDRESS };

// A fresh nonce k below the group order l: 32 random bytes, the top (little-endian last) byte's high nibble cleared.
const freshK = () => {
  const k = randomBytes(32);
  k[31] &= 0x0f;
  return k;
};

/** What a wallet's sign_message does with the test key: sign the exact text, hand back pkey and sig. */
const signWith =
  (secret: Uint8Array): SignChallenge =>
  async (challengeText) =>
    signZanoMessage(secret, challengeText, freshK(), 'v2');

// Regular polls are far apart, so only an expect-deposit window (fast polls) finds a deposit within a test.
const ROUTE_POLLING_ENV = { ROUTE_POLL_SECONDS: '30', ROUTE_EXPECT_POLL_SECONDS: '0.1' };

describe('sdk routes against the real server', function () {
  this.timeout(60_000);
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ env: ROUTE_POLLING_ENV });
  });
  after(() => server.close());

  // Every test acts as a partner of its own, so routes and lists never leak from one test into another.
  async function newClient(userId = 'user-42'): Promise<PartnerClient> {
    const { keyId, secret } = await server.createPartner();
    return createPartnerClient({ baseUrl: server.baseUrl, audience: server.config.publicOrigin, keyId, secret, userId });
  }

  async function createRoute(client: PartnerClient, target: PermanentRouteTarget): Promise<PermanentRoute> {
    const { data, error } = await client.routes.createVerified({ target, sign: signWith(SECRET) });
    if (error) throw error;
    return data;
  }

  // A route's addresses are allocated a moment after creation ('' until then); a payment needs the address.
  async function createPayableRoute(client: PartnerClient, target: PermanentRouteTarget): Promise<PermanentRoute> {
    let route = await createRoute(client, target);
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

  async function payUsdtTrx(client: PartnerClient, route: PermanentRoute, amount: string): Promise<void> {
    const { error } = await client.sandbox.deposit({ address: route.addresses['USDT/TRX']!, asset: 'USDT', network: 'TRX', amount });
    if (error) throw error;
  }

  async function waitForDeposits(
    client: PartnerClient,
    routeId: string,
    done: (page: PermanentDepositList) => boolean,
  ): Promise<PermanentDepositList> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const { data, error } = await client.routes.deposits(routeId);
      if (error) throw error;
      if (done(data)) return data;
      if (Date.now() > deadline) throw new Error(`the route's deposits did not reach the expected state: ${JSON.stringify(data)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  describe('.createChallenge(target)', () => {
    it('returns the text to sign, naming the address and the client user', async () => {
      const client = await newClient();
      const { data, error, response } = await client.routes.createChallenge(ZANO_TARGET);
      expect(error).to.equal(undefined);
      expect(response.status).to.equal(201);
      expect(data?.challenge).to.contain(`Address: ${ADDRESS}`).and.contain('User: user-42');
    });
  });

  describe('.createVerified({ target, sign })', () => {
    it('creates the route with the signature of the challenge text, and a second call recovers the same route', async () => {
      const client = await newClient();
      const signed: string[] = [];
      const sign: SignChallenge = (text) => {
        signed.push(text);
        return signZanoMessage(SECRET, text, freshK(), 'v2'); // a synchronous callback works too
      };
      const first = await client.routes.createVerified({ target: ZANO_TARGET, sign });
      expect(first.error, first.error?.message).to.equal(undefined);
      expect(first.response.status).to.equal(201);
      expect(first.data).to.include({
        external_user_id: 'user-42',
        destination_asset: 'ZANO',
        destination_network: 'ZANO',
        destination_address: ADDRESS,
        label: 'Main wallet',
        status: 'active',
      });
      expect(signed).to.have.length(1);
      expect(signed[0]).to.contain('User: user-42');

      const again = await client.routes.createVerified({ target: ZANO_TARGET, sign });
      expect(again.response.status).to.equal(201);
      expect(again.data?.route_id).to.equal(first.data?.route_id);
      expect(signed).to.have.length(2);
      expect(signed[1]).not.to.equal(signed[0]); // a fresh single-use challenge each time
    });

    it("returns ownership_not_verified as a value when the callback answers with another key's public key", async () => {
      const client = await newClient();
      const otherSecret = createHash('sha256').update('another key').digest();
      otherSecret[31] &= 0x0f;
      const { data, error, response } = await client.routes.createVerified({
        target: ZANO_TARGET,
        sign: async (text) => ({
          ...signZanoMessage(SECRET, text, freshK(), 'v2'),
          publicKey: signZanoMessage(otherSecret, text, freshK(), 'v2').publicKey,
        }),
      });
      expect(data).to.equal(undefined);
      expect(error).to.be.instanceOf(PartnerApiError);
      expect(error).to.include({ status: 403, code: 'ownership_not_verified' });
      expect(response.status).to.equal(403);
    });

    it('returns the challenge error value without calling sign when the target is refused', async () => {
      const client = await newClient();
      let called = false;
      const { error } = await client.routes.createVerified({
        target: { ...ZANO_TARGET, destinationAddress: `${ADDRESS.slice(0, -1)}${ADDRESS.endsWith('X') ? 'Y' : 'X'}` },
        sign: (text) => {
          called = true;
          return signZanoMessage(SECRET, text, freshK(), 'v2');
        },
      });
      expect(error).to.include({ status: 400, code: 'invalid_settlement_target' });
      expect(called).to.equal(false);
    });

    it('throws a TypeError when sign is missing or answers with the wallet RPC field names', async () => {
      const client = await newClient();
      let thrown: unknown;
      try {
        await client.routes.createVerified({ target: ZANO_TARGET } as never);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).to.be.instanceOf(TypeError);
      thrown = undefined;
      try {
        await client.routes.createVerified({ target: ZANO_TARGET, sign: () => ({ sig: 'ab', pkey: 'cd' }) as never });
      } catch (err) {
        thrown = err;
      }
      expect(thrown)
        .to.be.instanceOf(TypeError)
        .with.property('message')
        .that.matches(/publicKey, signature/);
    });
  });

  describe('.create(request)', () => {
    it('creates a route from a challenge signed by hand', async () => {
      const client = await newClient();
      const challenge = await client.routes.createChallenge(FUSD_TARGET);
      if (challenge.error) throw challenge.error;
      const proof = signZanoMessage(SECRET, challenge.data.challenge, freshK(), 'legacy');
      const { data, error } = await client.routes.create({
        ...FUSD_TARGET,
        externalUserId: 'user-42',
        challengeId: challenge.data.challenge_id,
        message: challenge.data.challenge,
        ...proof,
      });
      expect(error, error?.message).to.equal(undefined);
      expect(data?.destination_asset).to.equal('fUSD');
    });
  });

  describe('.get(id), .list(query) and .listAll(filter)', () => {
    it('reads a route, and lists two routes one page at a time following next_cursor, null on the last page', async () => {
      const client = await newClient();
      const zano = await createRoute(client, ZANO_TARGET);
      const fusd = await createRoute(client, FUSD_TARGET);

      const got = await client.routes.get(zano.route_id);
      expect(got.error).to.equal(undefined);
      expect(got.data).to.include({ route_id: zano.route_id, destination_asset: 'ZANO' });

      const first = await client.routes.list({ limit: 1 });
      expect(first.data?.routes).to.have.length(1);
      expect(first.data?.next_cursor).to.be.a('string');

      const pages = [];
      for await (const page of client.routes.listAll({ limit: 1 })) {
        if (page.error) throw page.error;
        pages.push(page.data);
      }
      expect(pages).to.have.length(2);
      expect(pages.map((p) => p.routes.length)).to.deep.equal([1, 1]);
      expect(pages.flatMap((p) => p.routes.map((r) => r.route_id))).to.have.members([zano.route_id, fusd.route_id]);
      expect(pages[1]).to.have.property('next_cursor', null);
    });

    it('returns not_found as a value for an unknown id', async () => {
      const client = await newClient();
      const { data, error } = await client.routes.get('00000000-0000-4000-8000-000000000000');
      expect(data).to.equal(undefined);
      expect(error).to.be.instanceOf(PartnerApiError);
      expect(error).to.include({ status: 404, code: 'not_found' });
    });

    it('yields an error page last and stops', async () => {
      const client = await newClient();
      const pages = [];
      for await (const page of client.routes.listAll({ limit: 0 })) pages.push(page);
      expect(pages).to.have.length(1);
      expect(pages[0]?.error).to.include({ status: 400 });
    });
  });

  describe('.expectDeposit(id), .deposits(id, query) and .listAllDeposits(id, filter)', () => {
    it('opens the fast-polling window, finds two small payments and lists them accumulating, one page at a time', async () => {
      const client = await newClient();
      const route = await createPayableRoute(client, ZANO_TARGET);

      const expected = await client.routes.expectDeposit(route.route_id);
      expect(expected.error, expected.error?.message).to.equal(undefined);
      expect(expected.response.status).to.equal(200);
      expect(expected.data?.ok).to.equal(true);
      expect(Date.parse(expected.data!.expect_deposit_until)).to.be.greaterThan(Date.now());
      expect((await client.routes.get(route.route_id)).data?.expect_deposit_until).to.equal(expected.data!.expect_deposit_until);

      const empty = await client.routes.deposits(route.route_id);
      expect(empty.data).to.deep.equal({ route_id: route.route_id, accumulations: [], deposits: [], next_cursor: null });

      await payUsdtTrx(client, route, '10');
      await payUsdtTrx(client, route, '5');
      const waiting = await waitForDeposits(
        client,
        route.route_id,
        (page) => page.deposits.length === 2 && page.deposits.every((d) => d.status === 'accumulating'),
      );
      expect(waiting.deposits.map((d) => d.amountBaseUnits).sort()).to.deep.equal(['10000000', '5000000']);
      for (const deposit of waiting.deposits) {
        expect(deposit).to.include({ asset: 'USDT', network: 'TRX', orderId: null, reasonCode: 'accumulating' });
        expect(deposit.confirmationCount).to.equal(deposit.requiredConfirmations);
      }
      expect(waiting.accumulations).to.have.length(1);
      expect(waiting.accumulations[0]).to.include({ asset: 'USDT', network: 'TRX', same_asset_required: true });

      const pages: PermanentDepositList[] = [];
      for await (const page of client.routes.listAllDeposits(route.route_id, { limit: 1 })) {
        if (page.error) throw page.error;
        pages.push(page.data);
      }
      expect(pages.map((p) => p.deposits.length)).to.deep.equal([1, 1]);
      expect(pages.flatMap((p) => p.deposits.map((d) => d.id))).to.have.members(waiting.deposits.map((d) => d.id));
      expect(pages[0]?.next_cursor).to.be.a('string');
      expect(pages[1]).to.have.property('next_cursor', null);
      // Every page describes the whole route's accumulations, not only its own deposits.
      for (const page of pages) expect(page.accumulations).to.deep.equal(waiting.accumulations);
    });

    it('returns not_found as a value for an unknown route', async () => {
      const client = await newClient();
      const unknown = '00000000-0000-4000-8000-000000000000';
      const expected = await client.routes.expectDeposit(unknown);
      expect(expected.data).to.equal(undefined);
      expect(expected.error).to.be.instanceOf(PartnerApiError).and.include({ status: 404, code: 'not_found' });
      const listed = await client.routes.deposits(unknown);
      expect(listed.error).to.include({ status: 404, code: 'not_found' });
    });

    it("does not show another partner's route deposits", async () => {
      const owner = await newClient();
      const route = await createRoute(owner, ZANO_TARGET);
      const other = await newClient();
      const { error } = await other.routes.deposits(route.route_id);
      expect(error).to.include({ status: 404, code: 'not_found' });
    });

    it('yields an error page last and stops', async () => {
      const client = await newClient();
      const route = await createRoute(client, ZANO_TARGET);
      const pages = [];
      for await (const page of client.routes.listAllDeposits(route.route_id, { limit: 0 })) pages.push(page);
      expect(pages).to.have.length(1);
      expect(pages[0]?.error).to.include({ status: 400 });
    });

    it('throws a TypeError for an empty id', async () => {
      const client = await newClient();
      for (const call of [() => client.routes.deposits(''), () => client.routes.expectDeposit('')]) {
        let thrown: unknown;
        try {
          await call();
        } catch (err) {
          thrown = err;
        }
        expect(thrown)
          .to.be.instanceOf(TypeError)
          .with.property('message')
          .that.matches(/id must be a non-empty string/);
      }
    });
  });
});
