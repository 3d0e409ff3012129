import fs from 'node:fs';
import { expect } from 'chai';
import { API_VERSION, createPartnerClient, PartnerApiError, SDK_VERSION } from '../src/index.js';
import { fakeApi, json, PARTNER, sentTo } from './support/fake-api.js';

const MARKUP = { percent: 0.75, updatedAt: '2026-06-14T10:00:00.000Z' };

describe('sdk client', () => {
  describe('public reads', () => {
    it('reads health, assets and pairs, sending the pair source as the query', async () => {
      const api = fakeApi()
        .on('GET', '/health', () => json(200, { status: 'ok', version: API_VERSION }))
        .on('GET', '/assets', () => json(200, { assets: [{ symbol: 'BTC' }, { symbol: 'USDT' }] }))
        .on('GET', '/pairs', () => json(200, { kind: 'destinations', destinations: [] }));
      const client = api.client();
      expect((await client.health()).data?.version).to.equal(API_VERSION);
      expect((await client.listAssets()).data?.assets.map((a) => a.symbol)).to.deep.equal(['BTC', 'USDT']);
      const pairs = await client.getPairs({ sourceAsset: 'USDT', sourceNetwork: 'TRX' });
      expect(pairs.data?.kind).to.equal('destinations');
      expect(Object.fromEntries(sentTo(api, 'GET', '/pairs')[0].query)).to.deep.equal({ sourceAsset: 'USDT', sourceNetwork: 'TRX' });
    });
  });

  describe('.setMarkup(percent) and .getMarkup()', () => {
    it('sends PUT /partner/markup with the percent, signed, and reads it back signed', async () => {
      const api = fakeApi()
        .on('PUT', '/partner/markup', () => json(200, MARKUP))
        .on('GET', '/partner/markup', () => json(200, MARKUP));
      const client = api.client();
      const set = await client.setMarkup(0.75);
      expect(set.error).to.equal(undefined);
      expect(set.data).to.deep.equal(MARKUP);
      expect((await client.getMarkup()).data?.percent).to.equal(0.75);
      const [put, get] = api.sent;
      expect(put).to.include({ method: 'PUT', path: '/partner/markup', signed: true });
      expect(JSON.parse(put.body)).to.deep.equal({ percent: 0.75 });
      expect(put.headers.get('content-type')).to.match(/^application\/json/);
      expect(get).to.include({ method: 'GET', path: '/partner/markup', body: '', signed: true });
    });

    it('signs with the key id, the user, a current timestamp and a fresh nonce each request', async () => {
      const api = fakeApi().on('GET', '/partner/markup', () => json(200, MARKUP));
      const client = api.client({ now: () => 1_790_000_000_123 });
      await client.getMarkup();
      await client.getMarkup();
      const [first, second] = api.sent.map((r) => r.headers);
      expect(first.get('x-service-key-id')).to.equal(PARTNER.keyId);
      expect(first.get('x-service-user')).to.equal(PARTNER.userId);
      expect(first.get('x-service-timestamp')).to.equal('1790000000');
      expect(first.get('x-service-nonce')).to.match(/^[0-9a-f]{32}$/);
      expect(second.get('x-service-nonce')).not.to.equal(first.get('x-service-nonce'));
    });
  });

  describe('errors as values', () => {
    it('returns a PartnerApiError value with code, message, details and request id on a 400', async () => {
      const api = fakeApi().on('PUT', '/partner/markup', () =>
        json(
          400,
          {
            error: {
              code: 'invalid_request',
              message: 'percent must have at most 2 decimal places',
              details: { errors: [{ path: '/body/percent', message: 'at most 2 decimal places' }] },
            },
          },
          { 'x-request-id': 'req_4711' },
        ),
      );
      const { data, error, response } = await api.client().setMarkup(0.125);
      expect(data).to.equal(undefined);
      expect(error).to.be.instanceOf(PartnerApiError);
      expect(error).to.include({ status: 400, code: 'invalid_request', requestId: 'req_4711' });
      expect(error?.message).to.match(/at most 2 decimal places/);
      expect(error?.details).to.deep.equal({ errors: [{ path: '/body/percent', message: 'at most 2 decimal places' }] });
      expect(response.status).to.equal(400);
    });

    it('names the status when a proxy answers without the Error shape', async () => {
      const api = fakeApi().on('GET', '/health', () => new Response('<html>bad gateway</html>', { status: 500 }));
      const { error } = await api.client().health();
      expect(error).to.include({ status: 500, code: 'http_500' });
    });

    it('is refused invalid_signature when it signs with another secret', async () => {
      const api = fakeApi().on('GET', '/partner/markup', () => json(200, MARKUP));
      const { error } = await api.client({ secret: 'pss_sk_wrong-secret-0123456789' }).getMarkup();
      expect(error).to.include({ status: 401, code: 'invalid_signature' });
    });
  });

  describe('.forUser(userId)', () => {
    it('acts for another user and names the SDK in the User-Agent', async () => {
      const api = fakeApi().on('GET', '/partner/markup', () => json(200, MARKUP));
      await api.client().forUser('customer-2').getMarkup();
      expect(api.sent[0].signed).to.equal(true);
      expect(api.sent[0].headers.get('x-service-user')).to.equal('customer-2');
      expect(api.sent[0].headers.get('user-agent')).to.equal(
        `partner-swap-sdk/${SDK_VERSION} (api ${API_VERSION}; node ${process.version})`,
      );
    });

    it('appends the userAgent option to the User-Agent', async () => {
      const api = fakeApi().on('GET', '/health', () => json(200, { status: 'ok', version: API_VERSION }));
      await api.client({ userAgent: 'acme-wallet/2.3' }).health();
      expect(api.sent[0].headers.get('user-agent')).to.match(/\) acme-wallet\/2\.3$/);
    });
  });

  describe('options', () => {
    it('uses globalThis.fetch when no fetch is given', async () => {
      const original = globalThis.fetch;
      const api = fakeApi().on('GET', '/health', () => json(200, { status: 'ok', version: API_VERSION }));
      globalThis.fetch = (input, init) => api.fetch(new Request(input, init));
      try {
        expect((await createPartnerClient({ ...PARTNER }).health()).data?.version).to.equal(API_VERSION);
      } finally {
        globalThis.fetch = original;
      }
      expect(api.sent).to.have.length(1);
    });

    it('drops a trailing slash of baseUrl', async () => {
      const api = fakeApi().on('GET', '/health', () => json(200, { status: 'ok', version: API_VERSION }));
      await api.client({ baseUrl: `${PARTNER.baseUrl}/` }).health();
      expect(api.sent[0].path).to.equal('/health');
    });

    it('refuses a userId that is not 1-128 visible ASCII characters', () => {
      expect(() => createPartnerClient({ ...PARTNER, userId: 'has space' })).to.throw(TypeError, /userId/);
    });
  });

  it('keeps SDK_VERSION equal to the package version', () => {
    const pkg = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(SDK_VERSION).to.equal(pkg.version);
  });
});
