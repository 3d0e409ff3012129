/**
 * The README's "From the browser" page, exactly as the README gives it, in a real browser (Debian's chromium,
 * driven by playwright-core), served from another origin than the API: once against the real server (a sandbox
 * swap the test pays, signed, from Node) and once against `make mock` (scripts/mock.ts, the spec's stream
 * example). Each time the page must end showing what the stream alone told it: `finished`, the payout's hash
 * and amount, and the timeline. The SDK import resolves through an import map, as the page's comment says.
 * Skipped, with the reason printed, only when no chromium is installed.
 */
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { build } from 'esbuild';
import { chromium, type Browser } from 'playwright-core';
import { freePort, spawnGroup, waitForHttp, type Child } from '../support/process.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { swapClient } from '../support/swaps.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CHROMIUM = '/usr/bin/chromium';
const BROWSER_ENTRY = path.join(ROOT, 'sdk/src/browser.ts');
const TIMEOUT_MS = 60_000;
/** The base URL the README's page names; the test serves the page with the API's own. */
const README_BASE_URL = 'https://swap.example.com/api/v1';

/** The first ```html block of the README's "From the browser" section. */
function readmePage(): string {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## From the browser'));
  const match = /```html\n([\s\S]*?)```/.exec(section);
  if (!match) throw new Error('README.md: no html block under "From the browser"');
  return match[1];
}

/** The little of the page's DOM the test reads (this project compiles without lib "dom"). */
interface PageGlobals {
  document: { getElementById(id: string): { textContent: string | null } | null; querySelectorAll(selector: string): { length: number } };
}

// Run in the page: what it shows.
function shown() {
  const { document } = globalThis as unknown as PageGlobals;
  const text = (id: string) => document.getElementById(id)?.textContent ?? '';
  return {
    status: text('status'),
    payout: text('payout'),
    received: text('received'),
    entries: document.querySelectorAll('#timeline li').length,
  };
}

// Run in the page: whether its status reads `status`.
function showsStatus(status: string): boolean {
  return (globalThis as unknown as PageGlobals).document.getElementById('status')?.textContent === status;
}

describe("the README's browser page in chromium", function () {
  this.timeout(TIMEOUT_MS + 90_000);
  let browser: Browser | undefined;
  let pageServer: http.Server | undefined;
  let pageOrigin: string;
  let server: TestServer | undefined;
  let mock: Child | undefined;
  let mockUrl: string;
  const pageErrors: string[] = [];
  /** What the page server answers now: the page for one API, and the swap "your backend" hands it. */
  let current: { baseUrl: string; swap: { swapId: string; accessToken: string } } | undefined;

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      console.log(`      skipped: no chromium at ${CHROMIUM} (apt-get install chromium; .ci/run installs it)`);
      return this.skip();
    }
    const page = readmePage();
    expect(page).to.contain(README_BASE_URL);
    expect(page).to.contain("from '@partner-swap/sdk/browser'");
    const bundle = await build({ entryPoints: [BROWSER_ENTRY], bundle: true, format: 'esm', platform: 'browser', write: false });
    const script = bundle.outputFiles[0].text;
    // The README's page, with an import map before it (what "an import map" in its comment means) and the API's URL.
    const importMap = '<script type="importmap">{"imports":{"@partner-swap/sdk/browser":"/sdk.js"}}</script>\n';
    pageServer = http.createServer((req, res) => {
      if (req.url === '/' && current) {
        const html = page.replace('<script type="module">', `${importMap}<script type="module">`).replace(README_BASE_URL, current.baseUrl);
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
      } else if (req.url === '/sdk.js') res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(script);
      else if (req.url === '/my-backend/swap' && current)
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(current.swap));
      else if (req.url === '/favicon.ico') res.writeHead(204).end();
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => pageServer!.listen(0, '127.0.0.1', resolve));
    pageOrigin = `http://localhost:${(pageServer.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM });
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await mock?.stop();
    await new Promise((resolve) => (pageServer ? pageServer.close(resolve) : resolve(undefined)));
  });

  async function openPage() {
    const tab = await browser!.newPage();
    // tsx compiles this file with esbuild's keepNames, which wraps inner functions of the page functions in a
    // __name() helper that does not exist in the page.
    await tab.addInitScript({ content: 'globalThis.__name = (target) => target;' });
    tab.on('pageerror', (err) => pageErrors.push(`uncaught: ${err.message}`));
    tab.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(message.text());
    });
    await tab.goto(`${pageOrigin}/`);
    return tab;
  }

  it('against the real server: ends showing finished, the payout hash and amount, from the stream alone', async () => {
    server = await startTestServer({ env: { CORS_ORIGINS: pageOrigin, SANDBOX_BLOCK_SECONDS: '0.3' } });
    const client = swapClient(server.origin, await server.createSigner());
    const { order, accessToken } = await client.create();
    current = { baseUrl: server.baseUrl, swap: { swapId: order.id, accessToken } };
    const tab = await openPage();
    await tab.waitForFunction(showsStatus, 'waiting', { timeout: TIMEOUT_MS });
    await client.pay(order);
    await tab.waitForFunction(showsStatus, 'finished', { timeout: TIMEOUT_MS });
    const { order: finished, events } = await client.get(order.id);
    const page = await tab.evaluate(shown);
    expect(page.status).to.equal('finished');
    expect(page.payout).to.equal(finished.settlementTxHash);
    expect(page.payout).to.have.length.greaterThan(10);
    expect(page.received).to.equal(`${finished.actualOutputAmount} ${finished.destinationAsset}`);
    expect(page.entries).to.equal(events.length);
    await tab.close();
  });

  it('against make mock: ends showing finished and the payout hash of the spec example', async () => {
    const [mockPort, docsPort] = [await freePort(), await freePort()];
    mockUrl = `http://127.0.0.1:${mockPort}`;
    mock = spawnGroup(
      process.execPath,
      ['--import', 'tsx', 'scripts/mock.ts', '--port', String(mockPort), '--docs-port', String(docsPort)],
      { MOCK_CORS_ORIGINS: pageOrigin },
      ROOT,
    );
    await waitForHttp(`${mockUrl}/health`, 60_000, mock);
    current = { baseUrl: mockUrl, swap: { swapId: '3f2b8a1e-6c4d-4e7a-9b1f-2d5c8e0a4b71', accessToken: 'sat_from_your_backend' } };
    const tab = await openPage();
    await tab.waitForFunction(showsStatus, 'finished', { timeout: TIMEOUT_MS });
    const page = await tab.evaluate(shown);
    expect(page.payout).to.match(/^0x[0-9a-f]{64}$/);
    expect(page.received).to.match(/^\d+(\.\d+)? USDT$/);
    expect(page.entries).to.equal(2);
    await tab.close();
  });

  it('throws no error in the page', () => {
    expect(pageErrors).to.deep.equal([]);
  });
});
