/**
 * CORS (issue 38): the public operations and the swap reads of an access token answer browsers of the
 * origins CORS_ORIGINS lists; a signed operation's preflight is refused with the Error body; without
 * CORS_ORIGINS nothing changes.
 */
import { expect } from 'chai';
import { expectError, request, type JsonResponse } from '../support/http.js';
import { signHeaders } from '../support/signer.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { swapClient } from '../support/swaps.js';

const PAGE = 'https://app.example.com';
const OTHER_PAGE = 'https://evil.example.net';

/** A browser's preflight of `method path` from `origin`, asking to send `headers`. */
function preflight(server: TestServer, path: string, method: string, headers: string[] = [], origin = PAGE): Promise<JsonResponse> {
  const asked: Record<string, string> = { origin, 'access-control-request-method': method };
  if (headers.length > 0) asked['access-control-request-headers'] = headers.join(',');
  return request(`${server.baseUrl}${path}`, { method: 'OPTIONS', headers: asked });
}

const SIGNED_HEADERS = ['x-service-key-id', 'x-service-nonce', 'x-service-signature', 'x-service-timestamp', 'x-service-user'];

describe('CORS', () => {
  describe('with CORS_ORIGINS listing a page', () => {
    let server: TestServer;
    let swap: { id: string; accessToken: string };
    before(async () => {
      server = await startTestServer({ env: { CORS_ORIGINS: `${PAGE}, http://localhost:5173` } });
      const { order, accessToken } = await swapClient(server.origin, await server.createSigner()).create();
      swap = { id: order.id, accessToken };
    });
    after(() => server?.close());

    for (const path of ['/health', '/assets', '/pairs', '/openapi.json']) {
      it(`answers the preflight of GET ${path} with its permission`, async () => {
        const res = await preflight(server, path, 'GET');
        expect(res.status, res.text).to.equal(204);
        expect(res.headers.get('access-control-allow-origin')).to.equal(PAGE);
        expect(res.headers.get('access-control-allow-methods')).to.equal('GET, HEAD');
        expect(res.headers.get('vary')).to.match(/origin/i);
      });
    }

    it('lets a page send the access token and Last-Event-ID to GET /swaps/{id} and the stream', async () => {
      for (const path of [`/swaps/${swap.id}`, `/swaps/${swap.id}/stream`]) {
        const res = await preflight(server, path, 'GET', ['authorization', 'last-event-id']);
        expect(res.status, `${path}: ${res.text}`).to.equal(204);
        expect(res.headers.get('access-control-allow-origin')).to.equal(PAGE);
        expect(res.headers.get('access-control-allow-headers')).to.equal('authorization, last-event-id');
        expect(res.headers.get('access-control-max-age')).to.equal('600');
      }
    });

    it('answers every listed origin, each with its own name', async () => {
      const res = await preflight(server, '/assets', 'GET', [], 'http://localhost:5173');
      expect(res.status).to.equal(204);
      expect(res.headers.get('access-control-allow-origin')).to.equal('http://localhost:5173');
    });

    it('refuses the preflight of a signed operation with 403 browser_not_allowed, saying the secret would leak', async () => {
      for (const [method, path] of [
        ['POST', '/quotes'],
        ['POST', '/swaps'],
        ['GET', '/swaps'],
        ['PUT', '/partner/markup'],
      ]) {
        const res = await preflight(server, path, method, ['content-type', ...SIGNED_HEADERS]);
        expectError(res, 403, 'browser_not_allowed');
        expect((res.body as { error: { message: string } }).error.message).to.contain('a partner secret in a browser is a leak');
        expect(res.headers.get('access-control-allow-origin'), `${method} ${path}`).to.equal(null);
      }
    });

    it('refuses the preflight of a swap read asked with the signed headers instead of the token', async () => {
      const res = await preflight(server, `/swaps/${swap.id}`, 'GET', SIGNED_HEADERS);
      expectError(res, 403, 'browser_not_allowed');
      expect(res.headers.get('access-control-allow-origin')).to.equal(null);
    });

    it('refuses the preflight of an origin it does not list with 403 origin_not_allowed', async () => {
      const res = await preflight(server, `/swaps/${swap.id}`, 'GET', ['authorization'], OTHER_PAGE);
      expectError(res, 403, 'origin_not_allowed');
      expect(res.headers.get('access-control-allow-origin')).to.equal(null);
    });

    it('lets the page read a public answer and the headers it needs: request id and rate limits', async () => {
      const res = await request(`${server.baseUrl}/assets`, { headers: { origin: PAGE } });
      expect(res.status).to.equal(200);
      expect(res.headers.get('access-control-allow-origin')).to.equal(PAGE);
      const exposed = res.headers.get('access-control-expose-headers')!.split(', ');
      expect(exposed).to.deep.equal(['x-request-id', 'retry-after', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']);
      // Every exposed header but Retry-After (429 only) is one this answer carries.
      for (const name of exposed.filter((n) => n !== 'retry-after')) expect(res.headers.get(name), name).to.be.a('string');
    });

    it('lets the page read a swap with its token, and the 401 of a wrong token', async () => {
      const res = await request(`${server.baseUrl}/swaps/${swap.id}`, {
        headers: { origin: PAGE, authorization: `Bearer ${swap.accessToken}` },
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.headers.get('access-control-allow-origin')).to.equal(PAGE);
      const wrong = await request(`${server.baseUrl}/swaps/${swap.id}`, {
        headers: { origin: PAGE, authorization: `Bearer sat_${'x'.repeat(40)}` },
      });
      expectError(wrong, 401, 'invalid_token');
      expect(wrong.headers.get('access-control-allow-origin')).to.equal(PAGE);
    });

    it('gives a signed request no CORS header, even from a listed origin', async () => {
      const signer = await server.createSigner();
      const signed = await fetch(`${server.baseUrl}/swaps`, { headers: { origin: PAGE, ...signHeaders(signer, 'GET', '/api/v1/swaps') } });
      expect(signed.status).to.equal(200);
      expect(signed.headers.get('access-control-allow-origin')).to.equal(null);
      const unsigned = await fetch(`${server.baseUrl}/partner/markup`, { headers: { origin: PAGE } });
      expect(unsigned.status).to.equal(401);
      expect(unsigned.headers.get('access-control-allow-origin')).to.equal(null);
    });

    it('gives an origin it does not list no CORS header', async () => {
      const res = await request(`${server.baseUrl}/assets`, { headers: { origin: OTHER_PAGE } });
      expect(res.status).to.equal(200);
      expect(res.headers.get('access-control-allow-origin')).to.equal(null);
    });
  });

  describe('with CORS_ORIGINS=* (sandbox)', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ env: { CORS_ORIGINS: '*' } });
    });
    after(() => server?.close());

    it('answers any origin with *', async () => {
      const res = await preflight(server, '/assets', 'GET', [], OTHER_PAGE);
      expect(res.status).to.equal(204);
      expect(res.headers.get('access-control-allow-origin')).to.equal('*');
      const read = await request(`${server.baseUrl}/assets`, { headers: { origin: OTHER_PAGE } });
      expect(read.headers.get('access-control-allow-origin')).to.equal('*');
    });

    it('still refuses the preflight of a signed operation', async () => {
      expectError(await preflight(server, '/quotes', 'POST', SIGNED_HEADERS, OTHER_PAGE), 403, 'browser_not_allowed');
    });
  });

  describe('without CORS_ORIGINS', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer();
    });
    after(() => server?.close());

    it('answers no CORS: a preflight is the 405 it was, and answers carry no CORS header', async () => {
      const res = await preflight(server, '/assets', 'GET', [], PAGE);
      expectError(res, 405, 'method_not_allowed');
      expect(res.headers.get('access-control-allow-origin')).to.equal(null);
      const read = await request(`${server.baseUrl}/assets`, { headers: { origin: PAGE } });
      expect(read.headers.get('access-control-allow-origin')).to.equal(null);
    });
  });
});
