import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectError, request } from '../support/http.js';
import { signHeaders, type SignerOptions } from '../support/signer.js';

// A documented webhook delivery record, for a handler that adds a field the spec does not list to it.
const DELIVERY = {
  id: '0b6f3c1e-2a4d-4c8e-9f10-5e7a9b3c2d1f',
  eventId: 'evt_0123456789',
  type: 'swap.updated' as const,
  attempt: 1,
  url: 'https://partner.example.com/hooks/swaps',
  succeeded: true,
  statusCode: 200,
  error: null,
  durationMs: 12,
  attemptedAt: '2026-11-27T10:00:00.000Z',
  nextAttemptAt: null,
};

describe('HTTP errors and request ids', () => {
  let server: TestServer;
  let partner: SignerOptions;
  // What the markup and deliveries handlers below add to their documented bodies (each test sets it).
  let undocumented: { top?: Record<string, unknown>; nested?: Record<string, unknown> } = {};
  before(async () => {
    server = await startTestServer({
      deps: {
        handlers: {
          // A handler that crashes, and one that answers with a body the spec does not allow.
          listAssets: async () => {
            throw new Error('database password=hunter2 exploded');
          },
          getHealth: async () => ({ status: 200, body: { status: 'ok', version: 5 } as never }),
          // Documented bodies, plus whatever the test adds: the published schemas are open (v1 adds response
          // fields), so only the server's closed copy of them (server/spec.ts) stands between a field and a partner.
          getPartnerMarkup: async () => ({ status: 200, body: { percent: 0, updatedAt: null, ...undocumented.top } }),
          listWebhookDeliveries: async () => ({
            status: 200,
            body: { deliveries: [{ ...DELIVERY, ...undocumented.nested }], nextCursor: null },
          }),
        },
      },
    });
    partner = await server.createSigner();
  });
  after(() => server.close());

  it('answers an unknown path with 404 and the Error body', async () => {
    expectError(await request(`${server.baseUrl}/nope`), 404, 'not_found');
  });

  it('answers a path outside the API prefix with 404 and the Error body', async () => {
    expectError(await request(`${server.origin}/`), 404, 'not_found');
  });

  it('answers a wrong method with 405, the Error body and an Allow header', async () => {
    const res = await request(`${server.baseUrl}/assets`, { method: 'DELETE' });
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).to.equal('GET');
  });

  it('answers a method a concrete path lacks with 405, though a templated path has it', async () => {
    // /permanent-routes/challenges (POST only) and /permanent-routes/{id} (GET) both match this path; as in
    // OpenAPI, the concrete path is the one matched.
    const path = '/api/v1/permanent-routes/challenges';
    // Signed or not: routing answers it, before authentication, as every wrong method.
    for (const headers of [signHeaders(partner, 'GET', path, ''), {}]) {
      const res = await request(`${server.origin}${path}`, { headers });
      expectError(res, 405, 'method_not_allowed');
      expect(res.headers.get('allow')).to.equal('POST');
    }
  });

  it('answers a malformed JSON body to a POST with 400 malformed_json', async () => {
    const body = '{"sourceAsset": "BTC",';
    const res = await request(`${server.baseUrl}/quotes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...signHeaders(partner, 'POST', '/api/v1/quotes', body) },
      body,
    });
    expectError(res, 400, 'malformed_json');
  });

  it('answers HEAD on a GET operation like GET, without a body', async () => {
    const res = await fetch(`${server.baseUrl}/pairs`, { method: 'HEAD' });
    expect(res.status).to.equal(200);
    expect(await res.text()).to.equal('');
  });

  it('refuses a compressed body with 415, because signatures cover the bytes as sent', async () => {
    const body = gzipSync('{"percent":1}');
    const res = await request(`${server.baseUrl}/partner/markup`, {
      method: 'PUT',
      headers: {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        ...signHeaders(partner, 'PUT', '/api/v1/partner/markup', body.toString('latin1')),
      },
      body,
    });
    expectError(res, 415, 'unsupported_media_type');
  });

  it('answers a body over 64 KiB with 413 payload_too_large', async () => {
    const res = await request(`${server.baseUrl}/quotes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ padding: 'x'.repeat(70 * 1024) }),
    });
    expectError(res, 413, 'payload_too_large');
  });

  it('answers an unexpected failure with 500 internal_error and no internals', async () => {
    const res = await request(`${server.baseUrl}/assets`);
    expectError(res, 500, 'internal_error');
    expect(res.text).not.to.contain('hunter2');
    expect(res.text).not.to.contain('exploded');
  });

  it('turns a response that breaks the spec into 500 internal_error instead of sending it', async () => {
    const res = await request(`${server.baseUrl}/health`);
    expectError(res, 500, 'internal_error');
  });

  it('turns a response with a field the spec does not document, at the top or nested, into 500 internal_error', async () => {
    const get = (path: string) => request(`${server.baseUrl}${path}`, { headers: signHeaders(partner, 'GET', `/api/v1${path}`) });
    undocumented = {};
    expect((await get('/partner/markup')).status).to.equal(200);
    expect((await get('/partner/webhook/deliveries')).status).to.equal(200);
    undocumented = { top: { tier: 'gold' } };
    expectError(await get('/partner/markup'), 500, 'internal_error');
    undocumented = { nested: { receiverIp: '203.0.113.7' } };
    expectError(await get('/partner/webhook/deliveries'), 500, 'internal_error');
  });

  it('puts an x-request-id on every response and echoes a sane incoming one', async () => {
    const fresh = await request(`${server.baseUrl}/pairs`);
    expect(fresh.headers.get('x-request-id')).to.match(/^req_[0-9A-Z]{26}$/);
    const echoed = await request(`${server.baseUrl}/pairs`, { headers: { 'x-request-id': 'partner-trace-12345' } });
    expect(echoed.headers.get('x-request-id')).to.equal('partner-trace-12345');
    const replaced = await request(`${server.baseUrl}/pairs`, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(replaced.headers.get('x-request-id')).to.match(/^req_/);
  });
});
