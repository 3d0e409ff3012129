import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { startPrismMock, type PrismMock } from '../support/process.js';
import { request } from '../support/http.js';

const root = path.resolve(import.meta.dirname, '../..');
const spec = JSON.parse(fs.readFileSync(path.join(root, 'generated/openapi.json'), 'utf8'));

/** The first example of an operation's JSON response, as the spec documents it. */
function documentedExample(pathName: string, method: string, status: string): unknown {
  const content = spec.paths[pathName][method].responses[status].content['application/json'];
  if (content.example !== undefined) return content.example;
  const first = Object.values(content.examples as Record<string, { value: unknown }>)[0];
  return first.value;
}

function firstRequestExample(pathName: string, method: string): unknown {
  const content = spec.paths[pathName][method].requestBody.content['application/json'];
  return content.example ?? Object.values(content.examples as Record<string, { value: unknown }>)[0].value;
}

describe('the Prism mock (make mock)', function () {
  this.timeout(90_000);
  let mock: PrismMock;
  let url: string;
  before(async () => {
    mock = await startPrismMock(root);
    url = mock.url;
  });
  after(() => mock.stop());

  it('serves the documented example of a public operation', async () => {
    const res = await request(`${url}/assets`);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal(documentedExample('/assets', 'get', '200'));
  });

  it('serves the documented example of a signed operation when the signed headers are present', async () => {
    const res = await request(`${url}/quotes`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-service-key-id': 'pk_live_acme',
        'x-service-user': 'customer-42',
        'x-service-timestamp': '1790000000',
        'x-service-nonce': 'n0nce-0123456789abcdef',
        'x-service-signature': `v1=${'0'.repeat(64)}`,
      },
      body: JSON.stringify(firstRequestExample('/quotes', 'post')),
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal(documentedExample('/quotes', 'post', '200'));
  });

  it('answers the preflight of a page on a frontend dev server, for the token read and the stream', async () => {
    const swapId = '3f2b8a1e-6c4d-4e7a-9b1f-2d5c8e0a4b71';
    for (const path of [`/swaps/${swapId}`, `/swaps/${swapId}/stream`]) {
      const res = await fetch(`${url}${path}`, {
        method: 'OPTIONS',
        headers: {
          origin: 'http://localhost:5173',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'authorization,last-event-id',
        },
      });
      expect(res.status, path).to.equal(204);
      expect(res.headers.get('access-control-allow-origin'), path).to.equal('http://localhost:5173');
      expect(res.headers.get('access-control-allow-methods'), path).to.contain('GET');
      expect(res.headers.get('access-control-allow-headers'), path).to.contain('authorization');
    }
  });

  it('lets that page read an answer: Access-Control-Allow-Origin on the documented example', async () => {
    const res = await fetch(`${url}/assets`, { headers: { origin: 'http://localhost:5173' } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('access-control-allow-origin')).to.equal('http://localhost:5173');
  });

  it('refuses a signed operation without the signed headers', async () => {
    const res = await request(`${url}/quotes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(firstRequestExample('/quotes', 'post')),
    });
    expect(res.status).to.equal(401);
  });
});
