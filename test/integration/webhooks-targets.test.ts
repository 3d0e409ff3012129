import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { expect } from 'chai';
import { expectError, readJson } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { signedFetch, type SignerOptions } from '../support/signer.js';
import { swapClient } from '../support/swaps.js';
import type { components } from '../../generated/api.js';
import { createReceiver, type Receiver } from '../support/webhook-receiver.js';

type Delivery = components['schemas']['WebhookDelivery'];

// The sandbox as it is hosted: no WEBHOOK_ALLOW_PRIVATE_TARGETS. A receiver listens on loopback to prove
// that nothing reaches it. Host names of the test's own are resolved by `names` (the server's webhook
// lookup), others by DNS.
describe('partner webhooks in sandbox mode without WEBHOOK_ALLOW_PRIVATE_TARGETS (SSRF refusals)', function () {
  this.timeout(60_000);
  let server: TestServer;
  let partner: SignerOptions;
  let receiver: Receiver;
  const names = new Map<string, string>();
  const lookup = ((hostname: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
    const address = names.get(hostname);
    if (!address) return dns.lookup(hostname, options, callback as never);
    const family = isIP(address);
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;

  before(async () => {
    receiver = await createReceiver();
    await receiver.listen();
    server = await startTestServer({ env: { WEBHOOK_RETRY_SECONDS: '0.2,0.2' }, webhookLookup: lookup });
    partner = await server.createSigner();
  });
  after(async () => {
    await receiver.close();
    await server.close();
  });

  const put = (body: Record<string, unknown>, as = partner) =>
    readJson<{ error: { message: string } }>(signedFetch(server.origin, as, 'PUT', '/api/v1/partner/webhook', body));

  // PORT is the receiver's port.
  const refusals: Array<[url: string, reason: RegExp]> = [
    ['http://127.0.0.1:PORT/hooks', /127\.0\.0\.1 is a loopback address/],
    // The URL parser writes [::ffff:127.0.0.1] as [::ffff:7f00:1].
    ['http://[::ffff:127.0.0.1]:PORT/hooks', /::ffff:7f00:1 is an IPv4-mapped address of 127\.0\.0\.1, a loopback address/],
    ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a link-local address \(cloud metadata services live there\)/],
    ['http://[64:ff9b::7f00:1]:PORT/hooks', /NAT64 address of 127\.0\.0\.1, a loopback address/],
    ['http://[2002:7f00:1::1]:PORT/hooks', /a 6to4 address/],
    ['http://localhost:PORT/hooks', /\(localhost resolves to it\) is a loopback address/],
  ];
  for (const [url, reason] of refusals) {
    it(`refuses ${url} when it is set: 400 invalid_request naming why, and nothing is stored`, async () => {
      const target = url.replace('PORT', String(receiver.port));
      const res = await put({ url: target });
      expectError(res, 400, 'invalid_request');
      expect(res.body).to.have.nested.property('error.details.field', 'url');
      expect(res.body.error.message).to.match(/^url must reach a public address; /);
      expect(res.body.error.message).to.match(reason);
      expect(res.body.error.message).to.contain('WEBHOOK_ALLOW_PRIVATE_TARGETS=true');
      const read = await readJson<{ url: string | null }>(signedFetch(server.origin, partner, 'GET', '/api/v1/partner/webhook'));
      expect(read.body.url).to.equal(null);
      expect(receiver.received).to.have.length(0);
    });
  }

  it('checks again when each connection is made: a name that now resolves to loopback (DNS rebinding) fails its attempts, and nothing reaches the receiver', async () => {
    const owner = await server.createSigner();
    const url = `http://hooks.rebind.test:${receiver.port}/hooks`;
    names.set('hooks.rebind.test', '93.184.215.14');
    const set = await put({ url }, owner);
    expect(set.status, set.text).to.equal(200);
    names.set('hooks.rebind.test', '127.0.0.1');
    const refused = /^refused: url must reach a public address; 127\.0\.0\.1 \(hooks\.rebind\.test resolves to it\) is a loopback address/;

    const test = await readJson<Delivery>(signedFetch(server.origin, owner, 'POST', '/api/v1/partner/webhook/test'));
    expect(test.status, test.text).to.equal(200);
    expect(test.body).to.include({ succeeded: false, statusCode: null, url });
    expect(test.body.error).to.match(refused);

    // A swap's messages meet the same check on every attempt, and are retried on the schedule.
    await swapClient(server.origin, owner).create();
    const deadline = Date.now() + 20_000;
    let attempts: Delivery[] = [];
    while (Date.now() < deadline) {
      const page = await readJson<{ deliveries: Delivery[] }>(
        signedFetch(server.origin, owner, 'GET', '/api/v1/partner/webhook/deliveries?limit=100'),
      );
      attempts = page.body.deliveries.filter((d) => d.type === 'swap.updated');
      if (attempts.some((d) => d.attempt === 3)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(attempts.map((d) => d.attempt)).to.include.members([1, 2, 3]);
    for (const attempt of attempts) {
      expect(attempt).to.include({ succeeded: false, statusCode: null });
      expect(attempt.error).to.match(refused);
    }
    expect(receiver.received).to.have.length(0);
  });
});
