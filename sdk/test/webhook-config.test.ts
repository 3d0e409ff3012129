import { expect } from 'chai';
import { PartnerApiError, type PartnerWebhookUpdate, type WebhookDelivery } from '../src/index.js';
import { apiError, fakeApi, json } from './support/fake-api.js';

const URL_ = 'https://hooks.example.com/swap-service';
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const EVENT_TYPES = ['swap.updated', 'permanent_deposit.updated'] as const;
const UPDATE: PartnerWebhookUpdate = {
  url: URL_,
  enabled: true,
  secretHint: `whsec_…${SECRET.slice(-4)}`,
  eventTypes: [...EVENT_TYPES],
  updatedAt: '2026-06-14T10:00:00.000Z',
  secret: SECRET,
};
const deliveryOf = (id: string, overrides: Partial<WebhookDelivery> = {}): WebhookDelivery => ({
  id,
  eventId: `msg_${id}`,
  type: 'webhook.test',
  attempt: 1,
  url: URL_,
  succeeded: true,
  statusCode: 200,
  error: null,
  durationMs: 12,
  attemptedAt: '2026-06-14T10:00:00.000Z',
  nextAttemptAt: null,
  ...overrides,
});

describe('sdk webhook configuration', () => {
  describe('.webhook.set(body)', () => {
    it('sends PUT /partner/webhook signed with the body as given and returns the secret', async () => {
      const api = fakeApi().on('PUT', '/partner/webhook', () => json(200, UPDATE));
      const { data, error } = await api.client().webhook.set({ url: URL_, rotateSecret: true, enabled: true });
      expect(error).to.equal(undefined);
      expect(data).to.deep.equal(UPDATE);
      expect(api.sent[0].signed).to.equal(true);
      expect(JSON.parse(api.sent[0].body)).to.deep.equal({ url: URL_, rotateSecret: true, enabled: true });
    });

    it('returns invalid_request as a value for a refused URL', async () => {
      const api = fakeApi().on('PUT', '/partner/webhook', () => apiError(400, 'invalid_request', 'url must not carry a user name'));
      const { data, error } = await api.client().webhook.set({ url: 'https://user:pw@hooks.example.com/' });
      expect(data).to.equal(undefined);
      expect(error).to.be.instanceOf(PartnerApiError);
      expect(error).to.include({ status: 400, code: 'invalid_request' });
    });
  });

  describe('.webhook.remove()', () => {
    it('sends PUT /partner/webhook signed with url null and returns the cleared configuration', async () => {
      const cleared = { url: null, enabled: false, secretHint: null, updatedAt: null, secret: null };
      const api = fakeApi().on('PUT', '/partner/webhook', () => json(200, cleared));
      const { data, error } = await api.client().webhook.remove();
      expect(error).to.equal(undefined);
      expect(data).to.deep.equal(cleared);
      expect(api.sent[0].signed).to.equal(true);
      expect(JSON.parse(api.sent[0].body)).to.deep.equal({ url: null });
    });
  });

  describe('.webhook.get()', () => {
    it('reads GET /partner/webhook signed', async () => {
      const { secret: _secret, ...current } = UPDATE;
      const api = fakeApi().on('GET', '/partner/webhook', () => json(200, current));
      const { data, error } = await api.client().webhook.get();
      expect(error).to.equal(undefined);
      expect(data).to.deep.equal(current);
      expect(api.sent[0]).to.include({ path: '/partner/webhook', signed: true });
    });
  });

  describe('.webhook.sendTest()', () => {
    it('sends POST /partner/webhook/test without a body and returns the attempt', async () => {
      const attempt = deliveryOf('wd_1');
      const api = fakeApi().on('POST', '/partner/webhook/test', () => json(200, attempt));
      const { data, error } = await api.client().webhook.sendTest();
      expect(error).to.equal(undefined);
      expect(data).to.deep.equal(attempt);
      expect(api.sent[0]).to.include({ path: '/partner/webhook/test', body: '', signed: true });
    });

    it('returns webhook_not_configured as a value', async () => {
      const api = fakeApi().on('POST', '/partner/webhook/test', () => apiError(409, 'webhook_not_configured', 'Set a webhook first.'));
      const { data, error, response } = await api.client().webhook.sendTest();
      expect(data).to.equal(undefined);
      expect(error).to.be.instanceOf(PartnerApiError);
      expect(error).to.include({ status: 409, code: 'webhook_not_configured' });
      expect(response.status).to.equal(409);
    });
  });

  describe('.webhook.deliveries(query) and .webhook.allDeliveries(filter)', () => {
    it('sends limit, cursor and eventId as the query', async () => {
      const api = fakeApi().on('GET', '/partner/webhook/deliveries', () =>
        json(200, { deliveries: [deliveryOf('wd_1')], nextCursor: null }),
      );
      const { data } = await api.client().webhook.deliveries({ eventId: 'msg_wd_1', limit: 5, cursor: 'c2' });
      expect(data?.deliveries.map((d) => d.id)).to.deep.equal(['wd_1']);
      expect(Object.fromEntries(api.sent[0].query)).to.deep.equal({ eventId: 'msg_wd_1', limit: '5', cursor: 'c2' });
    });

    it('walks every page two at a time until nextCursor is null', async () => {
      const api = fakeApi().on(
        'GET',
        '/partner/webhook/deliveries',
        () => json(200, { deliveries: [deliveryOf('wd_3'), deliveryOf('wd_2')], nextCursor: 'c2' }),
        () => json(200, { deliveries: [deliveryOf('wd_1')], nextCursor: null }),
      );
      const pages = [];
      for await (const { data, error } of api.client().webhook.allDeliveries({ limit: 2 })) {
        expect(error).to.equal(undefined);
        pages.push(data!.deliveries.map((d) => d.id));
      }
      expect(pages).to.deep.equal([['wd_3', 'wd_2'], ['wd_1']]);
      expect(api.sent.map((r) => r.query.toString())).to.deep.equal(['limit=2', 'limit=2&cursor=c2']);
    });

    it('returns invalid_request as a value for a cursor the API did not issue', async () => {
      const api = fakeApi().on('GET', '/partner/webhook/deliveries', () => apiError(400, 'invalid_request', 'cursor is not valid'));
      const { error } = await api.client().webhook.deliveries({ cursor: 'not-a-cursor' });
      expect(error).to.include({ status: 400, code: 'invalid_request' });
    });

    it('yields the error page and stops when the API refuses the query', async () => {
      const api = fakeApi().on('GET', '/partner/webhook/deliveries', () => apiError(400, 'invalid_request', 'limit must be >= 1'));
      const pages = [];
      for await (const page of api.client().webhook.allDeliveries({ limit: 0 })) pages.push(page);
      expect(pages).to.have.length(1);
      expect(pages[0].error).to.include({ status: 400 });
    });
  });
});
