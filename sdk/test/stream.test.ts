import { expect } from 'chai';
import {
  PartnerApiError,
  StreamDisconnectedError,
  type PartnerClient,
  type PartnerClientOptions,
  type QuoteRequest,
  type SwapCreated,
  type SwapStreamEvent,
} from '../src/index.js';
import { openStream, type SseSession } from '../../test/support/sse.js';
import { partnerClient } from './support/partner-client.js';
import { startTestServer, type TestServer } from '../../test/support/server.js';

const QUOTE: QuoteRequest = {
  sourceAsset: 'BTC',
  sourceNetwork: 'BTC',
  destinationAsset: 'USDT',
  destinationNetwork: 'ETH',
  sourceAmount: '0.015',
  refundMode: 'sender',
};
const DESTINATION = '0x71C7656EC7ab88b098defB751B7401B5f6d8976F';
const ENV = {
  STREAM_HEARTBEAT_SECONDS: '0.2',
  RATE_LIMIT_SWAPS_PER_MINUTE: '10000',
  RATE_LIMIT_QUOTES_PER_MINUTE: '10000',
  RATE_LIMIT_SIGNED_PER_MINUTE: '100000',
  RATE_LIMIT_PUBLIC_PER_MINUTE: '100000',
};

const isStream = (request: Request) => new URL(request.url).pathname.endsWith('/stream');
const statusesOf = (events: SwapStreamEvent[]) => events.flatMap((e) => (e.type === 'status' ? [e.event] : []));
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function collect(stream: AsyncIterable<SwapStreamEvent>): Promise<SwapStreamEvent[]> {
  const events: SwapStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
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

/** A response whose body delivers the text up to the end of the first `order` event, then ends cleanly (a proxy cutting streams). */
function endAfterFirstOrder(response: Response): Response {
  const source = response.body!.getReader();
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let text = '';
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const { done, value } = await source.read();
        if (done) return controller.close();
        text += decoder.decode(value, { stream: true });
        const match = /event: order\ndata: [^\n]*\n\n/.exec(text);
        if (!match) continue;
        controller.enqueue(encoder.encode(text.slice(0, match.index + match[0].length)));
        await source.cancel();
        return controller.close();
      }
    },
    cancel: (reason) => source.cancel(reason),
  });
  return new Response(body, { status: response.status, headers: response.headers });
}

async function createSwap(client: PartnerClient): Promise<SwapCreated> {
  const quoted = await client.quotes.create(QUOTE);
  if (quoted.error) throw quoted.error;
  const { quote } = quoted.data;
  const created = await client.swaps.create({ ...QUOTE, quoteId: quote.id, rateType: quote.rateType, destinationAddress: DESTINATION });
  if (created.error) throw created.error;
  return created.data;
}

async function pay(client: PartnerClient, id: string): Promise<void> {
  const ready = await client.swaps.waitForDepositAddress(id, { intervalMs: 50, timeoutMs: 10_000 });
  if (ready.error) throw ready.error;
  const { depositAddress, depositAmount } = ready.data.order;
  const paid = await client.sandbox.deposit({ address: depositAddress!, asset: 'BTC', network: 'BTC', amount: depositAmount! });
  if (paid.error) throw paid.error;
}

async function timelineIds(client: PartnerClient, id: string): Promise<string[]> {
  const { data, error } = await client.swaps.get(id);
  if (error) throw error;
  return data.events.map((e) => e.id);
}

describe('sdk swaps.stream against the real server', function () {
  this.timeout(60_000);
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ env: ENV });
  });
  after(() => server.close());

  const newClient = (extra: Partial<PartnerClientOptions> = {}) => partnerClient(server, extra);

  describe('.swaps.stream(id, accessToken, options)', () => {
    it('follows a swap from waiting to finished: the order first, every status in order, then the end', async () => {
      const client = await newClient();
      const { order, accessToken } = await createSwap(client);
      const following = collect(client.swaps.stream(order.id, accessToken));
      await pay(client, order.id);
      const events = await following;

      expect(events[0]).to.deep.include({ type: 'order' });
      const statuses = statusesOf(events).map((e) => e.status);
      expect(statuses[0]).to.equal('waiting');
      expect(statuses.slice(-3)).to.deep.equal(['exchanging', 'sending', 'finished']);
      expect(statuses.slice(1, -3)).to.satisfy((middle: string[]) => middle.length > 0 && middle.every((s) => s === 'confirming'));
      const last = events[events.length - 1];
      expect(last.type === 'status' && last.event.terminal).to.equal(true);
      expect(statusesOf(events).map((e) => e.id)).to.deep.equal(await timelineIds(client, order.id));
      const orders = events.flatMap((e) => (e.type === 'order' ? [e.order] : []));
      expect(orders.some((o) => o.depositAddress && o.status === 'waiting')).to.equal(true);
    });

    it('gives a late follower the whole timeline of a finished swap and ends', async () => {
      const client = await newClient();
      const { order, accessToken } = await createSwap(client);
      await pay(client, order.id);
      for (let read = await client.swaps.get(order.id); !read.data?.order.terminal; read = await client.swaps.get(order.id))
        await delay(50);
      const events = await collect(client.swaps.stream(order.id, accessToken));
      expect(events[0].type).to.equal('order');
      expect(statusesOf(events).pop()?.status).to.equal('finished');
      expect(statusesOf(events).map((e) => e.id)).to.deep.equal(await timelineIds(client, order.id));
    });

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
      expect(streamRequests[0].headers.get('last-event-id')).to.equal(null);
      const statuses = statusesOf(events);
      const cut = statuses.find((e) => e.status === 'confirming')!;
      expect(streamRequests[1].headers.get('last-event-id')).to.equal(cut.id);
      expect(sleeps).to.include(3_000); // the server's `retry: 3000`
      expect(statuses.map((e) => e.id)).to.deep.equal(await timelineIds(client, order.id));
      expect(statuses.pop()?.status).to.equal('finished');
      // The order the new connection starts with is yielded only if it changed.
      const orders = events.flatMap((e) => (e.type === 'order' ? [JSON.stringify(e.order)] : []));
      expect(orders.every((o, i) => i === 0 || o !== orders[i - 1])).to.equal(true);
    });

    it('still yields every entry once when a reconnect replays the whole timeline', async () => {
      let connections = 0;
      const client = await newClient({
        fetch: async (request) => {
          if (!isStream(request)) return fetch(request);
          connections++;
          if (connections === 1) return cutAfterConfirming(await fetch(request));
          // A server (or proxy) that ignores Last-Event-ID replays from the start.
          const headers = new Headers(request.headers);
          headers.delete('last-event-id');
          return fetch(new Request(request, { headers }));
        },
      });
      const { order, accessToken } = await createSwap(client);
      const following = collect(client.swaps.stream(order.id, accessToken, { reconnectDelayMs: 10 }));
      await pay(client, order.id);
      const events = await following;

      expect(connections).to.equal(2);
      expect(statusesOf(events).map((e) => e.id)).to.deep.equal(await timelineIds(client, order.id));
    });

    it('throws a StreamDisconnectedError after maxReconnects failed reconnects in a row', async () => {
      let attempts = 0;
      const sleeps: number[] = [];
      const client = await newClient({
        fetch: async (request) => {
          if (!isStream(request)) return fetch(request);
          attempts++;
          throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') });
        },
        retry: { maxRetries: 0 },
        sleep: async (ms) => void sleeps.push(ms),
      });
      const { order, accessToken } = await createSwap(client);
      let thrown: unknown;
      try {
        await collect(client.swaps.stream(order.id, accessToken, { maxReconnects: 2, reconnectDelayMs: 5 }));
      } catch (err) {
        thrown = err;
      }
      expect(thrown).to.be.instanceOf(StreamDisconnectedError);
      expect(thrown).to.include({ code: 'stream_disconnected', attempts: 3, lastEventId: undefined });
      expect((thrown as Error).cause).to.be.instanceOf(TypeError);
      expect((thrown as Error).message).to.contain('ECONNREFUSED');
      expect(attempts).to.equal(3);
      expect(sleeps).to.deep.equal([5, 5]);
    });

    it('gives up after maxReconnects when every connection sends the order and then ends cleanly, without the lifetime event', async () => {
      let connections = 0;
      const sleeps: number[] = [];
      const client = await newClient({
        fetch: async (request) => {
          if (!isStream(request)) return fetch(request);
          connections++;
          // A bound for the test itself: an SDK that never gives up is stopped here with an error it would not throw.
          if (connections > 10)
            return Response.json({ error: { code: 'invalid_token', message: 'the test stopped a loop' } }, { status: 401 });
          return endAfterFirstOrder(await fetch(request));
        },
        sleep: async (ms) => void sleeps.push(ms),
      });
      const { order, accessToken } = await createSwap(client);
      // The order changes once more when its deposit address is set; a connection that brings that is progress.
      const ready = await client.swaps.waitForDepositAddress(order.id, { intervalMs: 50, timeoutMs: 10_000 });
      if (ready.error) throw ready.error;
      sleeps.length = 0; // the waits of waitForDepositAddress
      let thrown: unknown;
      const events: SwapStreamEvent[] = [];
      try {
        for await (const event of client.swaps.stream(order.id, accessToken, { maxReconnects: 2 })) events.push(event);
      } catch (err) {
        thrown = err;
      }
      expect(thrown, String(thrown)).to.be.instanceOf(StreamDisconnectedError);
      // The first connection brought the order (the first failure of a run); two reconnects brought nothing new.
      expect(thrown).to.include({ code: 'stream_disconnected', attempts: 3 });
      expect((thrown as Error).message).to.contain('ended before the terminal status event');
      expect(connections).to.equal(3);
      expect(sleeps).to.deep.equal([3_000, 3_000]);
      expect(events.map((e) => e.type)).to.deep.equal(['order']);
    });

    it("throws a PartnerApiError (401 invalid_token) for another swap's token, without reconnecting", async () => {
      const streamRequests: Request[] = [];
      const client = await newClient({
        fetch: (request) => {
          if (isStream(request)) streamRequests.push(request);
          return fetch(request);
        },
      });
      const first = await createSwap(client);
      const second = await createSwap(client);
      let thrown: unknown;
      try {
        await collect(client.swaps.stream(first.order.id, second.accessToken));
      } catch (err) {
        thrown = err;
      }
      expect(thrown).to.be.instanceOf(PartnerApiError);
      expect(thrown).to.include({ status: 401, code: 'invalid_token' });
      expect(streamRequests).to.have.length(1);
      expect(streamRequests[0].headers.get('authorization')).to.equal(`Bearer ${second.accessToken}`);
      expect(streamRequests[0].headers.has('x-service-signature')).to.equal(false);
    });

    it('closes the connection when the loop breaks', async () => {
      const streamRequests: Request[] = [];
      let cancelled = false;
      const client = await newClient({
        fetch: async (request) => {
          if (!isStream(request)) return fetch(request);
          streamRequests.push(request);
          const response = await fetch(request);
          const source = response.body!.getReader();
          const body = new ReadableStream<Uint8Array>({
            async pull(controller) {
              const { done, value } = await source.read();
              if (done) controller.close();
              else controller.enqueue(value);
            },
            cancel(reason) {
              cancelled = true;
              return source.cancel(reason);
            },
          });
          return new Response(body, { status: response.status, headers: response.headers });
        },
      });
      const { order, accessToken } = await createSwap(client);
      let first: SwapStreamEvent | undefined;
      for await (const event of client.swaps.stream(order.id, accessToken)) {
        first = event;
        break;
      }
      expect(first?.type).to.equal('order');
      expect(streamRequests).to.have.length(1);
      expect(streamRequests[0].signal.aborted).to.equal(true);
      expect(cancelled).to.equal(true);
    });

    it('refuses misuse before sending anything', async () => {
      const client = await newClient();
      expect(() => client.swaps.stream('', 'sat_x')).to.throw(TypeError, /id/);
      expect(() => client.swaps.stream('id', '')).to.throw(TypeError, /accessToken/);
      expect(() => client.swaps.stream('id', 'sat_x', { maxReconnects: -1 })).to.throw(TypeError, /maxReconnects/);
      expect(() => client.swaps.stream('id', 'sat_x', { lastEventId: 'not an id' })).to.throw(TypeError, /lastEventId/);
    });
  });
});

describe('sdk swaps.stream against a server that bounds its streams', function () {
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
