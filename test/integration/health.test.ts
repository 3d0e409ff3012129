import { expect } from 'chai';
import { API_VERSION } from '../../sdk/src/generated/version.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectError, request } from '../support/http.js';

describe('GET /health', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer();
  });
  afterEach(() => server.close());

  it('reports ok, the API version label and a passing database check', async () => {
    const res = await request<{
      status: string;
      version: string;
      time: string;
      checks: { database: { status: string; latencyMs: number } };
    }>(`${server.baseUrl}/health`);
    expect(res.status).to.equal(200);
    expect(res.body.status).to.equal('ok');
    expect(res.body.version).to.equal(API_VERSION); // the spec's info.version, as the SDK reports it too
    expect(res.body.checks.database.status).to.equal('ok');
    expect(Date.parse(res.body.time)).to.be.closeTo(Date.now(), 60_000);
  });

  it('is a 503 with the failing check when the database is unreachable', async () => {
    await server.knex.destroy();
    const res = await request<{ error: { details: { checks: { database: { status: string } } } } }>(`${server.baseUrl}/health`);
    expectError(res, 503, 'service_unavailable');
    expect(res.body.error.details.checks.database.status).to.equal('fail');
  });
});
