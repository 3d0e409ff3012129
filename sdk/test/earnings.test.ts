import { expect } from 'chai';
import { PartnerApiError, type Earning, type EarningsPage } from '../src/index.js';
import { apiError, fakeApi, json } from './support/fake-api.js';

const EMPTY_PAGE: EarningsPage = { earnings: [], totals: [], nextCursor: null };
const earningOf = (id: string): Earning => ({
  id,
  routeId: '7c0e2d4a-1b3f-4e5d-8a9b-0c1d2e3f4a5b',
  orderId: '3f1c9a52-7d4e-4b8a-9c61-2e5f0a7b8d13',
  asset: 'ZANO',
  network: 'ZANO',
  amount: '0.0213',
  amountUsd: '0.15',
  markupPercent: 0.5,
  createdAt: '2026-06-14T10:00:00.000Z',
});
const TOTALS = [{ asset: 'ZANO', network: 'ZANO', amount: '0.0426', amountUsd: '0.30' }];

describe('sdk earnings', () => {
  describe('.list(query)', () => {
    it('reads GET /partner/earnings signed and returns the page with its totals', async () => {
      const page: EarningsPage = { earnings: [earningOf('e1')], totals: TOTALS, nextCursor: null };
      const api = fakeApi().on('GET', '/partner/earnings', () => json(200, page));
      const { data, error, response } = await api.client().earnings.list();
      expect(error).to.equal(undefined);
      expect(response.status).to.equal(200);
      expect(data).to.deep.equal(page);
      expect(api.sent[0]).to.include({ path: '/partner/earnings', signed: true });
      expect(api.sent[0].query.toString()).to.equal('');
    });

    it('sends from, to, limit and cursor as the query', async () => {
      const api = fakeApi().on('GET', '/partner/earnings', () => json(200, EMPTY_PAGE));
      const query = { from: '2026-06-01T00:00:00.000Z', to: '2026-07-01T00:00:00.000Z', limit: 10, cursor: 'c2' };
      expect((await api.client().earnings.list(query)).data).to.deep.equal(EMPTY_PAGE);
      expect(Object.fromEntries(api.sent[0].query)).to.deep.equal({ ...query, limit: '10' });
    });

    it('returns invalid_request as a value for a refused query', async () => {
      const api = fakeApi().on('GET', '/partner/earnings', () => apiError(400, 'invalid_request', 'from must be before to'));
      const at = '2026-06-01T00:00:00.000Z';
      const { data, error, response } = await api.client().earnings.list({ from: at, to: at });
      expect(data).to.equal(undefined);
      expect(error).to.be.instanceOf(PartnerApiError).and.include({ status: 400, code: 'invalid_request' });
      expect(response.status).to.equal(400);
    });
  });

  describe('.listAll(filter)', () => {
    it('follows nextCursor with the same filters until it is null', async () => {
      const api = fakeApi().on(
        'GET',
        '/partner/earnings',
        () => json(200, { earnings: [earningOf('e2')], totals: TOTALS, nextCursor: 'c2' }),
        () => json(200, { earnings: [earningOf('e1')], totals: TOTALS, nextCursor: null }),
      );
      const pages = [];
      for await (const page of api.client().earnings.listAll({ limit: 1, from: '2026-06-01T00:00:00.000Z' })) pages.push(page);
      expect(pages.map((p) => p.data?.earnings.map((e) => e.id))).to.deep.equal([['e2'], ['e1']]);
      expect(api.sent.map((r) => Object.fromEntries(r.query))).to.deep.equal([
        { limit: '1', from: '2026-06-01T00:00:00.000Z' },
        { limit: '1', from: '2026-06-01T00:00:00.000Z', cursor: 'c2' },
      ]);
    });

    it('yields the one page of a partner without earnings', async () => {
      const api = fakeApi().on('GET', '/partner/earnings', () => json(200, EMPTY_PAGE));
      const pages = [];
      for await (const page of api.client().earnings.listAll({ limit: 1 })) pages.push(page);
      expect(pages).to.have.length(1);
      expect(pages[0]?.data).to.deep.equal(EMPTY_PAGE);
    });

    it('yields an error page last and stops', async () => {
      const api = fakeApi().on('GET', '/partner/earnings', () => apiError(400, 'invalid_request', 'limit must be >= 1'));
      const pages = [];
      for await (const page of api.client().earnings.listAll({ limit: 0 })) pages.push(page);
      expect(pages).to.have.length(1);
      expect(pages[0]?.error).to.include({ status: 400, code: 'invalid_request' });
    });
  });
});
