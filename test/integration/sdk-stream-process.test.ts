import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { createPartnerClient, verifyWebhook, type QuoteRequest, type SwapStreamEvent } from '../../sdk/src/index.js';
import { freePort, startedDataDir, startServerChild, type Child } from '../support/process.js';
import { swapClient } from '../support/swaps.js';
import { createReceiver, LOCAL_RECEIVER_ENV } from '../support/webhook-receiver.js';

const root = path.resolve(import.meta.dirname, '../..');
const QUOTE = {
  sourceAsset: 'BTC',
  sourceNetwork: 'BTC',
  destinationAsset: 'USDT',
  destinationNetwork: 'ETH',
  sourceAmount: '0.015',
  refundMode: 'sender',
} satisfies QuoteRequest;

describe('live status against the real server process (SDK stream and webhooks)', function () {
  this.timeout(120_000);
  let dataDir: string;
  let child: Child | undefined;
  let origin: string;
  let secret: string;

  before(async () => {
    dataDir = await startedDataDir(root, 'pss-sdk-stream-');
    const started = await startServerChild(root, {
      port: await freePort(),
      dataDir,
      env: { ...LOCAL_RECEIVER_ENV, SANDBOX_BLOCK_SECONDS: '0.2', WEBHOOK_RETRY_SECONDS: '0.5,0.5,1' },
    });
    child = started.child;
    origin = started.origin;
    secret = started.demo.secret;
  });
  after(async () => {
    await child?.stop('SIGTERM');
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('follows a swap from waiting to finished both ways: through swaps.stream and through verified webhook deliveries', async () => {
    const client = createPartnerClient({ baseUrl: `${origin}/api/v1`, audience: origin, keyId: 'demo', secret, userId: 'customer-1' });
    const receiver = await createReceiver();
    await receiver.listen();
    const configured = await swapClient(origin, { keyId: 'demo', secret, audience: origin }).send<{ secret: string }>(
      'PUT',
      '/api/v1/partner/webhook',
      { url: receiver.url },
    );
    expect(configured.status, configured.text).to.equal(200);
    const webhookSecret = configured.body.secret;
    const quoted = await client.quotes.create(QUOTE);
    if (quoted.error) throw quoted.error;
    const { quote } = quoted.data;
    const created = await client.swaps.create({
      ...QUOTE,
      quoteId: quote.id,
      rateType: quote.rateType,
      destinationAddress: '0x71C7656EC7ab88b098defB751B7401B5f6d8976F',
    });
    if (created.error) throw created.error;
    const { order, accessToken } = created.data;

    const events: SwapStreamEvent[] = [];
    const following = (async () => {
      for await (const event of client.swaps.stream(order.id, accessToken)) events.push(event);
    })();
    const ready = await client.swaps.waitForDepositAddress(order.id, { intervalMs: 100, timeoutMs: 20_000 });
    if (ready.error) throw ready.error;
    const paid = await client.sandbox.deposit({
      address: ready.data.order.depositAddress!,
      asset: 'BTC',
      network: 'BTC',
      amount: ready.data.order.depositAmount!,
    });
    if (paid.error) throw paid.error;
    await following;

    const statuses = events.flatMap((e) => (e.type === 'status' ? [e.event] : []));
    expect(events[0].type).to.equal('order');
    expect(statuses[0].status).to.equal('waiting');
    expect(statuses.map((e) => e.status)).to.include('confirming');
    expect(statuses.slice(-3).map((e) => e.status)).to.deep.equal(['exchanging', 'sending', 'finished']);
    expect(statuses[statuses.length - 1].terminal).to.equal(true);
    const detail = await client.swaps.get(order.id);
    if (detail.error) throw detail.error;
    expect(statuses.map((e) => e.id)).to.deep.equal(detail.data.events.map((e) => e.id));
    expect(detail.data.order.status).to.equal('finished');

    // The same swap through the webhooks: every delivery verifies, and the timeline arrives whole.
    const deliveries = await receiver.waitFor(
      (got) => got.some((d) => d.body.includes('"status":"finished"') && d.body.includes('"event":{')),
      30_000,
    );
    await receiver.close();
    const verified = deliveries.map((d) => verifyWebhook(d.body, d.headers as Record<string, string>, webhookSecret));
    const byId = new Map(deliveries.map((d, i) => [d.headers['webhook-id'] as string, verified[i]]));
    const swapEvents = [...byId.values()].flatMap((e) =>
      e.type === 'swap.updated' && e.data.order.id === order.id && e.data.event ? [e.data.event] : [],
    );
    expect(swapEvents.map((e) => e.id).sort()).to.deep.equal(detail.data.events.map((e) => e.id).sort());
    // Deliveries may arrive in any order (they are sent concurrently, and a retry comes later): the one that
    // carries the timeline's last entry shows the finished order, whenever it arrived.
    const lastEventId = detail.data.events[detail.data.events.length - 1]!.id;
    const final = [...byId.values()].find(
      (e) => e.type === 'swap.updated' && e.data.order.id === order.id && e.data.event?.id === lastEventId,
    );
    expect(final && final.type === 'swap.updated' ? final.data.order.status : undefined).to.equal('finished');
  });
});
