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

  it('refuses a signed operation without the signed headers', async () => {
    const res = await request(`${url}/quotes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(firstRequestExample('/quotes', 'post')),
    });
    expect(res.status).to.equal(401);
  });
});
