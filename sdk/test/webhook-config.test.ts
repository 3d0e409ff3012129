import { expect } from 'chai';
import {
  createPartnerClient,
  PartnerApiError,
  verifyWebhook,
  WebhookVerificationError,
  type PartnerClient,
  type WebhookDeliveryList,
} from '../src/index.js';
import { startTestServer, type TestServer } from '../../test/support/server.js';
import { createReceiver, type ReceivedDelivery, type Receiver, LOCAL_RECEIVER_ENV } from '../../test/support/webhook-receiver.js';

describe('sdk webhook configuration against the real server', function () {
  this.timeout(60_000);
  let server: TestServer;
  const receivers: Receiver[] = [];

  before(async () => {
    server = await startTestServer({ env: LOCAL_RECEIVER_ENV });
  });
  after(async () => {
    for (const receiver of receivers) await receiver.close();
    await server.close();
  });

  // Every test acts as a partner of its own with a receiver of its own, so no webhook or attempt leaks between tests.
  async function newClient(): Promise<PartnerClient> {
    const { keyId, secret } = await server.createPartner();
    return createPartnerClient({ baseUrl: server.baseUrl, audience: server.config.publicOrigin, keyId, secret, userId: 'customer-1' });
  }

  async function newReceiver(): Promise<Receiver> {
    const receiver = await createReceiver();
    receivers.push(receiver);
    await receiver.listen();
    return receiver;
  }

  /** A client whose webhook points at a listening receiver, with the secret the first set returned. */
  async function configured(): Promise<{ client: PartnerClient; receiver: Receiver; secret: string }> {
    const client = await newClient();
    const receiver = await newReceiver();
    const { data, error } = await client.webhook.set({ url: receiver.url });
    if (error) throw error;
    return { client, receiver, secret: data.secret! };
  }

  /** The request the receiver got for the message with this webhook-id. */
  async function receivedMessage(receiver: Receiver, id: string): Promise<ReceivedDelivery> {
    const received = await receiver.waitFor((all) => all.some((d) => d.headers['webhook-id'] === id));
    return received.find((d) => d.headers['webhook-id'] === id)!;
  }

  describe('.webhook.set(body)', () => {
    it('returns the full whsec_ secret on the first set, with deliveries on', async () => {
      const client = await newClient();
      const receiver = await newReceiver();
      const { data, error } = await client.webhook.set({ url: receiver.url });
      expect(error).to.equal(undefined);
      expect(data).to.include({ url: receiver.url, enabled: true });
      expect(data?.secret).to.match(/^whsec_[A-Za-z0-9+/]{16,}={0,2}$/);
      expect(data?.secretHint).to.equal(`whsec_…${data!.secret!.slice(-4)}`);
    });

    it('keeps the secret and answers secret: null when the URL changes without rotateSecret', async () => {
      const { client, secret } = await configured();
      const other = await newReceiver();
      const { data } = await client.webhook.set({ url: other.url });
      expect(data).to.include({ url: other.url, secret: null, secretHint: `whsec_…${secret.slice(-4)}` });
    });

    it('replaces the secret with rotateSecret: true, and signs the next delivery with the new one only', async () => {
      const { client, receiver, secret } = await configured();
      const rotated = await client.webhook.set({ url: receiver.url, rotateSecret: true });
      const newSecret = rotated.data?.secret;
      expect(newSecret).to.match(/^whsec_/);
      expect(newSecret).not.to.equal(secret);
      expect(rotated.data?.secretHint).to.equal(`whsec_…${newSecret!.slice(-4)}`);

      const sent = await client.webhook.sendTest();
      const delivery = await receivedMessage(receiver, sent.data!.eventId);
      expect(verifyWebhook(delivery.body, delivery.headers, newSecret!).type).to.equal('webhook.test');
      expect(() => verifyWebhook(delivery.body, delivery.headers, secret))
        .to.throw(WebhookVerificationError)
        .with.property('reason', 'invalid_signature');
    });

    it('returns invalid_request as a value for a URL with a user name', async () => {
      const client = await newClient();
      const receiver = await newReceiver();
      const { data, error } = await client.webhook.set({ url: receiver.url.replace('http://', 'http://user:pw@') });
      expect(data).to.equal(undefined);
      expect(error).to.be.instanceOf(PartnerApiError);
      expect(error).to.include({ status: 400, code: 'invalid_request' });
    });
  });

  describe('.webhook.remove()', () => {
    it('removes the URL and the secret: get() answers as before the first set and sendTest() is webhook_not_configured', async () => {
      const { client } = await configured();
      const removed = await client.webhook.remove();
      expect(removed.error).to.equal(undefined);
      expect(removed.data).to.include({ url: null, enabled: false, secretHint: null, updatedAt: null, secret: null });
      expect((await client.webhook.get()).data).to.include({ url: null, enabled: false, secretHint: null });
      const test = await client.webhook.sendTest();
      expect(test.error).to.be.instanceOf(PartnerApiError);
      expect(test.error?.code).to.equal('webhook_not_configured');
    });
  });
  describe('.webhook.get()', () => {
    it('answers url null and deliveries off before a webhook is set', async () => {
      const client = await newClient();
      const { data, error } = await client.webhook.get();
      expect(error).to.equal(undefined);
      expect(data).to.include({ url: null, enabled: false, secretHint: null, updatedAt: null });
    });

    it('shows the URL and the secret hint, never the secret', async () => {
      const { client, receiver, secret } = await configured();
      const { data } = await client.webhook.get();
      expect(data).to.include({ url: receiver.url, enabled: true, secretHint: `whsec_…${secret.slice(-4)}` });
      expect(data?.eventTypes).to.have.members(['swap.updated', 'permanent_deposit.updated']);
      expect(data).not.to.have.property('secret');
      expect(JSON.stringify(data)).not.to.include(secret.slice('whsec_'.length));
    });
  });

  describe('.webhook.sendTest()', () => {
    it('delivers a webhook.test that verifyWebhook accepts with the secret set returned', async () => {
      const { client, receiver, secret } = await configured();
      const { data, error } = await client.webhook.sendTest();
      expect(error).to.equal(undefined);
      expect(data).to.include({ type: 'webhook.test', attempt: 1, url: receiver.url, succeeded: true, statusCode: 200, error: null });

      const delivery = await receivedMessage(receiver, data!.eventId);
      expect(delivery.method).to.equal('POST');
      const event = verifyWebhook(delivery.body, delivery.headers, secret);
      expect(event.type).to.equal('webhook.test');
      expect(event.data).to.have.property('message').that.is.a('string');
    });

    it('records what the receiver answered: succeeded false and its status for a 500', async () => {
      const { client, receiver } = await configured();
      receiver.respond = () => ({ status: 500 });
      const { data } = await client.webhook.sendTest();
      expect(data).to.include({ succeeded: false, statusCode: 500, nextAttemptAt: null });
      expect(data?.error).to.be.a('string');
    });

    it('returns webhook_not_configured as a value when deliveries are stopped with enabled: false', async () => {
      const { client, receiver } = await configured();
      const stopped = await client.webhook.set({ url: receiver.url, enabled: false });
      expect(stopped.data).to.include({ url: receiver.url, enabled: false, secret: null });

      const { data, error, response } = await client.webhook.sendTest();
      expect(data).to.equal(undefined);
      expect(error).to.be.instanceOf(PartnerApiError);
      expect(error).to.include({ status: 409, code: 'webhook_not_configured' });
      expect(response.status).to.equal(409);
      expect(receiver.received).to.have.length(0);
    });

    it('returns webhook_not_configured as a value when no webhook is set', async () => {
      const client = await newClient();
      const { error } = await client.webhook.sendTest();
      expect(error).to.include({ status: 409, code: 'webhook_not_configured' });
    });
  });

  describe('.webhook.deliveries(query) and .webhook.allDeliveries(filter)', () => {
    it('lists the test attempt with the webhook-id the receiver got', async () => {
      const { client, receiver } = await configured();
      const sent = await client.webhook.sendTest();
      const delivery = await receivedMessage(receiver, sent.data!.eventId);

      const { data, error } = await client.webhook.deliveries();
      expect(error).to.equal(undefined);
      expect(data?.nextCursor).to.equal(null);
      expect(data?.deliveries).to.deep.equal([sent.data]);
      expect(data?.deliveries[0].eventId).to.equal(delivery.headers['webhook-id']);
    });

    it('lists only the attempts of one message with eventId', async () => {
      const { client } = await configured();
      const first = await client.webhook.sendTest();
      await client.webhook.sendTest();
      const { data } = await client.webhook.deliveries({ eventId: first.data!.eventId });
      expect(data?.deliveries.map((d) => d.id)).to.deep.equal([first.data!.id]);
    });

    it('walks every page of three attempts two at a time, newest first, until nextCursor is null', async () => {
      const { client } = await configured();
      const sent: string[] = [];
      for (let i = 0; i < 3; i++) sent.push((await client.webhook.sendTest()).data!.id);

      const pages: WebhookDeliveryList[] = [];
      for await (const { data, error } of client.webhook.allDeliveries({ limit: 2 })) {
        expect(error).to.equal(undefined);
        pages.push(data!);
      }
      expect(pages.map((page) => page.deliveries.length)).to.deep.equal([2, 1]);
      expect(pages.flatMap((page) => page.deliveries.map((d) => d.id))).to.deep.equal([...sent].reverse());
    });

    it('returns invalid_request as a value for a cursor the API did not issue', async () => {
      const client = await newClient();
      const { error } = await client.webhook.deliveries({ cursor: 'not-a-cursor' });
      expect(error).to.include({ status: 400, code: 'invalid_request' });
    });

    it('yields the error page and stops when the API refuses the query', async () => {
      const client = await newClient();
      const pages = [];
      for await (const page of client.webhook.allDeliveries({ limit: 0 })) pages.push(page);
      expect(pages).to.have.length(1);
      expect(pages[0].error).to.include({ status: 400 });
    });
  });
});
