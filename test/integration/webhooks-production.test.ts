import { expect } from 'chai';
import { expectError, readJson } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { signedFetch, type SignerOptions } from '../support/signer.js';
import { swapClient } from '../support/swaps.js';
import type { components } from '../../generated/api.js';
import { createReceiver, type Receiver } from '../support/webhook-receiver.js';

type Delivery = components['schemas']['WebhookDelivery'];

// Nothing here sends traffic anywhere but loopback: refused URLs are refused before any connection, and the
// one URL that is accepted is replaced (as if its DNS had changed) before anything is delivered to it.
describe('partner webhooks in production mode (SSRF refusals)', function () {
  this.timeout(60_000);
  let server: TestServer;
  let partner: SignerOptions;
  let receiver: Receiver;
  before(async () => {
    // loadConfig refuses production without real adapters; the app itself is built in production mode here.
    server = await startTestServer({ configOverrides: { serviceMode: 'production' }, env: { WEBHOOK_RETRY_SECONDS: '0.2,0.2' } });
    partner = await server.createSigner();
    receiver = await createReceiver();
    await receiver.listen();
  });
  after(async () => {
    await receiver.close();
    await server.close();
  });

  const put = (body: Record<string, unknown>, as = partner) =>
    readJson(signedFetch(server.origin, as, 'PUT', '/api/v1/partner/webhook', body));

  const refusals: Array<[url: string, reason: RegExp]> = [
    ['https://127.0.0.1/hooks', /127\.0\.0\.1 is a loopback address/],
    ['https://127.9.9.9:8443/hooks', /loopback/],
    ['https://10.1.2.3/hooks', /10\.1\.2\.3 is a private address/],
    ['https://172.16.5.4/hooks', /private/],
    ['https://192.168.1.10/hooks', /private/],
    ['https://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a link-local address \(cloud metadata/],
    ['https://100.64.0.1/hooks', /carrier-grade NAT/],
    ['https://0.0.0.0/hooks', /unspecified/],
    ['https://[::1]/hooks', /::1 is a loopback address/],
    ['https://[::ffff:127.0.0.1]/hooks', /loopback/],
    ['https://[fd00:ec2::254]/hooks', /unique local/],
    ['https://[fe80::1]/hooks', /link-local/],
    ['https://localhost/hooks', /localhost resolves to it/],
    // IPv6 forms that carry an IPv4 address: judged by it, or refused outright where it cannot be read.
    ['https://[::ffff:0:127.0.0.1]/hooks', /IPv4-translated address of 127\.0\.0\.1, a loopback address/],
    ['https://[::ffff:0:a9fe:a9fe]/latest/meta-data/', /IPv4-translated address of 169\.254\.169\.254, a link-local/],
    ['https://[64:ff9b::a00:1]/hooks', /NAT64 address of 10\.0\.0\.1, a private address/],
    ['https://[64:ff9b:1::a00:1]/hooks', /local-use NAT64 address/],
    ['https://[2002:a00:1::1]/hooks', /6to4 address/],
    ['https://[2002:808:808::1]/hooks', /6to4 address/],
    ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hooks', /Teredo tunnel address/],
  ];
  for (const [url, reason] of refusals) {
    it(`refuses ${url} when it is set (400 invalid_request)`, async () => {
      const res = await put({ url });
      expectError(res, 400, 'invalid_request');
      expect((res.body as { error: { message: string } }).error.message).to.match(reason);
    });
  }

  it('refuses http: production deliveries use https only', async () => {
    const res = await put({ url: 'http://partner.example.org/hooks' });
    expectError(res, 400, 'invalid_request');
    expect((res.body as { error: { message: string } }).error.message).to.match(/https/);
  });

  it('checks again at delivery time: a name that now resolves to loopback is refused, recorded and retried, and nothing is sent', async () => {
    const owner = await server.createSigner();
    // A public address literal passes the check when set (no name to resolve, nothing is sent to it).
    const set = await put({ url: 'https://93.184.215.14/hooks' }, owner);
    expect(set.status, set.text).to.equal(200);
    // Then "DNS changes": the URL now names a host that resolves to this machine, where a receiver listens.
    const inward = `https://localhost:${receiver.port}/hooks`;
    await server.knex('partner_webhooks').where({ url: 'https://93.184.215.14/hooks' }).update({ url: inward });

    const test = await readJson<Delivery>(signedFetch(server.origin, owner, 'POST', '/api/v1/partner/webhook/test'));
    expect(test.status, test.text).to.equal(200);
    expect(test.body).to.include({ succeeded: false, statusCode: null, url: inward });
    const refused = /^refused: url must reach a public address; (127\.0\.0\.1|::1) \(localhost resolves to it\) is a loopback address\.$/;
    expect(test.body.error).to.match(refused);

    // A swap's messages meet the same check on every attempt, and are retried on the schedule.
    const { order } = await swapClient(server.origin, owner).create();
    const deadline = Date.now() + 20_000;
    let attempts: Delivery[] = [];
    while (Date.now() < deadline) {
      const page = await readJson<{ deliveries: Delivery[] }>(
        signedFetch(server.origin, owner, 'GET', '/api/v1/partner/webhook/deliveries'),
      );
      attempts = page.body.deliveries.filter((d) => d.type === 'swap.updated');
      if (attempts.some((d) => d.attempt === 3)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(attempts.map((d) => d.attempt).sort()).to.deep.equal([1, 2, 3]);
    expect(attempts.every((d) => !d.succeeded && d.statusCode === null && refused.test(d.error ?? ''))).to.equal(true);
    expect(attempts.find((d) => d.attempt === 3)!.nextAttemptAt).to.equal(null);
    expect(order.id).to.be.a('string');
    expect(receiver.received).to.have.length(0);
  });
});
