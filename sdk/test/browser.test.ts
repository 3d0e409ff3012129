import { expect } from 'chai';
import { createSwapViewer, PartnerApiError, type SwapEvent, type SwapStreamEvent, type SwapViewerOptions } from '../src/browser.js';
import { eventOf, swapOf } from './support/fake-api.js';

const BASE_URL = 'https://swap.example.com/api/v1';
const TOKEN = 'sat_3Jd9sPq2VwXy7RtLm4Nb6Hc1';
const SWAP = swapOf();
const TIMELINE: SwapEvent[] = [
  eventOf('ev_1', 'waiting'),
  eventOf('ev_2', 'confirming'),
  eventOf('ev_3', 'exchanging'),
  eventOf('ev_4', 'sending'),
  eventOf('ev_5', 'finished'),
];
const orderMessage = `event: order\ndata: ${JSON.stringify(SWAP)}\n\n`;
const statusMessages = (events: SwapEvent[]) => events.map((e) => `id: ${e.id}\nevent: status\ndata: ${JSON.stringify(e)}\n\n`).join('');

/** One request the viewer sent. */
interface Sent {
  url: string;
  headers: Record<string, string>;
}

/** A fetch that answers each call with the next of `answers` (the last repeats) and records the requests. */
function fakeFetch(...answers: Array<() => Response>) {
  const sent: Sent[] = [];
  const fetch: NonNullable<SwapViewerOptions['fetch']> = async (url, init) => {
    sent.push({ url, headers: { ...(init.headers as Record<string, string>) } });
    return answers[Math.min(sent.length - 1, answers.length - 1)]();
  };
  return { fetch, sent };
}

/** A stream body sending `chunks` as they are (byte arrays or text), then ending or failing as a dropped connection. */
function streamOf(chunks: Array<string | Uint8Array>, { drop = false } = {}): Response {
  const encoder = new TextEncoder();
  const queue = [...chunks];
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = queue.shift();
      if (next !== undefined) return controller.enqueue(typeof next === 'string' ? encoder.encode(next) : next);
      if (drop) return controller.error(new TypeError('network error'));
      controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

function viewerOn(fetch: SwapViewerOptions['fetch'], sleeps: number[] = []) {
  return createSwapViewer({ baseUrl: BASE_URL, swapId: SWAP.id, accessToken: TOKEN, fetch, sleep: async (ms) => void sleeps.push(ms) });
}

async function collect(stream: AsyncIterable<SwapStreamEvent>): Promise<SwapStreamEvent[]> {
  const events: SwapStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const statusIds = (events: SwapStreamEvent[]) => events.flatMap((e) => (e.type === 'status' ? [e.event.id] : []));

describe('sdk browser createSwapViewer({ baseUrl, swapId, accessToken, fetch })', () => {
  describe('.get()', () => {
    it('reads GET /swaps/{id} with the token as a bearer, and nothing else', async () => {
      const api = fakeFetch(() => Response.json({ order: SWAP, events: TIMELINE.slice(0, 1) }));
      const { data, error } = await viewerOn(api.fetch).get();
      expect(error).to.equal(undefined);
      expect(data).to.deep.equal({ order: SWAP, events: TIMELINE.slice(0, 1) });
      expect(api.sent).to.deep.equal([
        { url: `${BASE_URL}/swaps/${SWAP.id}`, headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/json' } },
      ]);
    });

    it('returns a 401 as a PartnerApiError value with its code and request id', async () => {
      const api = fakeFetch(() =>
        Response.json(
          { error: { code: 'invalid_token', message: 'This access token does not grant access to this swap.', requestId: 'req_1' } },
          { status: 401 },
        ),
      );
      const { data, error, response } = await viewerOn(api.fetch).get();
      expect(data).to.equal(undefined);
      expect(response.status).to.equal(401);
      expect(error).to.be.instanceOf(PartnerApiError);
      expect(error).to.include({ status: 401, code: 'invalid_token', requestId: 'req_1' });
    });
  });

  describe('.stream()', () => {
    it('parses events split anywhere across chunks, a multi-byte character included', async () => {
      const named = { ...SWAP, destination: '0x71C7656EC7ab88b098defB751B7401B5f6d8976F', termsVersion: '2026-01 \u00e9t\u00e9' };
      const text = `retry: 3000\n\nevent: order\ndata: ${JSON.stringify(named)}\n\n${statusMessages(TIMELINE)}`;
      const bytes = new TextEncoder().encode(text);
      // Cut every 7 bytes: through field names, through the blank line ending an event, and through the é.
      const chunks: Uint8Array[] = [];
      for (let at = 0; at < bytes.length; at += 7) chunks.push(bytes.slice(at, at + 7));
      const api = fakeFetch(() => streamOf(chunks));
      const events = await collect(viewerOn(api.fetch).stream());
      expect(events[0]).to.deep.equal({ type: 'order', order: named });
      expect(events.slice(1)).to.deep.equal(TIMELINE.map((event) => ({ type: 'status', event })));
    });

    it('asks with the bearer token and text/event-stream, without Last-Event-ID on the first connection', async () => {
      const api = fakeFetch(() => streamOf([orderMessage + statusMessages(TIMELINE)]));
      await collect(viewerOn(api.fetch).stream());
      expect(api.sent).to.deep.equal([
        { url: `${BASE_URL}/swaps/${SWAP.id}/stream`, headers: { authorization: `Bearer ${TOKEN}`, accept: 'text/event-stream' } },
      ]);
    });

    it('resumes a dropped connection with Last-Event-ID after the server retry delay, every entry once', async () => {
      const api = fakeFetch(
        () => streamOf(['retry: 1200\n\n', orderMessage, statusMessages(TIMELINE.slice(0, 2))], { drop: true }),
        // The resumed connection starts with the order again, and a replay of ev_2 a proxy might add.
        () => streamOf([orderMessage + statusMessages(TIMELINE.slice(1))]),
      );
      const sleeps: number[] = [];
      const events = await collect(viewerOn(api.fetch, sleeps).stream());
      expect(api.sent.map((s) => s.headers['last-event-id'])).to.deep.equal([undefined, 'ev_2']);
      expect(sleeps).to.deep.equal([1200]);
      expect(statusIds(events)).to.deep.equal(TIMELINE.map((e) => e.id));
      expect(events.filter((e) => e.type === 'order')).to.have.length(1);
    });

    it('yields the final order sent after the terminal event, then ends', async () => {
      const finished = swapOf({ status: 'finished', settlementTxHash: '0xabc', actualOutputAmount: '99.5' });
      const api = fakeFetch(() =>
        streamOf([orderMessage + statusMessages(TIMELINE) + `event: order\ndata: ${JSON.stringify(finished)}\n\n`]),
      );
      const events = await collect(viewerOn(api.fetch).stream());
      expect(statusIds(events)).to.deep.equal(TIMELINE.map((e) => e.id));
      expect(events.at(-1)).to.deep.equal({ type: 'order', order: finished });
      expect(api.sent).to.have.length(1);
    });

    it('ends after the terminal event when the body goes on with something else, and cancels the connection', async () => {
      let cancelled = false;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(orderMessage + statusMessages(TIMELINE)));
          controller.enqueue(new TextEncoder().encode(statusMessages([eventOf('ev_6', 'failed')])));
        },
        cancel() {
          cancelled = true;
        },
      });
      const api = fakeFetch(() => new Response(body, { status: 200 }));
      const events = await collect(viewerOn(api.fetch).stream());
      expect(statusIds(events)).to.deep.equal(TIMELINE.map((e) => e.id));
      expect(events.at(-1)).to.deep.equal({ type: 'status', event: TIMELINE.at(-1) });
      expect(api.sent).to.have.length(1);
      expect(cancelled).to.equal(true);
    });

    it('throws the 401 of a wrong token as a PartnerApiError, without reconnecting', async () => {
      const api = fakeFetch(() =>
        Response.json(
          { error: { code: 'invalid_token', message: 'This access token does not grant access to this swap.' } },
          { status: 401 },
        ),
      );
      let thrown: unknown;
      try {
        await collect(viewerOn(api.fetch).stream());
      } catch (err) {
        thrown = err;
      }
      expect(thrown).to.be.instanceOf(PartnerApiError);
      expect(thrown).to.include({ status: 401, code: 'invalid_token' });
      expect(api.sent).to.have.length(1);
    });
  });

  it('refuses misuse at the call: no base URL, swap id or token', () => {
    const fetch = fakeFetch(() => Response.json({})).fetch;
    expect(() => createSwapViewer({ baseUrl: '', swapId: SWAP.id, accessToken: TOKEN, fetch })).to.throw(TypeError, /baseUrl/);
    expect(() => createSwapViewer({ baseUrl: BASE_URL, swapId: '', accessToken: TOKEN, fetch })).to.throw(TypeError, /id/);
    expect(() => createSwapViewer({ baseUrl: BASE_URL, swapId: SWAP.id, accessToken: '', fetch })).to.throw(TypeError, /accessToken/);
  });
});
