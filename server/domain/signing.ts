/**
 * The signed-request protocol (docs/architecture.md#signed-requests): the canonical text a partner signs, the header formats and
 * the checks that need no database. The server and every independent client must agree on this byte for byte.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from './errors.js';

/** First line of the canonical text: names the protocol version. */
export const SIGNING_SCHEME = 'PSS1-HMAC-SHA256';
/** How far a request's timestamp may be from the server's clock, either way. */
export const TIMESTAMP_TOLERANCE_SECONDS = 300;
/**
 * Extra time a (key id, nonce) pair is remembered after its timestamp has left the window: covers the
 * whole last second of the window and clock differences between server instances.
 */
export const NONCE_MARGIN_SECONDS = 60;

/** The five signed headers, lower case. */
export const SIGNED_HEADERS = {
  keyId: 'x-service-key-id',
  user: 'x-service-user',
  timestamp: 'x-service-timestamp',
  nonce: 'x-service-nonce',
  signature: 'x-service-signature',
} as const;

const USER_PATTERN = /^[\x21-\x7e]{1,128}$/;
const KEY_ID_PATTERN = /^[\x21-\x7e]{1,128}$/;
const TIMESTAMP_PATTERN = /^\d{1,12}$/;
const NONCE_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;
const SIGNATURE_PATTERN = /^v1=([0-9a-f]{64})$/;

/** Everything the canonical text is built from. */
export interface CanonicalRequest {
  /** PUBLIC_ORIGIN, e.g. https://swap.example.com (no trailing slash). */
  audience: string;
  method: string;
  /** Path and query exactly as sent, e.g. /api/v1/swaps?limit=10. */
  pathAndQuery: string;
  timestamp: string;
  nonce: string;
  keyId: string;
  user: string;
  /** The raw body bytes (empty when there is none). */
  body: Uint8Array;
}

/** The signed headers of a request, syntactically valid. */
export interface SignedHeaders {
  keyId: string;
  user: string;
  timestamp: string;
  nonce: string;
  /** Lower-case hex HMAC from `v1=<hex>`. */
  signatureHex: string;
}

/** The text that is signed: nine lines joined by LF, no trailing newline. */
export function canonicalText(request: CanonicalRequest): string {
  return [
    SIGNING_SCHEME,
    request.audience,
    request.method.toUpperCase(),
    request.pathAndQuery,
    request.timestamp,
    request.nonce,
    request.keyId,
    request.user,
    createHash('sha256').update(request.body).digest('hex'),
  ].join('\n');
}

/** The lower-case hex HMAC-SHA256 of the canonical text, keyed with the UTF-8 bytes of the secret. */
export function computeSignature(secret: string, request: CanonicalRequest): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(canonicalText(request), 'utf8').digest('hex');
}

/** Compares two hex signatures in constant time. */
export function signaturesMatch(expectedHex: string, givenHex: string): boolean {
  const expected = Buffer.from(expectedHex, 'hex');
  const given = Buffer.from(givenHex, 'hex');
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** Reads and checks the five headers; a missing or malformed one is 401 authentication_required naming it. */
export function parseSignedHeaders(get: (name: string) => string | undefined): SignedHeaders {
  const missing = Object.values(SIGNED_HEADERS).filter((name) => !get(name));
  if (missing.length > 0) {
    throw unauthorized('authentication_required', `Sign the request: missing ${missing.join(', ')}.`, { missing });
  }
  const keyId = get(SIGNED_HEADERS.keyId)!;
  const user = get(SIGNED_HEADERS.user)!;
  const timestamp = get(SIGNED_HEADERS.timestamp)!;
  const nonce = get(SIGNED_HEADERS.nonce)!;
  const signature = get(SIGNED_HEADERS.signature)!;
  if (!KEY_ID_PATTERN.test(keyId))
    throw unauthorized('authentication_required', 'x-service-key-id must be 1-128 visible ASCII characters.');
  if (!USER_PATTERN.test(user)) throw unauthorized('authentication_required', 'x-service-user must be 1-128 visible ASCII characters.');
  if (!NONCE_PATTERN.test(nonce))
    throw unauthorized('authentication_required', 'x-service-nonce must be 16-128 characters of A-Z, a-z, 0-9, _ and -.');
  if (!TIMESTAMP_PATTERN.test(timestamp)) {
    throw unauthorized('authentication_required', 'x-service-timestamp must be Unix time in whole seconds, e.g. 1790000000.');
  }
  const match = SIGNATURE_PATTERN.exec(signature);
  if (!match) throw unauthorized('authentication_required', 'x-service-signature must be v1= followed by 64 lower-case hex characters.');
  return { keyId, user, timestamp, nonce, signatureHex: match[1] };
}

/** Throws timestamp_out_of_window when `timestamp` is more than the tolerance away from `nowSeconds`. */
export function checkTimestamp(timestamp: string, nowSeconds: number): void {
  const skew = Number(timestamp) - nowSeconds;
  if (Math.abs(skew) > TIMESTAMP_TOLERANCE_SECONDS) {
    throw unauthorized(
      'timestamp_out_of_window',
      `x-service-timestamp is ${Math.abs(skew)} s ${skew > 0 ? 'ahead of' : 'behind'} the server clock; the window is ±${TIMESTAMP_TOLERANCE_SECONDS} s. Check the clock of the signing machine.`,
      { serverTime: nowSeconds },
    );
  }
}

/**
 * Until when a nonce signed at `timestamp` must be remembered: past the last moment the timestamp check
 * still accepts that timestamp (timestamp + tolerance, to the end of that second), plus the margin. So a
 * replay is either refused as nonce_reused or, later, as timestamp_out_of_window: never accepted.
 */
export function nonceExpiry(timestamp: string): Date {
  return new Date((Number(timestamp) + TIMESTAMP_TOLERANCE_SECONDS + NONCE_MARGIN_SECONDS) * 1000);
}

/** A 401 with one of the authentication codes. */
export function unauthorized(code: string, message: string, details?: Record<string, unknown>): AppError {
  return new AppError(401, code, message, details);
}
