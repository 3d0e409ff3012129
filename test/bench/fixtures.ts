/**
 * The data the operations bench reads and writes, made through the server's HTTP API before anything is
 * measured: swaps in the states the rows need, two permanent routes, a webhook pointing at a local receiver,
 * and pools of single-use inputs (quotes for POST /swaps, signed wallet proofs for POST /permanent-routes).
 */
import { signZanoMessage } from '../../server/domain/zano-proof.js';
import { readJson } from '../support/http.js';
import { createVerifiedRoute, freshScalar, freshZanoWallet, type Route } from '../support/routes.js';
import { signHeaders, type SignerOptions } from '../support/signer.js';
import { btcToUsdt, swapBody, swapClient, type Quote } from '../support/swaps.js';

/** How many set-up requests are in flight at once while a pool is filled. */
const POOL_CONCURRENCY = 32;

/** A swap and the access token that reads it. */
export interface SwapHandle {
  id: string;
  token: string;
}

/** Everything the rows refer to. */
export interface BenchWorld {
  /** A waiting swap with its deposit address: the reads. */
  readSwap: SwapHandle;
  /** A waiting swap the failure row arms again and again. */
  armedSwap: SwapHandle;
  /** An overdue swap: the review and clock rows get 409 invalid_state from it on every request. */
  overdueSwap: SwapHandle;
  /** A route to read, list deposits of and expect deposits on (never paid). */
  readRoute: Route;
  /** A route the sandbox-deposit row pays into (its deposits wait for a poll that does not come during the run). */
  payRoute: Route;
  /** The partner's webhook URL: a receiver in its own process that answers 200 (operations.bench.ts). */
  receiverUrl: string;
  /** The body of the POST /quotes row. */
  quoteRequest: Record<string, unknown>;
}

/**
 * Builds the world through the API of the server at `origin`, as the partner `signer`, with its webhook
 * delivering to `receiverUrl`.
 */
export async function createBenchWorld(origin: string, signer: SignerOptions, receiverUrl: string): Promise<BenchWorld> {
  const client = swapClient(origin, signer);
  const webhook = await client.send('PUT', '/api/v1/partner/webhook', { url: receiverUrl });
  if (webhook.status !== 200) throw new Error(`PUT /partner/webhook answered ${webhook.status}: ${webhook.text}`);

  const [readSwap, armedSwap, overdueSwap] = await Promise.all([0, 1, 2].map(() => client.create()));
  for (const s of [readSwap, armedSwap, overdueSwap]) await client.waitFor(s.order.id, (o) => !!o.depositAddress, 60_000);
  const clock = await client.send('POST', `/api/v1/sandbox/swaps/${overdueSwap.order.id}/clock`, { deadline: 'deposit' });
  if (clock.status !== 200) throw new Error(`moving a swap to overdue answered ${clock.status}: ${clock.text}`);

  const readRoute = await createVerifiedRoute(client, signer.user!);
  const payRoute = await createVerifiedRoute(client, signer.user!);
  const test = await client.send('POST', '/api/v1/partner/webhook/test');
  if (test.status !== 200) throw new Error(`POST /partner/webhook/test answered ${test.status}: ${test.text}`);

  const handle = (s: { order: { id: string }; accessToken: string }) => ({ id: s.order.id, token: s.accessToken });
  return {
    readSwap: handle(readSwap),
    armedSwap: handle(armedSwap),
    overdueSwap: handle(overdueSwap),
    readRoute,
    payRoute,
    receiverUrl,
    quoteRequest: btcToUsdt(),
  };
}

/** Runs `work` `count` times, POOL_CONCURRENCY at a time, and returns the results in order. */
async function inParallel<T>(count: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(POOL_CONCURRENCY, count) }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await work(i);
      }
    }),
  );
  return results;
}

/** Sends one signed JSON request and parses the answer. */
async function signed<T>(origin: string, signer: SignerOptions, method: string, path: string, body?: unknown) {
  const text = body === undefined ? '' : JSON.stringify(body);
  const headers: Record<string, string> = signHeaders(signer, method, path, text);
  if (text) headers['content-type'] = 'application/json';
  return readJson<T>(fetch(`${origin}${path}`, { method, headers, body: text || undefined }));
}

/** `count` POST /swaps bodies, each naming a fresh quote of its own (a quote makes one swap). */
export async function makeSwapBodies(origin: string, signer: SignerOptions, count: number): Promise<string[]> {
  const request = btcToUsdt();
  return inParallel(count, async () => {
    const res = await signed<{ quote: Quote }>(origin, signer, 'POST', '/api/v1/quotes', request);
    if (res.status !== 200) throw new Error(`POST /quotes for the pool answered ${res.status}: ${res.text}`);
    return JSON.stringify(swapBody(res.body.quote, request));
  });
}

/**
 * `count` POST /permanent-routes bodies, each for a fresh wallet: a challenge issued by the server and the
 * wallet's signature of it (a challenge is used once, and a route per wallet is created once).
 */
export async function makeRouteBodies(origin: string, signer: SignerOptions, count: number): Promise<string[]> {
  return inParallel(count, async () => {
    const wallet = freshZanoWallet();
    const target = { destinationAsset: 'ZANO', destinationNetwork: 'ZANO', destinationAddress: wallet.address };
    const res = await signed<{ challenge_id: string; challenge: string }>(
      origin,
      signer,
      'POST',
      '/api/v1/permanent-routes/challenges',
      target,
    );
    if (res.status !== 201) throw new Error(`POST /permanent-routes/challenges for the pool answered ${res.status}: ${res.text}`);
    const proof = signZanoMessage(wallet.secret, res.body.challenge, freshScalar(), 'v2');
    return JSON.stringify({
      ...target,
      externalUserId: signer.user,
      challengeId: res.body.challenge_id,
      message: res.body.challenge,
      ...proof,
    });
  });
}
