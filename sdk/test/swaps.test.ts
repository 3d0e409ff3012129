import { expect } from 'chai';
import {
  PartnerApiError,
  WaitTimeoutError,
  type PartnerClient,
  type PartnerClientOptions,
  type QuoteRequest,
  type SwapCreated,
  type SwapDetail,
  type SwapRequest,
} from '../src/index.js';
import { startTestServer, type TestServer } from '../../test/support/server.js';
import { partnerClient } from './support/partner-client.js';

const QUOTE: QuoteRequest = {
  sourceAsset: 'BTC',
  sourceNetwork: 'BTC',
  destinationAsset: 'USDT',
  destinationNetwork: 'ETH',
  sourceAmount: '0.015',
  refundMode: 'sender',
};
const DESTINATION = '0x71C7656EC7ab88b098defB751B7401B5f6d8976F';
const POLL_MS = 100;

/** A fetch that records every request it sends (clones, so their headers and bodies stay readable). */
function recording(send: (request: Request) => Promise<Response> = (request) => fetch(request)) {
  const sent: Request[] = [];
  return {
    sent,
    fetch: async (request: Request) => {
      sent.push(request.clone());
      return send(request);
    },
  };
}

const isCreateSwap = (request: Request) => request.method === 'POST' && new URL(request.url).pathname.endsWith('/swaps');

describe('sdk swaps, quotes and sandbox against the real server', function () {
  this.timeout(60_000);
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  // Every test acts as a partner of its own, so swaps and lists never leak from one test into another.
  const newClient = (extra: Partial<PartnerClientOptions> = {}) => partnerClient(server, extra);

  async function swapRequest(client: PartnerClient, quote: QuoteRequest = QUOTE): Promise<SwapRequest> {
    const { data, error } = await client.quotes.create(quote);
    if (error) throw error;
    return { ...quote, quoteId: data.quote.id, rateType: data.quote.rateType, destinationAddress: DESTINATION };
  }

  async function createSwap(client: PartnerClient, quote: QuoteRequest = QUOTE): Promise<SwapCreated> {
    const { data, error } = await client.swaps.create(await swapRequest(client, quote));
    if (error) throw error;
    return data;
  }

  async function depositAddressOf(client: PartnerClient, id: string): Promise<string> {
    const { data, error } = await client.swaps.waitForDepositAddress(id, { intervalMs: POLL_MS, timeoutMs: 10_000 });
    if (error) throw error;
    return data.order.depositAddress!;
  }

  async function untilTerminal(client: PartnerClient, id: string, timeoutMs = 30_000): Promise<SwapDetail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { data, error } = await client.swaps.get(id);
      if (error) throw error;
      if (data.order.terminal) return data;
      if (Date.now() > deadline) throw new Error(`swap ${id} still ${data.order.status} after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  describe('.quotes.create(body)', () => {
    it('returns an executable quote with the rate type it applies', async () => {
      const client = await newClient();
      const { data, error, response } = await client.quotes.create(QUOTE);
      expect(error).to.equal(undefined);
      expect(response.status).to.equal(200);
      expect(data?.quote.sourceAmount).to.equal('0.015');
      expect(data?.quote.rateType).to.be.oneOf(['fixed', 'floating']);
    });

    it('returns amount_below_minimum as a value for a dust amount', async () => {
      const client = await newClient();
      const { data, error } = await client.quotes.create({ ...QUOTE, sourceAmount: '0.00000001' });
      expect(data).to.equal(undefined);
      expect(error).to.be.instanceOf(PartnerApiError);
      expect(error).to.include({ status: 409, code: 'amount_below_minimum' });
    });
  });

  describe('.swaps.create(body, options)', () => {
    it('creates a swap from a quote and returns its access token and the Idempotency-Key it generated', async () => {
      const { sent, fetch } = recording();
      const client = await newClient({ fetch });
      const body = await swapRequest(client);
      const { data, error, response, idempotencyKey } = await client.swaps.create(body);
      expect(error).to.equal(undefined);
      expect(response.status).to.equal(202);
      expect(data?.order).to.include({ status: 'waiting', sourceAmount: '0.015', destination: DESTINATION });
      expect(data?.accessToken).to.match(/^sat_/);
      expect(idempotencyKey).to.match(/^[0-9a-f-]{36}$/);
      expect(sent.filter(isCreateSwap).map((r) => r.headers.get('idempotency-key'))).to.deep.equal([idempotencyKey]);
    });

    it('retries a lost response with the same generated key, so exactly one swap exists', async () => {
      let lost = false;
      const { sent, fetch: losing } = recording(async (request) => {
        const response = await fetch(request);
        // The server created the swap; the answer never reaches the caller.
        if (isCreateSwap(request) && !lost) {
          lost = true;
          await response.body?.cancel();
          throw new TypeError('fetch failed');
        }
        return response;
      });
      const client = await newClient({ fetch: losing, retry: { baseDelayMs: 1 } });
      const { data, error, response, idempotencyKey } = await client.swaps.create(await swapRequest(client));
      expect(error).to.equal(undefined);
      expect(response.headers.get('idempotent-replayed')).to.equal('true');
      const attempts = sent.filter(isCreateSwap);
      expect(attempts.map((r) => r.headers.get('idempotency-key'))).to.deep.equal([idempotencyKey, idempotencyKey]);
      const listed = await client.swaps.list();
      expect(listed.data?.orders.map((o) => o.id)).to.deep.equal([data?.order.id]);
    });

    it('waits out a 503 with Retry-After (an identical request in progress) and retries with the same key', async () => {
      let busy = true;
      const { sent, fetch: busyOnce } = recording(async (request) => {
        if (isCreateSwap(request) && busy) {
          busy = false;
          const body = { error: { code: 'service_unavailable', message: 'An identical request is still in progress.' } };
          return new Response(JSON.stringify(body), { status: 503, headers: { 'content-type': 'application/json', 'retry-after': '1' } });
        }
        return fetch(request);
      });
      const waits: number[] = [];
      const client = await newClient({ fetch: busyOnce, sleep: async (ms) => void waits.push(ms) });
      const { error, response, idempotencyKey } = await client.swaps.create(await swapRequest(client));
      expect(error).to.equal(undefined);
      expect(response.status).to.equal(202);
      expect(waits).to.deep.equal([1000]);
      expect(sent.filter(isCreateSwap).map((r) => r.headers.get('idempotency-key'))).to.deep.equal([idempotencyKey, idempotencyKey]);
    });

    it("sends the caller's own key and replays the same swap when that key and body arrive again", async () => {
      const { sent, fetch } = recording();
      const client = await newClient({ fetch });
      const body = await swapRequest(client);
      const first = await client.swaps.create(body, { idempotencyKey: 'order-4711' });
      const again = await client.swaps.create(body, { idempotencyKey: 'order-4711' });
      expect(first.idempotencyKey).to.equal('order-4711');
      expect(sent.filter(isCreateSwap).map((r) => r.headers.get('idempotency-key'))).to.deep.equal(['order-4711', 'order-4711']);
      expect(again.data?.order.id).to.equal(first.data?.order.id);
      expect(again.data?.accessToken).to.equal(first.data?.accessToken);
      expect(again.response.headers.get('idempotent-replayed')).to.equal('true');
    });

    it('returns quote_mismatch as a value, with the key, when the amount differs from the quote', async () => {
      const client = await newClient();
      const body = await swapRequest(client);
      const { data, error, idempotencyKey } = await client.swaps.create({ ...body, sourceAmount: '0.02' });
      expect(data).to.equal(undefined);
      expect(error).to.include({ status: 400, code: 'quote_mismatch' });
      expect(idempotencyKey).to.be.a('string');
    });

    it('refuses a malformed Idempotency-Key before sending anything', async () => {
      const { sent, fetch } = recording();
      const client = await newClient({ fetch });
      const body = await swapRequest(client);
      let thrown: unknown;
      try {
        await client.swaps.create(body, { idempotencyKey: 'has spaces' });
      } catch (err) {
        thrown = err;
      }
      expect(thrown).to.be.instanceOf(TypeError);
      expect(sent.filter(isCreateSwap)).to.have.length(0);
    });

    it('attaches the key to the network error it throws once the retries are exhausted', async () => {
      const client = await newClient({
        fetch: async (request) => (isCreateSwap(request) ? Promise.reject(new TypeError('fetch failed')) : fetch(request)),
        retry: { maxRetries: 1, baseDelayMs: 1 },
      });
      const body = await swapRequest(client);
      let thrown: unknown;
      try {
        await client.swaps.create(body, { idempotencyKey: 'order-lost' });
      } catch (err) {
        thrown = err;
      }
      expect(thrown).to.be.instanceOf(TypeError);
      expect((thrown as { idempotencyKey?: string }).idempotencyKey).to.equal('order-lost');
    });
  });

  describe('.swaps.get(id, options)', () => {
    it('reads the swap and its timeline with a signed request', async () => {
      const client = await newClient();
      const created = await createSwap(client);
      await depositAddressOf(client, created.order.id); // the timeline starts when the address is allocated
      const { data, error } = await client.swaps.get(created.order.id);
      expect(error).to.equal(undefined);
      expect(data?.order.id).to.equal(created.order.id);
      expect(data?.events.map((e) => e.status)).to.include('waiting');
    });

    it('reads with the access token alone: a bearer header and no signed header', async () => {
      const { sent, fetch } = recording();
      const client = await newClient({ fetch });
      const created = await createSwap(client);
      sent.length = 0;
      const { data, error } = await client.swaps.get(created.order.id, { accessToken: created.accessToken });
      expect(error).to.equal(undefined);
      expect(data?.order.id).to.equal(created.order.id);
      expect(sent).to.have.length(1);
      expect(sent[0].headers.get('authorization')).to.equal(`Bearer ${created.accessToken}`);
      expect([...sent[0].headers.keys()].filter((name) => name.startsWith('x-service-'))).to.deep.equal([]);
    });

    it("answers invalid_token as a value for another swap's token", async () => {
      const client = await newClient();
      const [one, other] = [await createSwap(client), await createSwap(client)];
      const { error } = await client.swaps.get(one.order.id, { accessToken: other.accessToken });
      expect(error).to.include({ status: 401, code: 'invalid_token' });
    });

    it('answers not_found as a value for a swap of another partner', async () => {
      const owner = await newClient();
      const created = await createSwap(owner);
      const { error } = await (await newClient()).swaps.get(created.order.id);
      expect(error).to.include({ status: 404, code: 'not_found' });
    });
  });

  describe('.swaps.waitForDepositAddress(id, options)', () => {
    it('resolves with the deposit address the service allocated after creation', async () => {
      const client = await newClient();
      const created = await createSwap(client);
      const { data, error } = await client.swaps.waitForDepositAddress(created.order.id, { intervalMs: POLL_MS, timeoutMs: 10_000 });
      expect(error).to.equal(undefined);
      expect(data?.order.depositAddress).to.be.a('string').and.have.length.greaterThan(0);
      expect(data?.order.status).to.equal('waiting');
    });

    it('waits with the access token too', async () => {
      const client = await newClient();
      const created = await createSwap(client);
      const { data } = await client.swaps.waitForDepositAddress(created.order.id, {
        accessToken: created.accessToken,
        intervalMs: POLL_MS,
      });
      expect(data?.order.depositAddress).to.be.a('string');
    });

    it('returns the API error as the result when the swap does not exist', async () => {
      const client = await newClient();
      const { error } = await client.swaps.waitForDepositAddress('00000000-0000-4000-8000-000000000000', { intervalMs: POLL_MS });
      expect(error).to.be.instanceOf(PartnerApiError);
      expect(error).to.include({ status: 404, code: 'not_found' });
    });

    it('returns a WaitTimeoutError value with the last response when the address never arrives', async () => {
      // Every read answers as if the address were still being allocated.
      const hideAddress = async (request: Request) => {
        const response = await fetch(request);
        if (request.method !== 'GET' || !response.ok) return response;
        const body = (await response.json()) as SwapDetail;
        return Response.json({ ...body, order: { ...body.order, depositAddress: null } }, { status: response.status });
      };
      const client = await newClient({ fetch: hideAddress });
      const created = await createSwap(client);
      const started = Date.now();
      const { data, error, response } = await client.swaps.waitForDepositAddress(created.order.id, { intervalMs: POLL_MS, timeoutMs: 300 });
      expect(Date.now() - started).to.be.within(250, 5_000);
      expect(data).to.equal(undefined);
      expect(error).to.be.instanceOf(WaitTimeoutError);
      expect(error).to.include({ code: 'wait_timeout', timeoutMs: 300 });
      expect(error?.message).to.match(/no deposit address after 300 ms \(status waiting\)/);
      expect(response.status).to.equal(200);
    });
  });

  describe('.swaps.list(query) and .swaps.listAll(filter)', () => {
    it('walks every page of five swaps two at a time, newest first, until nextCursor is null', async () => {
      const client = await newClient();
      const created: string[] = [];
      for (let i = 0; i < 5; i++) created.push((await createSwap(client)).order.id);

      const pages: string[][] = [];
      for await (const { data, error } of client.swaps.listAll({ limit: 2 })) {
        expect(error).to.equal(undefined);
        pages.push(data!.orders.map((o) => o.id));
      }
      expect(pages.map((page) => page.length)).to.deep.equal([2, 2, 1]);
      expect(pages.flat()).to.deep.equal([...created].reverse());
    });

    it('returns one page and the cursor of the next', async () => {
      const client = await newClient();
      for (let i = 0; i < 3; i++) await createSwap(client);
      const first = await client.swaps.list({ limit: 2 });
      expect(first.data?.orders).to.have.length(2);
      const second = await client.swaps.list({ limit: 2, cursor: first.data!.nextCursor! });
      expect(second.data?.orders).to.have.length(1);
      expect(second.data?.nextCursor).to.equal(null);
    });

    it('lists only swaps in the given status', async () => {
      const client = await newClient();
      await createSwap(client);
      const pages = [];
      for await (const page of client.swaps.listAll({ status: 'finished' })) pages.push(page);
      expect(pages.map((p) => p.data?.orders.length)).to.deep.equal([0]);
    });

    it('returns invalid_request as a value for a cursor the API did not issue', async () => {
      const client = await newClient();
      const { error } = await client.swaps.list({ cursor: 'not-a-cursor' });
      expect(error).to.include({ status: 400, code: 'invalid_request' });
    });

    it('yields the error page and stops when the API refuses the query', async () => {
      const client = await newClient();
      const pages = [];
      for await (const page of client.swaps.listAll({ limit: 0 })) pages.push(page);
      expect(pages).to.have.length(1);
      expect(pages[0].error).to.include({ status: 400 });
    });
  });

  describe('.sandbox', () => {
    it('drives a swap to finished when the exact amount is deposited', async () => {
      const client = await newClient();
      const created = await createSwap(client);
      const address = await depositAddressOf(client, created.order.id);
      const deposit = await client.sandbox.deposit({ address, asset: 'BTC', network: 'BTC', amount: created.order.depositAmount! });
      expect(deposit.error).to.equal(undefined);
      expect(deposit.response.status).to.equal(202);

      const { order, events } = await untilTerminal(client, created.order.id);
      expect(order).to.include({ status: 'finished', reasonCode: 'completed', sourceTxHash: deposit.data?.txHash });
      expect(order.settlementTxHash).to.be.a('string');
      expect(events.map((e) => e.status)).to.include.members(['waiting', 'confirming', 'exchanging', 'sending', 'finished']);
    });

    it('refunds the deposit when an exchange failure was injected', async () => {
      const client = await newClient();
      const created = await createSwap(client);
      const address = await depositAddressOf(client, created.order.id);
      const armed = await client.sandbox.injectFailure(created.order.id, 'exchange');
      expect(armed.data?.order.status).to.equal('waiting');
      await client.sandbox.deposit({ address, asset: 'BTC', network: 'BTC', amount: created.order.depositAmount! });
      const { order } = await untilTerminal(client, created.order.id);
      expect(order.status).to.equal('refunded');
      expect(order.refundTxHash).to.be.a('string');
    });

    it('moves a waiting swap to overdue, then expired, with the clock', async () => {
      const client = await newClient();
      const created = await createSwap(client);
      await depositAddressOf(client, created.order.id);
      const overdue = await client.sandbox.advanceClock(created.order.id, 'deposit');
      expect(overdue.data?.order.status).to.equal('overdue');
      const expired = await client.sandbox.advanceClock(created.order.id, 'expiry');
      expect(expired.data?.order).to.include({ status: 'expired', terminal: true });
    });

    it('finishes a swap held in review once the review is approved', async () => {
      const client = await newClient();
      // 0.5 BTC is above the automatic maximum in USD, so the confirmed deposit waits for an operator.
      const created = await createSwap(client, { ...QUOTE, sourceAmount: '0.5' });
      const address = await depositAddressOf(client, created.order.id);
      await client.sandbox.deposit({ address, asset: 'BTC', network: 'BTC', amount: '0.5' });
      const deadline = Date.now() + 30_000;
      while ((await client.swaps.get(created.order.id)).data?.order.status !== 'review') {
        if (Date.now() > deadline) throw new Error('the swap never reached review');
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
      const decided = await client.sandbox.decideReview(created.order.id, 'approve');
      expect(decided.error).to.equal(undefined);
      expect((await untilTerminal(client, created.order.id)).order.status).to.equal('finished');
    });

    it('returns invalid_state as a value for a review decision on a swap not in review', async () => {
      const client = await newClient();
      const created = await createSwap(client);
      const { data, error } = await client.sandbox.decideReview(created.order.id, 'approve');
      expect(data).to.equal(undefined);
      expect(error).to.include({ status: 409, code: 'invalid_state' });
    });
  });
});
