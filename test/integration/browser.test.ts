/**
 * The browser SDK (`@partner-swap/sdk/browser`) in a real browser, Debian's chromium driven by playwright-core,
 * on a page served from another origin than the API (another port), as a partner's frontend is: the API lists
 * the page's origin in CORS_ORIGINS. The page reads the catalogue, reads a swap with its access token, and
 * follows its stream to `finished` through a sandbox payment the test makes, signed, from Node; once more
 * through a connection dropped mid-stream. The page verifies a swap's signed deposit instructions
 * (verifyDepositInstructions, WebCrypto, keys from GET /signing-keys). A signed operation called from the page is
 * refused by the browser's CORS check. Skipped, with the reason printed, only when no chromium is installed.
 */
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { build } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import type * as BrowserSdk from '../../sdk/src/browser.js';
import { request } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { swapClient } from '../support/swaps.js';

const CHROMIUM = '/usr/bin/chromium';
const BROWSER_ENTRY = fileURLToPath(new URL('../../sdk/src/browser.ts', import.meta.url));
const STREAM_TIMEOUT_MS = 60_000;

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>A partner's page</title>
<script type="module">
  import * as sdk from '/sdk.js';
  window.sdk = sdk;
</script>
`;

/** What the page holds while it follows a stream (written by the page functions below). */
interface Run {
  events: BrowserSdk.SwapStreamEvent[];
  done: boolean;
  error?: string;
  /** The Last-Event-ID each stream connection was opened with (null: none). */
  lastEventIds: Array<string | null>;
  /** The status ids the page had yielded when each connection opened. */
  yieldedAtConnect: string[][];
}

/** The little of the page's globals the page functions use (this project compiles without lib "dom"). */
interface PageGlobals {
  sdk?: typeof BrowserSdk;
  runs: Record<string, Run>;
  fetch: typeof fetch;
}

interface Follow {
  baseUrl: string;
  swapId: string;
  accessToken: string;
  /** Drop the first stream connection once it has passed two status entries (a network failure). */
  drop: boolean;
}

// Run in the page: starts following a swap into runs[swapId]; with `drop`, the first connection fails
// mid-stream, after the chunk that brought its second status entry (and before any terminal one) was read.
function startFollowing({ baseUrl, swapId, accessToken, drop }: Follow): void {
  const page = globalThis as unknown as PageGlobals;
  const run: Run = { events: [], done: false, lastEventIds: [], yieldedAtConnect: [] };
  page.runs ??= {};
  page.runs[swapId] = run;
  const statusIds = () => run.events.flatMap((e) => (e.type === 'status' ? [e.event.id] : []));
  const recordingFetch = async (input: string, init: RequestInit): Promise<Response> => {
    const response = await page.fetch(input, init);
    if (!input.endsWith('/stream')) return response;
    run.lastEventIds.push((init.headers as Record<string, string>)['last-event-id'] ?? null);
    run.yieldedAtConnect.push(statusIds());
    if (!drop || run.lastEventIds.length > 1 || !response.body) return response;
    const source = response.body.getReader();
    const decoder = new TextDecoder();
    let statuses = 0;
    let dropNow = false;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (dropNow) {
          await source.cancel();
          return controller.error(new TypeError('network error: the test dropped the connection'));
        }
        const { done, value } = await source.read();
        if (done) return controller.close();
        const text = decoder.decode(value, { stream: true });
        statuses += text.split('event: status').length - 1;
        // Failing on the next read lets the reader have this chunk first (an error drops queued chunks).
        dropNow = statuses >= 2 && !text.includes('"terminal":true');
        controller.enqueue(value);
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
  const viewer = page.sdk!.createSwapViewer({ baseUrl, swapId, accessToken, fetch: recordingFetch });
  void (async () => {
    try {
      for await (const event of viewer.stream({ reconnectDelayMs: 100 })) run.events.push(event);
    } catch (err) {
      run.error = String(err);
    }
    run.done = true;
  })();
}

// Run in the page.
function hasStatus(swapId: string): boolean {
  const run = (globalThis as unknown as PageGlobals).runs?.[swapId];
  return run !== undefined && run.events.some((e) => e.type === 'status');
}

// Run in the page.
function isDone(swapId: string): boolean {
  return (globalThis as unknown as PageGlobals).runs?.[swapId]?.done === true;
}

// Run in the page.
function readRun(swapId: string): Run {
  return (globalThis as unknown as PageGlobals).runs[swapId];
}

// Run in the page: GET /assets with the page's fetch, and what the page can read of the answer.
async function readAssets(baseUrl: string) {
  const response = await (globalThis as unknown as PageGlobals).fetch(`${baseUrl}/assets`);
  const body = (await response.json()) as { assets: unknown[] };
  return {
    status: response.status,
    assets: body.assets.length,
    requestId: response.headers.get('x-request-id'),
    rateLimitRemaining: response.headers.get('ratelimit-remaining'),
  };
}

// Run in the page: the viewer's get(), with the token or another one.
async function readSwap({ baseUrl, swapId, accessToken }: Omit<Follow, 'drop'>) {
  const viewer = (globalThis as unknown as PageGlobals).sdk!.createSwapViewer({ baseUrl, swapId, accessToken });
  const { data, error, response } = await viewer.get();
  return {
    status: response.status,
    id: data?.order.id,
    events: data?.events.length,
    error: error && { code: error.code, requestId: error.requestId },
  };
}

// Run in the page: a signed operation called with fetch, as a page holding a partner secret would.
async function callSigned(baseUrl: string): Promise<string> {
  try {
    const response = await (globalThis as unknown as PageGlobals).fetch(`${baseUrl}/quotes`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-service-key-id': 'pk_sandbox_leaked',
        'x-service-user': 'customer-1',
        'x-service-timestamp': String(Math.floor(Date.now() / 1000)),
        'x-service-nonce': 'n0nce-0123456789abcdef',
        'x-service-signature': `v1=${'0'.repeat(64)}`,
      },
      body: '{}',
    });
    return `resolved with ${response.status}`;
  } catch (err) {
    return `${(err as Error).name}: ${(err as Error).message}`;
  }
}

// Run in the page: reads the swap with its token and verifies its deposit instructions with verifyDepositInstructions
// (keys fetched from GET /signing-keys), as shown and with the address changed; what each verification gave.
async function verifyInstructions({ baseUrl, swapId, accessToken }: Omit<Follow, 'drop'>) {
  const sdk = (globalThis as unknown as PageGlobals).sdk!;
  const { data } = await sdk.createSwapViewer({ baseUrl, swapId, accessToken }).get();
  const order = data!.order;
  const outcome = async (swap: typeof order) => {
    try {
      const payload = await sdk.verifyDepositInstructions(order.depositInstructionsJws!, { baseUrl, swap });
      return { verified: payload.depositAddress };
    } catch (err) {
      return { refused: (err as InstanceType<typeof BrowserSdk.DepositInstructionsError>).reason };
    }
  };
  const [header, payload, signature] = order.depositInstructionsJws!.split('.');
  const changed = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/')));
  changed.depositAddress = 'bc1qchangedbythepage';
  const forged = `${header}.${btoa(JSON.stringify(changed)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}.${signature}`;
  let forgedOutcome;
  try {
    await sdk.verifyDepositInstructions(forged, { baseUrl });
    forgedOutcome = 'verified';
  } catch (err) {
    forgedOutcome = (err as InstanceType<typeof BrowserSdk.DepositInstructionsError>).reason;
  }
  return {
    address: order.depositAddress,
    shown: await outcome(order),
    otherAddress: await outcome({ ...order, depositAddress: 'bc1qnotthisone' }),
    forged: forgedOutcome,
  };
}

const statusIds = (events: BrowserSdk.SwapStreamEvent[]) => events.flatMap((e) => (e.type === 'status' ? [e.event.id] : []));

describe('the browser SDK in chromium, on a page of another origin', function () {
  this.timeout(STREAM_TIMEOUT_MS + 60_000);
  let pageServer: http.Server | undefined;
  let pageOrigin: string;
  let server: TestServer | undefined;
  let client: ReturnType<typeof swapClient>;
  let browser: Browser | undefined;
  let page: Page;
  const consoleErrors: string[] = [];

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      console.log(`      skipped: no chromium at ${CHROMIUM} (apt-get install chromium; .ci/run installs it)`);
      return this.skip();
    }
    // The browser entry as a page loads it: one ES module, bundled with its one dependency (eventsource-parser).
    const bundle = await build({ entryPoints: [BROWSER_ENTRY], bundle: true, format: 'esm', platform: 'browser', write: false });
    const script = bundle.outputFiles[0].text;
    pageServer = http.createServer((req, res) => {
      if (req.url === '/') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
      else if (req.url === '/sdk.js') res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(script);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => pageServer!.listen(0, '127.0.0.1', resolve));
    pageOrigin = `http://localhost:${(pageServer.address() as AddressInfo).port}`;
    // Blocks of 0.3 s: the stream brings the swap's entries over several chunks, so one can be dropped mid-way.
    server = await startTestServer({ env: { CORS_ORIGINS: pageOrigin, SANDBOX_BLOCK_SECONDS: '0.3' } });
    client = swapClient(server.origin, await server.createSigner());
    browser = await chromium.launch({ executablePath: CHROMIUM });
    page = await browser.newPage();
    // tsx compiles this file with esbuild's keepNames, which wraps the page functions' inner functions in a
    // __name() helper; those functions run in the page, where the helper does not exist.
    await page.addInitScript({ content: 'globalThis.__name = (target) => target;' });
    page.on('pageerror', (err) => consoleErrors.push(`uncaught: ${err.message}`));
    await page.goto(`${pageOrigin}/`);
    await page.waitForFunction(() => (globalThis as unknown as PageGlobals).sdk !== undefined);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await new Promise((resolve) => (pageServer ? pageServer.close(resolve) : resolve(undefined)));
  });

  it('is served from another origin than the API', () => {
    expect(new URL(pageOrigin).origin).not.to.equal(new URL(server!.origin).origin);
  });

  it('reads GET /assets, with the request id and rate-limit headers readable', async () => {
    const answer = await page.evaluate(readAssets, server!.baseUrl);
    expect(answer.status).to.equal(200);
    expect(answer.assets).to.be.greaterThan(0);
    expect(answer.requestId).to.match(/^req_/);
    expect(answer.rateLimitRemaining).to.match(/^\d+$/);
  });

  it('reads a swap with its access token, and reads the 401 of a wrong token with its request id', async () => {
    const { order, accessToken } = await client.create();
    // The timeline's first entry comes with the deposit address (the swap's first step, just after the
    // create), which is what the spec tells a page to wait for.
    await client.waitFor(order.id, (o) => !!o.depositAddress);
    const answer = await page.evaluate(readSwap, { baseUrl: server!.baseUrl, swapId: order.id, accessToken });
    expect(answer).to.deep.include({ status: 200, id: order.id });
    expect(answer.events).to.be.greaterThan(0);
    const other = await client.create();
    const refused = await page.evaluate(readSwap, { baseUrl: server!.baseUrl, swapId: order.id, accessToken: other.accessToken });
    expect(refused.status).to.equal(401);
    expect(refused.error?.code).to.equal('invalid_token');
    expect(refused.error?.requestId).to.match(/^req_/);
  });

  /** A new swap followed by the page (its first stream connection dropped mid-way when `drop`), paid in the sandbox, to its end. */
  async function followToEnd({ drop }: { drop: boolean }) {
    const { order, accessToken } = await client.create();
    await page.evaluate(startFollowing, { baseUrl: server!.baseUrl, swapId: order.id, accessToken, drop });
    await page.waitForFunction(hasStatus, order.id, { timeout: STREAM_TIMEOUT_MS });
    await client.pay(order);
    await page.waitForFunction(isDone, order.id, { timeout: STREAM_TIMEOUT_MS });
    return { run: await page.evaluate(readRun, order.id), timeline: (await client.get(order.id)).events };
  }

  it('follows the stream through a sandbox payment to finished, every timeline entry once and in order', async () => {
    const { run, timeline } = await followToEnd({ drop: false });
    expect(run.error).to.equal(undefined);
    expect(timeline.at(-1)?.status).to.equal('finished');
    expect(statusIds(run.events)).to.deep.equal(timeline.map((e) => e.id));
    expect(run.lastEventIds).to.deep.equal([null]);
  });

  it('resumes a connection dropped mid-stream with Last-Event-ID: no entry twice, none missing', async () => {
    const { run, timeline } = await followToEnd({ drop: true });
    expect(run.error).to.equal(undefined);
    expect(run.lastEventIds).to.have.length(2);
    expect(run.lastEventIds[0]).to.equal(null);
    // The reconnect asked for what came after the last entry the page had, mid-way through the timeline.
    const before = run.yieldedAtConnect[1];
    expect(before.length).to.be.within(2, timeline.length - 1);
    expect(run.lastEventIds[1]).to.equal(before.at(-1));
    expect(statusIds(run.events)).to.deep.equal(timeline.map((e) => e.id));
  });

  it('cannot call a signed operation: the browser refuses it on the preflight, whose Error body says why', async () => {
    const outcome = await page.evaluate(callSigned, server!.baseUrl);
    expect(outcome).to.match(/^TypeError: /);
    const preflight = await request(`${server!.baseUrl}/quotes`, {
      method: 'OPTIONS',
      headers: {
        origin: pageOrigin,
        'access-control-request-method': 'POST',
        'access-control-request-headers':
          'content-type,x-service-key-id,x-service-nonce,x-service-signature,x-service-timestamp,x-service-user',
      },
    });
    expect(preflight.status).to.equal(403);
    expect(preflight.headers.get('access-control-allow-origin')).to.equal(null);
    expect(preflight.body).to.have.nested.property('error.code', 'browser_not_allowed');
    expect((preflight.body as { error: { message: string } }).error.message).to.contain('partner secret in a browser is a leak');
  });

  it("verifies a swap's signed deposit instructions with WebCrypto, and refuses them for another address or once changed", async () => {
    const { order, accessToken } = await client.create();
    await client.waitFor(order.id, (o) => !!o.depositInstructionsJws);
    const answer = await page.evaluate(verifyInstructions, { baseUrl: server!.baseUrl, swapId: order.id, accessToken });
    expect(answer.shown).to.deep.equal({ verified: answer.address });
    expect(answer.otherAddress).to.deep.equal({ refused: 'mismatch' });
    expect(answer.forged).to.equal('invalid_signature');
  });

  it('throws no uncaught error in the page', () => {
    expect(consoleErrors).to.deep.equal([]);
  });
});
