/**
 * Webhook verification (Standard Webhooks, https://www.standardwebhooks.com/): `verifyWebhook` checks a
 * delivery's `webhook-signature` over the raw body and its `webhook-timestamp`, and returns the typed event;
 * `signTestWebhook` signs a payload the way the service does, so partners can test their own receivers.
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { components } from './generated/api.js';

type Schemas = components['schemas'];

/** A swap changed: `data` is `{ order, event }` as GET /swaps/{id} returns them. */
export type SwapUpdatedEvent = Schemas['SwapUpdatedEvent'];
/** A permanent-route deposit changed: `data` is `{ route_id, deposit }`. */
export type PermanentDepositUpdatedEvent = Schemas['PermanentDepositUpdatedEvent'];
/** The message POST /partner/webhook/test sends. */
export type WebhookTestEvent = Schemas['WebhookTestEvent'];
/** Every event the service delivers; branch on `type`. */
export type WebhookEvent = SwapUpdatedEvent | PermanentDepositUpdatedEvent | WebhookTestEvent;
/** The event types, e.g. `swap.updated`. */
export type WebhookEventType = WebhookEvent['type'];

/** How far `webhook-timestamp` may be from the receiver's clock, either way (Standard Webhooks: 5 minutes). */
export const WEBHOOK_TOLERANCE_IN_SECONDS = 300;
/** The prefix of a webhook signing secret. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** Why a delivery was refused. */
export type WebhookVerificationReason =
  | 'missing_header'
  | 'invalid_secret'
  | 'invalid_body'
  | 'invalid_signature'
  | 'invalid_timestamp'
  | 'timestamp_too_old'
  | 'timestamp_too_new';

/** A delivery that must not be trusted; `message` says what is wrong and what to check. Answer it with 400. */
export class WebhookVerificationError extends Error {
  /** Always `webhook_verification_failed`, so `error.code` reads the same on every SDK error. */
  readonly code = 'webhook_verification_failed';
  /** The specific problem. */
  readonly reason: WebhookVerificationReason;

  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.reason = reason;
  }
}

/** Request headers in any common shape: fetch `Headers`, Node's `req.headers`, or a plain record. */
export type WebhookRequestHeaders = Headers | Record<string, string | string[] | undefined>;

/** Options of verifyWebhook. */
export interface VerifyWebhookOptions {
  /** Accepted distance of `webhook-timestamp` from now, in seconds (default WEBHOOK_TOLERANCE_IN_SECONDS). */
  toleranceSeconds?: number;
  /** The current time (default `new Date()`); injectable for tests. */
  now?: () => Date;
}

/**
 * Verifies a delivery and returns its event. `rawBody` must be the body exactly as received (a string or
 * the bytes), before any JSON parsing. `secret` is the `whsec_…` secret of PUT /partner/webhook (or several,
 * while a rotation rolls out). Throws WebhookVerificationError when anything does not match.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookRequestHeaders,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  const { toleranceSeconds = WEBHOOK_TOLERANCE_IN_SECONDS, now = () => new Date() } = options;
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    throw new WebhookVerificationError(
      'invalid_body',
      'rawBody must be the request body as received (a string or Buffer), not parsed JSON: re-serialized JSON does not match the signature. With express, use express.raw({ type: "application/json" }) on the webhook route.',
    );
  }
  const keys = (typeof secret === 'string' ? [secret] : [...secret]).map(webhookKey);
  if (keys.length === 0) throw new WebhookVerificationError('invalid_secret', 'No webhook secret given.');
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  const body = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');

  if (!/^\d{1,12}$/.test(timestamp)) {
    throw new WebhookVerificationError(
      'invalid_timestamp',
      `webhook-timestamp must be Unix seconds in decimal digits; got ${JSON.stringify(timestamp)}.`,
    );
  }
  const offered = signatures
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => Buffer.from(entry.slice(3), 'base64'));
  if (offered.length === 0) {
    throw new WebhookVerificationError(
      'invalid_signature',
      'webhook-signature has no v1 signature (expected "v1,<base64>", space-separated).',
    );
  }
  const matches = keys.some((key) => {
    const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest();
    return offered.some((candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected));
  });
  if (!matches) {
    throw new WebhookVerificationError(
      'invalid_signature',
      'The webhook signature does not match: check that the secret is the whsec_ secret of this webhook (after a rotation, the new one) and that the body is the raw request body, not re-serialized JSON.',
    );
  }

  const skew = Math.floor(now().getTime() / 1000) - Number(timestamp);
  if (skew > toleranceSeconds) {
    throw new WebhookVerificationError(
      'timestamp_too_old',
      `webhook-timestamp is ${skew} s old, more than the ${toleranceSeconds} s tolerance: a replayed delivery, or this receiver's clock is behind.`,
    );
  }
  if (-skew > toleranceSeconds) {
    throw new WebhookVerificationError(
      'timestamp_too_new',
      `webhook-timestamp is ${-skew} s in the future, more than the ${toleranceSeconds} s tolerance: this receiver's clock is probably behind.`,
    );
  }

  let event: unknown;
  try {
    event = JSON.parse(body);
  } catch {
    throw new WebhookVerificationError('invalid_body', 'The body is signed but is not JSON.');
  }
  if (!event || typeof event !== 'object' || typeof (event as { type?: unknown }).type !== 'string') {
    throw new WebhookVerificationError('invalid_body', 'The body is signed but is not a webhook event ({"type","timestamp","data"}).');
  }
  return event as WebhookEvent;
}

/** What signTestWebhook signs. */
export interface SignTestWebhookInput {
  /** The `whsec_…` secret the receiver verifies with. */
  secret: string;
  /** The event type, e.g. `swap.updated`. */
  type: string;
  /** The event's `data`. */
  data: unknown;
  /** The `webhook-id` (default: a new UUID). */
  id?: string;
  /** The delivery time, a Date or Unix seconds (default: now); also the body's `timestamp`. */
  timestamp?: Date | number;
}

/**
 * Builds a delivery signed exactly as the service signs one: the body text and the headers to POST with it.
 * For testing your own receiver; never needed in production.
 */
export function signTestWebhook(input: SignTestWebhookInput): {
  body: string;
  headers: { 'content-type': string; 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string };
} {
  const at =
    input.timestamp === undefined ? new Date() : typeof input.timestamp === 'number' ? new Date(input.timestamp * 1000) : input.timestamp;
  const seconds = Math.floor(at.getTime() / 1000);
  const id = input.id ?? randomUUID();
  const body = JSON.stringify({ type: input.type, timestamp: at.toISOString(), data: input.data });
  const mac = createHmac('sha256', webhookKey(input.secret)).update(`${id}.${seconds}.${body}`, 'utf8').digest('base64');
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(seconds),
      'webhook-signature': `v1,${mac}`,
    },
  };
}

function webhookKey(secret: string): Buffer {
  if (typeof secret !== 'string' || !secret.startsWith(WEBHOOK_SECRET_PREFIX)) {
    const hint =
      typeof secret === 'string' && secret.startsWith('pss_sk_')
        ? ' This looks like your API signing secret; webhooks are signed with the webhook secret that PUT /partner/webhook returned.'
        : '';
    throw new WebhookVerificationError('invalid_secret', `The webhook secret must look like whsec_<base64>.${hint}`);
  }
  const encoded = secret.slice(WEBHOOK_SECRET_PREFIX.length);
  const key = Buffer.from(encoded, 'base64');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || key.length < 16) {
    throw new WebhookVerificationError(
      'invalid_secret',
      'The webhook secret must look like whsec_<base64>; the part after whsec_ is not base64 of 16 or more bytes.',
    );
  }
  return key;
}

function header(headers: WebhookRequestHeaders, name: string): string {
  let value: string | string[] | null | undefined;
  if (typeof (headers as Headers).get === 'function') {
    value = (headers as Headers).get(name);
  } else {
    const record = headers as Record<string, string | string[] | undefined>;
    const key = Object.keys(record).find((k) => k.toLowerCase() === name);
    value = key === undefined ? undefined : record[key];
  }
  if (Array.isArray(value)) value = value.join(' ');
  if (value === undefined || value === null || value === '') {
    throw new WebhookVerificationError(
      'missing_header',
      `The ${name} header is missing: is this request a webhook delivery, and does a proxy strip headers?`,
    );
  }
  return value;
}
