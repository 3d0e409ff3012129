import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, type SwapUpdatedEvent, type WebhookEvent } from '../../sdk/src/webhooks.js';
import { expectError, readJson, type JsonResponse } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { signedFetch, type SignerOptions } from '../support/signer.js';
import { btcToUsdt, swapClient } from '../support/swaps.js';
import type { components } from '../../generated/api.js';
import { createReceiver, LOCAL_RECEIVER_ENV, type Answer, type ReceivedDelivery, type Receiver } from '../support/webhook-receiver.js';

type PartnerWebhook = components['schemas']['PartnerWebhookUpdate'];
type Delivery = components['schemas']['WebhookDelivery'];
type DeliveryList = components['schemas']['WebhookDeliveryList'];

// Short retries so an outage of a few seconds is retried through; a short timeout for the hanging receiver.
// Receivers listen on this machine (LOCAL_RECEIVER_ENV).
const ENV = { ...LOCAL_RECEIVER_ENV, WEBHOOK_RETRY_SECONDS: '0.2,0.2,0.5,0.5,1,1,1,1,1,1,1,1', WEBHOOK_TIMEOUT_SECONDS: '1' };

describe('partner webhooks', function () {
  this.timeout(60_000);
  let server: TestServer;
  const receivers: Receiver[] = [];
  before(async () => {
    server = await startTestServer({ env: ENV });
  });
  after(async () => {
    for (const receiver of receivers) await receiver.close();
    await server.close();
  });

  async function newReceiver(listening = true): Promise<Receiver> {
    const receiver = await createReceiver();
    receivers.push(receiver);
    if (listening) await receiver.listen();
    return receiver;
  }

  function partnerApi(partner: SignerOptions) {
    const send = <T>(method: string, path: string, body?: unknown) => readJson<T>(signedFetch(server.origin, partner, method, path, body));
    return {
      send,
      put: (body: Record<string, unknown>) => send<PartnerWebhook>('PUT', '/api/v1/partner/webhook', body),
      get: () => send<components['schemas']['PartnerWebhook']>('GET', '/api/v1/partner/webhook'),
      test: () => send<Delivery>('POST', '/api/v1/partner/webhook/test'),
      deliveries: (query = '') => send<DeliveryList>('GET', `/api/v1/partner/webhook/deliveries${query}`),
      async allDeliveries(query = ''): Promise<Delivery[]> {
        const all: Delivery[] = [];
        let cursor: string | null = null;
        do {
          const separator = query ? '&' : '?';
          const page: JsonResponse<DeliveryList> = await send<DeliveryList>(
            'GET',
            `/api/v1/partner/webhook/deliveries${query}${cursor ? `${separator}cursor=${cursor}` : ''}`,
          );
          expect(page.status, page.text).to.equal(200);
          all.push(...page.body.deliveries);
          cursor = page.body.nextCursor;
        } while (cursor);
        return all;
      },
    };
  }

  /** A new partner with its webhook set to `receiver`; returns the API and the secret. */
  async function partnerWithWebhook(receiver: Receiver) {
    const partner = await server.createSigner();
    const api = partnerApi(partner);
    const res = await api.put({ url: receiver.url });
    expect(res.status, res.text).to.equal(200);
    return { partner, api, secret: res.body.secret! };
  }

  const verified = (delivery: ReceivedDelivery, secret: string): WebhookEvent => verifyWebhook(delivery.body, delivery.headers, secret);

  describe('GET and PUT /partner/webhook', () => {
    it('answers no URL and deliveries off before a webhook is set', async () => {
      const res = await partnerApi(await server.createSigner()).get();
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.equal({
        url: null,
        enabled: false,
        secretHint: null,
        eventTypes: ['swap.updated', 'permanent_deposit.updated'],
        updatedAt: null,
      });
    });

    it('generates a whsec_ secret of 24 random bytes on the first set and shows only its hint afterwards', async () => {
      const api = partnerApi(await server.createSigner());
      const first = await api.put({ url: 'https://partner.example.org/hooks' });
      expect(first.status, first.text).to.equal(200);
      const secret = first.body.secret!;
      expect(secret).to.match(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
      expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).to.have.length(24);
      expect(first.body).to.include({ url: 'https://partner.example.org/hooks', enabled: true, secretHint: `whsec_…${secret.slice(-4)}` });

      const read = await api.get();
      expect(read.body).to.include({ url: 'https://partner.example.org/hooks', enabled: true, secretHint: `whsec_…${secret.slice(-4)}` });
      expect(JSON.stringify(read.body)).not.to.contain(secret.slice(6));

      const again = await api.put({ url: 'https://partner.example.org/hooks/v2' });
      expect(again.body.secret).to.equal(null);
      expect(again.body.secretHint).to.equal(first.body.secretHint);
      expect(again.body.url).to.equal('https://partner.example.org/hooks/v2');
    });

    // On PGlite transactions run one at a time anyway; on PostgreSQL (make test runs both) this fails without
    // the partner's lock around making the first secret.
    it('makes one secret when five first sets arrive at once; the others keep it', async () => {
      const api = partnerApi(await server.createSigner());
      const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => api.put({ url: `https://partner.example.org/hooks/${i}` })));
      for (const a of answers) expect(a.status, a.text).to.equal(200);
      const secrets = answers.map((a) => a.body.secret).filter((secret) => secret !== null);
      expect(secrets).to.have.length(1);
      const read = await api.get();
      expect(read.body.secretHint).to.equal(`whsec_…${secrets[0]!.slice(-4)}`);
    });

    it('stores the secret sealed, never in plaintext', async () => {
      const partner = await server.createSigner();
      const { body } = await partnerApi(partner).put({ url: 'https://partner.example.org/hooks' });
      const rows = await server.knex('partner_webhooks').select('*');
      expect(JSON.stringify(rows)).not.to.contain(body.secret!.slice(6));
    });

    it('rotates the secret on rotateSecret, and deliveries are signed with the new one', async () => {
      const receiver = await newReceiver();
      const { api, secret: old } = await partnerWithWebhook(receiver);
      const rotated = await api.put({ url: receiver.url, rotateSecret: true });
      expect(rotated.status, rotated.text).to.equal(200);
      const secret = rotated.body.secret!;
      expect(secret)
        .to.match(/^whsec_/)
        .and.not.equal(old);

      const test = await api.test();
      expect(test.body.succeeded, test.text).to.equal(true);
      const delivery = receiver.received.at(-1)!;
      expect(verified(delivery, secret).type).to.equal('webhook.test');
      expect(() => verified(delivery, old)).to.throw(/does not match/);
    });

    it('keeps updatedAt when a set changes nothing, and moves it when the URL or enabled changes', async () => {
      const receiver = await newReceiver();
      const { api } = await partnerWithWebhook(receiver);
      const first = await api.get();
      const pause = () => new Promise((resolve) => setTimeout(resolve, 20));
      await pause();
      const same = await Promise.all([0, 1, 2].map(() => api.put({ url: receiver.url })));
      for (const res of same)
        expect(res.body).to.include({ url: receiver.url, enabled: true, updatedAt: first.body.updatedAt, secret: null });
      expect((await api.get()).body).to.deep.equal(first.body);
      await pause();
      const stopped = await api.put({ url: receiver.url, enabled: false });
      expect(stopped.body.enabled).to.equal(false);
      expect(Date.parse(stopped.body.updatedAt!)).to.be.greaterThan(Date.parse(first.body.updatedAt!));
      expect((await api.get()).body).to.include({ enabled: false, updatedAt: stopped.body.updatedAt });
      await pause();
      const moved = await api.put({ url: `${receiver.url}?v=2` });
      expect(moved.body).to.include({ url: `${receiver.url}?v=2`, enabled: true });
      expect(Date.parse(moved.body.updatedAt!)).to.be.greaterThan(Date.parse(stopped.body.updatedAt!));
      expect((await api.test()).body).to.include({ succeeded: true, url: `${receiver.url}?v=2` });
    });

    it('removes the webhook on url: null: URL and secret gone, GET as before the first set, a later set makes a new secret', async () => {
      const receiver = await newReceiver();
      const { api, secret: old } = await partnerWithWebhook(receiver);
      const notConfigured = {
        url: null,
        enabled: false,
        secretHint: null,
        eventTypes: ['swap.updated', 'permanent_deposit.updated'],
        updatedAt: null,
      };
      const removed = await api.put({ url: null });
      expect(removed.status, removed.text).to.equal(200);
      expect(removed.body).to.deep.equal({ ...notConfigured, secret: null });
      expect((await api.get()).body).to.deep.equal(notConfigured);
      expectError(await api.test(), 409, 'webhook_not_configured');
      // Removing when none is set changes nothing and answers the same.
      expect((await api.put({ url: null })).body).to.deep.equal({ ...notConfigured, secret: null });

      const again = await api.put({ url: receiver.url });
      expect(again.status, again.text).to.equal(200);
      expect(again.body.secret).to.match(/^whsec_/);
      expect(again.body.secret).not.to.equal(old);
      expect((await api.test()).body.succeeded).to.equal(true);
      expect(verified(receiver.received.at(-1)!, again.body.secret!).type).to.equal('webhook.test');
    });

    it('refuses rotateSecret: true with url: null (400), keeping the webhook', async () => {
      const receiver = await newReceiver();
      const { api } = await partnerWithWebhook(receiver);
      const before = await api.get();
      const res = await api.put({ url: null, rotateSecret: true });
      expectError(res, 400, 'invalid_request');
      expect(res.body).to.have.nested.property('error.details.field', 'rotateSecret');
      expect((await api.get()).body).to.deep.equal(before.body);
    });

    it('refuses a URL that is not http(s), or that carries a user name and password (400)', async () => {
      const api = partnerApi(await server.createSigner());
      for (const url of ['ftp://partner.example.org/hooks', 'https://user:pass@partner.example.org/hooks']) {
        const res = await api.put({ url });
        expectError(res, 400, 'invalid_request');
        expect(res.body).to.have.nested.property('error.details.field', 'url');
      }
      expectError(await api.put({ url: 'not a url' }), 400, 'invalid_request');
    });
  });

  describe('POST /partner/webhook/test', () => {
    it('is 409 webhook_not_configured without a webhook', async () => {
      expectError(await partnerApi(await server.createSigner()).test(), 409, 'webhook_not_configured');
    });

    it('sends a webhook.test event at once that the official standardwebhooks library verifies', async () => {
      const receiver = await newReceiver();
      const { api, secret } = await partnerWithWebhook(receiver);
      const res = await api.test();
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.include({ type: 'webhook.test', attempt: 1, succeeded: true, statusCode: 200, error: null, url: receiver.url });
      expect(res.body.nextAttemptAt).to.equal(null);

      const [delivery] = receiver.received;
      expect(delivery.method).to.equal('POST');
      expect(delivery.headers['content-type']).to.equal('application/json');
      expect(delivery.headers['webhook-id']).to.equal(res.body.eventId);
      const event = new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>) as WebhookEvent;
      expect(event.type).to.equal('webhook.test');
      expect(verified(delivery, secret)).to.deep.equal(event);
      expect(Math.abs(Number(delivery.headers['webhook-timestamp']) - Date.now() / 1000)).to.be.below(5);

      const list = await api.deliveries();
      expect(list.body.deliveries[0]).to.deep.equal(res.body);
    });

    it('keeps the connection between deliveries, and sends again on a new one when the receiver dropped it', async () => {
      const receiver = await newReceiver();
      const { api } = await partnerWithWebhook(receiver);
      for (let i = 0; i < 2; i++) expect((await api.test()).body).to.include({ succeeded: true });
      const [first, second] = receiver.received;
      expect(second.connection, 'the second delivery reuses the first one’s connection').to.equal(first.connection);
      // The kept connection is closed without an answer, as by a receiver that closed it while it was idle.
      receiver.respond = (d) => (d.connection === first.connection ? 'drop' : { status: 200 });
      const res = await api.test();
      expect(res.body).to.include({ succeeded: true, statusCode: 200, attempt: 1 });
      const [dropped, resent] = receiver.received.slice(2);
      expect([dropped.connection, resent.connection]).to.deep.equal([first.connection, first.connection + 1]);
      expect(resent.headers['webhook-id']).to.equal(dropped.headers['webhook-id']);
      expect(resent.headers['webhook-id']).to.equal(res.body.eventId);
      expect(receiver.received).to.have.length(4);
    });

    it('records a redirect as a failed attempt and does not follow it', async () => {
      const receiver = await newReceiver();
      const { api } = await partnerWithWebhook(receiver);
      receiver.respond = (d) => (d.path === '/hooks' ? { status: 302, headers: { location: '/elsewhere' } } : { status: 200 });
      const res = await api.test();
      expect(res.body).to.include({ succeeded: false, statusCode: 302 });
      expect(res.body.error).to.match(/redirect/);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(receiver.received.map((d) => d.path)).to.deep.equal(['/hooks']);
    });

    // Otherwise a partner could read whatever a host answers by pointing its webhook at it.
    it('reports only the status code and timing, never the receiver’s reason phrase, headers or body', async () => {
      const receiver = await newReceiver();
      const { api } = await partnerWithWebhook(receiver);
      const leaks = ['Location-Secret-7f3a', 'Reason-Secret-91c2', 'Body-Secret-4d5e', 'Header-Secret-08b1'];
      const answers: Answer[] = [
        { status: 302, statusText: `Found ${leaks[1]}`, headers: { location: `http://internal.example/${leaks[0]}` }, body: leaks[2] },
        { status: 418, statusText: `Teapot ${leaks[1]}`, headers: { 'x-internal': leaks[3] }, body: leaks[2] },
        { status: 500, statusText: leaks[1], headers: { 'www-authenticate': `Basic realm="${leaks[3]}"` }, body: leaks[2] },
      ];
      for (const answer of answers) {
        receiver.respond = () => answer;
        const res = await api.test();
        expect(res.status, res.text).to.equal(200);
        expect(res.body).to.include({ succeeded: false, statusCode: answer.status });
        expect(res.body.durationMs).to.be.a('number');
        expect(res.body.error).to.match(new RegExp(`^answered ${answer.status}[ ;(]`));
        for (const leak of leaks) expect(res.text).not.to.contain(leak);
      }
      const log = await api.deliveries();
      expect(log.body.deliveries).to.have.length(answers.length);
      for (const leak of leaks) expect(log.text).not.to.contain(leak);
    });

    // Test deliveries read their webhook and are recorded in groups (store/webhooks.ts): the requests of
    // several partners that arrive together must each get their own webhook and their own record.
    // At most WEBHOOK_MAX_CONCURRENT_PER_PARTNER (4 by default) test sends of one partner's are in flight, and
    // as many wait up to a second for a slot; more at once are refused with 429 (webhooks-fairness.test.ts).
    it('answers test deliveries sent at once by several partners each with its own recorded attempt', async () => {
      const PER_PARTNER = 8;
      const receivers = [await newReceiver(), await newReceiver()];
      const partners = await Promise.all(receivers.map((r) => partnerWithWebhook(r)));
      const stoppedReceiver = await newReceiver();
      const stopped = await partnerWithWebhook(stoppedReceiver);
      expect((await stopped.api.put({ url: stoppedReceiver.url, enabled: false })).status).to.equal(200);

      const sends = [...partners, stopped].flatMap(({ api }) => Array.from({ length: PER_PARTNER }, () => api.test()));
      const answers = await Promise.all(sends);
      for (const [i, { api }] of partners.entries()) {
        const mine = answers.slice(i * PER_PARTNER, (i + 1) * PER_PARTNER);
        for (const res of mine) expect(res.status, res.text).to.equal(200);
        for (const res of mine) expect(res.body).to.include({ type: 'webhook.test', attempt: 1, succeeded: true, url: receivers[i].url });
        const eventIds = mine.map((res) => res.body.eventId);
        expect(new Set(eventIds).size).to.equal(PER_PARTNER);
        expect(new Set(mine.map((res) => res.body.id)).size).to.equal(PER_PARTNER);
        // Every answer is a stored attempt, exactly as the list shows it, and only this partner's.
        const listed = await api.allDeliveries();
        expect(listed).to.have.deep.members(mine.map((res) => res.body));
        expect(receivers[i].received.map((d) => d.headers['webhook-id']).sort()).to.deep.equal([...eventIds].sort());
      }
      for (const res of answers.slice(2 * PER_PARTNER)) expectError(res, 409, 'webhook_not_configured');
      expect(await stopped.api.allDeliveries()).to.deep.equal([]);
      expect(stoppedReceiver.received).to.deep.equal([]);
    });

    it('gives up on a receiver that does not answer within WEBHOOK_TIMEOUT_SECONDS', async () => {
      const receiver = await newReceiver();
      const { api } = await partnerWithWebhook(receiver);
      receiver.respond = () => 'hang';
      const started = Date.now();
      const res = await api.test();
      expect(Date.now() - started).to.be.within(900, 5_000);
      expect(res.body).to.include({ succeeded: false, statusCode: null });
      expect(res.body.error).to.match(/timed out after 1 s/);
    });
  });

  describe('event filters (PUT /partner/webhook eventTypes)', () => {
    // Every outbox row of `partnerId` has been dispatched (turned into a delivery job, or passed over).
    const dispatched = async (partnerId: string) => {
      for (let i = 0; i < 100; i++) {
        const [{ n }] = await server.knex('webhook_outbox').where({ partner_id: partnerId }).whereNull('dispatched_at').count({ n: '*' });
        if (Number(n) === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('the outbox was not dispatched');
    };
    const partnerIdOf = async (keyId: string) => (await server.knex('partners').where({ key_id: keyId }).first('id')).id as string;

    it('delivers only the chosen event types, shows the filter, and always sends webhook.test', async () => {
      const receiver = await newReceiver();
      const { partner, api } = await partnerWithWebhook(receiver);
      const partnerId = await partnerIdOf(partner.keyId);
      const filtered = await api.put({ url: receiver.url, eventTypes: ['permanent_deposit.updated'] });
      expect(filtered.status, filtered.text).to.equal(200);
      expect(filtered.body.eventTypes).to.deep.equal(['permanent_deposit.updated']);
      expect((await api.get()).body.eventTypes).to.deep.equal(['permanent_deposit.updated']);

      // A swap's messages are written to the outbox and passed over: nothing arrives, nothing is listed.
      const client = swapClient(server.origin, partner);
      const { order } = await client.create(btcToUsdt());
      await client.waitFor(order.id, (o) => o.depositAddress !== null);
      expect(Number((await server.knex('webhook_outbox').where({ partner_id: partnerId }).count({ n: '*' }))[0].n)).to.be.greaterThan(0);
      await dispatched(partnerId);
      expect(receiver.received).to.deep.equal([]);
      expect(await api.allDeliveries()).to.deep.equal([]);

      // The test send goes out whatever the filter, also with one that delivers nothing else.
      expect((await api.put({ url: receiver.url, eventTypes: [] })).body.eventTypes).to.deep.equal([]);
      const test = await api.test();
      expect(test.status, test.text).to.equal(200);
      expect(test.body).to.include({ type: 'webhook.test', succeeded: true });

      // Choosing swap.updated delivers the next swap's messages, and only those types.
      const chosen = await api.put({ url: receiver.url, eventTypes: ['swap.updated', 'webhook.test'] });
      expect(chosen.body.eventTypes).to.deep.equal(['swap.updated']);
      const next = await client.create(btcToUsdt());
      await receiver.waitFor((received) => received.some((d) => JSON.parse(d.body).data?.order?.id === next.order.id));
      const types = new Set(receiver.received.map((d) => JSON.parse(d.body).type as string));
      expect([...types].sort()).to.deep.equal(['swap.updated', 'webhook.test']);
      expect(receiver.received.some((d) => JSON.parse(d.body).data?.order?.id === order.id)).to.equal(false);
      const listed = await api.allDeliveries();
      expect(new Set(listed.map((d) => d.type))).to.deep.equal(new Set(['swap.updated', 'webhook.test']));

      // A set without eventTypes keeps the filter; null delivers every type again.
      expect((await api.put({ url: receiver.url })).body.eventTypes).to.deep.equal(['swap.updated']);
      const reset = await api.put({ url: receiver.url, eventTypes: null });
      expect(reset.body.eventTypes).to.deep.equal(['swap.updated', 'permanent_deposit.updated']);
    });

    it('refuses an event type that does not exist (400)', async () => {
      const receiver = await newReceiver();
      const { api } = await partnerWithWebhook(receiver);
      expectError(await api.put({ url: receiver.url, eventTypes: ['swap.created'] }), 400, 'invalid_request');
    });
  });

  describe('swap.updated deliveries', () => {
    it('follows a swap from waiting to finished through verified deliveries, in the shape of GET /swaps/{id}', async () => {
      const receiver = await newReceiver();
      const { partner, secret } = await partnerWithWebhook(receiver);
      const client = swapClient(server.origin, partner);
      const { order } = await client.create(btcToUsdt('0.015', { rateType: 'fixed' }));
      await client.pay(order);
      const finished = (received: ReceivedDelivery[]) =>
        received.some((d) => (JSON.parse(d.body) as SwapUpdatedEvent).data.event?.status === 'finished');
      await receiver.waitFor(finished);
      const detail = await client.get(order.id);

      const official = new Webhook(secret);
      const events = receiver.received.map((delivery) => {
        const event = verified(delivery, secret) as SwapUpdatedEvent;
        expect(official.verify(delivery.body, delivery.headers as Record<string, string>)).to.deep.equal(event);
        expect(event.type).to.equal('swap.updated');
        expect(event.data.order.id).to.equal(order.id);
        return event;
      });
      // Each timeline entry exactly once (deduplicated by webhook-id), and the last order as GET shows it.
      const byId = new Map(receiver.received.map((d) => [d.headers['webhook-id'], d]));
      expect(byId.size).to.equal(receiver.received.length);
      const timeline = events.map((e) => e.data.event).filter((e) => e !== null);
      expect(timeline.map((e) => e.id).sort()).to.deep.equal(detail.events.map((e) => e.id).sort());
      expect(detail.events.map((e) => e.status)).to.include.members(['waiting', 'confirming', 'exchanging', 'sending', 'finished']);
      const last = events.find((e) => e.data.event?.status === 'finished')!;
      expect(last.data.order).to.deep.equal(detail.order);
      expect(last.data.event).to.deep.equal(detail.events.at(-1));
      // The message's time is its commit's (the outbox row), close to the change it announces.
      expect(Math.abs(Date.parse(last.timestamp) - Date.parse(detail.order.updatedAt))).to.be.below(2_000);
    });

    it('delivers every event through an outage (refused, then 500s, then up): none lost, each id acknowledged once', async () => {
      const receiver = await newReceiver(false);
      const { partner, api, secret } = await partnerWithWebhook(receiver);
      const partnerId = (await server.knex('partners').where({ key_id: partner.keyId }).first('id')).id as string;
      const client = swapClient(server.origin, partner);
      const { order } = await client.create(btcToUsdt('0.015', { rateType: 'fixed' }));
      await client.pay(order);
      await client.waitFor(order.id, (o) => o.terminal);

      // Down: connections refused, recorded as attempts without a status.
      const refusedPhase = async () => {
        for (;;) {
          const attempts = await api.allDeliveries();
          if (attempts.filter((a) => a.statusCode === null).length >= 6) return attempts;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      };
      const refused = await refusedPhase();
      expect(refused.every((a) => !a.succeeded)).to.equal(true);
      expect(refused[0].error).to.match(/connection refused/);
      expect(refused.some((a) => a.nextAttemptAt !== null)).to.equal(true);

      // Up but failing: 500 for the next few requests.
      let failures = 0;
      receiver.respond = () => (failures++ < 5 ? { status: 500 } : { status: 200 });
      await receiver.listen();

      const messageIds: string[] = await server.knex('webhook_outbox').where({ partner_id: partnerId }).orderBy('seq').pluck('id');
      expect(messageIds.length).to.be.at.least(5);
      const acknowledged = (received: ReceivedDelivery[]) => {
        // The receiver's dedupe: the ids it answered 2xx, once each.
        const ok = new Set<string>();
        received.forEach((d, i) => {
          if (i >= 5) ok.add(d.headers['webhook-id'] as string);
        });
        return ok;
      };
      await receiver.waitFor((received) => messageIds.every((id) => acknowledged(received).has(id)), 30_000);
      for (const delivery of receiver.received) verified(delivery, secret);
      expect([...acknowledged(receiver.received)].sort()).to.deep.equal([...messageIds].sort());

      // Every attempt is visible, per message numbered 1..n, failures before the one success.
      const attempts = await api.allDeliveries();
      for (const id of messageIds) {
        const mine = attempts.filter((a) => a.eventId === id).sort((a, b) => a.attempt - b.attempt);
        expect(mine.map((a) => a.attempt)).to.deep.equal(mine.map((_, i) => i + 1));
        expect(mine.filter((a) => a.succeeded)).to.have.length(1);
        expect(mine.at(-1)!.succeeded).to.equal(true);
        expect(mine.at(-1)!.nextAttemptAt).to.equal(null);
        expect(mine.slice(0, -1).every((a) => a.nextAttemptAt !== null)).to.equal(true);
        const filtered = await api.allDeliveries(`?eventId=${id}`);
        expect(filtered.map((a) => a.id).sort()).to.deep.equal(mine.map((a) => a.id).sort());
      }
      expect(attempts.some((a) => a.statusCode === 500 && /answered 500/.test(a.error ?? ''))).to.equal(true);
      // Newest first.
      const times = attempts.map((a) => Date.parse(a.attemptedAt));
      expect(times).to.deep.equal([...times].sort((a, b) => b - a));
    });

    it('stops deliveries with enabled: false and resumes with messages created afterwards', async () => {
      const receiver = await newReceiver();
      const { partner, api } = await partnerWithWebhook(receiver);
      const off = await api.put({ url: receiver.url, enabled: false });
      expect(off.body).to.include({ enabled: false, secret: null });
      expect((await api.get()).body.enabled).to.equal(false);
      expectError(await api.test(), 409, 'webhook_not_configured');

      const client = swapClient(server.origin, partner);
      const { order } = await client.create();
      await client.waitFor(order.id, (o) => Boolean(o.depositAddress));
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(receiver.received).to.have.length(0);

      await api.put({ url: receiver.url, enabled: true });
      const second = await client.create();
      await receiver.waitFor((received) => received.length > 0);
      await client.waitFor(second.order.id, (o) => Boolean(o.depositAddress));
      await new Promise((resolve) => setTimeout(resolve, 500));
      const orders = new Set(receiver.received.map((d) => (JSON.parse(d.body) as SwapUpdatedEvent).data.order.id));
      expect([...orders]).to.deep.equal([second.order.id]);
    });

    it('delivers nothing more once the webhook is removed, not even messages created before', async () => {
      const receiver = await newReceiver(false);
      const { partner, api } = await partnerWithWebhook(receiver);
      const client = swapClient(server.origin, partner);
      const { order } = await client.create();
      await client.waitFor(order.id, (o) => Boolean(o.depositAddress));
      expect((await api.put({ url: null })).status).to.equal(200);
      // The receiver comes up after the removal: retries of the messages made while it was down find no webhook.
      await receiver.listen();
      await client.create();
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(receiver.received).to.have.length(0);
    });
  });

  describe('GET /partner/webhook/deliveries', () => {
    it('pages newest first with nextCursor, and shows each partner only its own attempts', async () => {
      const receiver = await newReceiver();
      const { api } = await partnerWithWebhook(receiver);
      const sent: string[] = [];
      for (let i = 0; i < 5; i++) sent.push((await api.test()).body.id);
      const first = await api.deliveries('?limit=2');
      expect(first.body.deliveries.map((d) => d.id)).to.deep.equal([sent[4], sent[3]]);
      expect(first.body.nextCursor).to.be.a('string');
      expect((await api.allDeliveries()).map((d) => d.id)).to.deep.equal([...sent].reverse());

      const other = partnerApi(await server.createSigner());
      expect((await other.deliveries()).body).to.deep.equal({ deliveries: [], nextCursor: null });
    });

    // Pages are read in groups, a page asked for twice in a group once (createAttemptPageReader): pages of two
    // partners, with and without a cursor and an eventId filter, each asked for twice at once, must each be
    // what it is when asked for alone.
    it('answers list requests of two partners sent at once each with its own page', async () => {
      const apis: Array<ReturnType<typeof partnerApi>> = [];
      for (let n = 0; n < 2; n++) {
        const { api } = await partnerWithWebhook(await newReceiver());
        for (let i = 0; i < 3 + n; i++) await api.test();
        apis.push(api);
      }
      const firsts = await Promise.all(apis.map((api) => api.deliveries('?limit=2')));
      const queries = firsts.flatMap((first) => [
        '',
        '?limit=1',
        `?limit=2&cursor=${first.body.nextCursor}`,
        `?eventId=${first.body.deliveries[1].eventId}`,
        `?eventId=${randomUUID()}`,
      ]);
      const ask = (k: number) => apis[Math.floor(k / 5)].deliveries(queries[k]);
      const alone: Array<JsonResponse<DeliveryList>> = [];
      for (let k = 0; k < queries.length; k++) alone.push(await ask(k));
      const together = await Promise.all([...queries.keys(), ...queries.keys()].map(ask));
      expect(together.map((r) => r.status)).to.deep.equal(together.map(() => 200));
      expect(together.map((r) => r.body)).to.deep.equal([...alone, ...alone].map((r) => r.body));
      expect(alone.map((r) => r.body.deliveries.length)).to.deep.equal([3, 1, 1, 1, 0, 4, 1, 2, 1, 0]);
      expect(alone[2].body.deliveries[0].id).to.equal(alone[0].body.deliveries[2].id);
      expect(alone[3].body.deliveries[0].id).to.equal(alone[0].body.deliveries[1].id);
    });

    it('refuses a cursor it did not issue, or one made with another eventId filter (400)', async () => {
      const receiver = await newReceiver();
      const { api } = await partnerWithWebhook(receiver);
      await api.test();
      await api.test();
      const page = await api.deliveries('?limit=1');
      expectError(await api.deliveries(`?cursor=${Buffer.from('{"s":"x"}').toString('base64url')}`), 400, 'invalid_request');
      // Well-formed, but month 99: no cursor of this API carries it.
      const impossible = Buffer.from(JSON.stringify({ p: { a: '2024-99-01T00:00:00.000Z', s: '1' }, f: null })).toString('base64url');
      expectError(await api.deliveries(`?cursor=${impossible}`), 400, 'invalid_request');
      expectError(
        await api.deliveries(`?cursor=${page.body.nextCursor}&eventId=${page.body.deliveries[0].eventId}`),
        400,
        'invalid_request',
      );
    });
  });
});
