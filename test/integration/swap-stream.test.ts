import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectError, readJson } from '../support/http.js';
import { signHeaders } from '../support/signer.js';
import { openStream } from '../support/sse.js';
import { swapClient, type Swap, type SwapEvent } from '../support/swaps.js';

const LIMITS = {
  RATE_LIMIT_SWAPS_PER_MINUTE: '10000',
  RATE_LIMIT_QUOTES_PER_MINUTE: '10000',
  RATE_LIMIT_SIGNED_PER_MINUTE: '100000',
  RATE_LIMIT_PUBLIC_PER_MINUTE: '100000',
};

describe('GET /swaps/{id}/stream', function () {
  this.timeout(60_000);
  let server: TestServer;
  let client: ReturnType<typeof swapClient>;
  const streamUrl = (id: string) => `${server.baseUrl}/swaps/${id}/stream`;
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const statusesOf = (session: { messages: Array<{ event?: string; data: string }> }) =>
    session.messages.filter((m) => m.event === 'status').map((m) => (JSON.parse(m.data) as SwapEvent).status);

  before(async () => {
    server = await startTestServer({ env: { ...LIMITS, STREAM_HEARTBEAT_SECONDS: '0.2' } });
    client = swapClient(server.origin, await server.createSigner('Streamer'));
  });
  after(() => server.close());

  describe('refusals, as JSON before any stream starts', () => {
    it('asks for the access token when none is sent', async () => {
      const { order } = await client.create();
      expectError(await readJson(fetch(streamUrl(order.id))), 401, 'authentication_required');
    });

    it('refuses signed partner credentials: the stream takes the access token only', async () => {
      const { order } = await client.create();
      const path = `/api/v1/swaps/${order.id}/stream`;
      const signer = await server.createSigner('Signed');
      expectError(
        await readJson(fetch(`${server.origin}${path}`, { headers: signHeaders(signer, 'GET', path) })),
        401,
        'authentication_required',
      );
    });

    it("refuses another swap's token with invalid_token", async () => {
      const first = await client.create();
      const second = await client.create();
      expectError(await readJson(fetch(streamUrl(first.order.id), { headers: bearer(second.accessToken) })), 401, 'invalid_token');
    });
  });

  it('follows a swap from waiting to finished: order first, every entry with its id, heartbeats, then the end', async () => {
    const { order, accessToken } = await client.create();
    const session = await openStream(streamUrl(order.id), bearer(accessToken));
    expect(session.status).to.equal(200);
    expect(session.headers.get('content-type')).to.match(/^text\/event-stream/);
    expect(session.headers.get('cache-control')).to.equal('no-cache');
    expect(session.headers.get('x-accel-buffering')).to.equal('no');
    expect(session.headers.get('content-encoding')).to.equal(null);
    const first = await session.waitFor(() => true);
    expect(first.event).to.equal('order');
    expect((JSON.parse(first.data) as Swap).id).to.equal(order.id);

    await client.pay(order);
    await session.ended;
    expect(session.raw).to.match(/^retry: 3000\n\n/);
    expect(session.raw).to.contain(': heartbeat\n\n');
    const statuses = statusesOf(session);
    expect(statuses[0]).to.equal('waiting');
    expect(statuses.slice(-3)).to.deep.equal(['exchanging', 'sending', 'finished']);
    const middle = statuses.slice(1, -3);
    expect(middle.length).to.be.greaterThan(0);
    expect(middle.every((s) => s === 'confirming')).to.equal(true);
    for (const message of session.messages.filter((m) => m.event === 'status')) {
      expect(message.id).to.equal((JSON.parse(message.data) as SwapEvent).id);
    }
    // An order event for the allocated address and for every transition; the last shows the finished swap.
    const orders = session.messages.filter((m) => m.event === 'order').map((m) => JSON.parse(m.data) as Swap);
    expect(orders.some((o) => o.depositAddress && o.status === 'waiting')).to.equal(true);
    expect(orders[orders.length - 1].status).to.equal('finished');
    const { events } = await client.get(order.id);
    expect(session.messages.filter((m) => m.event === 'status').map((m) => m.id)).to.deep.equal(events.map((e) => e.id));
  });

  it('resumes after Last-Event-ID with no gap and no duplicate', async () => {
    const { order, accessToken } = await client.create();
    const before = await openStream(streamUrl(order.id), bearer(accessToken));
    await before.waitFor((m) => m.event === 'status');
    await client.pay(order);
    const cut = await before.waitFor((m) => m.event === 'status' && (JSON.parse(m.data) as SwapEvent).status === 'confirming');
    before.abort();
    const seen = before.messages.slice(0, before.messages.indexOf(cut) + 1).filter((m) => m.event === 'status');

    const after = await openStream(streamUrl(order.id), { ...bearer(accessToken), 'last-event-id': cut.id! });
    await after.ended;
    const resumed = after.messages.filter((m) => m.event === 'status');
    const ids = [...seen, ...resumed].map((m) => m.id);
    const { events } = await client.get(order.id);
    expect(ids).to.deep.equal(events.map((e) => e.id));
    expect(after.messages[0].event).to.equal('order');
  });

  it('keeps nothing for clients that leave at once, or for swaps nobody streams', async () => {
    const { order, accessToken } = await client.create();
    await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const controller = new AbortController();
        const pending = fetch(streamUrl(order.id), { headers: bearer(accessToken), signal: controller.signal }).catch(() => undefined);
        setTimeout(() => controller.abort(), i % 5);
        const res = await pending;
        await res?.body?.cancel().catch(() => undefined);
      }),
    );
    await client.pay(order);
    await client.waitFor(order.id, (o) => o.terminal);
    const deadline = Date.now() + 5_000;
    while ((server.engine.hub.size() > 0 || server.engine.hub.trackedSwaps() > 0) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(server.engine.hub.size()).to.equal(0);
    expect(server.engine.hub.trackedSwaps()).to.equal(0);
  });

  it('gives a late client the snapshot, the whole timeline and the end', async () => {
    const { order, accessToken } = await client.create();
    await client.pay(order);
    const { events } = await client.waitFor(order.id, (o) => o.terminal);
    const late = await openStream(streamUrl(order.id), bearer(accessToken));
    await late.ended;
    expect(late.messages[0].event).to.equal('order');
    expect(late.messages.filter((m) => m.event === 'status').map((m) => m.id)).to.deep.equal(events.map((e) => e.id));
  });
});

describe('GET /swaps/{id}/stream across two server instances on one PostgreSQL', function () {
  this.timeout(60_000);
  let a: TestServer;
  let b: TestServer;
  before(async function () {
    if (!process.env.DATABASE_URL) {
      // The embedded database belongs to one process; the fan-out between instances is PostgreSQL's LISTEN/NOTIFY.
      this.skip();
    }
    a = await startTestServer({ env: LIMITS });
    b = await startTestServer({ sameDatabaseAs: a });
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  it('streams from one instance the transitions made through the other', async () => {
    const signer = await a.createSigner('Two instances');
    const onA = swapClient(a.origin, signer);
    const { order, accessToken } = await onA.create();
    const session = await openStream(`${b.baseUrl}/swaps/${order.id}/stream`, { authorization: `Bearer ${accessToken}` });
    await session.waitFor((m) => m.event === 'order');
    await onA.pay(order);
    await session.ended;
    const statuses = session.messages.filter((m) => m.event === 'status').map((m) => (JSON.parse(m.data) as SwapEvent).status);
    expect(statuses[statuses.length - 1]).to.equal('finished');
  });
});
