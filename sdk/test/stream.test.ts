import { expect } from 'chai';
import { PartnerApiError, StreamDisconnectedError, type Swap, type SwapEvent, type SwapStreamEvent } from '../src/index.js';
import { apiError, eventOf, fakeApi, sse, swapOf, type FakeApi } from './support/fake-api.js';

const TOKEN = 'sat_3Jd9sPq2VwXy7RtLm4Nb6Hc1';
const SWAP = swapOf();
const STREAM_PATH = '/swaps/{id}/stream';
const TIMELINE: SwapEvent[] = [
  eventOf('ev_1', 'waiting'),
  eventOf('ev_2', 'confirming'),
  eventOf('ev_3', 'confirming'),
  eventOf('ev_4', 'exchanging'),
  eventOf('ev_5', 'sending'),
  eventOf('ev_6', 'finished'),
];

// The server's framing (server/handlers/swap-stream.ts): retry first, then the order, then id-carrying status entries.
const retryField = (ms: number) => `retry: ${ms}\n\n`;
const orderMessage = (order: Swap = SWAP) => `event: order\ndata: ${JSON.stringify(order)}\n\n`;
const statusMessages = (events: SwapEvent[]) => events.map((e) => `id: ${e.id}\nevent: status\ndata: ${JSON.stringify(e)}\n\n`).join('');
const LIFETIME = 'event: reconnect\ndata: {"reason":"lifetime"}\n\n';

/** A stream response that sends `text`, then fails as a dropped connection does. */
function dropsAfter(text: string): Response {
  const encoder = new TextEncoder();
  let sent = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent) return controller.error(new TypeError('terminated', { cause: new Error('other side closed') }));
      sent = true;
      controller.enqueue(encoder.encode(text));
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

async function collect(stream: AsyncIterable<SwapStreamEvent>): Promise<SwapStreamEvent[]> {
  const events: SwapStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

async function thrownBy(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (err) {
    return err;
  }
  return undefined;
}

const statusIds = (events: SwapStreamEvent[]) => events.flatMap((e) => (e.type === 'status' ? [e.event.id] : []));
const streamRequests = (api: FakeApi) => api.sent.filter((r) => r.path === `/swaps/${SWAP.id}/stream`);

describe('sdk swaps.stream(id, accessToken, options)', () => {
  it('yields the order, then every status entry in order, and ends after the terminal one', async () => {
    const api = fakeApi().on('GET', STREAM_PATH, () => sse(retryField(3000) + orderMessage() + statusMessages(TIMELINE)));
    const events = await collect(api.client().swaps.stream(SWAP.id, TOKEN));
    expect(events[0]).to.deep.equal({ type: 'order', order: SWAP });
    expect(events.slice(1)).to.deep.equal(TIMELINE.map((event) => ({ type: 'status', event })));
  });

  it('asks with the access token alone: a bearer header, text/event-stream, no signature and no Last-Event-ID', async () => {
    const api = fakeApi().on('GET', STREAM_PATH, () => sse(orderMessage() + statusMessages(TIMELINE)));
    await collect(api.client().swaps.stream(SWAP.id, TOKEN));
    const [request] = streamRequests(api);
    expect(request.method).to.equal('GET');
    expect(request.headers.get('authorization')).to.equal(`Bearer ${TOKEN}`);
    expect(request.headers.get('accept')).to.equal('text/event-stream');
    expect(request.headers.has('last-event-id')).to.equal(false);
    expect([...request.headers.keys()].filter((name) => name.startsWith('x-service-'))).to.deep.equal([]);
  });

  it('yields the final order the server sends after the terminal entry, then ends', async () => {
    const finished = swapOf({ status: 'finished', settlementTxHash: '0xabc', actualOutputAmount: '99.5' });
    const api = fakeApi().on('GET', STREAM_PATH, () => sse(orderMessage() + statusMessages(TIMELINE) + orderMessage(finished)));
    const events = await collect(api.client().swaps.stream(SWAP.id, TOKEN));
    expect(statusIds(events)).to.deep.equal(TIMELINE.map((e) => e.id));
    expect(events.at(-1)).to.deep.equal({ type: 'order', order: finished });
    expect(streamRequests(api)).to.have.length(1);
  });

  it('stops after the final order even when the body goes on', async () => {
    const finished = swapOf({ status: 'finished' });
    const api = fakeApi().on('GET', STREAM_PATH, () =>
      sse(
        orderMessage() + statusMessages(TIMELINE) + orderMessage(finished) + statusMessages([eventOf('ev_7', 'failed')]) + orderMessage(),
      ),
    );
    const events = await collect(api.client().swaps.stream(SWAP.id, TOKEN));
    expect(statusIds(events)).to.deep.equal(TIMELINE.map((e) => e.id));
    expect(events.at(-1)).to.deep.equal({ type: 'order', order: finished });
  });

  it('stops at the terminal entry when something other than the order follows it', async () => {
    const api = fakeApi().on('GET', STREAM_PATH, () =>
      sse(orderMessage() + statusMessages(TIMELINE) + statusMessages([eventOf('ev_7', 'failed')])),
    );
    const events = await collect(api.client().swaps.stream(SWAP.id, TOKEN));
    expect(statusIds(events)).to.deep.equal(TIMELINE.map((e) => e.id));
    expect(events.at(-1)).to.deep.equal({ type: 'status', event: TIMELINE.at(-1) });
  });

  it('ends without an error, and without reconnecting, when the connection drops after the terminal entry', async () => {
    const api = fakeApi().on('GET', STREAM_PATH, () => dropsAfter(orderMessage() + statusMessages(TIMELINE)));
    const events = await collect(api.client().swaps.stream(SWAP.id, TOKEN, { reconnectDelayMs: 0 }));
    expect(statusIds(events)).to.deep.equal(TIMELINE.map((e) => e.id));
    expect(streamRequests(api)).to.have.length(1);
  });

  it('skips comments and event types it does not know, and repeats the order only when it changed', async () => {
    const changed = swapOf({ status: 'confirming' });
    const api = fakeApi().on('GET', STREAM_PATH, () =>
      sse(
        `: heartbeat\n\nevent: ping\ndata: {}\n\n${orderMessage()}${statusMessages(TIMELINE.slice(0, 2))}${orderMessage()}` +
          `${orderMessage(changed)}${statusMessages(TIMELINE.slice(2))}`,
      ),
    );
    const events = await collect(api.client().swaps.stream(SWAP.id, TOKEN));
    expect(events.filter((e) => e.type === 'order')).to.deep.equal([
      { type: 'order', order: SWAP },
      { type: 'order', order: changed },
    ]);
    expect(statusIds(events)).to.deep.equal(TIMELINE.map((e) => e.id));
  });

  it('resumes a dropped connection with Last-Event-ID after the retry delay the server sent, yielding every entry once', async () => {
    const api = fakeApi().on(
      'GET',
      STREAM_PATH,
      () => dropsAfter(retryField(1500) + orderMessage() + statusMessages(TIMELINE.slice(0, 2))),
      () => sse(orderMessage() + statusMessages(TIMELINE.slice(2))),
    );
    const sleeps: number[] = [];
    const events = await collect(api.client({ sleep: async (ms) => void sleeps.push(ms) }).swaps.stream(SWAP.id, TOKEN));
    const requests = streamRequests(api);
    expect(requests.map((r) => r.headers.get('last-event-id'))).to.deep.equal([null, 'ev_2']);
    expect(sleeps).to.deep.equal([1500]);
    expect(statusIds(events)).to.deep.equal(TIMELINE.map((e) => e.id));
    expect(events.filter((e) => e.type === 'order')).to.have.length(1);
  });

  it('still yields every entry once when a reconnect replays the whole timeline', async () => {
    const api = fakeApi().on(
      'GET',
      STREAM_PATH,
      () => dropsAfter(orderMessage() + statusMessages(TIMELINE.slice(0, 3))),
      // A server (or proxy) that ignores Last-Event-ID replays from the start.
      () => sse(orderMessage() + statusMessages(TIMELINE)),
    );
    const events = await collect(api.client().swaps.stream(SWAP.id, TOKEN, { reconnectDelayMs: 10 }));
    expect(streamRequests(api)).to.have.length(2);
    expect(statusIds(events)).to.deep.equal(TIMELINE.map((e) => e.id));
  });

  it('sends the lastEventId option as Last-Event-ID on the first connection', async () => {
    const api = fakeApi().on('GET', STREAM_PATH, () => sse(orderMessage() + statusMessages(TIMELINE.slice(3))));
    const events = await collect(api.client().swaps.stream(SWAP.id, TOKEN, { lastEventId: 'ev_3' }));
    expect(streamRequests(api)[0].headers.get('last-event-id')).to.equal('ev_3');
    expect(statusIds(events)).to.deep.equal(['ev_4', 'ev_5', 'ev_6']);
  });

  it('throws a StreamDisconnectedError after maxReconnects failed reconnects in a row', async () => {
    const api = fakeApi().on('GET', STREAM_PATH, () =>
      Promise.reject(new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') })),
    );
    const sleeps: number[] = [];
    const client = api.client({ retry: { maxRetries: 0 }, sleep: async (ms) => void sleeps.push(ms) });
    const thrown = await thrownBy(() => collect(client.swaps.stream(SWAP.id, TOKEN, { maxReconnects: 2, reconnectDelayMs: 5 })));
    expect(thrown).to.be.instanceOf(StreamDisconnectedError);
    expect(thrown).to.include({ code: 'stream_disconnected', attempts: 3, lastEventId: undefined });
    expect((thrown as Error).cause).to.be.instanceOf(TypeError);
    expect((thrown as Error).message).to.contain('ECONNREFUSED');
    expect(streamRequests(api)).to.have.length(3);
    expect(sleeps).to.deep.equal([5, 5]);
  });

  it('names the last entry it yielded in the StreamDisconnectedError, to resume from', async () => {
    const api = fakeApi().on(
      'GET',
      STREAM_PATH,
      () => dropsAfter(orderMessage() + statusMessages(TIMELINE.slice(0, 2))),
      () => Promise.reject(new TypeError('fetch failed')),
    );
    const client = api.client({ retry: { maxRetries: 0 } });
    const thrown = await thrownBy(() => collect(client.swaps.stream(SWAP.id, TOKEN, { maxReconnects: 1 })));
    expect(thrown).to.be.instanceOf(StreamDisconnectedError).and.include({ lastEventId: 'ev_2', attempts: 2 });
  });

  it('gives up after maxReconnects when every connection sends the same order and then ends cleanly, without the lifetime event', async () => {
    const api = fakeApi().on('GET', STREAM_PATH, () => sse(orderMessage()));
    const sleeps: number[] = [];
    const events: SwapStreamEvent[] = [];
    const client = api.client({ sleep: async (ms) => void sleeps.push(ms) });
    const thrown = await thrownBy(async () => {
      for await (const event of client.swaps.stream(SWAP.id, TOKEN, { maxReconnects: 2 })) events.push(event);
    });
    expect(thrown, String(thrown)).to.be.instanceOf(StreamDisconnectedError);
    // The first connection brought the order (the first failure of a run); two reconnects brought nothing new.
    expect(thrown).to.include({ code: 'stream_disconnected', attempts: 3 });
    expect((thrown as Error).message).to.contain('ended before the terminal status event');
    expect(streamRequests(api)).to.have.length(3);
    expect(sleeps).to.deep.equal([3_000, 3_000]); // the default until the server sends `retry:`
    expect(events.map((e) => e.type)).to.deep.equal(['order']);
  });

  it('resumes a stream the server ends at its maximum lifetime however often, without counting it as a failure', async () => {
    const lifetime = () => sse(orderMessage() + LIFETIME);
    const api = fakeApi().on(
      'GET',
      STREAM_PATH,
      () => sse(orderMessage() + statusMessages(TIMELINE.slice(0, 1)) + LIFETIME),
      lifetime,
      lifetime,
      lifetime,
      () => sse(orderMessage() + statusMessages(TIMELINE.slice(1))),
    );
    const events = await collect(api.client().swaps.stream(SWAP.id, TOKEN, { maxReconnects: 1, reconnectDelayMs: 10 }));
    expect(statusIds(events)).to.deep.equal(TIMELINE.map((e) => e.id));
    expect(streamRequests(api).map((r) => r.headers.get('last-event-id'))).to.deep.equal([null, 'ev_1', 'ev_1', 'ev_1', 'ev_1']);
  });

  it("throws a PartnerApiError (401 invalid_token) for another swap's token, without reconnecting", async () => {
    const api = fakeApi().on('GET', STREAM_PATH, () => apiError(401, 'invalid_token', 'The access token belongs to another swap.'));
    const thrown = await thrownBy(() => collect(api.client().swaps.stream(SWAP.id, 'sat_other')));
    expect(thrown).to.be.instanceOf(PartnerApiError);
    expect(thrown).to.include({ status: 401, code: 'invalid_token' });
    expect(streamRequests(api)).to.have.length(1);
  });

  for (const [retries, path] of [
    [3, 'its transport'],
    [0, 'the stream itself'],
  ] as const) {
    it(`waits the Retry-After of a 429 too_many_streams, then streams (retried by ${path})`, async () => {
      const api = fakeApi().on(
        'GET',
        STREAM_PATH,
        () => apiError(429, 'too_many_streams', 'This token has as many streams as allowed.', { 'retry-after': '5' }),
        () => sse(orderMessage() + statusMessages(TIMELINE)),
      );
      const sleeps: number[] = [];
      const client = api.client({ retry: { maxRetries: retries }, sleep: async (ms) => void sleeps.push(ms) });
      const events = await collect(client.swaps.stream(SWAP.id, TOKEN, { maxReconnects: 1 }));
      expect(sleeps).to.deep.equal([5_000]);
      expect(streamRequests(api)).to.have.length(2);
      expect(statusIds(events)).to.deep.equal(TIMELINE.map((e) => e.id));
    });
  }

  it('reconnects after a 503 and counts it as a failed connection', async () => {
    const api = fakeApi().on('GET', STREAM_PATH, () => apiError(503, 'service_unavailable', 'try later'));
    const client = api.client({ retry: { maxRetries: 0 } });
    const thrown = await thrownBy(() => collect(client.swaps.stream(SWAP.id, TOKEN, { maxReconnects: 1, reconnectDelayMs: 1 })));
    expect(thrown).to.be.instanceOf(StreamDisconnectedError);
    expect((thrown as Error).cause)
      .to.be.instanceOf(PartnerApiError)
      .and.include({ status: 503 });
    expect(streamRequests(api)).to.have.length(2);
  });

  it('closes the connection when the loop breaks', async () => {
    let cancelled = false;
    const api = fakeApi().on('GET', STREAM_PATH, () => {
      const encoder = new TextEncoder();
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(encoder.encode(orderMessage() + statusMessages(TIMELINE.slice(0, 1))));
        },
        cancel() {
          cancelled = true;
        },
      });
      return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    });
    let first: SwapStreamEvent | undefined;
    for await (const event of api.client().swaps.stream(SWAP.id, TOKEN)) {
      first = event;
      break;
    }
    expect(first?.type).to.equal('order');
    expect(streamRequests(api)).to.have.length(1);
    expect(streamRequests(api)[0].request.signal.aborted).to.equal(true);
    expect(cancelled).to.equal(true);
  });

  it('refuses misuse before sending anything', () => {
    const api = fakeApi();
    const client = api.client();
    expect(() => client.swaps.stream('', 'sat_x')).to.throw(TypeError, /id/);
    expect(() => client.swaps.stream('id', '')).to.throw(TypeError, /accessToken/);
    expect(() => client.swaps.stream('id', 'sat_x', { maxReconnects: -1 })).to.throw(TypeError, /maxReconnects/);
    expect(() => client.swaps.stream('id', 'sat_x', { reconnectDelayMs: -1 })).to.throw(TypeError, /reconnectDelayMs/);
    expect(() => client.swaps.stream('id', 'sat_x', { lastEventId: 'not an id' })).to.throw(TypeError, /lastEventId/);
    expect(api.sent).to.have.length(0);
  });
});
