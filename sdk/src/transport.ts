/**
 * The fetch that openapi-fetch calls: names the SDK in the User-Agent, signs every attempt afresh (new
 * timestamp and nonce) unless the request is a token read, and retries within the rules of retry.ts.
 */
import { API_VERSION } from './generated/version.js';
import type { PartnerClientOptions } from './options.js';
import { DEFAULT_RETRY, isRetryable, retryDelayMs } from './retry.js';
import { newNonce, signedHeaders } from './signing.js';
import { SDK_VERSION } from './version.js';

/** A fetch as openapi-fetch calls it. */
export type Transport = (request: Request) => Promise<Response>;

/** Builds a transport; `signed: false` sends requests as they are (a swap access token authenticates them). */
export function createTransport(options: PartnerClientOptions, { signed }: { signed: boolean }): Transport {
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
      if (signed) {
        const signature = signedHeaders(options.secret, {
          audience: options.audience,
          method: request.method,
          pathAndQuery: url.pathname + url.search,
          timestamp: String(Math.floor(now() / 1000)),
          nonce: newNonce(),
          keyId: options.keyId,
          user: options.userId,
          body,
        });
        for (const [name, value] of Object.entries(signature)) headers.set(name, value);
      }
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
