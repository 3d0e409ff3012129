/**
 * `make mock` (scripts/mock.ts) run as a process answers browsers as the service does (server/http/cors.ts):
 * token reads and public operations for the origins of MOCK_CORS_ORIGINS, a signed operation's preflight
 * refused. Prism's own CORS would allow every origin every operation.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { components } from '../../generated/api.js';
import { freePort, spawnGroup, waitForHttp, type Child } from '../support/process.js';

const root = path.resolve(import.meta.dirname, '../..');
const spec = JSON.parse(fs.readFileSync(path.join(root, 'generated/openapi.json'), 'utf8'));
const frontend = 'http://localhost:5173';
type ErrorBody = components['schemas']['Error'];

const swapId = '3f2b8a1e-6c4d-4e7a-9b1f-2d5c8e0a4b71';

describe('make mock (scripts/mock.ts) with MOCK_CORS_ORIGINS', function () {
  this.timeout(90_000);
  let child: Child;
  let mockUrl: string;
  before(async () => {
    const [mockPort, docsPort] = [await freePort(), await freePort()];
    mockUrl = `http://127.0.0.1:${mockPort}`;
    child = spawnGroup(
      process.execPath,
      ['--import', 'tsx', 'scripts/mock.ts', '--port', String(mockPort), '--docs-port', String(docsPort)],
      { MOCK_CORS_ORIGINS: frontend },
      root,
    );
    await waitForHttp(`${mockUrl}/health`, 60_000, child);
  });
  after(() => child?.stop());

  function preflight(pathName: string, method: string, headers: string, origin = frontend): Promise<Response> {
    return fetch(`${mockUrl}${pathName}`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
    });
  }

  it('answers the preflight of a token read and of the stream from a listed origin', async () => {
    for (const pathName of [`/swaps/${swapId}`, `/swaps/${swapId}/stream`]) {
      const res = await preflight(pathName, 'GET', 'authorization,last-event-id');
      expect(res.status, pathName).to.equal(204);
      expect(res.headers.get('access-control-allow-origin'), pathName).to.equal(frontend);
      expect(res.headers.get('access-control-allow-methods'), pathName).to.contain('GET');
      expect(res.headers.get('access-control-allow-headers'), pathName).to.equal('authorization, last-event-id');
    }
  });

  it("refuses a signed operation's preflight with 403 browser_not_allowed and the Error body", async () => {
    const res = await preflight('/quotes', 'POST', 'content-type,x-service-key-id,x-service-signature');
    expect(res.status).to.equal(403);
    expect(res.headers.get('access-control-allow-origin')).to.equal(null);
    const body = (await res.json()) as ErrorBody;
    expect(body.error.code).to.equal('browser_not_allowed');
    expect(body.error.message).to.be.a('string').and.contain('POST /quotes');
    expect(body.error.details).to.deep.equal({ operation: 'POST /quotes' });
    expect(body.error.requestId).to.equal(res.headers.get('x-request-id'));
  });

  it('refuses a preflight from an origin not listed with 403 origin_not_allowed', async () => {
    const res = await preflight(`/swaps/${swapId}`, 'GET', 'authorization', 'http://localhost:3000');
    expect(res.status).to.equal(403);
    expect(res.headers.get('access-control-allow-origin')).to.equal(null);
    expect(((await res.json()) as ErrorBody).error.code).to.equal('origin_not_allowed');
  });

  it("gives a listed origin's page the documented example with the headers it may read", async () => {
    const res = await fetch(`${mockUrl}/assets`, { headers: { origin: frontend } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('access-control-allow-origin')).to.equal(frontend);
    expect(res.headers.get('access-control-expose-headers')).to.contain('x-request-id').and.contain('ratelimit-remaining');
    const examples: Record<string, { value: unknown }> = spec.paths['/assets'].get.responses['200'].content['application/json'].examples;
    expect(await res.json()).to.deep.equal(Object.values(examples)[0]!.value);
  });
});
