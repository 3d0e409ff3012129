/**
 * The browser entry point, `@partner-swap/sdk/browser`: reads and follows one swap with its access token, the
 * credential a partner's backend may hand to a page (as Stripe's client_secret), and verifies its signed deposit
 * instructions (`verifyDepositInstructions`, with WebCrypto) before the page shows the address. It holds no signing code and
 * no partner secret, and imports nothing from Node: only fetch, streams and eventsource-parser, so it runs
 * in browsers and in Node alike. The stream is read with fetch, not EventSource, because EventSource cannot
 * send the Authorization header the stream is authenticated with.
 */
import { PartnerApiError } from './errors.js';
import type { ApiResult } from './result.js';
import type { SwapDetail } from './schemas.js';
import {
  checkStreamArguments,
  checkStreamOptions,
  followSwapStream,
  type OpenStream,
  type StreamOptions,
  type SwapStreamEvent,
} from './stream.js';

export { PartnerApiError } from './errors.js';
export {
  DEPOSIT_INSTRUCTIONS_TYPE,
  DepositInstructionsError,
  ROUTE_ADDRESSES_TYPE,
  verifyDepositInstructions,
  verifyRouteAddresses,
  type DepositInstructions,
  type DepositInstructionsReason,
  type RouteAddresses,
  type SigningKey,
  type SigningKeySet,
  type SigningKeysSource,
  type SwapToCompare,
  type VerifyDepositInstructionsOptions,
  type VerifyRouteAddressesOptions,
} from './deposit-instructions.js';
export { DEFAULT_STREAM_MAX_RECONNECTS, StreamDisconnectedError, type StreamOptions, type SwapStreamEvent } from './stream.js';
export type { ApiResult } from './result.js';
export type { Swap, SwapDetail, SwapEvent, SwapStatus } from './schemas.js';

/** Options of createSwapViewer. */
export interface SwapViewerOptions {
  /** The API base URL including the version prefix, e.g. https://swap.example.com/api/v1. */
  baseUrl: string;
  /** The swap's id (`order.id` of POST /swaps), handed over by your backend. */
  swapId: string;
  /** The swap access token (`sat_...`, `accessToken` of POST /swaps), handed over by your backend. */
  accessToken: string;
  /** fetch implementation (default globalThis.fetch); inject one to test. */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** Waits between stream reconnects (default setTimeout); inject to test. */
  sleep?: (ms: number) => Promise<void>;
}

/** One swap, read with its access token. */
export interface SwapViewer {
  /** GET /swaps/{id} with the token: `{ data: { order, events } }`, or `{ error }` (e.g. 401 invalid_token). */
  get(): Promise<ApiResult<SwapDetail>>;
  /**
   * GET /swaps/{id}/stream with the token: order and status events until the terminal status and the final order after it, resuming with
   * Last-Event-ID after a dropped connection; throws a PartnerApiError on a refusal and a
   * StreamDisconnectedError after `maxReconnects` failed reconnects in a row; `break` closes the connection.
   */
  stream(options?: StreamOptions): AsyncGenerator<SwapStreamEvent, void, undefined>;
}

/** Creates a viewer of one swap; misuse (a missing option) throws here. */
export function createSwapViewer(options: SwapViewerOptions): SwapViewer {
  const { baseUrl, swapId, accessToken } = options;
  if (typeof baseUrl !== 'string' || !/^https?:\/\//.test(baseUrl))
    throw new TypeError('createSwapViewer: baseUrl must be an http(s) URL, e.g. https://swap.example.com/api/v1');
  checkStreamArguments('createSwapViewer', swapId, accessToken);
  // Called through a function, not as a method of an object: a browser's fetch must run with its own `this`.
  const send = options.fetch ?? ((input: string, init: RequestInit) => globalThis.fetch(input, init));
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const swapUrl = `${baseUrl.replace(/\/+$/, '')}/swaps/${encodeURIComponent(swapId)}`;
  const authorization = `Bearer ${accessToken}`;

  const open: OpenStream = async ({ lastEventId, signal }) => {
    const headers: Record<string, string> = { authorization, accept: 'text/event-stream' };
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
    const response = await send(`${swapUrl}/stream`, { headers, signal });
    return response.ok ? { response, body: response.body } : { response, error: await readBody(response) };
  };

  return {
    async get() {
      const response = await send(swapUrl, { headers: { authorization, accept: 'application/json' } });
      const body = await readBody(response);
      return response.ok ? { data: body as SwapDetail, response } : { error: PartnerApiError.from(response, body), response };
    },
    stream: (streamOptions = {}) => followSwapStream({ open, sleep }, swapId, checkStreamOptions('viewer.stream', streamOptions)),
  };
}

// The JSON body, or undefined when there is none or it is no JSON (a proxy's HTML page).
async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}
