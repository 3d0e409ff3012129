/**
 * The partner client: openapi-fetch over the generated `paths`, with a transport that signs every attempt
 * (fresh timestamp and nonce) and retries within the rules of retry.ts. Results keep openapi-fetch's shape,
 * `{ data, error, response }`, with `error` a PartnerApiError; only network failures and misuse throw.
 */
import { randomUUID } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import type { operations, paths } from './generated/api.js';
import { API_VERSION } from './generated/version.js';
import { PartnerApiError } from './errors.js';
import { DEFAULT_RETRY, isRetryable, retryDelayMs, type RetryOptions } from './retry.js';
import { newNonce, signedHeaders } from './signing.js';
import { SDK_VERSION } from './version.js';

/** Options of createPartnerClient. */
export interface PartnerClientOptions {
  /** The API base URL including the version prefix, e.g. https://swap.example.com/api/v1. */
  baseUrl: string;
  /** The service origin every signature names (the deployment's PUBLIC_ORIGIN), e.g. https://swap.example.com. */
  audience: string;
  /** The partner key id. */
  keyId: string;
  /** The shared secret; keep it on the backend only. */
  secret: string;
  /** Your customer's identifier, sent as x-service-user (1-128 visible ASCII characters). */
  userId: string;
  /** fetch implementation (default globalThis.fetch); inject one to test or to add a proxy. */
  fetch?: (request: Request) => Promise<Response>;
  /** Retry bounds (default 3 retries, 250 ms doubling to 8 s with jitter, Retry-After up to 60 s). */
  retry?: RetryOptions;
  /** Appended to the User-Agent, e.g. "acme-wallet/2.3". */
  userAgent?: string;
  /** Milliseconds since the epoch (default Date.now); inject to test. */
  now?: () => number;
  /** Waits between retries (default setTimeout); inject to test. */
  sleep?: (ms: number) => Promise<void>;
}

/** The result of a call: data on 2xx, a PartnerApiError otherwise; the raw response either way. */
export type ApiResult<T> =
  { data: T; error?: undefined; response: Response } | { data?: undefined; error: PartnerApiError; response: Response };

type Json<Id extends keyof operations, Status extends number> =
  operations[Id]['responses'] extends Record<Status, { content: { 'application/json': infer B } }> ? B : never;

/** A signed, retrying client bound to one partner user. */
export interface PartnerClient {
  /** The openapi-fetch client underneath (signed and retried too), for any operation of the API. */
  readonly raw: Client<paths>;
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

/** A new Idempotency-Key for POST /swaps: persist it before sending, reuse it on every retry of that swap. */
export function newIdempotencyKey(): string {
  return randomUUID();
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

  const raw = createClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ''), fetch: createSigningTransport(options) });
  const call = async <T>(pending: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<ApiResult<T>> => {
    const { data, error, response } = await pending;
    return response.ok ? { data: data as T, response } : { error: PartnerApiError.from(response, error), response };
  };

  return {
    raw,
    forUser: (userId) => createPartnerClient({ ...options, userId }),
    health: () => call(raw.GET('/health')),
    listAssets: () => call(raw.GET('/assets')),
    getPairs: (source) => call(raw.GET('/pairs', { params: { query: source } })),
    getMarkup: () => call(raw.GET('/partner/markup')),
    setMarkup: (percent) => call(raw.PUT('/partner/markup', { body: { percent } })),
  };
}

function createSigningTransport(options: PartnerClientOptions): (request: Request) => Promise<Response> {
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  // Only options that are set override the defaults ({ maxRetries: undefined } keeps 3).
  const retry = { ...DEFAULT_RETRY, ...Object.fromEntries(Object.entries(options.retry ?? {}).filter(([, v]) => v !== undefined)) };
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const userAgent = `partner-swap-sdk/${SDK_VERSION} (api ${API_VERSION}; node ${globalThis.process?.version ?? 'unknown'})${options.userAgent ? ` ${options.userAgent}` : ''}`;

  return async (request) => {
    // The body is read once; every attempt signs and sends these same bytes.
    const body = new Uint8Array(await request.clone().arrayBuffer());
    const url = new URL(request.url);
    const idempotent = request.headers.has('idempotency-key');
    for (let attempt = 0; ; attempt++) {
      const headers = new Headers(request.headers);
      headers.set('user-agent', userAgent);
      const signed = signedHeaders(options.secret, {
        audience: options.audience,
        method: request.method,
        pathAndQuery: url.pathname + url.search,
        timestamp: String(Math.floor(now() / 1000)),
        nonce: newNonce(),
        keyId: options.keyId,
        user: options.userId,
        body,
      });
      for (const [name, value] of Object.entries(signed)) headers.set(name, value);
      const outgoing = new Request(url, {
        method: request.method,
        headers,
        body: body.length > 0 ? body : undefined,
        signal: request.signal,
      });

      let response: Response | undefined;
      let failure: unknown;
      try {
        response = await send(outgoing);
      } catch (err) {
        if (request.signal.aborted) throw err;
        failure = err;
      }
      const delay =
        attempt < retry.maxRetries && isRetryable({ method: request.method, idempotent, status: response?.status })
          ? retryDelayMs(attempt, response?.headers.get('retry-after'), retry)
          : undefined;
      if (delay === undefined) {
        if (response) return response;
        throw failure;
      }
      await response?.body?.cancel();
      await sleep(delay);
    }
  };
}
