import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectError, readJson as json, request } from '../support/http.js';
import { signedFetch, type SignerOptions } from '../support/signer.js';

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
      },
    });
    const audience = server.config.publicOrigin;
    const a = await server.createPartner('Acme');
    const g = await server.createPartner('Globex');
    acme = { keyId: a.keyId, secret: a.secret, audience };
    globex = { keyId: g.keyId, secret: g.secret, audience };
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

  it('counts POST /quotes in a class of its own', async () => {
    await new Promise((resolve) => setTimeout(resolve, WINDOW_SECONDS * 1000));
    const quote = { sourceAsset: 'BTC', sourceNetwork: 'BTC', destinationAsset: 'USDT', destinationNetwork: 'ETH', sourceAmount: '0.01', refundMode: 'sender' };
    const first = await json(signedFetch(server.origin, globex, 'POST', '/api/v1/quotes', quote));
    expect(first.status).to.not.equal(429);
    expectError(await json(signedFetch(server.origin, globex, 'POST', '/api/v1/quotes', quote)), 429, 'rate_limited');
    expect((await json(signedFetch(server.origin, globex, 'GET', MARKUP))).status).to.equal(200);
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
