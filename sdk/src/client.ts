/**
 * The partner client: openapi-fetch over the generated `paths`, with a transport that signs every attempt
 * (fresh timestamp and nonce) and retries within the rules of retry.ts. Results keep openapi-fetch's shape,
 * `{ data, error, response }`, with `error` a PartnerApiError; only network failures and misuse throw.
 */
import createClient, { type Client } from 'openapi-fetch';
import { createEarningsApi, type EarningsApi } from './earnings.js';
import type { operations, paths } from './generated/api.js';
import type { PartnerClientOptions } from './options.js';
import { createRoutesApi, type RoutesApi } from './routes.js';
import { toResult, type ApiResult } from './result.js';
import { createSandboxApi, type SandboxApi } from './sandbox.js';
import type { QuoteRequest, QuoteResponse } from './schemas.js';
import { createSwapsApi, type SwapsApi } from './swaps.js';
import { createTransport } from './transport.js';
import { createWebhookConfigApi, type WebhookConfigApi } from './webhook-config.js';

type Json<Id extends keyof operations, Status extends number> =
  operations[Id]['responses'] extends Record<Status, { content: { 'application/json': infer B } }> ? B : never;

/** Executable quotes. */
export interface QuotesApi {
  /** POST /quotes: one executable quote for a pair and an amount, valid until its `expiresAt`. */
  create(body: QuoteRequest): Promise<ApiResult<QuoteResponse>>;
}

/** A signed, retrying client bound to one partner user. */
export interface PartnerClient {
  /** The openapi-fetch client underneath (signed and retried too), for any operation of the API. */
  readonly raw: Client<paths>;
  /** Executable quotes. */
  readonly quotes: QuotesApi;
  /** One-time swaps: create, read, list, wait for the deposit address. */
  readonly swaps: SwapsApi;
  /** Permanent routes to a Zano wallet: ownership challenge, verified create-or-recover, reads, deposits. */
  readonly routes: RoutesApi;
  /** The markup your permanent routes earned (set the markup with setMarkup). */
  readonly earnings: EarningsApi;
  /** Simulation controls; a production deployment answers them 404. */
  readonly sandbox: SandboxApi;
  /** Your status webhook: its URL and secret, the delivery attempts, a test send. */
  readonly webhook: WebhookConfigApi;
  /** The same client acting for another of your customers. */
  forUser(userId: string): PartnerClient;
  /** GET /health */
  health(): Promise<ApiResult<Json<'getHealth', 200>>>;
  /** GET /assets */
  listAssets(): Promise<ApiResult<Json<'listAssets', 200>>>;
  /** GET /pairs: compact guidance, or destination guidance for one source. */
  getPairs(source?: { sourceAsset: string; sourceNetwork: string }): Promise<ApiResult<Json<'getPairs', 200>>>;
  /** GET /partner/markup */
  getMarkup(): Promise<ApiResult<Json<'getPartnerMarkup', 200>>>;
  /** PUT /partner/markup: percent from 0 to 3 with at most two decimals, for routes created afterwards. */
  setMarkup(percent: number): Promise<ApiResult<Json<'putPartnerMarkup', 200>>>;
}

/** Creates a client for one partner and one of its users. */
export function createPartnerClient(options: PartnerClientOptions): PartnerClient {
  for (const field of ['baseUrl', 'audience', 'keyId', 'secret', 'userId'] as const) {
    if (typeof options[field] !== 'string' || options[field].length === 0) throw new TypeError(`createPartnerClient: ${field} is required`);
  }
  if (!/^https?:\/\/[^/]+$/.test(options.audience)) {
    throw new TypeError(
      `createPartnerClient: audience must be an origin such as https://swap.example.com (no path, no trailing slash), got ${options.audience}`,
    );
  }
  if (!/^[\x21-\x7e]{1,128}$/.test(options.userId))
    throw new TypeError('createPartnerClient: userId must be 1-128 visible ASCII characters');

  const raw = createClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ''), fetch: createTransport(options, { signed: true }) });
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));

  return {
    raw,
    quotes: { create: (body) => toResult(raw.POST('/quotes', { body })) },
    swaps: createSwapsApi({ raw, tokenTransport: createTransport(options, { signed: false }), now, sleep }),
    routes: createRoutesApi({ raw, userId: options.userId }),
    earnings: createEarningsApi(raw),
    sandbox: createSandboxApi(raw),
    webhook: createWebhookConfigApi(raw),
    forUser: (userId) => createPartnerClient({ ...options, userId }),
    health: () => toResult(raw.GET('/health')),
    listAssets: () => toResult(raw.GET('/assets')),
    getPairs: (source) => toResult(raw.GET('/pairs', { params: { query: source } })),
    getMarkup: () => toResult(raw.GET('/partner/markup')),
    setMarkup: (percent) => toResult(raw.PUT('/partner/markup', { body: { percent } })),
  };
}
