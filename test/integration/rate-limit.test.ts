import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectError, readJson as json, request } from '../support/http.js';
import { signedFetch, signHeaders, type SignerOptions } from '../support/signer.js';

const MARKUP = '/api/v1/partner/markup';
const WINDOW_SECONDS = 2;

describe('Rate limits', () => {
  let server: TestServer;
  let acme: SignerOptions;
  let globex: SignerOptions;

  before(async () => {
    server = await startTestServer({
      env: {
        RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
        RATE_LIMIT_SIGNED_PER_MINUTE: '3',
        RATE_LIMIT_PUBLIC_PER_MINUTE: '2',
        RATE_LIMIT_QUOTES_PER_MINUTE: '1',
        RATE_LIMIT_SWAPS_PER_MINUTE: '1',
      },
    });
    acme = await server.createSigner('Acme');
    globex = await server.createSigner('Globex');
  });
  after(() => server.close());

  it('refuses the fourth signed request in the window with 429, leaves another partner alone, and recovers', async () => {
    for (let i = 1; i <= 3; i++) {
      const res = await json(signedFetch(server.origin, acme, 'GET', MARKUP));
      expect(res.status).to.equal(200);
      expect(res.headers.get('ratelimit-limit')).to.equal('3');
      expect(res.headers.get('ratelimit-remaining')).to.equal(String(3 - i));
      expect(res.headers.get('ratelimit-reset')).to.match(/^\d+$/);
    }
    const limited = await json(signedFetch(server.origin, acme, 'GET', MARKUP));
    expectError(limited, 429, 'rate_limited');
    const retryAfter = limited.headers.get('retry-after');
    expect(retryAfter).to.match(/^[1-9]\d*$/);
    expect(Number(retryAfter)).to.be.at.most(WINDOW_SECONDS);

    expect((await json(signedFetch(server.origin, globex, 'GET', MARKUP))).status).to.equal(200);

    await new Promise((resolve) => setTimeout(resolve, Number(retryAfter) * 1000 + 100));
    expect((await json(signedFetch(server.origin, acme, 'GET', MARKUP))).status).to.equal(200);
  });

  it('counts concurrent requests exactly: of 8 at once with a limit of 3, 3 pass', async () => {
    await new Promise((resolve) => setTimeout(resolve, WINDOW_SECONDS * 1000));
    const statuses = await Promise.all(
      Array.from({ length: 8 }, () => json(signedFetch(server.origin, globex, 'GET', MARKUP)).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 200)).to.have.length(3);
    expect(statuses.filter((s) => s === 429)).to.have.length(5);
  });

  it('counts POST /quotes in a class of its own', async () => {
    await new Promise((resolve) => setTimeout(resolve, WINDOW_SECONDS * 1000));
    const quote = {
      sourceAsset: 'BTC',
      sourceNetwork: 'BTC',
      destinationAsset: 'USDT',
      destinationNetwork: 'ETH',
      sourceAmount: '0.01',
      refundMode: 'sender',
    };
    const first = await json(signedFetch(server.origin, globex, 'POST', '/api/v1/quotes', quote));
    expect(first.status).to.not.equal(429);
    expectError(await json(signedFetch(server.origin, globex, 'POST', '/api/v1/quotes', quote)), 429, 'rate_limited');
    expect((await json(signedFetch(server.origin, globex, 'GET', MARKUP))).status).to.equal(200);
  });

  it('counts POST /swaps in a class of its own', async () => {
    await new Promise((resolve) => setTimeout(resolve, WINDOW_SECONDS * 1000));
    const swap = (key: string) =>
      json(
        fetch(`${server.baseUrl}/swaps`, {
          method: 'POST',
          headers: { 'idempotency-key': key, 'content-type': 'application/json', ...signHeaders(acme, 'POST', '/api/v1/swaps', '{}') },
          body: '{}',
        }),
      );
    expect((await swap('k1')).status).to.not.equal(429);
    expectError(await swap('k2'), 429, 'rate_limited');
    expect((await json(signedFetch(server.origin, acme, 'GET', MARKUP))).status).to.equal(200);
  });

  it('shares the counts between server instances on one database', async () => {
    await new Promise((resolve) => setTimeout(resolve, WINDOW_SECONDS * 1000));
    const other = await startTestServer({
      sameDatabaseAs: server,
      env: { RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS), RATE_LIMIT_SIGNED_PER_MINUTE: '3' },
    });
    try {
      for (const origin of [server.origin, other.origin, server.origin]) {
        const res = await json(signedFetch(origin, acme, 'GET', MARKUP));
        expect(res.status).to.equal(200);
        expect(res.headers.get('ratelimit-limit')).to.equal('3'); // counted, not let through uncounted
      }
      expectError(await json(signedFetch(other.origin, acme, 'GET', MARKUP)), 429, 'rate_limited');
    } finally {
      await other.close();
    }
  });

  it('never admits more than the limit across two instances under concurrent load, and refuses at most one lease early', async function () {
    // The embedded database serves one process; concurrent instances sharing it are PostgreSQL's case.
    if (!process.env.DATABASE_URL) return this.skip();
    // Limit 100 per minute: leases of up to 5 points. 160 concurrent requests, half to each instance.
    const env = { RATE_LIMIT_WINDOW_SECONDS: '60', RATE_LIMIT_SIGNED_PER_MINUTE: '100' };
    const a = await startTestServer({ sameDatabaseAs: server, env });
    const b = await startTestServer({ sameDatabaseAs: server, env });
    try {
      const busy = await server.createSigner('Busy');
      const statuses = await Promise.all(
        Array.from({ length: 160 }, async (_, i) => {
          return (await json(signedFetch(i % 2 ? a.origin : b.origin, busy, 'GET', MARKUP))).status;
        }),
      );
      const admitted = statuses.filter((s) => s === 200).length;
      expect(statuses.filter((s) => s !== 200 && s !== 429)).to.deep.equal([]);
      expect(admitted).to.be.at.most(100);
      // Points leased to one instance and unused there are lost to the other: at most one lease (5).
      expect(admitted).to.be.at.least(95);
      const row = await server.knex('rate_limits').where('key', `rl_signed:${busy.keyId}`).first();
      expect(Number(row.points)).to.be.at.most(100);
    } finally {
      await b.close();
      await a.close();
    }
  });

  it('counts failed authentications against the client IP', async () => {
    await new Promise((resolve) => setTimeout(resolve, WINDOW_SECONDS * 1000));
    const forged = { ...acme, secret: 'pss_sk_guessed-secret-0123456789' };
    expectError(await json(signedFetch(server.origin, forged, 'GET', MARKUP)), 401, 'invalid_signature');
    expectError(await json(signedFetch(server.origin, forged, 'GET', MARKUP)), 401, 'invalid_signature');
    const limited = await json(signedFetch(server.origin, forged, 'GET', MARKUP));
    expectError(limited, 429, 'rate_limited');
    expect(limited.headers.get('retry-after')).to.match(/^[1-9]\d*$/);
    // The partner's own allowance is separate: correctly signed requests still pass.
    expect((await json(signedFetch(server.origin, acme, 'GET', MARKUP))).status).to.equal(200);
  });

  it('limits public operations per client IP', async () => {
    await new Promise((resolve) => setTimeout(resolve, WINDOW_SECONDS * 1000));
    expect((await request(`${server.baseUrl}/assets`)).status).to.equal(200);
    expect((await request(`${server.baseUrl}/pairs`)).status).to.equal(200);
    const limited = await request(`${server.baseUrl}/assets`);
    expectError(limited, 429, 'rate_limited');
    expect(limited.headers.get('retry-after')).to.match(/^[1-9]\d*$/);
  });
});
