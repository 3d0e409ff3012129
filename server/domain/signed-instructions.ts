/**
 * Signed deposit instructions (docs/signing.md#signed-deposit-instructions): a compact JWS (RFC 7515) the service
 * signs once over what a customer is told to pay and where the money goes, so that a page, an app or a partner's
 * support tool can prove an address shown to the customer is the service's and was not swapped on the way. A
 * swap's (`typ` DEPOSIT_INSTRUCTIONS_TYPE) is signed when its deposit address is allocated; a permanent route's
 * (`typ` ROUTE_ADDRESSES_TYPE) once all its addresses are. Keys are Ed25519 (`EdDSA`) or P-256 (`ES256`), named by
 * their RFC 7638 thumbprint (`kid`); `GET /signing-keys` serves the public ones (the JWKS).
 */
import { createHash, createPublicKey, sign, type KeyObject } from 'node:crypto';
import type { components } from '../../generated/api.js';
import type { SwapRecord } from './swap-view.js';

/** The JWS algorithms the service signs with: Ed25519 keys sign `EdDSA`, P-256 keys `ES256`. */
export type SigningAlgorithm = 'EdDSA' | 'ES256';

/** One public key of `GET /signing-keys`, a JWK (RFC 7517). */
export type SigningKey = components['schemas']['SigningKey'];
/** The body of `GET /signing-keys`: every key whose signatures verify, the one signing now first. */
export type SigningKeySet = components['schemas']['SigningKeySet'];
/** The payload of a swap's `depositInstructionsJws`. */
export type DepositInstructions = components['schemas']['DepositInstructions'];
/** The payload of a permanent route's `addresses_jws`. */
export type RouteAddresses = components['schemas']['RouteAddresses'];

/** The JWS `typ` of a swap's deposit instructions. */
export const DEPOSIT_INSTRUCTIONS_TYPE = 'deposit-instructions+jws';
/** The JWS `typ` of a permanent route's addresses. */
export const ROUTE_ADDRESSES_TYPE = 'route-addresses+jws';

/** Signs payloads as compact JWS with the current key. */
export interface InstructionsSigner {
  /** The `kid` new signatures carry. */
  readonly kid: string;
  /** The compact JWS of `payload` with header `{alg, kid, typ}`. */
  sign(typ: string, payload: object): string;
}

/** Refused a key the service cannot sign with or publish. */
export class SigningKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SigningKeyError';
  }
}

/** The algorithm a key signs with: Ed25519 EdDSA, P-256 ES256; any other key throws SigningKeyError. */
export function algorithmOf(key: KeyObject): SigningAlgorithm {
  if (key.asymmetricKeyType === 'ed25519') return 'EdDSA';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256';
  const found =
    key.asymmetricKeyType === 'ec' ? `an EC key on ${key.asymmetricKeyDetails?.namedCurve}` : `a key of type ${key.asymmetricKeyType}`;
  throw new SigningKeyError(
    `holds ${found}; a signing key is Ed25519 (openssl genpkey -algorithm ed25519) or P-256 (openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256)`,
  );
}

/** The public JWK of `key` (private or public), with its `kid` (the RFC 7638 thumbprint), `alg` and `use`. */
export function publicJwkOf(key: KeyObject): SigningKey {
  const alg = algorithmOf(key);
  const jwk = (key.type === 'public' ? key : createPublicKey(key)).export({ format: 'jwk' }) as {
    kty: string;
    crv: string;
    x: string;
    y?: string;
  };
  // RFC 7638: the required members only, in lexicographic order, without white space.
  const members = jwk.kty === 'EC' ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y } : { crv: jwk.crv, kty: jwk.kty, x: jwk.x };
  const kid = createHash('sha256').update(JSON.stringify(members)).digest('base64url');
  return { ...members, kid, alg, use: 'sig' } as SigningKey;
}

/** A signer over `privateKey`. */
export function createInstructionsSigner(privateKey: KeyObject): InstructionsSigner {
  const { kid, alg } = publicJwkOf(privateKey);
  return {
    kid,
    sign(typ, payload) {
      const input = `${base64url({ alg, kid, typ })}.${base64url(payload)}`;
      // ES256 signatures are r || s (RFC 7518 3.4), not DER.
      const signature = sign(alg === 'EdDSA' ? null : 'sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' });
      return `${input}.${signature.toString('base64url')}`;
    },
  };
}

/**
 * The deposit instructions of `swap` once its deposit address is allocated, signed at `at`: the fields of its
 * Swap body of the same names, so a verifier compares them one for one.
 */
export function depositInstructionsOf(swap: SwapRecord, at: Date): DepositInstructions {
  if (swap.depositAddress === null) throw new Error(`swap ${swap.id} has no deposit address to sign`);
  return {
    swapId: swap.id,
    sourceAsset: swap.sourceAsset,
    sourceNetwork: swap.sourceNetwork,
    depositAddress: swap.depositAddress,
    depositMemo: swap.depositMemo,
    depositAmount: swap.depositAmount,
    destinationAsset: swap.destinationAsset,
    destinationNetwork: swap.destinationNetwork,
    destination: swap.destination,
    destinationMemo: swap.destinationMemo,
    expectedOutputAmount: swap.expectedOutputAmount,
    minimumOutputAmount: swap.minimumOutputAmount,
    rateType: swap.rateType,
    quoteExpiresAt: swap.quoteExpiresAt.toISOString(),
    confirmationDeadline: swap.confirmationDeadline?.toISOString() ?? null,
    signedAt: at.toISOString(),
  };
}

/** What a route's addresses JWS is built from. */
export interface RouteToSign {
  routeId: string;
  externalUser: string;
  destinationAsset: string;
  destinationNetwork: string;
  destinationAddress: string;
  /** Every asset key's address (none empty), as the route body's `addresses`. */
  addresses: Record<string, string>;
}

/** The payload of a route's `addresses_jws`, signed at `at`. */
export function routeAddressesOf(route: RouteToSign, at: Date): RouteAddresses {
  return {
    routeId: route.routeId,
    externalUserId: route.externalUser,
    destinationAsset: route.destinationAsset as RouteAddresses['destinationAsset'],
    destinationNetwork: route.destinationNetwork as RouteAddresses['destinationNetwork'],
    destinationAddress: route.destinationAddress,
    addresses: Object.fromEntries(Object.entries(route.addresses).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    signedAt: at.toISOString(),
  };
}

function base64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
