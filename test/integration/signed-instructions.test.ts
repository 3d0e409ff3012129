/**
 * Signed deposit instructions (docs/signing.md#signed-deposit-instructions): a swap's `depositInstructionsJws` and a
 * route's `addresses_jws` verify with `jose`, a JOSE library no one here wrote, against the key set of
 * GET /signing-keys; a changed address does not; after a key rotation (a server on the same database with a new
 * SIGNING_KEY_FILE and the old key in SIGNING_PREVIOUS_KEYS_FILE) an old swap still verifies and a new one carries
 * the new `kid`. Through HTTP, on a real database.
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { compactVerify, createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet } from 'jose';
import { DepositInstructionsError, verifyDepositInstructions, verifyRouteAddresses } from '../../sdk/src/index.js';
import { generateSigningKeyPem } from '../../server/signing-keys.js';
import { startTestServer, type TestServer } from '../support/server.js';
import type { SignerOptions } from '../support/signer.js';
import { swapClient, type Swap } from '../support/swaps.js';
import { createVerifiedRoute } from '../support/routes.js';

const PAGE_ORIGIN = 'https://wallet.example.com';

// The payload of a compact JWS once it verified against `keys`; throws (jose's error) when it does not.
async function verified(jws: string, keys: JSONWebKeySet): Promise<Record<string, unknown>> {
  const { payload, protectedHeader } = await compactVerify(jws, createLocalJWKSet(keys));
  expect(protectedHeader.kid).to.be.a('string');
  return JSON.parse(new TextDecoder().decode(payload));
}

async function signingKeys(server: TestServer): Promise<{ keys: JSONWebKeySet; response: Response }> {
  const response = await fetch(`${server.baseUrl}/signing-keys`, { headers: { origin: PAGE_ORIGIN } });
  expect(response.status).to.equal(200);
  return { keys: (await response.json()) as JSONWebKeySet, response };
}

describe('signed deposit instructions', function () {
  this.timeout(90_000);
  let dir: string;
  let keyFile: string;
  let server: TestServer;
  let client: ReturnType<typeof swapClient>;
  let merchant: SignerOptions;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pss-signing-'));
    keyFile = path.join(dir, 'signing-key.pem');
    await writeFile(keyFile, generateSigningKeyPem(), { mode: 0o600 });
    server = await startTestServer({ env: { SIGNING_KEY_FILE: keyFile, CORS_ORIGINS: PAGE_ORIGIN } });
    merchant = await server.createSigner('Merchant');
    client = swapClient(server.origin, merchant);
  });
  after(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  // A new swap, and the same swap once its deposit address is allocated.
  const addressedSwap = async (c = client) => {
    const created = await c.create();
    const { order } = await c.waitFor(created.order.id, (o) => o.depositInstructionsJws !== null && o.depositInstructionsJws !== undefined);
    return { created, order };
  };

  it('serves the key set to anyone, to browsers of the listed origins, cacheable', async () => {
    const { keys, response } = await signingKeys(server);
    expect(response.headers.get('access-control-allow-origin')).to.equal(PAGE_ORIGIN);
    expect(response.headers.get('cache-control')).to.equal('public, max-age=300');
    expect(keys.keys).to.have.length(1);
    const [key] = keys.keys;
    const expected = createPublicKey(createPrivateKey(await readFile(keyFile, 'utf8'))).export({ format: 'jwk' });
    expect(key).to.deep.include({ kty: 'OKP', crv: 'Ed25519', x: expected.x, alg: 'EdDSA', use: 'sig' });
    expect(key.kid).to.match(/^[A-Za-z0-9_-]{43}$/);
  });

  it('signs a swap once its deposit address exists, and the JWS verifies with jose against GET /signing-keys', async () => {
    const { created, order } = await addressedSwap();
    // Read before its address exists (the create's answer): present, and null.
    expect(created.order).to.have.property('depositInstructionsJws', null);
    const jws = order.depositInstructionsJws!;
    const header = decodeProtectedHeader(jws);
    const { keys } = await signingKeys(server);
    expect(header).to.deep.equal({ alg: 'EdDSA', kid: keys.keys[0].kid, typ: 'deposit-instructions+jws' });
    const payload = await verified(jws, keys);
    expect(payload).to.deep.equal({
      swapId: order.id,
      sourceAsset: 'BTC',
      sourceNetwork: 'BTC',
      depositAddress: order.depositAddress,
      depositMemo: null,
      depositAmount: order.depositAmount,
      destinationAsset: 'USDT',
      destinationNetwork: 'ETH',
      destination: order.destination,
      destinationMemo: null,
      expectedOutputAmount: order.expectedOutputAmount,
      minimumOutputAmount: order.minimumOutputAmount,
      rateType: order.rateType,
      quoteExpiresAt: order.quoteExpiresAt,
      confirmationDeadline: order.confirmationDeadline,
      signedAt: payload.signedAt,
    });
    expect(Date.parse(payload.signedAt as string)).to.be.within(Date.parse(order.createdAt), Date.parse(order.updatedAt));
  });

  it('shows the same bytes on every read: the partner read, the list, the access-token read, and after the swap moves on', async () => {
    const { created, order } = await addressedSwap();
    const list = await client.send<{ orders: Swap[] }>('GET', '/api/v1/swaps?limit=100');
    expect(list.body.orders.find((s) => s.id === order.id)?.depositInstructionsJws).to.equal(order.depositInstructionsJws);
    const byToken = await fetch(`${server.baseUrl}/swaps/${order.id}`, { headers: { authorization: `Bearer ${created.accessToken}` } });
    expect(((await byToken.json()) as { order: Swap }).order.depositInstructionsJws).to.equal(order.depositInstructionsJws);
    await client.pay(order);
    const finished = await client.waitFor(order.id, (o) => o.status === 'finished');
    expect(finished.order.depositInstructionsJws).to.equal(order.depositInstructionsJws);
  });

  it('refuses the JWS once its address is changed, or its signature is moved onto another swap', async () => {
    const { order } = await addressedSwap();
    const other = (await addressedSwap()).order;
    const { keys } = await signingKeys(server);
    const [header, payload, signature] = order.depositInstructionsJws!.split('.');
    const changed = { ...JSON.parse(Buffer.from(payload, 'base64url').toString()), depositAddress: other.depositAddress };
    const tampered = `${header}.${Buffer.from(JSON.stringify(changed)).toString('base64url')}.${signature}`;
    let refusal: unknown;
    await verified(tampered, keys).catch((err) => (refusal = err));
    expect((refusal as { code?: string }).code).to.equal('ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
    const [, otherPayload] = other.depositInstructionsJws!.split('.');
    refusal = undefined;
    await verified(`${header}.${otherPayload}.${signature}`, keys).catch((err) => (refusal = err));
    expect((refusal as { code?: string }).code).to.equal('ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
  });

  it("verifies with the SDK's verifyDepositInstructions (Node entry), fetching the keys, against the swap it reads", async () => {
    const { order } = await addressedSwap();
    const payload = await verifyDepositInstructions(order.depositInstructionsJws!, { baseUrl: server.baseUrl, swap: order });
    expect(payload).to.include({ swapId: order.id, depositAddress: order.depositAddress });
    let refusal: unknown;
    await verifyDepositInstructions(order.depositInstructionsJws!, {
      baseUrl: server.baseUrl,
      swap: { ...order, depositAmount: '1' },
    }).catch((err) => (refusal = err));
    expect(refusal).to.be.instanceOf(DepositInstructionsError);
    expect((refusal as DepositInstructionsError).reason).to.equal('mismatch');
  });

  it("signs a permanent route's addresses and verified destination once they are all allocated", async () => {
    const routed = swapClient(server.origin, { ...(await server.createSigner('Route partner')), user: 'user-7' });
    // Read as soon as every address shows: signed in the same transaction as the last address, never later.
    const signed = await createVerifiedRoute(routed, 'user-7');
    expect(signed.addresses_jws).to.be.a('string');
    expect(decodeProtectedHeader(signed.addresses_jws!)).to.include({ alg: 'EdDSA', typ: 'route-addresses+jws' });
    const payload = await verified(signed.addresses_jws!, (await signingKeys(server)).keys);
    expect(payload).to.deep.equal({
      routeId: signed.route_id,
      externalUserId: 'user-7',
      destinationAsset: signed.destination_asset,
      destinationNetwork: 'ZANO',
      destinationAddress: signed.destination_address,
      addresses: signed.addresses,
      signedAt: payload.signedAt,
    });
    expect(Object.values(signed.addresses).every((a) => a !== '')).to.equal(true);
    expect(await verifyRouteAddresses(signed.addresses_jws!, { baseUrl: server.baseUrl, route: signed })).to.deep.equal(payload);
  });

  describe('after a key rotation', () => {
    let rotated: TestServer;
    let newKeyFile: string;
    before(async () => {
      newKeyFile = path.join(dir, 'signing-key-2.pem');
      await writeFile(newKeyFile, generateSigningKeyPem(), { mode: 0o600 });
      const previous = path.join(dir, 'previous-keys.pem');
      const oldPublic = createPublicKey(createPrivateKey(await readFile(keyFile, 'utf8')));
      await writeFile(previous, oldPublic.export({ format: 'pem', type: 'spki' }) as string);
      rotated = await startTestServer({
        sameDatabaseAs: server,
        env: { SIGNING_KEY_FILE: newKeyFile, SIGNING_PREVIOUS_KEYS_FILE: previous },
      });
    });
    after(() => rotated?.close());

    it('still verifies a swap signed with the old key, and signs new swaps with the new kid', async () => {
      const old = (await addressedSwap()).order;
      const oldKid = decodeProtectedHeader(old.depositInstructionsJws!).kid;
      const { keys } = await signingKeys(rotated);
      expect(keys.keys.map((k) => k.kid)).to.have.length(2);
      expect(keys.keys[1].kid).to.equal(oldKid);
      const newKid = keys.keys[0].kid;
      expect(newKid).to.not.equal(oldKid);

      const onRotated = swapClient(rotated.origin, await rotated.createSigner('After rotation'));
      const reread = await onRotated.send<{ order: Swap }>('GET', `/api/v1/swaps/${old.id}`);
      // Another partner's swap is 404; the old swap is read by its own partner on the rotated server.
      expect(reread.status).to.equal(404);
      const sameRead = await swapClient(rotated.origin, merchant).get(old.id);
      expect(sameRead.order.depositInstructionsJws).to.equal(old.depositInstructionsJws);
      expect((await verified(old.depositInstructionsJws!, keys)).swapId).to.equal(old.id);

      const fresh = (await addressedSwap(onRotated)).order;
      expect(decodeProtectedHeader(fresh.depositInstructionsJws!).kid).to.equal(newKid);
      expect((await verified(fresh.depositInstructionsJws!, keys)).depositAddress).to.equal(fresh.depositAddress);
      // The old set alone (a verifier that never refetched) does not know the new key.
      let refusal: unknown;
      await verified(fresh.depositInstructionsJws!, (await signingKeys(server)).keys).catch((err) => (refusal = err));
      expect((refusal as { code?: string }).code).to.equal('ERR_JWKS_NO_MATCHING_KEY');
    });
  });
});
