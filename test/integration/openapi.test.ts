import fs from 'node:fs';
import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import { parse } from 'yaml';
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

  it('sends the document brotli-compressed to a client that accepts br, gzip-compressed to one that accepts only gzip, and plain to one that accepts neither', async () => {
    const fetchRaw = (acceptEncoding: string | undefined) =>
      new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        const headers = acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding };
        http
          .get(`${server.baseUrl}/openapi.json`, { headers }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
          })
          .on('error', reject);
      });
    const plain = await fetchRaw(undefined);
    expect(plain.headers['content-encoding']).to.equal(undefined);
    expect(plain.headers.vary).to.match(/accept-encoding/i);
    const gzipped: number[] = [];
    for (const accepted of ['gzip', 'br;q=0, gzip', 'deflate, gzip']) {
      const zipped = await fetchRaw(accepted);
      expect(zipped.headers['content-encoding'], accepted).to.equal('gzip');
      expect(zipped.headers['content-type']).to.match(/^application\/json/);
      expect(zipped.body.length).to.be.below(plain.body.length / 4);
      expect(gunzipSync(zipped.body).equals(plain.body)).to.equal(true);
      gzipped.push(zipped.body.length);
    }
    // Browsers and fetch send "gzip, deflate, br": brotli, whatever the order, is the smaller.
    for (const accepted of ['gzip, deflate, br', 'br', 'br, gzip']) {
      const brotli = await fetchRaw(accepted);
      expect(brotli.headers['content-encoding'], accepted).to.equal('br');
      expect(brotli.headers['content-type']).to.match(/^application\/json/);
      expect(brotli.body.length).to.be.below(gzipped[0]);
      expect(brotliDecompressSync(brotli.body).equals(plain.body)).to.equal(true);
    }
    for (const refused of ['identity', 'gzip;q=0', 'br;q=0', 'compress']) {
      expect((await fetchRaw(refused)).headers['content-encoding'], refused).to.equal(undefined);
    }
  });

  it("declares OpenAPI 3.1, the spec's info.version and the /api/v1 server", async () => {
    const { body } = await request<{ openapi: string; info: { version: string }; servers: Array<{ url: string }> }>(
      `${server.baseUrl}/openapi.json`,
    );
    expect(body.openapi).to.match(/^3\.1\.\d+$/);
    // spec/openapi.yaml is the one place the label is written; the served document must carry it as written.
    const spec = parse(fs.readFileSync(new URL('../../spec/openapi.yaml', import.meta.url), 'utf8')) as { info: { version: string } };
    expect(body.info.version).to.equal(spec.info.version);
    expect(body.servers.map((s) => s.url)).to.include('/api/v1');
  });

  it('contains every method and path of the reference document', async () => {
    const { body } = await request<{ paths: Record<string, Record<string, unknown>> }>(`${server.baseUrl}/openapi.json`);
    const present = Object.entries(body.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));
    expect(present).to.include.members(REFERENCE_OPERATIONS);
    expect(new Set(REFERENCE_OPERATIONS.map((op) => op.split(' ')[1])).size).to.equal(15);
  });
});
