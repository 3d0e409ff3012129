/**
 * The SDK against the real server, for what a fake fetch cannot prove: that the server accepts what the SDK
 * signs, that a whole sandbox swap can be driven through the SDK alone, and how the SDK and the server behave
 * together (idempotent replays, rate limits, stream limits, webhook deliveries, wallet proofs). Every other
 * behaviour of the SDK is tested with an injected fetch in the file of its namespace.
 */
import { expect } from 'chai';
import {
  createPartnerClient,
  verifyWebhook,
  WebhookVerificationError,
  type PartnerClient,
  type PartnerClientOptions,
  type QuoteRequest,
  type SwapCreated,
  type SwapStreamEvent,
} from '../src/index.js';
import { signZanoMessage } from '../../server/domain/zano-proof.js';
import { freshScalar, freshZanoWallet } from '../../test/support/routes.js';
import { startTestServer, type TestServer } from '../../test/support/server.js';
import { openStream, type SseSession } from '../../test/support/sse.js';
import { createReceiver, LOCAL_RECEIVER_ENV, type Receiver } from '../../test/support/webhook-receiver.js';
import { partnerClient } from './support/partner-client.js';

const QUOTE = {
  sourceAsset: 'BTC',
  sourceNetwork: 'BTC',
  destinationAsset: 'USDT',
  destinationNetwork: 'ETH',
  sourceAmount: '0.015',
  refundMode: 'sender',
} satisfies QuoteRequest;
const DESTINATION = '0x71C7656EC7ab88b098defB751B7401B5f6d8976F';
const ENV = {
  ...LOCAL_RECEIVER_ENV,
  STREAM_HEARTBEAT_SECONDS: '0.2',
  RATE_LIMIT_SWAPS_PER_MINUTE: '10000',
  RATE_LIMIT_QUOTES_PER_MINUTE: '10000',
  RATE_LIMIT_SIGNED_PER_MINUTE: '100000',
  RATE_LIMIT_PUBLIC_PER_MINUTE: '100000',
};

const isStream = (request: Request) => new URL(request.url).pathname.endsWith('/stream');
const isCreateSwap = (request: Request) => request.method === 'POST' && new URL(request.url).pathname.endsWith('/swaps');
const statusesOf = (events: SwapStreamEvent[]) => events.flatMap((e) => (e.type === 'status' ? [e.event] : []));
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function collect(stream: AsyncIterable<SwapStreamEvent>): Promise<SwapStreamEvent[]> {
  const events: SwapStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

async function createSwap(client: PartnerClient, options: { idempotencyKey?: string } = {}): Promise<SwapCreated> {
  const quoted = await client.quotes.create(QUOTE);
  if (quoted.error) throw quoted.error;
  const { quote } = quoted.data;
  const body = { ...QUOTE, quoteId: quote.id, rateType: quote.rateType, destinationAddress: DESTINATION };
  const created = await client.swaps.create(body, options);
  if (created.error) throw created.error;
  return created.data;
}

async function pay(client: PartnerClient, id: string, accessToken?: string): Promise<string> {
  const ready = await client.swaps.waitForDepositAddress(id, { accessToken, intervalMs: 50, timeoutMs: 10_000 });
  if (ready.error) throw ready.error;
  const { depositAddress, depositAmount } = ready.data.order;
  const paid = await client.sandbox.deposit({ address: depositAddress!, asset: 'BTC', network: 'BTC', amount: depositAmount! });
  if (paid.error) throw paid.error;
  return paid.data.txHash;
}

async function timelineIds(client: PartnerClient, id: string): Promise<string[]> {
  const { data, error } = await client.swaps.get(id);
  if (error) throw error;
  return data.events.map((e) => e.id);
}

/** A response whose body delivers the text up to the end of the first `confirming` status event, then fails. */
function cutAfterConfirming(response: Response): Response {
  const source = response.body!.getReader();
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let text = '';
  let forwarded = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await source.read();
      if (done) return controller.close();
      text += decoder.decode(value, { stream: true });
      const match = /event: status\ndata: [^\n]*"status":"confirming"[^\n]*\n\n/.exec(text);
      if (!match) {
        controller.enqueue(encoder.encode(text.slice(forwarded)));
        forwarded = text.length;
        return;
      }
      controller.enqueue(encoder.encode(text.slice(forwarded, match.index + match[0].length)));
      await source.cancel();
      controller.error(new TypeError('terminated', { cause: new Error('other side closed') }));
    },
    cancel: (reason) => source.cancel(reason),
  });
  return new Response(body, { status: response.status, headers: response.headers });
}

describe('sdk end to end against the real server', function () {
  this.timeout(60_000);
  let server: TestServer;
  let rateLimited: TestServer;
  const receivers: Receiver[] = [];

  before(async () => {
    [server, rateLimited] = await Promise.all([
      startTestServer({ env: ENV }),
      startTestServer({ env: { RATE_LIMIT_WINDOW_SECONDS: '2', RATE_LIMIT_SIGNED_PER_MINUTE: '3' } }),
    ]);
  });
  after(async () => {
    for (const receiver of receivers) await receiver.close();
    await server?.close();
    await rateLimited?.close();
  });

  // Every test acts as a partner of its own, so nothing of one test shows up in another's lists.
  const newClient = (extra: Partial<PartnerClientOptions> = {}) => partnerClient(server, extra);

  it('takes a sandbox swap from quote to finished through the SDK alone, following it live', async () => {
    const client = await newClient();
    const quoted = await client.quotes.create(QUOTE);
    expect(quoted.error).to.equal(undefined);
    const created = await client.swaps.create({
      ...QUOTE,
      quoteId: quoted.data!.quote.id,
      rateType: quoted.data!.quote.rateType,
      destinationAddress: DESTINATION,
    });
    expect(created.response.status).to.equal(202);
    const { order, accessToken } = created.data!;
    expect(order).to.include({ status: 'waiting', sourceAmount: '0.015', destination: DESTINATION });

    const following = collect(client.swaps.stream(order.id, accessToken));
    const txHash = await pay(client, order.id, accessToken);
    const events = await following;

    expect(events[0]).to.deep.include({ type: 'order' });
    const statuses = statusesOf(events).map((e) => e.status);
    expect(statuses[0]).to.equal('waiting');
    expect(statuses.slice(-3)).to.deep.equal(['exchanging', 'sending', 'finished']);
    expect(statuses.slice(1, -3)).to.satisfy((middle: string[]) => middle.length > 0 && middle.every((s) => s === 'confirming'));
    expect(statusesOf(events).map((e) => e.id)).to.deep.equal(await timelineIds(client, order.id));

    // The token read and the signed read agree on the finished swap.
    const byToken = await client.swaps.get(order.id, { accessToken });
    expect(byToken.data?.order).to.include({ status: 'finished', reasonCode: 'completed', sourceTxHash: txHash });
    expect(byToken.data?.order.settlementTxHash).to.be.a('string');
    const listed = await client.swaps.list();
    expect(listed.data?.orders.map((o) => o.id)).to.deep.equal([order.id]);
  });

  it('is refused invalid_signature for a wrong secret, unknown_key for an unknown key, invalid_token for another token', async () => {
    const { keyId } = await server.createPartner();
    const options = {
      baseUrl: server.baseUrl,
      audience: server.config.publicOrigin,
      secret: 'pss_sk_wrong-secret-0123456789',
      userId: 'u1',
    };
    expect((await createPartnerClient({ ...options, keyId }).getMarkup()).error?.code).to.equal('invalid_signature');
    expect((await createPartnerClient({ ...options, keyId: 'pk_nobody' }).getMarkup()).error?.code).to.equal('unknown_key');

    const client = await newClient();
    const [one, other] = [await createSwap(client), await createSwap(client)];
    expect((await client.swaps.get(one.order.id, { accessToken: other.accessToken })).error).to.include({
      status: 401,
      code: 'invalid_token',
    });
  });

  it('waits out a 429 of the real rate limiter by itself and succeeds (limit 3 per window)', async () => {
    const client = await partnerClient(rateLimited);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await client.getMarkup()).response.status);
    expect(statuses).to.deep.equal([200, 200, 200, 200, 200]);
  });

  describe('idempotent swap creation', () => {
    it('retries a lost response with the same generated key, so exactly one swap exists', async () => {
      let lost = false;
      const sent: Request[] = [];
      const client = await newClient({
        retry: { baseDelayMs: 1 },
        fetch: async (request) => {
          sent.push(request.clone());
          const response = await fetch(request);
          // The server created the swap; the answer never reaches the caller.
          if (isCreateSwap(request) && !lost) {
            lost = true;
            await response.body?.cancel();
            throw new TypeError('fetch failed');
          }
          return response;
        },
      });
      const quoted = await client.quotes.create(QUOTE);
      const { quote } = quoted.data!;
      const { data, error, response, idempotencyKey } = await client.swaps.create({
        ...QUOTE,
        quoteId: quote.id,
        rateType: quote.rateType,
        destinationAddress: DESTINATION,
      });
      expect(error).to.equal(undefined);
      expect(response.headers.get('idempotent-replayed')).to.equal('true');
      expect(sent.filter(isCreateSwap).map((r) => r.headers.get('idempotency-key'))).to.deep.equal([idempotencyKey, idempotencyKey]);
      const listed = await client.swaps.list();
      expect(listed.data?.orders.map((o) => o.id)).to.deep.equal([data?.order.id]);
    });

    it("replays the same swap when the caller's own key and body arrive again", async () => {
      const client = await newClient();
      const quoted = await client.quotes.create(QUOTE);
      const body = { ...QUOTE, quoteId: quoted.data!.quote.id, rateType: quoted.data!.quote.rateType, destinationAddress: DESTINATION };
      const first = await client.swaps.create(body, { idempotencyKey: 'order-4711' });
      const again = await client.swaps.create(body, { idempotencyKey: 'order-4711' });
      expect(again.data?.order.id).to.equal(first.data?.order.id);
      expect(again.data?.accessToken).to.equal(first.data?.accessToken);
      expect(again.response.headers.get('idempotent-replayed')).to.equal('true');
    });
  });

  describe('permanent routes', () => {
    it('creates a route with a real wallet signature, recovers it on a second call, and is refused a foreign key', async () => {
      const client = await newClient({ userId: 'user-42' });
      const wallet = freshZanoWallet();
      const target = { destinationAsset: 'ZANO', destinationNetwork: 'ZANO', destinationAddress: wallet.address } as const;
      const sign = (text: string) => signZanoMessage(wallet.secret, text, freshScalar(), 'v2');
      const first = await client.routes.createVerified({ target, sign });
      expect(first.error, first.error?.message).to.equal(undefined);
      expect(first.data).to.include({ external_user_id: 'user-42', destination_address: wallet.address, status: 'active' });
      const again = await client.routes.createVerified({ target, sign });
      expect(again.response.status).to.equal(201);
      expect(again.data?.route_id).to.equal(first.data?.route_id);

      const other = freshZanoWallet();
      const refused = await client.routes.createVerified({
        target,
        sign: (text) => ({ ...sign(text), publicKey: signZanoMessage(other.secret, text, freshScalar(), 'v2').publicKey }),
      });
      expect(refused.error).to.include({ status: 403, code: 'ownership_not_verified' });
    });
  });

  describe('webhook', () => {
    it('delivers a webhook.test that verifyWebhook accepts with the secret set returned, and after a rotation only with the new one', async () => {
      const client = await newClient();
      const receiver = await createReceiver();
      receivers.push(receiver);
      await receiver.listen();
      const set = await client.webhook.set({ url: receiver.url });
      const secret = set.data!.secret!;
      const first = await client.webhook.sendTest();
      expect(first.data).to.include({ type: 'webhook.test', succeeded: true, statusCode: 200 });
      const received = await receiver.waitFor((all) => all.some((d) => d.headers['webhook-id'] === first.data!.eventId));
      const delivery = received.find((d) => d.headers['webhook-id'] === first.data!.eventId)!;
      expect(verifyWebhook(delivery.body, delivery.headers, secret).type).to.equal('webhook.test');

      const rotated = await client.webhook.set({ url: receiver.url, rotateSecret: true });
      const newSecret = rotated.data!.secret!;
      const second = await client.webhook.sendTest();
      const all = await receiver.waitFor((d) => d.some((x) => x.headers['webhook-id'] === second.data!.eventId));
      const next = all.find((d) => d.headers['webhook-id'] === second.data!.eventId)!;
      expect(verifyWebhook(next.body, next.headers, newSecret).type).to.equal('webhook.test');
      expect(() => verifyWebhook(next.body, next.headers, secret))
        .to.throw(WebhookVerificationError)
        .with.property('reason', 'invalid_signature');
      expect((await client.webhook.deliveries()).data?.deliveries.map((d) => d.id)).to.deep.equal([second.data!.id, first.data!.id]);
    });
  });

  describe('swaps.stream', () => {
    it('resumes a dropped connection with Last-Event-ID after the server retry delay and yields every entry once', async () => {
      const streamRequests: Request[] = [];
      const sleeps: number[] = [];
      const client = await newClient({
        fetch: async (request) => {
          if (!isStream(request)) return fetch(request);
          streamRequests.push(request.clone());
          const response = await fetch(request);
          return streamRequests.length === 1 ? cutAfterConfirming(response) : response;
        },
        sleep: (ms) => {
          sleeps.push(ms);
          return delay(10);
        },
      });
      const { order, accessToken } = await createSwap(client);
      const following = collect(client.swaps.stream(order.id, accessToken));
      await pay(client, order.id);
      const events = await following;

      expect(streamRequests).to.have.length(2);
      const statuses = statusesOf(events);
      const cut = statuses.find((e) => e.status === 'confirming')!;
      expect(streamRequests[1].headers.get('last-event-id')).to.equal(cut.id);
      expect(sleeps).to.include(3_000); // the server's `retry: 3000`
      expect(statuses.map((e) => e.id)).to.deep.equal(await timelineIds(client, order.id));
    });
  });
});

describe('sdk end to end against a server that bounds its streams', function () {
  this.timeout(60_000);
  let oneStreamPerToken: TestServer;
  let shortLived: TestServer;

  before(async () => {
    [oneStreamPerToken, shortLived] = await Promise.all([
      startTestServer({ env: { ...ENV, STREAM_MAX_PER_TOKEN: '1' } }),
      startTestServer({ env: { ...ENV, STREAM_MAX_LIFETIME_SECONDS: '0.5', SANDBOX_BLOCK_SECONDS: '0.2' } }),
    ]);
  });
  after(async () => {
    await oneStreamPerToken?.close();
    await shortLived?.close();
  });

  it('resumes with Last-Event-ID whenever the server ends the stream at its maximum lifetime, yielding every entry once', async () => {
    const streamRequests: Request[] = [];
    const client = await partnerClient(shortLived, {
      fetch: (request) => {
        if (isStream(request)) streamRequests.push(request.clone());
        return fetch(request);
      },
    });
    const { order, accessToken } = await createSwap(client);
    const events: SwapStreamEvent[] = [];
    // maxReconnects 1: lifetimes that bring nothing new must not count as failed reconnects.
    let thrown: unknown;
    const following = (async () => {
      for await (const event of client.swaps.stream(order.id, accessToken, { maxReconnects: 1, reconnectDelayMs: 10 })) events.push(event);
    })().catch((err: unknown) => void (thrown = err));
    for (const deadline = Date.now() + 10_000; streamRequests.length < 4 && !thrown && Date.now() < deadline;) await delay(50);
    expect(thrown).to.equal(undefined);
    expect(streamRequests.length, 'connections while the swap waits').to.be.at.least(4);
    await pay(client, order.id);
    await following;
    expect(thrown).to.equal(undefined);

    const statuses = statusesOf(events);
    const timeline = await timelineIds(client, order.id);
    expect(statuses.map((e) => e.id)).to.deep.equal(timeline);
    expect(statuses.pop()?.status).to.equal('finished');
    expect(streamRequests[0].headers.get('last-event-id')).to.equal(null);
    // Each connection after the first resumes after an entry already yielded, never going back.
    const resumedAfter = streamRequests.slice(1).map((r) => timeline.indexOf(r.headers.get('last-event-id') ?? ''));
    expect(resumedAfter[0]).to.equal(0);
    expect(resumedAfter.every((at, i) => at >= 0 && (i === 0 || at >= resumedAfter[i - 1]))).to.equal(true);
  });

  for (const [retries, path] of [
    [3, 'its transport'],
    [0, 'the stream itself'],
  ] as const) {
    it(`waits the Retry-After of a 429 too_many_streams, then streams (retried by ${path})`, async () => {
      const answers: number[] = [];
      const sleeps: number[] = [];
      const held: { session?: SseSession } = {};
      const client = await partnerClient(oneStreamPerToken, {
        fetch: async (request) => {
          const response = await fetch(request);
          if (isStream(request)) answers.push(response.status);
          return response;
        },
        retry: { maxRetries: retries },
        sleep: async (ms) => {
          sleeps.push(ms);
          // The wait is where another client would give its place back: this one frees it now.
          held.session?.abort();
          for (const deadline = Date.now() + 5_000; oneStreamPerToken.engine.hub.size() > 0 && Date.now() < deadline;) await delay(20);
        },
      });
      const { order, accessToken } = await createSwap(client);
      const session = (held.session = await openStream(`${oneStreamPerToken.baseUrl}/swaps/${order.id}/stream`, {
        authorization: `Bearer ${accessToken}`,
      }));
      expect(session.status).to.equal(200);
      await session.waitFor((m) => m.event === 'order');

      const following = collect(client.swaps.stream(order.id, accessToken, { maxReconnects: 1 }));
      for (const deadline = Date.now() + 10_000; !answers.includes(200) && Date.now() < deadline;) await delay(50);
      await pay(client, order.id);
      const events = await following;

      expect(answers.slice(0, 2)).to.deep.equal([429, 200]);
      expect(sleeps[0]).to.equal(5_000);
      expect(statusesOf(events).map((e) => e.id)).to.deep.equal(await timelineIds(client, order.id));
    });
  }
});
