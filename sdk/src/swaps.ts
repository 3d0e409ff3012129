/**
 * The `swaps` namespace: idempotent creation (the Idempotency-Key is the caller's or a new one, the same on
 * every retry), reads signed or by swap access token, one page or every page of the list, a wait for the
 * deposit address, and the live status stream.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from 'openapi-fetch';
import type { operations, paths } from './generated/api.js';
import { WaitTimeoutError } from './errors.js';
import { allPages, toResult, type ApiResult, type WaitResult } from './result.js';
import type { SwapCreated, SwapDetail, SwapList, SwapRequest } from './schemas.js';
import { streamSwap, type StreamOptions, type SwapStreamEvent } from './stream.js';
import type { Transport } from './transport.js';

/** Default of WaitOptions.timeoutMs. */
export const DEFAULT_WAIT_TIMEOUT_MS = 60_000;
/** Default of WaitOptions.intervalMs. */
export const DEFAULT_POLL_INTERVAL_MS = 1_000;

// The spec's Idempotency-Key: 1-255 visible ASCII characters.
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** A new Idempotency-Key for POST /swaps: persist it before sending, reuse it on every retry of that swap. */
export function newIdempotencyKey(): string {
  return randomUUID();
}

/** Options of swaps.create. */
export interface CreateSwapOptions {
  /** Your persisted key for this swap (default: a new one, returned as `idempotencyKey`). */
  idempotencyKey?: string;
}

/** The result of swaps.create, with the Idempotency-Key it was sent with: persist it to repeat the call safely. */
export type CreateSwapResult = ApiResult<SwapCreated> & { idempotencyKey: string };

/** Options of swaps.get and swaps.waitForDepositAddress. */
export interface ReadSwapOptions {
  /** Read with this swap access token (`Authorization: Bearer`, request not signed) instead of your partner key. */
  accessToken?: string;
}

/** Query of swaps.list: `limit` (1-100, default 100), `status`, `cursor` (a page's nextCursor). */
export type ListSwapsQuery = NonNullable<operations['listSwaps']['parameters']['query']>;

/** Options of swaps.waitForDepositAddress. */
export interface WaitOptions extends ReadSwapOptions {
  /** Give up after this many milliseconds (default 60000). */
  timeoutMs?: number;
  /** Milliseconds between polls (default 1000). */
  intervalMs?: number;
}

/** One-time swaps. */
export interface SwapsApi {
  /** POST /swaps with your Idempotency-Key or a new one (the same on every retry); the result carries the key. */
  create(body: SwapRequest, options?: CreateSwapOptions): Promise<CreateSwapResult>;
  /** GET /swaps/{id}: the swap and its timeline, signed, or with `accessToken` and no signature. */
  get(id: string, options?: ReadSwapOptions): Promise<ApiResult<SwapDetail>>;
  /** GET /swaps: one page of your swaps, newest first. */
  list(query?: ListSwapsQuery): Promise<ApiResult<SwapList>>;
  /**
   * GET /swaps?ids=...: bulk status of up to 100 of your swaps, in the order asked (each once); an id that is
   * not one of your swaps is left out. `status` filters further.
   */
  getMany(ids: readonly string[], options?: { status?: ListSwapsQuery['status'] }): Promise<ApiResult<SwapList>>;
  /** Every page of GET /swaps, following nextCursor until null; an error page is yielded last. */
  listAll(filter?: Omit<ListSwapsQuery, 'cursor'>): AsyncGenerator<ApiResult<SwapList>, void, undefined>;
  /** Polls GET /swaps/{id} until order.depositAddress is set; a timeout is a WaitTimeoutError value. */
  waitForDepositAddress(id: string, options?: WaitOptions): Promise<WaitResult<SwapDetail>>;
  /**
   * GET /swaps/{id}/stream with the access token: order and status events until the terminal status and the final order after it, resuming
   * with Last-Event-ID after a drop or the server's end of the stream, and after Retry-After on 429. Throws a PartnerApiError on a refusal (e.g. 401 invalid_token) and a
   * StreamDisconnectedError after `maxReconnects` failed reconnects in a row; `break` closes the connection.
   */
  stream(id: string, accessToken: string, options?: StreamOptions): AsyncGenerator<SwapStreamEvent, void, undefined>;
}

/** What the swaps namespace runs on. */
export interface SwapsDeps {
  /** The signed, retrying openapi-fetch client. */
  raw: Client<paths>;
  /** The unsigned, retrying transport for token reads (and the token-authenticated stream). */
  tokenTransport: Transport;
  /** Milliseconds since the epoch. */
  now: () => number;
  /** Waits between polls. */
  sleep: (ms: number) => Promise<void>;
}

/** Builds the swaps namespace. */
export function createSwapsApi({ raw, tokenTransport, now, sleep }: SwapsDeps): SwapsApi {
  const get: SwapsApi['get'] = async (id, { accessToken } = {}) => {
    const params = { path: { id } };
    if (accessToken === undefined) return toResult(raw.GET('/swaps/{id}', { params }));
    if (typeof accessToken !== 'string' || accessToken.length === 0)
      throw new TypeError('swaps.get: accessToken must be a non-empty string');
    // A token read is not signed: the token alone authenticates it, and it works without your partner secret.
    return toResult(raw.GET('/swaps/{id}', { params, headers: { authorization: `Bearer ${accessToken}` }, fetch: tokenTransport }));
  };
  const list: SwapsApi['list'] = (query = {}) => toResult(raw.GET('/swaps', { params: { query } }));

  return {
    async create(body, { idempotencyKey = newIdempotencyKey() } = {}) {
      if (!IDEMPOTENCY_KEY.test(idempotencyKey)) throw new TypeError('swaps.create: idempotencyKey must be 1-255 visible ASCII characters');
      try {
        const result = await toResult<SwapCreated>(raw.POST('/swaps', { params: { header: { 'Idempotency-Key': idempotencyKey } }, body }));
        return { ...result, idempotencyKey };
      } catch (err) {
        // The network failed past the retries: the swap may exist, and only this key can tell without a duplicate.
        if (err !== null && typeof err === 'object' && Object.isExtensible(err)) Object.assign(err, { idempotencyKey });
        throw err;
      }
    },

    get,
    list,

    getMany(ids, { status } = {}) {
      if (!Array.isArray(ids) || ids.length === 0 || ids.length > 100)
        throw new TypeError('swaps.getMany: ids must hold 1 to 100 swap ids');
      // The spec's `ids` is one comma-separated parameter (style form, explode false).
      const query = { ids: [...ids], ...(status ? { status } : {}) };
      return toResult(raw.GET('/swaps', { params: { query }, querySerializer: { array: { style: 'form', explode: false } } }));
    },

    listAll: (filter = {}) => allPages(list, filter),

    async waitForDepositAddress(id, { timeoutMs = DEFAULT_WAIT_TIMEOUT_MS, intervalMs = DEFAULT_POLL_INTERVAL_MS, accessToken } = {}) {
      if (!(timeoutMs >= 0)) throw new TypeError('swaps.waitForDepositAddress: timeoutMs must be a number >= 0');
      if (!(intervalMs > 0)) throw new TypeError('swaps.waitForDepositAddress: intervalMs must be a number > 0');
      const deadline = now() + timeoutMs;
      for (;;) {
        const result = await get(id, { accessToken });
        if (result.error || result.data.order.depositAddress) return result;
        const remainingMs = deadline - now();
        if (remainingMs <= 0) {
          const error = new WaitTimeoutError(
            `Swap ${id} has no deposit address after ${timeoutMs} ms (status ${result.data.order.status}); poll again or raise timeoutMs.`,
            timeoutMs,
          );
          return { error, response: result.response };
        }
        await sleep(Math.min(intervalMs, remainingMs));
      }
    },

    stream: (id, accessToken, options) => streamSwap({ raw, transport: tokenTransport, sleep }, id, accessToken, options),
  };
}
