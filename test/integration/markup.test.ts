import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectError, readJson, type JsonResponse } from '../support/http.js';
import { signedFetch, type SignerOptions } from '../support/signer.js';

const MARKUP = '/api/v1/partner/markup';

describe('GET and PUT /partner/markup', () => {
  let server: TestServer;
  let acme: SignerOptions;
  let globex: SignerOptions;
  const send = (who: SignerOptions, method: string, body?: unknown): Promise<JsonResponse<{ percent: number; updatedAt: string | null }>> =>
    readJson(signedFetch(server.origin, who, method, MARKUP, body));

  before(async () => {
    server = await startTestServer();
    acme = await server.createSigner('Acme');
    globex = await server.createSigner('Globex');
  });
  after(() => server.close());

  it('reads 0 and a null updatedAt before a markup is set', async () => {
    const res = await send(acme, 'GET');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ percent: 0, updatedAt: null });
  });

  it('stores a markup and reads it back', async () => {
    const put = await send(acme, 'PUT', { percent: 1.25 });
    expect(put.status, put.text).to.equal(200);
    expect(put.body.percent).to.equal(1.25);
    expect(Date.parse(put.body.updatedAt!)).to.be.closeTo(Date.now(), 60_000);
    const get = await send(acme, 'GET');
    expect(get.body).to.deep.equal(put.body);
  });

  it('keeps updatedAt when a set repeats the percentage, also many at once, and moves it on a change', async () => {
    const partner = await server.createSigner('Repeater');
    const pause = () => new Promise((resolve) => setTimeout(resolve, 20));
    const first = await Promise.all(Array.from({ length: 5 }, () => send(partner, 'PUT', { percent: 0.75 })));
    for (const res of first) expect(res.status, res.text).to.equal(200);
    const stored = await send(partner, 'GET');
    expect(stored.body.percent).to.equal(0.75);
    await pause();
    const again = await Promise.all(Array.from({ length: 10 }, () => send(partner, 'PUT', { percent: 0.75 })));
    for (const res of again) expect(res.body).to.deep.equal(stored.body);
    expect((await send(partner, 'GET')).body).to.deep.equal(stored.body);
    await pause();
    const changed = await send(partner, 'PUT', { percent: 1 });
    expect(changed.body.percent).to.equal(1);
    expect(Date.parse(changed.body.updatedAt!)).to.be.greaterThan(Date.parse(stored.body.updatedAt!));
    expect((await send(partner, 'GET')).body).to.deep.equal(changed.body);
  });

  it('accepts the bounds 0 and 3', async () => {
    expect((await send(acme, 'PUT', { percent: 3 })).body.percent).to.equal(3);
    expect((await send(acme, 'PUT', { percent: 0 })).body.percent).to.equal(0);
  });

  it("keeps each partner's markup to itself", async () => {
    await send(acme, 'PUT', { percent: 0.5 });
    await send(globex, 'PUT', { percent: 2.75 });
    expect((await send(acme, 'GET')).body.percent).to.equal(0.5);
    expect((await send(globex, 'GET')).body.percent).to.equal(2.75);
  });

  for (const [label, body] of [
    ['above 3', { percent: 3.01 }],
    ['below 0', { percent: -0.5 }],
    ['with three decimals', { percent: 0.125 }],
    ['as a string', { percent: '1.5' }],
    ['with an unknown field', { percent: 1, currency: 'USD' }],
    ['without percent', {}],
  ] as const) {
    it(`refuses a markup ${label} with 400 and keeps the old one`, async () => {
      await send(acme, 'PUT', { percent: 0.5 });
      expectError(await send(acme, 'PUT', body), 400, 'invalid_request');
      expect((await send(acme, 'GET')).body.percent).to.equal(0.5);
    });
  }
});
