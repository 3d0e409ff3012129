/**
 * Request signing, protocol PSS1-HMAC-SHA256: the canonical text is nine lines joined by LF (no trailing
 * newline): scheme, audience, METHOD, path and query as sent, timestamp, nonce, key id, user, and the hex
 * SHA-256 of the body bytes. The signature is the hex HMAC-SHA256 of that text keyed with the secret.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';

/** First line of the canonical text. */
export const SIGNING_SCHEME = 'PSS1-HMAC-SHA256';

/** What is signed for one request. */
export interface SigningInput {
  audience: string;
  method: string;
  /** Path and query exactly as they will be sent, e.g. /api/v1/swaps?limit=10. */
  pathAndQuery: string;
  timestamp: string;
  nonce: string;
  keyId: string;
  user: string;
  body: Uint8Array;
}

/** The canonical text of a request. */
export function canonicalText(input: SigningInput): string {
  return [
    SIGNING_SCHEME,
    input.audience,
    input.method.toUpperCase(),
    input.pathAndQuery,
    input.timestamp,
    input.nonce,
    input.keyId,
    input.user,
    createHash('sha256').update(input.body).digest('hex'),
  ].join('\n');
}

/** The x-service-signature header value, `v1=<hex>`. */
export function signatureHeader(secret: string, input: SigningInput): string {
  return `v1=${createHmac('sha256', secret).update(canonicalText(input)).digest('hex')}`;
}

/** A fresh nonce: 32 hex characters from a CSPRNG. */
export function newNonce(): string {
  return randomBytes(16).toString('hex');
}

/** The five signed headers for a request. */
export function signedHeaders(secret: string, input: SigningInput): Record<string, string> {
  return {
    'x-service-key-id': input.keyId,
    'x-service-user': input.user,
    'x-service-timestamp': input.timestamp,
    'x-service-nonce': input.nonce,
    'x-service-signature': signatureHeader(secret, input),
  };
}
