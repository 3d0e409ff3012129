import { expect } from 'chai';
import { createPartnerClient, DEFAULT_RETRY, isRetryable, newIdempotencyKey, retryDelayMs } from '../src/index.js';
import { apiError, fakeApi, json } from './support/fake-api.js';

const BASE = {
  baseUrl: 'https://swap.example.com/api/v1',
  audience: 'https://swap.example.com',
  keyId: 'pk_test',
  secret: 'pss_sk_test-secret-0123456789abcdef',
  userId: 'customer-1',
};

/** A fetch that answers from a script of statuses (or 'network' for a failure) and records every request. */
function scripted(script: Array<number | 'network'>) {
  const seen: Request[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    seen.push(request);
    const next = script.shift() ?? 200;
    if (next === 'network') throw new TypeError('fetch failed');
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-request-id': `req_${seen.length}` };
    if (next === 429) headers['retry-after'] = '2';
    const body =
      next < 400
        ? { percent: 0, updatedAt: null }
        : { error: { code: next === 429 ? 'rate_limited' : 'service_unavailable', message: 'try later' } };
    return new Response(JSON.stringify(body), { status: next, headers });
  };
  return { fetch, seen };
}

describe('sdk retries', () => {
  describe('isRetryable(attempt)', () => {
    it('retries 429 for every method, since the request was refused before any work', () => {
      expect(isRetryable({ method: 'POST', idempotent: false, status: 429 })).to.equal(true);
    });
    it('retries 503 and network failures only for safe methods or idempotent requests', () => {
      expect(isRetryable({ method: 'GET', idempotent: false, status: 503 })).to.equal(true);
      expect(isRetryable({ method: 'GET', idempotent: false })).to.equal(true);
      expect(isRetryable({ method: 'POST', idempotent: false, status: 503 })).to.equal(false);
      expect(isRetryable({ method: 'POST', idempotent: false })).to.equal(false);
      expect(isRetryable({ method: 'POST', idempotent: true, status: 503 })).to.equal(true);
      expect(isRetryable({ method: 'PUT', idempotent: false, status: 503 })).to.equal(false);
    });
    it('never retries a client error or a success', () => {
      for (const status of [200, 400, 401, 404, 409, 500]) expect(isRetryable({ method: 'GET', idempotent: true, status })).to.equal(false);
    });
  });

  describe('retryDelayMs(retry, retryAfter, options)', () => {
    it('waits as long as Retry-After says, within the bound', () => {
      expect(retryDelayMs(0, '7', DEFAULT_RETRY)).to.equal(7000);
      expect(retryDelayMs(0, '61', DEFAULT_RETRY)).to.equal(undefined);
    });
    it('backs off exponentially with full jitter, capped', () => {
      expect(retryDelayMs(0, null, DEFAULT_RETRY, () => 1)).to.equal(250);
      expect(retryDelayMs(3, null, DEFAULT_RETRY, () => 1)).to.equal(2000);
      expect(retryDelayMs(10, null, DEFAULT_RETRY, () => 1)).to.equal(8000);
      expect(retryDelayMs(3, null, DEFAULT_RETRY, () => 0.5)).to.equal(1000);
    });
  });

  describe('the transport', () => {
    const noWait = { sleep: async () => undefined };

    it('retries a GET after 503 and a network failure, re-signing each attempt with a fresh nonce', async () => {
      const { fetch, seen } = scripted([503, 'network', 200]);
      const client = createPartnerClient({ ...BASE, fetch, ...noWait });
      const { data, error } = await client.getMarkup();
      expect(error).to.equal(undefined);
      expect(data).to.deep.equal({ percent: 0, updatedAt: null });
      expect(seen).to.have.length(3);
      expect(new Set(seen.map((r) => r.headers.get('x-service-nonce'))).size).to.equal(3);
    });

    it('signs every retry afresh, each signature valid for the service', async () => {
      const api = fakeApi().on(
        'GET',
        '/partner/markup',
        () => apiError(429, 'rate_limited', 'Slow down.', { 'retry-after': '1' }),
        () => apiError(503, 'service_unavailable', 'try later'),
        () => json(200, { percent: 0, updatedAt: null }),
      );
      let clock = 1_790_000_000_000;
      const client = api.client({ now: () => clock, sleep: async (ms) => void (clock += ms) });
      expect((await client.getMarkup()).error).to.equal(undefined);
      expect(api.sent.map((r) => r.signed)).to.deep.equal([true, true, true]);
      // The timestamp moves with the clock: a retry after a long wait is not refused as out of window.
      expect(api.sent.map((r) => r.headers.get('x-service-timestamp'))[1]).to.equal('1790000001');
    });

    it('returns a 429 whose Retry-After exceeds maxRetryAfterMs at once, as a value carrying retryAfter', async () => {
      const api = fakeApi().on('GET', '/health', () => apiError(429, 'rate_limited', 'Slow down.', { 'retry-after': '120' }));
      const waits: number[] = [];
      const { error } = await api.client({ sleep: async (ms) => void waits.push(ms) }).health();
      expect(error).to.include({ status: 429, code: 'rate_limited', retryAfter: 120 });
      expect(waits).to.deep.equal([]);
      expect(api.sent).to.have.length(1);
    });

    it('honours Retry-After on 429', async () => {
      const { fetch } = scripted([429, 200]);
      const waits: number[] = [];
      const client = createPartnerClient({ ...BASE, fetch, sleep: async (ms) => void waits.push(ms) });
      expect((await client.getMarkup()).error).to.equal(undefined);
      expect(waits).to.deep.equal([2000]);
    });

    it('does not retry a 503 to a PUT without an Idempotency-Key', async () => {
      const { fetch, seen } = scripted([503, 200]);
      const client = createPartnerClient({ ...BASE, fetch, ...noWait });
      const { error } = await client.setMarkup(1);
      expect(error?.status).to.equal(503);
      expect(error?.code).to.equal('service_unavailable');
      expect(seen).to.have.length(1);
    });

    it('retries a POST that carries an Idempotency-Key, sending the same key and body each time', async () => {
      const { fetch, seen } = scripted([503, 'network', 200]);
      const client = createPartnerClient({ ...BASE, fetch, ...noWait });
      const key = newIdempotencyKey();
      await client.raw.POST('/sandbox/deposits', {
        body: { address: 'TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE', asset: 'USDT', network: 'TRX', amount: '25' },
        headers: { 'Idempotency-Key': key },
      } as never);
      expect(seen).to.have.length(3);
      expect(seen.map((r) => r.headers.get('idempotency-key'))).to.deep.equal([key, key, key]);
      const bodies = await Promise.all(seen.map((r) => r.text()));
      expect(new Set(bodies).size).to.equal(1);
    });

    it('gives up after maxRetries and returns the last error as a value', async () => {
      const { fetch, seen } = scripted([503, 503, 503]);
      const client = createPartnerClient({ ...BASE, fetch, ...noWait, retry: { maxRetries: 2 } });
      const { error } = await client.health();
      expect(error).to.include({ status: 503, code: 'service_unavailable', requestId: 'req_3' });
      expect(seen).to.have.length(3);
    });

    it('throws the network error when retries are exhausted', async () => {
      const { fetch } = scripted(['network', 'network']);
      const client = createPartnerClient({ ...BASE, fetch, ...noWait, retry: { maxRetries: 1 } });
      let thrown: unknown;
      try {
        await client.health();
      } catch (err) {
        thrown = err;
      }
      expect(thrown).to.be.instanceOf(TypeError);
    });
  });

  describe('misuse', () => {
    it('refuses an audience with a path or trailing slash', () => {
      expect(() => createPartnerClient({ ...BASE, audience: 'https://swap.example.com/' })).to.throw(
        TypeError,
        /audience must be an origin/,
      );
    });
    it('refuses a missing secret', () => {
      expect(() => createPartnerClient({ ...BASE, secret: '' })).to.throw(TypeError, /secret is required/);
    });
  });
});
