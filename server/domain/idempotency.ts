/**
 * Idempotent creation (docs/architecture.md#idempotency): what identifies "the same request" is the partner, the key and the body
 * compared as parsed JSON, so key order and whitespace do not matter.
 */
import { createHash } from 'node:crypto';

/** How long a request waits for an identical one in progress before it is answered 503. */
export const IDEMPOTENCY_WAIT_SECONDS = 5;
/** Retry-After of that 503. */
export const IDEMPOTENCY_RETRY_AFTER_SECONDS = 1;

/** JSON with object keys sorted at every level: equal for bodies that parse to the same value. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The hex SHA-256 of the canonical JSON of a parsed body. */
export function requestHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body), 'utf8').digest('hex');
}
