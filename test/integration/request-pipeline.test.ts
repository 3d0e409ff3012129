import http from 'node:http';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectError, readJson, request } from '../support/http.js';
import { signedFetch, signHeaders, type SignerOptions } from '../support/signer.js';
import { createHttpServer, HEADERS_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from '../../server/http/http-server.js';
import { sweepExpiredRows } from '../../server/jobs/housekeeping.js';

const MARKUP = '/api/v1/partner/markup';

/** The outcome of a streamed upload: the response, and whether the client was still sending when it came. */
interface StreamedUpload {
  status: number;
  body: string;
  connection: string | undefined;
  answeredWhileSending: boolean;
  bytesSent: number;
  closed: Promise<void>;
}

/**
 * Streams a chunked body of 16 KiB chunks, one every 20 ms, up to `totalBytes`, and resolves with the first
 * response. A server that reads the body to its end answers only after the last chunk.
 */
function streamUpload(url: string, method: string, totalBytes: number, headers: Record<string, string> = {}): Promise<StreamedUpload> {
  return new Promise((resolve, reject) => {
    let bytesSent = 0;
    let finished = false;
    const req = http.request(url, { method, headers: { 'content-type': 'application/json', ...headers } });
    const chunk = Buffer.alloc(16 * 1024, 0x20);
    const timer = setInterval(() => {
      if (bytesSent >= totalBytes) {
        clearInterval(timer);
        finished = true;
        req.end();
        return;
      }
      bytesSent += chunk.length;
      req.write(chunk);
    }, 20);
    req.on('error', (err) => {
      clearInterval(timer);
      // The server may close the connection while we still write; the response already arrived then.
      if (!(err as NodeJS.ErrnoException).code?.startsWith('EPIPE') && !(err as NodeJS.ErrnoException).code?.startsWith('ECONNRESET')) {
        reject(err);
      }
    });
    req.on('response', (res) => {
      const answeredWhileSending = !finished;
      clearInterval(timer);
      const closed = new Promise<void>((done) => res.socket.once('close', () => done()));
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () =>
        resolve({ status: res.statusCode!, body, connection: res.headers.connection, answeredWhileSending, bytesSent, closed }),
      );
    });
  });
}

describe('The request pipeline', () => {
  describe('reading bodies', () => {
    let server: TestServer;
    let partner: SignerOptions;
    before(async () => {
      server = await startTestServer();
      partner = await server.createSigner('Uploader');
    });
    after(() => server.close());

    it('answers an unknown path with 404 before reading the body', async () => {
      const upload = await streamUpload(`${server.origin}/api/v1/no-such-thing`, 'POST', 4 * 1024 * 1024);
      expect(upload.status).to.equal(404);
      expect(JSON.parse(upload.body).error.code).to.equal('not_found');
      expect(upload.answeredWhileSending, 'answered only after the whole body was sent').to.equal(true);
    });

    it('answers a wrong method with 405 before reading the body', async () => {
      const upload = await streamUpload(`${server.origin}/api/v1/assets`, 'POST', 4 * 1024 * 1024);
      expect(upload.status).to.equal(405);
      expect(upload.answeredWhileSending).to.equal(true);
    });

    it('answers 413 as soon as a chunked upload passes 64 KiB, and closes the connection', async () => {
      const upload = await streamUpload(`${server.origin}${MARKUP}`, 'PUT', 4 * 1024 * 1024, signHeaders(partner, 'PUT', MARKUP, ''));
      expect(upload.status).to.equal(413);
      expect(JSON.parse(upload.body).error.code).to.equal('payload_too_large');
      expect(upload.answeredWhileSending).to.equal(true);
      expect(upload.bytesSent).to.be.below(1024 * 1024);
      expect(upload.connection).to.equal('close');
      await upload.closed;
    });

    it('still answers 413 at once for a declared Content-Length over the limit', async () => {
      const res = await request(`${server.origin}${MARKUP}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: 'x'.repeat(64 * 1024 + 1),
      });
      expectError(res, 413, 'payload_too_large');
    });
  });

  describe('counting refused requests against the client IP', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ env: { RATE_LIMIT_PUBLIC_PER_MINUTE: '3', RATE_LIMIT_WINDOW_SECONDS: '60' } });
    });
    after(() => server.close());

    it('counts 404, 405 and 413 answers, and refuses the fourth with 429', async () => {
      const notFound = await request(`${server.origin}/api/v1/nothing-here`);
      expectError(notFound, 404, 'not_found');
      expect(notFound.headers.get('ratelimit-remaining')).to.equal('2');
      const wrongMethod = await request(`${server.origin}/api/v1/assets`, { method: 'DELETE' });
      expectError(wrongMethod, 405, 'method_not_allowed');
      expect(wrongMethod.headers.get('ratelimit-remaining')).to.equal('1');
      const tooLarge = await request(`${server.origin}${MARKUP}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: 'x'.repeat(64 * 1024 + 1),
      });
      expectError(tooLarge, 413, 'payload_too_large');
      expect(tooLarge.headers.get('ratelimit-remaining')).to.equal('0');
      expectError(await request(`${server.origin}/api/v1/nothing-here`), 429, 'rate_limited');
    });
  });

  describe('nonces and the per-key limit', () => {
    let server: TestServer;
    let partner: SignerOptions;
    before(async () => {
      server = await startTestServer({ env: { RATE_LIMIT_SIGNED_PER_MINUTE: '5', RATE_LIMIT_WINDOW_SECONDS: '60' } });
      partner = await server.createSigner('Busy');
    });
    after(() => server.close());

    it('stores no nonce for a request the key limit refuses', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 15; i++) statuses.push((await readJson(signedFetch(server.origin, partner, 'GET', MARKUP))).status);
      expect(statuses.filter((s) => s === 200)).to.have.length(5);
      expect(statuses.filter((s) => s === 429)).to.have.length(10);
      const [{ n }] = await server.knex('request_nonces').where({ key_id: partner.keyId }).count({ n: '*' });
      expect(Number(n)).to.equal(5);
    });

    it('deletes expired nonces and rate-limit windows in the scheduled sweep, and keeps live ones', async () => {
      const now = new Date();
      await server.knex('request_nonces').insert([
        { key_id: 'pk_sweep', nonce: 'expired-nonce-000001', expires_at: new Date(now.getTime() - 1000) },
        { key_id: 'pk_sweep', nonce: 'live-nonce-000000001', expires_at: new Date(now.getTime() + 60_000) },
      ]);
      await server.knex('rate_limits').insert({ key: 'rl_sweep_test', points: 1, expire: now.getTime() - 1000 });
      const removed = await sweepExpiredRows(server.knex, now);
      expect(removed.nonces).to.be.at.least(1);
      expect(removed.windows).to.be.at.least(1);
      expect(await server.knex('request_nonces').where({ key_id: 'pk_sweep' }).pluck('nonce')).to.deep.equal(['live-nonce-000000001']);
      expect(await server.knex('rate_limits').where({ key: 'rl_sweep_test' }).first()).to.equal(undefined);
    });
  });

  describe('server timeouts', () => {
    it('limits the time for headers and for the whole request, and closes idle keep-alive connections', () => {
      const server = createHttpServer((() => undefined) as never);
      expect(server.headersTimeout).to.equal(HEADERS_TIMEOUT_MS);
      expect(server.requestTimeout).to.equal(REQUEST_TIMEOUT_MS);
      expect(server.keepAliveTimeout).to.equal(KEEP_ALIVE_TIMEOUT_MS);
      expect(HEADERS_TIMEOUT_MS).to.be.below(REQUEST_TIMEOUT_MS);
    });
  });
});
