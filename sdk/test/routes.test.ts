import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import {
  createPartnerClient,
  PartnerApiError,
  type PartnerClient,
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

describe('sdk routes against the real server', function () {
  this.timeout(60_000);
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
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
    it('reads a route, and lists two routes one page at a time following nextCursor', async () => {
      const client = await newClient();
      const zano = await createRoute(client, ZANO_TARGET);
      const fusd = await createRoute(client, FUSD_TARGET);

      const got = await client.routes.get(zano.route_id);
      expect(got.error).to.equal(undefined);
      expect(got.data).to.include({ route_id: zano.route_id, destination_asset: 'ZANO' });

      const first = await client.routes.list({ limit: 1 });
      expect(first.data?.routes).to.have.length(1);
      expect(first.data?.nextCursor).to.be.a('string');

      const pages = [];
      for await (const page of client.routes.listAll({ limit: 1 })) {
        if (page.error) throw page.error;
        pages.push(page.data);
      }
      expect(pages).to.have.length(2);
      expect(pages.map((p) => p.routes.length)).to.deep.equal([1, 1]);
      expect(pages.flatMap((p) => p.routes.map((r) => r.route_id))).to.have.members([zano.route_id, fusd.route_id]);
      expect(pages[1]?.nextCursor ?? null).to.equal(null);
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
});
