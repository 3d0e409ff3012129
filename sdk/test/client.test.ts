import fs from 'node:fs';
import { expect } from 'chai';
import { API_VERSION, createPartnerClient, PartnerApiError, SDK_VERSION, type PartnerClient } from '../src/index.js';
import { startTestServer, type TestServer } from '../../test/support/server.js';

describe('sdk client against the real server', () => {
  let server: TestServer;
  let client: PartnerClient;
  let keyId: string;
  const sent: Request[] = [];
  const recordingFetch = async (request: Request) => {
    sent.push(request.clone());
    return fetch(request);
  };

  before(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_WINDOW_SECONDS: '2', RATE_LIMIT_SIGNED_PER_MINUTE: '3' } });
    const issued = await server.createPartner('SDK partner');
    keyId = issued.keyId;
    client = createPartnerClient({
      baseUrl: server.baseUrl,
      audience: server.config.publicOrigin,
      keyId: issued.keyId,
      secret: issued.secret,
      userId: 'customer-1',
      fetch: recordingFetch,
    });
  });
  after(() => server.close());
  beforeEach(() => new Promise((resolve) => setTimeout(resolve, 2_100))); // a fresh rate-limit window each

  it('reads health, assets and pairs', async () => {
    expect((await client.health()).data?.version).to.equal(API_VERSION);
    const assets = await client.listAssets();
    expect(assets.data?.assets.length).to.be.at.least(10);
    const pairs = await client.getPairs({ sourceAsset: 'USDT', sourceNetwork: 'TRX' });
    expect(pairs.data?.kind).to.equal('destinations');
  });

  it('sets and reads the markup with signed requests', async () => {
    const set = await client.setMarkup(0.75);
    expect(set.error).to.equal(undefined);
    expect(set.data?.percent).to.equal(0.75);
    expect((await client.getMarkup()).data?.percent).to.equal(0.75);
  });

  it('returns a PartnerApiError value with code, message and request id on a 400', async () => {
    const { data, error, response } = await client.setMarkup(0.125);
    expect(data).to.equal(undefined);
    expect(error).to.be.instanceOf(PartnerApiError);
    expect(error).to.include({ status: 400, code: 'invalid_request' });
    expect(error?.message).to.match(/at most 2 decimal places/);
    expect(error?.requestId).to.equal(response.headers.get('x-request-id'));
  });

  it('reports a wrong secret as invalid_signature and an unknown key as unknown_key', async () => {
    const options = {
      baseUrl: server.baseUrl,
      audience: server.config.publicOrigin,
      secret: 'pss_sk_wrong-secret-0123456789',
      userId: 'u1',
    };
    expect((await createPartnerClient({ ...options, keyId }).getMarkup()).error?.code).to.equal('invalid_signature');
    expect((await createPartnerClient({ ...options, keyId: 'pk_nobody' }).getMarkup()).error?.code).to.equal('unknown_key');
  });

  it('acts for another user with forUser and names itself in the User-Agent', async () => {
    sent.length = 0;
    await client.forUser('customer-2').getMarkup();
    expect(sent[0].headers.get('x-service-user')).to.equal('customer-2');
    expect(sent[0].headers.get('user-agent')).to.equal(`partner-swap-sdk/${SDK_VERSION} (api ${API_VERSION}; node ${process.version})`);
  });

  it('waits out a 429 by itself and succeeds (limit 3 per window)', async () => {
    const results = [];
    for (let i = 0; i < 5; i++) results.push(await client.getMarkup());
    expect(results.map((r) => r.response.status)).to.deep.equal([200, 200, 200, 200, 200]);
  });

  it('keeps SDK_VERSION equal to the package version', () => {
    const pkg = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(SDK_VERSION).to.equal(pkg.version);
  });
});
