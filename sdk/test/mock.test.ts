import path from 'node:path';
import { expect } from 'chai';
import { createSwapViewer, type SwapStreamEvent } from '../src/browser.js';
import { createPartnerClient } from '../src/index.js';
import { startPrismMock, type PrismMock } from '../../test/support/process.js';

const root = path.resolve(import.meta.dirname, '../..');

describe('sdk client against the Prism mock', function () {
  this.timeout(90_000);
  let mock: PrismMock;
  before(async () => {
    mock = await startPrismMock(root);
  });
  after(() => mock.stop());
  // A partner client of the mock (which checks no signature).
  const mockClient = () =>
    createPartnerClient({
      baseUrl: mock.url,
      audience: 'https://swap.example.com',
      keyId: 'pk_live_7Hq2Xv',
      secret: 'pss_sk_3Jd9sPq2VwXy7RtLm4Nb6Hc1',
      userId: 'user_8412',
    });

  it("follows the mock's stream with createSwapViewer to the terminal status and the final order, on one connection", async () => {
    const streams: string[] = [];
    const viewer = createSwapViewer({
      baseUrl: mock.url,
      swapId: '3f2b8a1e-6c4d-4e7a-9b1f-2d5c8e0a4b71',
      accessToken: 'sat_mock_token',
      fetch: (input, init) => {
        streams.push(String(input));
        return fetch(input, init);
      },
    });
    const events: SwapStreamEvent[] = [];
    for await (const event of viewer.stream({ maxReconnects: 0 })) events.push(event);
    const statuses = events.flatMap((e) => (e.type === 'status' ? [e.event] : []));
    expect(statuses.at(-1)).to.include({ status: 'finished', terminal: true });
    const last = events.at(-1);
    expect(last?.type).to.equal('order');
    if (last?.type !== 'order') return;
    expect(last.order).to.include({ status: 'finished', terminal: true });
    expect(last.order.settlementTxHash).to.match(/^0x[0-9a-f]{64}$/);
    expect(last.order.actualOutputAmount).to.be.a('string');
    expect(streams).to.have.length(1);
  });

  it('works against the mock exactly as against the server (mock paths have no /api/v1)', async () => {
    const client = mockClient();
    const assets = await client.listAssets();
    expect(assets.data?.assets.length).to.be.greaterThan(0);
    const markup = await client.getMarkup();
    expect(markup.error).to.equal(undefined);
    expect(markup.data).to.have.keys('percent', 'updatedAt');
    const set = await client.setMarkup(0.5);
    expect(set.data?.percent).to.equal(0.5);
  });

  it('reorganises a simulated chain with sandbox.reorganize and is refused 400 for 0 blocks', async () => {
    const client = mockClient();
    const { data, error } = await client.sandbox.reorganize('LTC', 1);
    expect(error).to.equal(undefined);
    expect(data).to.have.keys('network', 'removedBlocks', 'tip', 'removedTransactions');
    expect(data?.tip.hash).to.match(/^[0-9a-f]{64}$/);
    const refused = await client.sandbox.reorganize('LTC', 0);
    expect(refused.error?.status).to.equal(400);
  });
});
