/**
 * The `webhook` namespace: the partner's status webhook (its URL, turning deliveries on and off, rotating the
 * signing secret), the record of delivery attempts one page or every page at a time, and a test send.
 * Verifying what arrives at the URL is webhooks.ts (`verifyWebhook`).
 */
import type { Client } from 'openapi-fetch';
import type { components, operations, paths } from './generated/api.js';
import { allPages, toResult, type ApiResult } from './result.js';

type Schemas = components['schemas'];

/** Answer of GET /partner/webhook: `{ url, enabled, secretHint, eventTypes, updatedAt }`, never the secret. */
export type PartnerWebhook = Schemas['PartnerWebhook'];
/** Body of PUT /partner/webhook: `url` (`null` removes the webhook), and optionally `rotateSecret` (default false) and `enabled` (default true). */
export type PartnerWebhookRequest = Schemas['PartnerWebhookRequest'];
/** Answer of PUT /partner/webhook: the configuration and `secret`, the full `whsec_…` secret when one was generated, else null. */
export type PartnerWebhookUpdate = Schemas['PartnerWebhookUpdate'];
/** One delivery attempt of one webhook message; `eventId` is the message's `webhook-id`. */
export type WebhookDelivery = Schemas['WebhookDelivery'];
/** One page of GET /partner/webhook/deliveries: `{ deliveries, nextCursor }`. */
export type WebhookDeliveryList = Schemas['WebhookDeliveryList'];
/** Query of webhook.deliveries: `limit` (1-100, default 20), `cursor` (a page's nextCursor), `eventId` (a `webhook-id`). */
export type ListWebhookDeliveriesQuery = NonNullable<operations['listWebhookDeliveries']['parameters']['query']>;

/** The partner's status webhook. */
export interface WebhookConfigApi {
  /** GET /partner/webhook: the URL, whether deliveries are on, and `secretHint` (the secret itself is never shown again). */
  get(): Promise<ApiResult<PartnerWebhook>>;
  /**
   * PUT /partner/webhook: sets the URL; `rotateSecret: true` replaces the secret, `enabled: false` stops
   * deliveries. `data.secret` is the full secret on the first set and on a rotation (store it), else null.
   */
  set(body: PartnerWebhookRequest): Promise<ApiResult<PartnerWebhookUpdate>>;
  /**
   * PUT /partner/webhook with `url: null`: removes the webhook, its URL and signing secret; nothing is delivered
   * any more. A later `set` with a URL is a first set again and returns a new secret.
   */
  remove(): Promise<ApiResult<PartnerWebhookUpdate>>;
  /** GET /partner/webhook/deliveries: one page of delivery attempts, newest first. */
  deliveries(query?: ListWebhookDeliveriesQuery): Promise<ApiResult<WebhookDeliveryList>>;
  /** Every page of GET /partner/webhook/deliveries, following nextCursor until null; an error page is yielded last. */
  allDeliveries(filter?: Omit<ListWebhookDeliveriesQuery, 'cursor'>): AsyncGenerator<ApiResult<WebhookDeliveryList>, void, undefined>;
  /**
   * POST /partner/webhook/test: sends one `webhook.test` now and resolves with the attempt once the receiver
   * answered (check `data.succeeded`). No webhook, or deliveries stopped: `409 webhook_not_configured`.
   */
  sendTest(): Promise<ApiResult<WebhookDelivery>>;
}

/** Builds the webhook namespace over the signed client. */
export function createWebhookConfigApi(raw: Client<paths>): WebhookConfigApi {
  const deliveries: WebhookConfigApi['deliveries'] = (query = {}) =>
    toResult(raw.GET('/partner/webhook/deliveries', { params: { query } }));

  return {
    get: () => toResult(raw.GET('/partner/webhook')),
    set: (body) => toResult(raw.PUT('/partner/webhook', { body })),
    remove: () => toResult(raw.PUT('/partner/webhook', { body: { url: null } })),
    deliveries,

    allDeliveries: (filter = {}) => allPages(deliveries, filter),

    sendTest: () => toResult(raw.POST('/partner/webhook/test')),
  };
}
