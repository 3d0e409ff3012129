import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectError, request } from '../support/http.js';

// Two public requests per client IP in a window long enough that no test sees it reset.
const LIMITS = { RATE_LIMIT_PUBLIC_PER_MINUTE: '2', RATE_LIMIT_WINDOW_SECONDS: '600' };

describe('TRUST_PROXY: the client IP of public rate limits', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const assets = (forwardedFor?: string) =>
    request(`${server!.baseUrl}/assets`, forwardedFor === undefined ? {} : { headers: { 'x-forwarded-for': forwardedFor } });

  it('ignores X-Forwarded-For by default: requests with different spoofed values share the socket address’s bucket', async () => {
    server = await startTestServer({ env: LIMITS });
    expect((await assets('203.0.113.1')).status).to.equal(200);
    expect((await assets('203.0.113.2')).status).to.equal(200);
    expectError(await assets('203.0.113.3'), 429, 'rate_limited');
    expectError(await assets(), 429, 'rate_limited');
  });

  it('honours X-Forwarded-For with a hop count: each forwarded client gets its own bucket, and its limit', async () => {
    server = await startTestServer({ env: { ...LIMITS, TRUST_PROXY: '1' } });
    expect((await assets('203.0.113.1')).status).to.equal(200);
    expect((await assets('203.0.113.1')).status).to.equal(200);
    expectError(await assets('203.0.113.1'), 429, 'rate_limited');
    expect((await assets('203.0.113.2')).status).to.equal(200);
    // The proxy's own requests (no header) count for its address, apart from its clients.
    expect((await assets()).status).to.equal(200);
  });

  it('honours X-Forwarded-For through the listed proxies only, so a value the client prepended is not believed', async () => {
    // The socket peer (127.0.0.1) and an inner proxy (10.1.2.3) are trusted; the first address before them is the client.
    server = await startTestServer({ env: { ...LIMITS, TRUST_PROXY: '10.0.0.0/8,127.0.0.1' } });
    expect((await assets('198.51.100.7, 10.1.2.3')).status).to.equal(200);
    // The same client again, with a made-up address in front: still 198.51.100.7, whose allowance runs out.
    expect((await assets('6.6.6.6, 198.51.100.7, 10.1.2.3')).status).to.equal(200);
    expectError(await assets('7.7.7.7, 198.51.100.7, 10.1.2.3'), 429, 'rate_limited');
    expect((await assets('198.51.100.8, 10.1.2.3')).status).to.equal(200);
  });
});
