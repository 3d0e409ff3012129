import fs from 'node:fs';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/server.js';
import { request } from '../support/http.js';

// Every method and path of the reference document (section 4).
const REFERENCE_OPERATIONS = [
  'GET /health',
  'GET /assets',
  'GET /pairs',
  'POST /quotes',
  'GET /swaps',
  'POST /swaps',
  'GET /swaps/{id}',
  'GET /swaps/{id}/stream',
  'GET /partner/webhook',
  'PUT /partner/webhook',
  'GET /partner/markup',
  'PUT /partner/markup',
  'GET /partner/earnings',
  'POST /permanent-routes/challenges',
  'POST /permanent-routes',
  'GET /permanent-routes',
  'GET /permanent-routes/{id}',
  'GET /permanent-routes/{id}/deposits',
  'POST /permanent-routes/{id}/expect-deposit',
];

describe('GET /openapi.json', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('serves exactly the bundled generated/openapi.json', async () => {
    const res = await request(`${server.baseUrl}/openapi.json`);
    expect(res.status).to.equal(200);
    const bundled = JSON.parse(fs.readFileSync(new URL('../../generated/openapi.json', import.meta.url), 'utf8'));
    expect(res.body).to.deep.equal(bundled);
  });

  it('declares OpenAPI 3.1, version 1.12.0 and the /api/v1 server', async () => {
    const { body } = await request<{ openapi: string; info: { version: string }; servers: Array<{ url: string }> }>(
      `${server.baseUrl}/openapi.json`,
    );
    expect(body.openapi).to.match(/^3\.1\.\d+$/);
    expect(body.info.version).to.equal('1.12.0');
    expect(body.servers.map((s) => s.url)).to.include('/api/v1');
  });

  it('contains every method and path of the reference document', async () => {
    const { body } = await request<{ paths: Record<string, Record<string, unknown>> }>(`${server.baseUrl}/openapi.json`);
    const present = Object.entries(body.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));
    expect(present).to.include.members(REFERENCE_OPERATIONS);
    expect(new Set(REFERENCE_OPERATIONS.map((op) => op.split(' ')[1])).size).to.equal(15);
  });
});
