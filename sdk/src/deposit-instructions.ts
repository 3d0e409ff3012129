/**
 * Verification of signed deposit instructions: a swap's `depositInstructionsJws` and a permanent route's
 * `addresses_jws` are compact JWS (RFC 7515, EdDSA or ES256) that the service signs with a key of
 * `GET /signing-keys`. `verifyDepositInstructions` checks the signature with WebCrypto (`globalThis.crypto.subtle`:
 * Node 20+ and every current browser), so it runs in both, and checks that the payload describes the swap
 * given, if one is. It returns the verified payload, or throws a DepositInstructionsError saying what is wrong.
 */
import type { components } from './generated/api.js';

type Schemas = components['schemas'];

/** What a swap's `depositInstructionsJws` signs: the swap's deposit address and amounts, and the signing time. */
export type DepositInstructions = Schemas['DepositInstructions'];
/** What a permanent route's `addresses_jws` signs: its addresses and verified destination. */
export type RouteAddresses = Schemas['RouteAddresses'];
/** The body of `GET /signing-keys`: the public keys whose signatures verify, the current one first. */
export type SigningKeySet = Schemas['SigningKeySet'];
/** One public key of the set, a JWK. */
export type SigningKey = Schemas['SigningKey'];

/** The `typ` of a swap's deposit instructions JWS. */
export const DEPOSIT_INSTRUCTIONS_TYPE = 'deposit-instructions+jws';
/** The `typ` of a permanent route's addresses JWS. */
export const ROUTE_ADDRESSES_TYPE = 'route-addresses+jws';

/** Why signed instructions were refused. */
export type DepositInstructionsReason =
  'malformed' | 'wrong_type' | 'unsupported_algorithm' | 'unknown_key' | 'keys_unavailable' | 'invalid_signature' | 'mismatch';

/** Signed instructions that must not be trusted: do not show the address. `message` says what is wrong. */
export class DepositInstructionsError extends Error {
  /** Always `deposit_instructions_invalid`, so `error.code` reads the same on every SDK error. */
  readonly code = 'deposit_instructions_invalid';
  /** The specific problem. */
  readonly reason: DepositInstructionsReason;

  constructor(reason: DepositInstructionsReason, message: string) {
    super(message);
    this.name = 'DepositInstructionsError';
    this.reason = reason;
  }
}

/** Where the keys come from: given, fetched, or both (fetched when the given set lacks the JWS's `kid`). */
export interface SigningKeysSource {
  /** The key set of `GET /signing-keys`, if you hold it (cache it for its Cache-Control max-age). */
  keys?: SigningKeySet;
  /** The API base URL including the version prefix, e.g. https://swap.example.com/api/v1: `GET {baseUrl}/signing-keys`. */
  baseUrl?: string;
  /** fetch implementation (default globalThis.fetch); inject one to test. */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
}

/** A swap as GET /swaps/{id} shows it, or just the fields to compare. */
export type SwapToCompare = Partial<Schemas['Swap']> & Pick<Schemas['Swap'], 'id'>;

/** Options of verifyDepositInstructions. */
export interface VerifyDepositInstructionsOptions extends SigningKeysSource {
  /**
   * The swap the instructions must describe: its id, source, deposit address and memo, deposit amount,
   * destination, expected and minimum output and rate type are compared with the payload (`mismatch` on any
   * difference; a field the object lacks is not compared). The deadlines are not: the payload has them as
   * signed, and the sandbox's clock operation moves a swap's. Omit it to only verify.
   */
  swap?: SwapToCompare;
}

/** Options of verifyRouteAddresses. */
export interface VerifyRouteAddressesOptions extends SigningKeysSource {
  /** The route the JWS must describe: its id, destination and every address are compared. */
  route?: Pick<Schemas['PermanentRoute'], 'route_id' | 'destination_asset' | 'destination_address' | 'addresses'>;
}

/**
 * Verifies a swap's `depositInstructionsJws` with the key of `GET /signing-keys` its header names (the given
 * set, else fetched from `baseUrl`; fetched again when the given set lacks that key: a new key after a
 * rotation), and, with `swap`, that it describes that swap. Returns the verified payload; throws a
 * DepositInstructionsError (`reason` says which check failed), or a TypeError for misuse.
 */
export async function verifyDepositInstructions(jws: string, options: VerifyDepositInstructionsOptions): Promise<DepositInstructions> {
  const instructions = (await verifyCompact(jws, DEPOSIT_INSTRUCTIONS_TYPE, options, 'verifyDepositInstructions')) as DepositInstructions;
  const { swap } = options;
  if (swap) {
    if (instructions.swapId !== swap.id) {
      throw mismatch(`the instructions are those of swap ${instructions.swapId}, not of swap ${swap.id}`);
    }
    for (const field of SWAP_FIELDS) {
      if (!(field in swap)) continue;
      const shown = (swap as Record<string, unknown>)[field] ?? null;
      const signed = (instructions as Record<string, unknown>)[field] ?? null;
      if (shown !== signed) {
        throw mismatch(`${field} is ${JSON.stringify(shown)} on the swap but ${JSON.stringify(signed)} in the signed instructions`);
      }
    }
  }
  return instructions;
}

/**
 * Verifies a permanent route's `addresses_jws` as verifyDepositInstructions does, and, with `route`, that it
 * signs that route's destination and every one of its addresses. Returns the verified payload.
 */
export async function verifyRouteAddresses(jws: string, options: VerifyRouteAddressesOptions): Promise<RouteAddresses> {
  const signed = (await verifyCompact(jws, ROUTE_ADDRESSES_TYPE, options, 'verifyRouteAddresses')) as RouteAddresses;
  const { route } = options;
  if (route) {
    if (signed.routeId !== route.route_id) throw mismatch(`the addresses are those of route ${signed.routeId}, not of ${route.route_id}`);
    if (signed.destinationAddress !== route.destination_address || signed.destinationAsset !== route.destination_asset) {
      throw mismatch('the route pays out to another destination than the signed one');
    }
    for (const [key, address] of Object.entries(route.addresses)) {
      if (address !== '' && signed.addresses[key] !== address) {
        throw mismatch(`${key}: the route shows ${JSON.stringify(address)}, the signed addresses ${JSON.stringify(signed.addresses[key])}`);
      }
    }
  }
  return signed;
}

// The swap fields the payload carries under the same names that never change once signed (not the deadlines).
const SWAP_FIELDS = [
  'sourceAsset',
  'sourceNetwork',
  'depositAddress',
  'depositMemo',
  'depositAmount',
  'destinationAsset',
  'destinationNetwork',
  'destination',
  'destinationMemo',
  'expectedOutputAmount',
  'minimumOutputAmount',
  'rateType',
] as const;

const mismatch = (message: string) => new DepositInstructionsError('mismatch', `Do not show this address: ${message}.`);

// The payload of `jws` once its header, key and signature check out.
async function verifyCompact(jws: string, typ: string, source: SigningKeysSource, caller: string): Promise<unknown> {
  if (typeof jws !== 'string')
    throw new TypeError(`${caller}: the JWS must be a string (the swap's depositInstructionsJws or the route's addresses_jws)`);
  if (!source.keys && !source.baseUrl) throw new TypeError(`${caller}: give keys (GET /signing-keys) or baseUrl to fetch them from`);
  const parts = jws.split('.');
  if (parts.length !== 3 || parts.some((part) => !/^[A-Za-z0-9_-]+$/.test(part))) {
    throw new DepositInstructionsError('malformed', 'Not a compact JWS: expected three base64url parts separated by dots.');
  }
  const [headerPart, payloadPart, signaturePart] = parts;
  const header = parseJson(headerPart, 'header') as { alg?: unknown; kid?: unknown; typ?: unknown };
  if (header.typ !== typ) {
    throw new DepositInstructionsError(
      'wrong_type',
      `The JWS is of type ${JSON.stringify(header.typ)}, not ${typ}: it signs something else.`,
    );
  }
  if (header.alg !== 'EdDSA' && header.alg !== 'ES256') {
    throw new DepositInstructionsError(
      'unsupported_algorithm',
      `The JWS is signed with ${JSON.stringify(header.alg)}; the service signs with EdDSA or ES256.`,
    );
  }
  if (typeof header.kid !== 'string') throw new DepositInstructionsError('malformed', 'The JWS header names no kid.');
  const key = await keyFor(header.kid, source);
  if (key.alg !== header.alg) {
    throw new DepositInstructionsError('invalid_signature', `Key ${header.kid} signs ${key.alg}, but the JWS says ${header.alg}.`);
  }
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new TypeError(`${caller}: needs WebCrypto (globalThis.crypto.subtle): Node 20+ or a browser on https or localhost`);
  const algorithm = key.alg === 'EdDSA' ? { name: 'Ed25519' } : { name: 'ECDSA', namedCurve: 'P-256' };
  const { kty, crv, x, y } = key;
  const publicKey = await subtle.importKey('jwk', { kty, crv, x, ...(y === undefined ? {} : { y }) }, algorithm, false, ['verify']);
  const valid = await subtle.verify(
    key.alg === 'EdDSA' ? { name: 'Ed25519' } : { name: 'ECDSA', hash: 'SHA-256' },
    publicKey,
    fromBase64url(signaturePart),
    new TextEncoder().encode(`${headerPart}.${payloadPart}`),
  );
  if (!valid) {
    throw new DepositInstructionsError(
      'invalid_signature',
      `The signature does not match: the instructions were changed after the service signed them (key ${header.kid}). Do not show this address.`,
    );
  }
  return parseJson(payloadPart, 'payload');
}

// The key `kid` of the given set, or of the set fetched from baseUrl.
async function keyFor(kid: string, source: SigningKeysSource): Promise<SigningKey> {
  const given = source.keys?.keys.find((key) => key.kid === kid);
  if (given) return given;
  if (!source.baseUrl) {
    throw new DepositInstructionsError(
      'unknown_key',
      `No key ${kid} in the key set given; fetch GET /signing-keys again (pass baseUrl to let the SDK do it).`,
    );
  }
  const url = `${source.baseUrl.replace(/\/+$/, '')}/signing-keys`;
  const send = source.fetch ?? ((input: string, init: RequestInit) => globalThis.fetch(input, init));
  let set: SigningKeySet;
  try {
    const response = await send(url, { headers: { accept: 'application/json' } });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    set = (await response.json()) as SigningKeySet;
  } catch (err) {
    throw new DepositInstructionsError('keys_unavailable', `Could not read the signing keys from ${url}: ${(err as Error).message}.`);
  }
  const fetched = Array.isArray(set?.keys) ? set.keys.find((key) => key.kid === kid) : undefined;
  if (!fetched) {
    throw new DepositInstructionsError(
      'unknown_key',
      `The service does not list key ${kid} at ${url}: it did not sign these instructions, or the key is retired.`,
    );
  }
  return fetched;
}

function parseJson(part: string, what: string): unknown {
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(fromBase64url(part)));
    if (typeof value !== 'object' || value === null) throw new Error('not an object');
    return value;
  } catch {
    throw new DepositInstructionsError('malformed', `The JWS ${what} is not base64url JSON.`);
  }
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
