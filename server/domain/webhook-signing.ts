/**
 * Standard Webhooks signing (https://www.standardwebhooks.com/), docs/architecture.md#streams-and-webhooks: the secret `whsec_<base64>`,
 * the delivery body `{"type","timestamp","data"}` and the `webhook-id` / `webhook-timestamp` /
 * `webhook-signature` headers. Pure: the caller hands in the random bytes and the clock.
 */
import { createHmac } from 'node:crypto';

/** The prefix of every webhook signing secret. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** Random bytes behind a generated secret (Standard Webhooks asks for 24 to 64). */
export const WEBHOOK_SECRET_BYTES = 24;
/** Characters of the secret shown back in `secretHint`. */
export const SECRET_HINT_CHARACTERS = 4;

/** The three headers of one delivery attempt. */
export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** A new secret `whsec_<base64 of bytes>` from `bytes` (at least 24 random bytes). */
export function createWebhookSecret(bytes: Buffer): string {
  if (bytes.length < WEBHOOK_SECRET_BYTES) throw new Error(`a webhook secret needs at least ${WEBHOOK_SECRET_BYTES} random bytes`);
  return WEBHOOK_SECRET_PREFIX + bytes.toString('base64');
}

/** What GET /partner/webhook shows of a secret: `whsec_…` and its last characters. */
export function secretHint(secret: string): string {
  return `${WEBHOOK_SECRET_PREFIX}…${secret.slice(-SECRET_HINT_CHARACTERS)}`;
}

/** The HMAC key of a secret: the base64-decoded part after `whsec_`. */
export function webhookKey(secret: string): Buffer {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) throw new Error('a webhook secret starts with whsec_');
  return Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64');
}

/** The exact body of a delivery: type, the message's creation time and its data, as one JSON text. */
export function webhookBody(type: string, createdAt: Date, data: unknown): string {
  return JSON.stringify({ type, timestamp: createdAt.toISOString(), data });
}

/** `v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`. */
export function webhookSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', webhookKey(secret)).update(`${id}.${timestampSeconds}.${body}`, 'utf8').digest('base64');
  return `v1,${mac}`;
}

/** The headers of one attempt of message `id` at `at` (the attempt's own time, whole seconds). */
export function signWebhook(secret: string, id: string, at: Date, body: string): WebhookHeaders {
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': webhookSignature(secret, id, timestamp, body),
  };
}
