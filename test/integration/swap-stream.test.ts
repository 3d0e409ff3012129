import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectError, readJson } from '../support/http.js';
import { signHeaders } from '../support/signer.js';
import { openStream, type SseSession } from '../support/sse.js';
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

describe('GET /swaps/{id}/stream limits (docs/architecture.md#errors-limits-and-health)', function () {
  this.timeout(60_000);
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const statusOf = (m: { data: string }) => (JSON.parse(m.data) as SwapEvent).status;
  const opened: SseSession[] = [];
  const servers: TestServer[] = [];
  afterEach(async () => {
    for (const session of opened.splice(0)) session.abort();
    for (const server of servers.splice(0)) await server.close();
  });

  // A server with these stream limits; every stream it opens is aborted after the test.
  async function serverWith(env: Record<string, string>) {
    const server = await startTestServer({ env: { ...LIMITS, STREAM_HEARTBEAT_SECONDS: '0.2', TRUST_PROXY: '127.0.0.1', ...env } });
    servers.push(server);
    const open = async (swap: { order: Swap; accessToken: string }, headers: Record<string, string> = {}) => {
      const session = await openStream(`${server.baseUrl}/swaps/${swap.order.id}/stream`, { ...bearer(swap.accessToken), ...headers });
      opened.push(session);
      if (session.status === 200) await session.waitFor((m) => m.event === 'order');
      return session;
    };
    return { server, open, partner: async (name: string) => swapClient(server.origin, await server.createSigner(name)) };
  }

  // The 429 is the spec's Error body, sent instead of the stream, naming the limit that was reached.
  function expectRefused(session: SseSession, scope: string, limit: number): void {
    expect(session.status, session.raw).to.equal(429);
    expect(session.headers.get('content-type')).to.match(/^application\/json/);
    expect(session.headers.get('retry-after')).to.match(/^\d+$/);
    expect(Number(session.headers.get('retry-after'))).to.be.at.least(1);
    const body = JSON.parse(session.raw) as { error: { code: string; message: string; details: unknown; requestId: string } };
    expect(body.error.code).to.equal('too_many_streams');
    expect(body.error.details).to.deep.equal({ scope, limit });
    expect(body.error.message).to.contain(String(limit));
    expect(body.error.requestId).to.be.a('string');
    expect(session.raw).not.to.contain('retry: 3000');
  }

  it('refuses a 4th concurrent stream of one token with 429 while the first three keep flowing; closing one frees a place', async () => {
    const { open, partner } = await serverWith({});
    const client = await partner('Token limit');
    const swap = await client.create();
    const three = [await open(swap), await open(swap), await open(swap)];
    expect(three.map((s) => s.status)).to.deep.equal([200, 200, 200]);

    expectRefused(await open(swap), 'token', 3);
    // Another swap's token from the same client is a place of its own.
    expect((await open(await client.create())).status).to.equal(200);

    // The three streams still deliver: the deposit deadline passes and each one sends the overdue entry.
    const moved = await client.send('POST', `/api/v1/sandbox/swaps/${swap.order.id}/clock`, { deadline: 'deposit' });
    expect(moved.status, moved.text).to.equal(200);
    await Promise.all(three.map((s) => s.waitFor((m) => m.event === 'status' && statusOf(m) === 'overdue', 10_000)));

    three[0].abort();
    let again = await open(swap);
    // The server learns of the closed connection from its socket; give it a moment.
    for (const deadline = Date.now() + 5_000; again.status === 429 && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      again = await open(swap);
    }
    expect(again.status, again.raw).to.equal(200);
    expect(statusOf(await again.waitFor((m) => m.event === 'status' && statusOf(m) === 'overdue'))).to.equal('overdue');
    expectRefused(await open(swap), 'token', 3);
  });

  it('caps streams per client IP, the IP being the one TRUST_PROXY lets X-Forwarded-For name', async () => {
    const { open, partner } = await serverWith({ STREAM_MAX_PER_IP: '2' });
    const client = await partner('IP limit');
    const [a, b, c] = [await client.create(), await client.create(), await client.create()];
    const from = (ip: string) => ({ 'x-forwarded-for': ip });
    expect((await open(a, from('203.0.113.7'))).status).to.equal(200);
    expect((await open(b, from('203.0.113.7'))).status).to.equal(200);
    expectRefused(await open(c, from('203.0.113.7')), 'ip', 2);
    expect((await open(c, from('203.0.113.8'))).status).to.equal(200);
  });

  it("caps streams per partner, whatever the token and IP, leaving other partners' streams alone", async () => {
    const { open, partner } = await serverWith({ STREAM_MAX_PER_PARTNER: '2' });
    const first = await partner('Partner limit');
    const other = await partner('Other partner');
    const swaps = [await first.create(), await first.create(), await first.create()];
    expect((await open(swaps[0], { 'x-forwarded-for': '203.0.113.1' })).status).to.equal(200);
    expect((await open(swaps[1], { 'x-forwarded-for': '203.0.113.2' })).status).to.equal(200);
    expectRefused(await open(swaps[2], { 'x-forwarded-for': '203.0.113.3' }), 'partner', 2);
    expect((await open(await other.create(), { 'x-forwarded-for': '203.0.113.3' })).status).to.equal(200);
  });

  it('caps the streams of the whole instance', async () => {
    const { open, partner } = await serverWith({ STREAM_MAX_PER_INSTANCE: '2' });
    const swaps = [await (await partner('One')).create(), await (await partner('Two')).create(), await (await partner('Three')).create()];
    expect((await open(swaps[0], { 'x-forwarded-for': '203.0.113.1' })).status).to.equal(200);
    expect((await open(swaps[1], { 'x-forwarded-for': '203.0.113.2' })).status).to.equal(200);
    expectRefused(await open(swaps[2], { 'x-forwarded-for': '203.0.113.3' }), 'instance', 2);
  });

  it('ends a stream after its maximum lifetime with event: reconnect, frees its place, and the client resumes after its last entry', async () => {
    // One stream per token: the resumed stream is admitted only if the ended one gave its place back.
    const { server, open, partner } = await serverWith({ STREAM_MAX_LIFETIME_SECONDS: '1', STREAM_MAX_PER_TOKEN: '1' });
    const client = await partner('Lifetime');
    const swap = await client.create();
    const first = await open(swap);
    // From the first event: the lifetime runs from just before it, so this leaves out the time to open the stream.
    const firstEventAt = Date.now();
    expectRefused(await open(swap), 'token', 1);
    const ended = await Promise.race([first.ended.then(() => true), new Promise((resolve) => setTimeout(resolve, 10_000, false))]);
    expect(ended, 'the server ended the stream within 10 s').to.equal(true);
    const lived = Date.now() - firstEventAt;
    // 0.9 s to 1 s after the stream started; the upper bound leaves a loaded machine seconds of slack.
    expect(lived, 'ms from the first event to the end').to.be.within(500, 5_000);
    expect(first.raw).to.match(/\n\nevent: reconnect\ndata: \{"reason":"lifetime"\}\n\n$/);
    const reconnect = first.messages[first.messages.length - 1];
    expect(reconnect).to.deep.include({ event: 'reconnect' });
    expect(reconnect.id ?? undefined, 'the reconnect event leaves Last-Event-ID alone').to.equal(undefined);
    expect(JSON.parse(reconnect.data)).to.deep.equal({ reason: 'lifetime' });
    const seen = first.messages.filter((m) => m.event === 'status');
    expect(seen.map(statusOf)).to.deep.equal(['waiting']);
    expect((await client.get(swap.order.id)).order.terminal).to.equal(false);
    // The place is free again at once, and the resumed stream starts after the last entry the first one sent.
    await client.send('POST', `/api/v1/sandbox/swaps/${swap.order.id}/clock`, { deadline: 'deposit' });
    const resumed = await open(swap, { 'last-event-id': seen[seen.length - 1].id! });
    expect(resumed.status, resumed.raw).to.equal(200);
    await resumed.waitFor((m) => m.event === 'status');
    expect(resumed.messages.filter((m) => m.event === 'status').map(statusOf)[0]).to.equal('overdue');
    expect(server.engine.hub.size()).to.equal(1);
  });

  it("frees a stream's place when the server ends it after the swap's terminal entry", async () => {
    const { open, partner } = await serverWith({ STREAM_MAX_PER_TOKEN: '1' });
    const client = await partner('Terminal');
    const swap = await client.create();
    const first = await open(swap);
    expect(first.status).to.equal(200);
    expectRefused(await open(swap), 'token', 1);
    await client.pay(swap.order);
    await first.ended;
    const statuses = first.messages.filter((m) => m.event === 'status').map(statusOf);
    expect(statuses[statuses.length - 1]).to.equal('finished');
    // The server ended it, so it released the place before closing: the next stream is admitted at once.
    const late = await open(swap);
    expect(late.status, late.raw).to.equal(200);
    await late.ended;
    expect(
      late.messages
        .filter((m) => m.event === 'status')
        .map(statusOf)
        .pop(),
    ).to.equal('finished');
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
