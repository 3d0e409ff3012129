/**
 * `make mock` (scripts/mock.ts) run as a process: Prism's mock, and the API reference page beside it whose
 * /api/v1 requests reach the mock.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { freePort, spawnGroup, waitForHttp, type Child } from '../support/process.js';

const root = path.resolve(import.meta.dirname, '../..');
const spec = JSON.parse(fs.readFileSync(path.join(root, 'generated/openapi.json'), 'utf8'));

describe('make mock (scripts/mock.ts)', function () {
  this.timeout(90_000);
  let child: Child;
  let mockUrl: string;
  let docsOrigin: string;
  before(async () => {
    const [mockPort, docsPort] = [await freePort(), await freePort()];
    mockUrl = `http://127.0.0.1:${mockPort}`;
    docsOrigin = `http://127.0.0.1:${docsPort}`;
    child = spawnGroup(
      process.execPath,
      ['--import', 'tsx', 'scripts/mock.ts', '--port', String(mockPort), '--docs-port', String(docsPort)],
      // Unset (empty): the mock answers any origin.
      { MOCK_CORS_ORIGINS: '' },
      root,
    );
    await waitForHttp(`${mockUrl}/health`, 60_000, child);
    await waitForHttp(`${docsOrigin}/docs`, 10_000, child);
    // The addresses are printed once the mock answers.
    const deadline = Date.now() + 10_000;
    while (!child.output().includes('reference page:') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  });
  after(() => child?.stop());

  it('prints where the mock and the reference page are', () => {
    expect(child.output()).to.include(`mock:           ${mockUrl}`);
    expect(child.output()).to.include(`reference page: ${docsOrigin}/docs`);
  });

  it('serves the reference page with its policy', async () => {
    const res = await fetch(`${docsOrigin}/docs`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-security-policy')).to.include("default-src 'self'");
  });

  it('gives the page the bundled document, not the mock example of it', async () => {
    const res = await fetch(`${docsOrigin}/api/v1/openapi.json`);
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal(spec);
  });

  it("passes the page's other /api/v1 requests to the mock", async () => {
    const res = await fetch(`${docsOrigin}/api/v1/assets`);
    expect(res.status).to.equal(200);
    const examples: Record<string, { value: unknown }> = spec.paths['/assets'].get.responses['200'].content['application/json'].examples;
    expect(await res.json()).to.deep.equal(Object.values(examples)[0]!.value);
  });

  it('answers a page of any origin when MOCK_CORS_ORIGINS is unset', async () => {
    const res = await fetch(`${mockUrl}/assets`, { headers: { origin: 'http://localhost:5173' } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('access-control-allow-origin')).to.equal('*');
    expect(res.headers.get('access-control-expose-headers')).to.contain('x-request-id');
  });
});
