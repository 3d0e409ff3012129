import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectError, request } from '../support/http.js';

interface AssetBody {
  currencyCount: number;
  assetNetworkCount: number;
  assets: Array<{ symbol: string; network: string; networkCode: string; icon: string; memoNeeded?: boolean; memoName?: string }>;
}

describe('Catalog', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  describe('GET /assets', () => {
    it('lists at least 10 assets on at least 8 networks, ZANO and fUSD on ZANO among them', async () => {
      const res = await request<AssetBody>(`${server.baseUrl}/assets`);
      expect(res.status).to.equal(200);
      const { assets } = res.body;
      expect(assets.length).to.be.at.least(10);
      expect(res.body.assetNetworkCount).to.equal(assets.length);
      expect(res.body.currencyCount).to.equal(new Set(assets.map((a) => a.symbol)).size);
      expect(new Set(assets.map((a) => a.network)).size).to.be.at.least(8);
      const keys = assets.map((a) => `${a.symbol}/${a.network}`);
      expect(keys).to.include.members(['ZANO/ZANO', 'fUSD/ZANO']);
    });

    it('marks assets that need a memo and names the memo', async () => {
      const { body } = await request<AssetBody>(`${server.baseUrl}/assets`);
      const xrp = body.assets.find((a) => a.symbol === 'XRP');
      const ton = body.assets.find((a) => a.symbol === 'TON');
      expect(xrp).to.include({ memoNeeded: true, memoName: 'Destination tag' });
      expect(ton).to.include({ memoNeeded: true });
      expect(body.assets.find((a) => a.symbol === 'BTC')?.memoNeeded).to.equal(false);
    });

    it('gives every asset an icon that renders without another host', async () => {
      const { body } = await request<AssetBody>(`${server.baseUrl}/assets`);
      for (const asset of body.assets) expect(asset.icon).to.match(/^data:image\/svg\+xml;base64,/);
    });
  });

  describe('GET /pairs', () => {
    it('returns compact guidance when neither parameter is given', async () => {
      const res = await request<{
        kind: string;
        sourceCount: number;
        pairCount: number;
        sources: Array<{ asset: string; network: string; destinations: string[] }>;
      }>(`${server.baseUrl}/pairs`);
      expect(res.status).to.equal(200);
      expect(res.body.kind).to.equal('compact');
      expect(res.body.sourceCount).to.equal(res.body.sources.length);
      const btc = res.body.sources.find((s) => s.asset === 'BTC' && s.network === 'BTC');
      expect(btc?.destinations).to.include('ZANO/ZANO').and.not.include('BTC/BTC');
      expect(res.body.pairCount).to.equal(res.body.sources.reduce((n, s) => n + s.destinations.length, 0));
    });

    it('returns destination guidance with limits in the source asset when both are given', async () => {
      const res = await request<{
        kind: string;
        source: { asset: string; network: string };
        destinations: Array<{
          asset: string;
          network: string;
          rateTypes: string[];
          minimumSourceAmount: string;
          maximumSourceAmount: string;
          minimumUsd: string;
        }>;
      }>(`${server.baseUrl}/pairs?sourceAsset=USDT&sourceNetwork=TRX`);
      expect(res.status).to.equal(200);
      expect(res.body.kind).to.equal('destinations');
      expect(res.body.source).to.deep.equal({ asset: 'USDT', network: 'TRX' });
      const toBtc = res.body.destinations.find((d) => d.asset === 'BTC');
      // USDT is a stablecoin priced at exactly 1 USD, so the USD limits carry over unchanged.
      expect(toBtc).to.include({ minimumSourceAmount: '20', maximumSourceAmount: '100000', minimumUsd: '20' });
      expect(toBtc?.rateTypes).to.deep.equal(['fixed', 'floating']);
      const toZano = res.body.destinations.find((d) => d.asset === 'ZANO');
      expect(toZano?.rateTypes).to.deep.equal(['floating']);
    });

    it('states source limits as decimal strings within the asset precision', async () => {
      const res = await request<{ destinations: Array<{ minimumSourceAmount: string; maximumSourceAmount: string }> }>(
        `${server.baseUrl}/pairs?sourceAsset=BTC&sourceNetwork=BTC`,
      );
      expect(res.status).to.equal(200);
      for (const d of res.body.destinations) {
        expect(d.minimumSourceAmount).to.match(/^\d+(\.\d{1,8})?$/);
        expect(d.maximumSourceAmount).to.match(/^\d+(\.\d{1,8})?$/);
      }
    });

    it('is a 400 when only sourceAsset is given', async () => {
      expectError(await request(`${server.baseUrl}/pairs?sourceAsset=BTC`), 400, 'invalid_request');
    });

    it('is a 400 when only sourceNetwork is given', async () => {
      expectError(await request(`${server.baseUrl}/pairs?sourceNetwork=BTC`), 400, 'invalid_request');
    });

    it('is a 400 naming the source when the source is not in the catalogue', async () => {
      const res = await request<{ error: { message: string } }>(`${server.baseUrl}/pairs?sourceAsset=BTC&sourceNetwork=ETH`);
      expectError(res, 400, 'invalid_request');
      expect(res.body.error.message).to.contain('BTC on network ETH');
    });
  });
});

describe('Catalog answers when responses are not validated (production: the bytes are made once)', () => {
  let server: TestServer;
  let validated: TestServer;
  before(async () => {
    [server, validated] = await Promise.all([startTestServer({ env: { VALIDATE_RESPONSES: 'false' } }), startTestServer()]);
  });
  after(() => Promise.all([server.close(), validated.close()]));

  for (const path of ['/assets', '/pairs']) {
    it(`answers GET ${path} with the same JSON, headers and length as a validated server, request after request`, async () => {
      const expected = await fetch(`${validated.baseUrl}${path}`);
      const expectedText = await expected.text();
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${server.baseUrl}${path}`);
        const text = await res.text();
        expect(res.status).to.equal(200);
        expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
        expect(res.headers.get('content-length')).to.equal(String(Buffer.byteLength(text)));
        expect(res.headers.get('x-request-id')).to.match(/^req_/);
        expect(JSON.parse(text)).to.deep.equal(JSON.parse(expectedText));
      }
    });
  }

  // Without a query string or a body, these operations skip the request validator (server/http/app.ts): it
  // would have nothing to check. With either, it runs and refuses what the spec does not declare.
  for (const path of ['/assets', '/health']) {
    it(`refuses GET ${path} with an undeclared query parameter (400), as a validated server does`, async () => {
      for (const target of [server, validated]) {
        const res = await fetch(`${target.baseUrl}${path}?unknown=1`);
        const body = (await res.json()) as { error: { code: string; message: string } };
        expect(res.status, target === server ? 'not validating responses' : 'validating responses').to.equal(400);
        expect(body.error.code).to.equal('invalid_request');
        expect(body.error.message).to.contain('unknown');
      }
    });
  }

  it('answers HEAD /assets with the headers and no body', async () => {
    const res = await fetch(`${server.baseUrl}/assets`, { method: 'HEAD' });
    expect(res.status).to.equal(200);
    expect(Number(res.headers.get('content-length'))).to.be.greaterThan(1000);
    expect(await res.text()).to.equal('');
  });
});
