import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { expect } from 'chai';
import {
  DepositInstructionsError,
  verifyDepositInstructions,
  verifyRouteAddresses,
  type DepositInstructions,
  type DepositInstructionsReason,
  type SigningKey,
  type SigningKeySet,
} from '../src/index.js';
import { swapOf } from './support/fake-api.js';

// One valid signed swap; each test breaks exactly one thing. Signed here with node:crypto, as the service signs.
const BASE_URL = 'https://swap.example.com/api/v1';
const SWAP = swapOf({
  depositAddress: 'bc1q9h6tq7z4c5sqsmx3mh8v6e2t4yu0l8f2kzj7rw',
  depositMemo: null,
  quoteExpiresAt: '2026-06-14T10:42:05.000Z',
});

function keyOf(privateKey: KeyObject, alg: 'EdDSA' | 'ES256'): SigningKey {
  const jwk = privateKey.export({ format: 'jwk' }) as Record<string, string>;
  const members = alg === 'ES256' ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y } : { crv: jwk.crv, kty: jwk.kty, x: jwk.x };
  const kid = createHash('sha256').update(JSON.stringify(members)).digest('base64url');
  return { ...members, kid, alg, use: 'sig' } as SigningKey;
}

function signed(privateKey: KeyObject, key: SigningKey, payload: object, typ = 'deposit-instructions+jws'): string {
  const input = `${Buffer.from(JSON.stringify({ alg: key.alg, kid: key.kid, typ })).toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  const signature = sign(key.alg === 'EdDSA' ? null : 'sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}

const ed25519 = generateKeyPairSync('ed25519').privateKey;
const KEY = keyOf(ed25519, 'EdDSA');
const KEYS: SigningKeySet = { keys: [KEY] };
const INSTRUCTIONS: DepositInstructions = {
  swapId: SWAP.id,
  sourceAsset: SWAP.sourceAsset,
  sourceNetwork: SWAP.sourceNetwork,
  depositAddress: SWAP.depositAddress!,
  depositMemo: null,
  depositAmount: SWAP.depositAmount!,
  destinationAsset: SWAP.destinationAsset,
  destinationNetwork: SWAP.destinationNetwork,
  destination: SWAP.destination,
  destinationMemo: SWAP.destinationMemo ?? null,
  expectedOutputAmount: SWAP.expectedOutputAmount ?? null,
  minimumOutputAmount: SWAP.minimumOutputAmount ?? null,
  rateType: SWAP.rateType,
  quoteExpiresAt: SWAP.quoteExpiresAt!,
  confirmationDeadline: SWAP.confirmationDeadline ?? null,
  signedAt: '2026-06-14T10:12:07.000Z',
};
const VALID = signed(ed25519, KEY, INSTRUCTIONS);

async function refusal(run: () => Promise<unknown>, reason: DepositInstructionsReason, message: RegExp): Promise<void> {
  try {
    await run();
  } catch (err) {
    expect(err).to.be.instanceOf(DepositInstructionsError);
    expect((err as DepositInstructionsError).reason).to.equal(reason);
    expect((err as DepositInstructionsError).code).to.equal('deposit_instructions_invalid');
    expect((err as Error).message).to.match(message);
    return;
  }
  throw new Error('expected a DepositInstructionsError');
}

// A fetch that answers GET /signing-keys with `set`, recording the URLs asked.
function keysServer(set: SigningKeySet | (() => Response)) {
  const asked: string[] = [];
  const fetch = async (url: string) => {
    asked.push(url);
    return typeof set === 'function' ? set() : new Response(JSON.stringify(set), { headers: { 'content-type': 'application/json' } });
  };
  return { fetch, asked };
}

describe('sdk verifyDepositInstructions()', () => {
  it('returns the payload of a valid JWS that describes the swap given', async () => {
    expect(await verifyDepositInstructions(VALID, { keys: KEYS, swap: SWAP })).to.deep.equal(INSTRUCTIONS);
  });

  it("does not compare the deadlines, which the sandbox's clock operation moves after signing", async () => {
    const moved = { ...SWAP, quoteExpiresAt: '2026-06-14T10:20:00.000Z', confirmationDeadline: '2026-06-14T11:20:00.000Z' };
    expect(await verifyDepositInstructions(VALID, { keys: KEYS, swap: moved })).to.deep.equal(INSTRUCTIONS);
  });

  it('verifies ES256 (P-256) signatures too', async () => {
    const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const key = keyOf(p256, 'ES256');
    expect(await verifyDepositInstructions(signed(p256, key, INSTRUCTIONS), { keys: { keys: [KEY, key] } })).to.deep.equal(INSTRUCTIONS);
  });

  it('refuses a JWS whose address was changed after signing', async () => {
    const [header, , signature] = VALID.split('.');
    const changed = Buffer.from(
      JSON.stringify({ ...INSTRUCTIONS, depositAddress: 'bc1qattacker0000000000000000000000000000000' }),
    ).toString('base64url');
    await refusal(
      () => verifyDepositInstructions(`${header}.${changed}.${signature}`, { keys: KEYS }),
      'invalid_signature',
      /changed after the service signed/,
    );
  });

  it('refuses a valid JWS of another swap, or one whose address differs from the one shown', async () => {
    await refusal(
      () => verifyDepositInstructions(VALID, { keys: KEYS, swap: { ...SWAP, id: '00000000-0000-4000-8000-000000000000' } }),
      'mismatch',
      /are those of swap .*, not of swap 00000000/,
    );
    await refusal(
      () => verifyDepositInstructions(VALID, { keys: KEYS, swap: { ...SWAP, depositAddress: 'bc1qother' } }),
      'mismatch',
      /depositAddress is "bc1qother" on the swap but "bc1q9h6/,
    );
    await refusal(
      () => verifyDepositInstructions(VALID, { keys: KEYS, swap: { ...SWAP, depositAmount: '0.02' } }),
      'mismatch',
      /depositAmount is "0.02"/,
    );
  });

  it("refuses a route's JWS offered as a swap's (another typ), and a JWS of another algorithm", async () => {
    await refusal(
      () => verifyDepositInstructions(signed(ed25519, KEY, INSTRUCTIONS, 'route-addresses+jws'), { keys: KEYS }),
      'wrong_type',
      /not deposit-instructions\+jws/,
    );
    const [, payload, signature] = VALID.split('.');
    const none = Buffer.from(JSON.stringify({ alg: 'HS256', kid: KEY.kid, typ: 'deposit-instructions+jws' })).toString('base64url');
    await refusal(() => verifyDepositInstructions(`${none}.${payload}.${signature}`, { keys: KEYS }), 'unsupported_algorithm', /HS256/);
    await refusal(() => verifyDepositInstructions('not.a-jws', { keys: KEYS }), 'malformed', /three base64url parts/);
  });

  it('fetches GET /signing-keys from baseUrl when the set given lacks the kid (a rotation), and refuses a key no one lists', async () => {
    const rotated = generateKeyPairSync('ed25519').privateKey;
    const newKey = keyOf(rotated, 'EdDSA');
    const server = keysServer({ keys: [newKey, KEY] });
    const fresh = signed(rotated, newKey, INSTRUCTIONS);
    expect(await verifyDepositInstructions(fresh, { keys: KEYS, baseUrl: BASE_URL, fetch: server.fetch })).to.deep.equal(INSTRUCTIONS);
    expect(server.asked).to.deep.equal([`${BASE_URL}/signing-keys`]);
    await refusal(() => verifyDepositInstructions(fresh, { keys: KEYS }), 'unknown_key', /No key .* in the key set given/);
    const stranger = generateKeyPairSync('ed25519').privateKey;
    await refusal(
      () => verifyDepositInstructions(signed(stranger, keyOf(stranger, 'EdDSA'), INSTRUCTIONS), { baseUrl: BASE_URL, fetch: server.fetch }),
      'unknown_key',
      /does not list key/,
    );
    const down = keysServer(() => new Response('', { status: 503 }));
    await refusal(() => verifyDepositInstructions(fresh, { baseUrl: BASE_URL, fetch: down.fetch }), 'keys_unavailable', /HTTP 503/);
  });

  it('throws a TypeError for misuse: no keys and no baseUrl', async () => {
    let thrown: unknown;
    await verifyDepositInstructions(VALID, {}).catch((err) => (thrown = err));
    expect(thrown).to.be.instanceOf(TypeError);
  });
});

describe('sdk verifyRouteAddresses()', () => {
  const ROUTE = {
    route_id: '9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d',
    destination_asset: 'ZANO' as const,
    destination_address: 'ZxDFpn4k7xVYyc9VZ3LphrJbkpc46xfREace5bme1aXiMzKPAHA8jsTWcHSXhv9AdodSaoGXK9Mg7bk3ec4FkQrj357fZPWZX',
    addresses: { 'BTC/BTC': 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', 'USDT/ETH': '0x8Ba1f109551bD432803012645Ac136ddd64DBA72' },
  };
  const payload = {
    routeId: ROUTE.route_id,
    externalUserId: 'user-42',
    destinationAsset: 'ZANO',
    destinationNetwork: 'ZANO',
    destinationAddress: ROUTE.destination_address,
    addresses: ROUTE.addresses,
    signedAt: '2026-06-14T10:00:01.000Z',
  };
  const jws = signed(ed25519, KEY, payload, 'route-addresses+jws');

  it('returns the payload when it signs the route shown', async () => {
    expect(await verifyRouteAddresses(jws, { keys: KEYS, route: ROUTE })).to.deep.equal(payload);
  });

  it('refuses it when the route shows an address the JWS does not sign', async () => {
    await refusal(
      () => verifyRouteAddresses(jws, { keys: KEYS, route: { ...ROUTE, addresses: { ...ROUTE.addresses, 'BTC/BTC': 'bc1qother' } } }),
      'mismatch',
      /BTC\/BTC: the route shows "bc1qother"/,
    );
  });
});
