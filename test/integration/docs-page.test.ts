/**
 * The API reference page in a real browser (Debian's chromium, driven by playwright-core): it loads from the
 * service alone and shows the whole served document. Skipped, with the reason printed, only when no chromium
 * is installed (.ci/run installs it).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../support/server.js';

const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOT = fileURLToPath(new URL('../../test-artifacts/docs-page.png', import.meta.url));
const RENDER_TIMEOUT_MS = 60_000;

interface Operation {
  summary?: string;
  requestBody?: { content?: Record<string, MediaType> };
  responses?: Record<string, { content?: Record<string, MediaType> }>;
}
interface MediaType {
  examples?: Record<string, { value?: unknown }>;
}
interface ApiDocument {
  tags: { name: string }[];
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, { description?: string }> };
}

const api = JSON.parse(readFileSync(new URL('../../generated/openapi.json', import.meta.url), 'utf8')) as ApiDocument;
const operations = Object.values(api.paths).flatMap((item) => Object.values(item));
const webhooks = Object.values(api.webhooks).flatMap((item) => Object.values(item));

/** The little of the browser's DOM the page functions use (this project compiles without lib "dom"). */
interface PageGlobals {
  document: { querySelector(selector: string): { innerText: string } | null; body: { innerText: string } };
}

// Run in the page: the rendered text of the content (the renderer's <main>: no sidebar, nothing hidden).
function readContent(): string {
  const { document } = globalThis as unknown as PageGlobals;
  return (document.querySelector('main') ?? document.body).innerText;
}

// Run in the page: whether the rendered content holds every one of `texts`.
function holdsAll(texts: string[]): boolean {
  const { document } = globalThis as unknown as PageGlobals;
  const content = (document.querySelector('main') ?? document.body).innerText;
  return texts.every((text) => content.includes(text));
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

describe('GET /docs', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server?.close());

  it('serves the page with a policy that lets it load only from the service itself', async () => {
    const res = await fetch(`${server.origin}/docs`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    const policy = res.headers.get('content-security-policy') ?? '';
    expect(policy).to.include("default-src 'self'");
    expect(policy).to.include("connect-src 'self'");
    expect(policy).not.to.match(/https?:|\*/);
  });

  it('serves the renderer from node_modules, cached for good under a versioned URL', async () => {
    const page = await (await fetch(`${server.origin}/docs`)).text();
    const scripts = [...page.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts).to.have.length(2);
    for (const src of scripts) {
      expect(src).to.match(/^\/docs\/assets\//);
      const res = await fetch(`${server.origin}${src}`);
      expect(res.status, src).to.equal(200);
      expect(res.headers.get('content-type'), src).to.match(/javascript/);
      expect(res.headers.get('cache-control'), src).to.match(/max-age=31536000.*immutable/);
      expect((await res.arrayBuffer()).byteLength, src).to.be.greaterThan(0);
    }
  });

  it('answers only under /docs: the API and other paths get none of its headers', async () => {
    expect((await fetch(`${server.origin}/docs/`)).status).to.equal(200);
    const api = await fetch(`${server.origin}/api/v1/assets`);
    expect(api.status).to.equal(200);
    expect(api.headers.get('content-security-policy')).to.equal(null);
    // Not a path of the page: the service's own 404, with its Error body.
    const near = await fetch(`${server.origin}/docsx`);
    expect(near.status).to.equal(404);
    expect(near.headers.get('content-security-policy')).to.equal(null);
    expect(((await near.json()) as { error: { code: string } }).error.code).to.equal('not_found');
  });

  describe('in chromium', () => {
    let browser: Browser | undefined;
    let page: Page;
    const requests: string[] = [];
    const failedRequests: string[] = [];
    const errorResponses: string[] = [];
    const consoleErrors: string[] = [];
    let content = '';

    before(async function () {
      if (!existsSync(CHROMIUM)) {
        console.log(`      skipped: no chromium at ${CHROMIUM} (apt-get install chromium; .ci/run installs it)`);
        return this.skip();
      }
      this.timeout(RENDER_TIMEOUT_MS + 60_000);
      browser = await chromium.launch({ executablePath: CHROMIUM });
      page = await browser.newPage({ viewport: { width: 1440, height: 1200 } });
      page.on('request', (req) => requests.push(req.url()));
      page.on('requestfailed', (req) => failedRequests.push(`${req.url()}: ${req.failure()?.errorText}`));
      page.on('response', (res) => res.status() >= 400 && errorResponses.push(`${res.status()} ${res.url()}`));
      page.on('console', (msg) => msg.type() === 'error' && consoleErrors.push(`${msg.text()} (${msg.location().url})`));
      page.on('pageerror', (err) => consoleErrors.push(`uncaught: ${err.message}`));
      await page.goto(`${server.origin}/docs`, { waitUntil: 'networkidle' });
      // The renderer fills the page in idle time after the document arrives; wait until it holds every tag,
      // operation, webhook and schema name, then read it (a failure below then names what is missing).
      const expected = [
        ...api.tags.map((t) => t.name),
        ...[...operations, ...webhooks].map((o) => o.summary!),
        ...Object.keys(api.components.schemas),
      ];
      await page.waitForFunction(holdsAll, expected, { timeout: RENDER_TIMEOUT_MS, polling: 500 }).catch(() => undefined);
      content = await page.evaluate(readContent);
    });
    after(() => browser?.close());

    it('loads with no failed request and no answer above 399', () => {
      expect(failedRequests).to.deep.equal([]);
      expect(errorResponses).to.deep.equal([]);
    });

    it('requests nothing from outside the service (no CDN, no fonts, no telemetry)', () => {
      expect(requests).to.include(`${server.origin}/api/v1/openapi.json`);
      const outside = requests.filter((url) => !/^(data|blob):/.test(url) && new URL(url).origin !== server.origin);
      expect(outside).to.deep.equal([]);
    });

    it('logs no console error and throws no uncaught error', () => {
      expect(consoleErrors).to.deep.equal([]);
    });

    it('shows every tag and every operation summary of the served document', () => {
      const missing = [...api.tags.map((t) => t.name), ...operations.map((o) => o.summary!)].filter((t) => !content.includes(t));
      expect(missing).to.deep.equal([]);
    });

    it('shows every webhook and every schema', () => {
      expect(webhooks).to.have.length.greaterThan(0);
      const missing = [...webhooks.map((o) => o.summary!), ...Object.keys(api.components.schemas)].filter((t) => !content.includes(t));
      expect(missing).to.deep.equal([]);
    });

    it('shows the whole signing protocol of the security scheme description once its entry is opened', async () => {
      // The authentication panel shows each scheme's first line; "More" opens the rest. Every inline code
      // span and every line of the code blocks (the worked example) must then be on screen.
      const description = api.components.securitySchemes.serviceSignature!.description!;
      const blocks = [...description.matchAll(/```\w*\n([\s\S]*?)```/g)].map((m) => m[1]!);
      const spans = [...description.replace(/```[\s\S]*?```/g, '').matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
      const literals = [...spans, ...blocks.flatMap((block) => block.split('\n'))].map(collapse).filter(Boolean);
      expect(literals).to.include('PSS1-HMAC-SHA256');
      const entry = page.getByRole('region', { name: 'Introduction' }).getByLabel('ServiceSignature: header');
      await entry.getByRole('button', { name: 'More' }).click();
      const text = collapse(await entry.innerText());
      expect(literals.filter((literal) => !text.includes(literal))).to.deep.equal([]);
    });

    it('shows the first example of every request body and of every first response', () => {
      // Further named examples sit behind the renderer's example selector.
      const flat = content.replace(/\s+/g, '');
      const missing: string[] = [];
      for (const operation of [...operations, ...webhooks]) {
        const firstResponse = Object.values(operation.responses ?? {})[0];
        for (const media of [...Object.values(operation.requestBody?.content ?? {}), ...Object.values(firstResponse?.content ?? {})]) {
          const value = Object.values(media.examples ?? {})[0]?.value;
          if (typeof value !== 'object' || value === null) continue;
          if (!flat.includes(JSON.stringify(value).replace(/\s+/g, ''))) missing.push(operation.summary!);
        }
      }
      expect(missing).to.deep.equal([]);
    });

    it('saves a screenshot (the signing protocol in view) as a test artefact', async () => {
      await page.getByRole('region', { name: 'Introduction' }).getByLabel('ServiceSignature: header').scrollIntoViewIfNeeded();
      mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
      await page.screenshot({ path: SCREENSHOT });
      console.log(`      screenshot: ${SCREENSHOT}`);
      expect(existsSync(SCREENSHOT)).to.equal(true);
    });
  });
});
