/** Helpers for tests of permanent routes: fresh Zano wallets and routes created through the real HTTP surface. */
import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { hexToBytes } from '@noble/hashes/utils.js';
import { encodeZanoAddress, ZANO_ADDRESS_TAGS } from '../../server/domain/zano-address.js';
import { signZanoMessage, zanoPublicKey } from '../../server/domain/zano-proof.js';
import type { components } from '../../generated/api.js';
import type { swapClient } from './swaps.js';

export type Route = components['schemas']['PermanentRoute'];
export type DepositList = components['schemas']['PermanentDepositList'];
export type Deposit = components['schemas']['PermanentDeposit'];

/** 32 random bytes below the group order, as a little-endian scalar. */
export const freshScalar = (): Uint8Array => {
  const k = createHash('sha256').update(randomBytes(32)).digest();
  k[31] &= 0x0f;
  return k;
};

/** A wallet the test generates: its spend secret and its standard address (spend key, view key). */
export function freshZanoWallet(): { secret: Uint8Array; address: string } {
  const secret = freshScalar();
  const spend = hexToBytes(zanoPublicKey(secret));
  const view = hexToBytes(zanoPublicKey(freshScalar()));
  const body = new Uint8Array(64);
  body.set(spend, 0);
  body.set(view, 32);
  return { secret, address: encodeZanoAddress(ZANO_ADDRESS_TAGS.standard, body) };
}

/** A POST /permanent-routes body, as signRouteRequest makes it. */
export type RouteRequest = components['schemas']['PermanentRouteRequest'];

/**
 * The body of a POST /permanent-routes for `wallet` (default a fresh one) and the client's user: a challenge
 * issued by the server (with `challengeLabel`, if given) and the wallet's v2 signature of it. Nothing is
 * created yet.
 */
export async function signRouteRequest(
  client: ReturnType<typeof swapClient>,
  user: string,
  {
    destinationAsset = 'ZANO',
    challengeLabel,
    wallet = freshZanoWallet(),
  }: { destinationAsset?: 'ZANO' | 'fUSD'; challengeLabel?: string; wallet?: { secret: Uint8Array; address: string } } = {},
): Promise<RouteRequest> {
  const target = { destinationAsset, destinationNetwork: 'ZANO' as const, destinationAddress: wallet.address };
  const challenge = await client.send<components['schemas']['PermanentChallenge']>('POST', '/api/v1/permanent-routes/challenges', {
    ...target,
    ...(challengeLabel === undefined ? {} : { label: challengeLabel }),
  });
  expect(challenge.status, challenge.text).to.equal(201);
  return {
    ...target,
    externalUserId: user,
    challengeId: challenge.body.challenge_id,
    message: challenge.body.challenge,
    ...signZanoMessage(wallet.secret, challenge.body.challenge, freshScalar(), 'v2'),
  };
}

/**
 * Creates a route to a fresh wallet for the client's user (challenge, wallet signature, create) and waits
 * until its addresses are allocated.
 */
export async function createVerifiedRoute(
  client: ReturnType<typeof swapClient>,
  user: string,
  destinationAsset: 'ZANO' | 'fUSD' = 'ZANO',
): Promise<Route> {
  const created = await client.send<Route>('POST', '/api/v1/permanent-routes', await signRouteRequest(client, user, { destinationAsset }));
  expect(created.status, created.text).to.equal(201);
  return waitForAddresses(client, created.body.route_id);
}

/** Reads route `routeId` until every one of its addresses is allocated (or fails after `timeoutMs`). */
export async function waitForAddresses(client: ReturnType<typeof swapClient>, routeId: string, timeoutMs = 10_000): Promise<Route> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await client.send<Route>('GET', `/api/v1/permanent-routes/${routeId}`);
    expect(res.status, res.text).to.equal(200);
    if (!Object.values(res.body.addresses).includes('')) return res.body;
    if (Date.now() > deadline) throw new Error(`route ${routeId}: addresses not allocated in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Polls a route's deposits until `done` holds (or fails after `timeoutMs`). */
export async function waitForDeposits(
  client: ReturnType<typeof swapClient>,
  routeId: string,
  done: (list: DepositList) => boolean,
  timeoutMs = 20_000,
): Promise<DepositList> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await client.send<DepositList>('GET', `/api/v1/permanent-routes/${routeId}/deposits`);
    expect(res.status, res.text).to.equal(200);
    if (done(res.body)) return res.body;
    if (Date.now() > deadline) throw new Error(`route deposits did not reach the expected state: ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
