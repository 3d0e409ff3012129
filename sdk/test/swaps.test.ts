import { expect } from 'chai';
import { isAddressDenied, PartnerApiError, WaitTimeoutError, type QuoteRequest, type SwapDetail, type SwapRequest } from '../src/index.js';
import { apiError, eventOf, fakeApi, json, sentTo, swapOf, type FakeApi } from './support/fake-api.js';

const QUOTE = {
  sourceAsset: 'BTC',
  sourceNetwork: 'BTC',
  destinationAsset: 'USDT',
  destinationNetwork: 'ETH',
  sourceAmount: '0.015',
  refundMode: 'sender',
} satisfies QuoteRequest;
const SWAP_REQUEST: SwapRequest = {
  ...QUOTE,
  quoteId: 'q_01HZX3',
  rateType: 'floating',
  destinationAddress: '0x71C7656EC7ab88b098defB751B7401B5f6d8976F',
};
const SWAP = swapOf();
const CREATED = { order: SWAP, accessToken: 'sat_3Jd9sPq2VwXy7RtLm4Nb6Hc1' };
const DETAIL: SwapDetail = { order: SWAP, events: [eventOf('ev_1', 'waiting')] };
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

const keysSent = (api: FakeApi) => sentTo(api, 'POST', '/swaps').map((r) => r.headers.get('idempotency-key'));

describe('sdk swaps, quotes and sandbox', () => {
  describe('.quotes.create(body)', () => {
    it('sends the quote request signed and returns the executable quote', async () => {
      const quote = {
        id: 'q_01HZX3',
        sourceAmount: '0.015',
        depositAmount: '0.015',
        receiveAmount: '950.12',
        rate: '63341.33',
        expiresAt: '2026-06-14T10:05:00.000Z',
        rateType: 'floating',
      } as const;
      const api = fakeApi().on('POST', '/quotes', () => json(200, { quote }));
      const { data, error, response } = await api.client().quotes.create(QUOTE);
      expect(error).to.equal(undefined);
      expect(response.status).to.equal(200);
      expect(data?.quote).to.deep.equal(quote);
      expect(api.sent[0].signed).to.equal(true);
      expect(JSON.parse(api.sent[0].body)).to.deep.equal(QUOTE);
    });

    it('returns amount_below_minimum as a value with its details', async () => {
      const api = fakeApi().on('POST', '/quotes', () =>
        json(409, { error: { code: 'amount_below_minimum', message: 'Below the minimum.', details: { minimumSourceAmount: '0.001' } } }),
      );
      const { data, error } = await api.client().quotes.create({ ...QUOTE, sourceAmount: '0.00000001' });
      expect(data).to.equal(undefined);
      expect(error).to.be.instanceOf(PartnerApiError);
      expect(error).to.include({ status: 409, code: 'amount_below_minimum' });
      expect(error?.details).to.deep.equal({ minimumSourceAmount: '0.001' });
    });
  });

  describe('isAddressDenied(error)', () => {
    it('narrows the 403 address_denied of a screened refund address, with its typed details', async () => {
      const details = { field: 'refundAddress', role: 'refund', network: 'BTC' };
      const api = fakeApi().on('POST', '/quotes', () =>
        json(403, {
          error: {
            code: 'address_denied',
            message: 'refundAddress cannot be used: address screening does not allow this BTC address.',
            details,
          },
        }),
      );
      const { error } = await api.client().quotes.create(QUOTE);
      expect(isAddressDenied(error)).to.equal(true);
      if (isAddressDenied(error)) expect(error.details).to.deep.equal(details);
    });

    it("is false for another 403 and for an error that is not the API's", async () => {
      const api = fakeApi().on('POST', '/quotes', () => json(403, { error: { code: 'ownership_not_verified', message: 'No.' } }));
      expect(isAddressDenied((await api.client().quotes.create(QUOTE)).error)).to.equal(false);
      expect(isAddressDenied(new Error('address_denied'))).to.equal(false);
    });
  });

  describe('.swaps.create(body, options)', () => {
    it('creates a swap with a generated Idempotency-Key and returns the key with the access token', async () => {
      const api = fakeApi().on('POST', '/swaps', () => json(202, CREATED));
      const { data, error, response, idempotencyKey } = await api.client().swaps.create(SWAP_REQUEST);
      expect(error).to.equal(undefined);
      expect(response.status).to.equal(202);
      expect(data).to.deep.equal(CREATED);
      expect(idempotencyKey).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(keysSent(api)).to.deep.equal([idempotencyKey]);
      expect(api.sent[0].signed).to.equal(true);
      expect(JSON.parse(api.sent[0].body)).to.deep.equal(SWAP_REQUEST);
    });

    it('generates a new key for each swap', async () => {
      const api = fakeApi().on('POST', '/swaps', () => json(202, CREATED));
      const client = api.client();
      const [one, two] = [await client.swaps.create(SWAP_REQUEST), await client.swaps.create(SWAP_REQUEST)];
      expect(one.idempotencyKey).not.to.equal(two.idempotencyKey);
    });

    it('retries a lost response with the same key and returns the replayed swap', async () => {
      const api = fakeApi().on(
        'POST',
        '/swaps',
        () => Promise.reject(new TypeError('fetch failed')),
        () => json(202, CREATED, { 'idempotent-replayed': 'true' }),
      );
      const { data, error, response, idempotencyKey } = await api.client().swaps.create(SWAP_REQUEST);
      expect(error).to.equal(undefined);
      expect(data?.order.id).to.equal(SWAP.id);
      expect(response.headers.get('idempotent-replayed')).to.equal('true');
      expect(keysSent(api)).to.deep.equal([idempotencyKey, idempotencyKey]);
      // Each attempt is signed afresh over the same body.
      const attempts = sentTo(api, 'POST', '/swaps');
      expect(attempts.every((r) => r.signed && r.body === attempts[0].body)).to.equal(true);
      expect(attempts[0].headers.get('x-service-nonce')).not.to.equal(attempts[1].headers.get('x-service-nonce'));
    });

    it('waits out a 503 with Retry-After (an identical request in progress) and retries with the same key', async () => {
      const api = fakeApi().on(
        'POST',
        '/swaps',
        () => apiError(503, 'service_unavailable', 'An identical request is still in progress.', { 'retry-after': '1' }),
        () => json(202, CREATED),
      );
      const waits: number[] = [];
      const { error, response, idempotencyKey } = await api.client({ sleep: async (ms) => void waits.push(ms) }).swaps.create(SWAP_REQUEST);
      expect(error).to.equal(undefined);
      expect(response.status).to.equal(202);
      expect(waits).to.deep.equal([1000]);
      expect(keysSent(api)).to.deep.equal([idempotencyKey, idempotencyKey]);
    });

    it("sends the caller's own key", async () => {
      const api = fakeApi().on('POST', '/swaps', () => json(202, CREATED));
      const { idempotencyKey } = await api.client().swaps.create(SWAP_REQUEST, { idempotencyKey: 'order-4711' });
      expect(idempotencyKey).to.equal('order-4711');
      expect(keysSent(api)).to.deep.equal(['order-4711']);
    });

    it('returns quote_mismatch as a value, with the key', async () => {
      const api = fakeApi().on('POST', '/swaps', () => apiError(400, 'quote_mismatch', 'The amount differs from the quote.'));
      const { data, error, idempotencyKey } = await api.client().swaps.create({ ...SWAP_REQUEST, sourceAmount: '0.02' });
      expect(data).to.equal(undefined);
      expect(error).to.include({ status: 400, code: 'quote_mismatch' });
      expect(idempotencyKey).to.be.a('string').that.equals(keysSent(api)[0]);
    });

    it('refuses a malformed Idempotency-Key before sending anything', async () => {
      const api = fakeApi().on('POST', '/swaps', () => json(202, CREATED));
      let thrown: unknown;
      try {
        await api.client().swaps.create(SWAP_REQUEST, { idempotencyKey: 'has spaces' });
      } catch (err) {
        thrown = err;
      }
      expect(thrown).to.be.instanceOf(TypeError);
      expect(api.sent).to.have.length(0);
    });

    it('attaches the key to the network error it throws once the retries are exhausted', async () => {
      const api = fakeApi().on('POST', '/swaps', () => Promise.reject(new TypeError('fetch failed')));
      let thrown: unknown;
      try {
        await api.client({ retry: { maxRetries: 1 } }).swaps.create(SWAP_REQUEST, { idempotencyKey: 'order-lost' });
      } catch (err) {
        thrown = err;
      }
      expect(thrown).to.be.instanceOf(TypeError);
      expect((thrown as { idempotencyKey?: string }).idempotencyKey).to.equal('order-lost');
      expect(api.sent).to.have.length(2);
    });
  });

  describe('.swaps.get(id, options)', () => {
    it('reads the swap and its timeline with a signed request', async () => {
      const api = fakeApi().on('GET', '/swaps/{id}', () => json(200, DETAIL));
      const { data, error } = await api.client().swaps.get(SWAP.id);
      expect(error).to.equal(undefined);
      expect(data).to.deep.equal(DETAIL);
      expect(api.sent[0]).to.include({ path: `/swaps/${SWAP.id}`, signed: true });
    });

    it('reads with the access token alone: a bearer header and no signed header', async () => {
      const api = fakeApi().on('GET', '/swaps/{id}', () => json(200, DETAIL));
      const { data, error } = await api.client().swaps.get(SWAP.id, { accessToken: CREATED.accessToken });
      expect(error).to.equal(undefined);
      expect(data?.order.id).to.equal(SWAP.id);
      expect(api.sent).to.have.length(1);
      expect(api.sent[0].headers.get('authorization')).to.equal(`Bearer ${CREATED.accessToken}`);
      expect([...api.sent[0].headers.keys()].filter((name) => name.startsWith('x-service-'))).to.deep.equal([]);
    });

    it('retries a token read after a 503, still unsigned', async () => {
      const api = fakeApi().on(
        'GET',
        '/swaps/{id}',
        () => apiError(503, 'service_unavailable', 'try later'),
        () => json(200, DETAIL),
      );
      const { error } = await api.client().swaps.get(SWAP.id, { accessToken: CREATED.accessToken });
      expect(error).to.equal(undefined);
      expect(api.sent.map((r) => r.headers.has('x-service-signature'))).to.deep.equal([false, false]);
    });

    it('answers invalid_token and not_found as values', async () => {
      const api = fakeApi().on('GET', '/swaps/{id}', (request) =>
        request.headers.has('authorization')
          ? apiError(401, 'invalid_token', 'The access token is wrong.')
          : apiError(404, 'not_found', 'No such swap.'),
      );
      const client = api.client();
      expect((await client.swaps.get(SWAP.id, { accessToken: 'sat_other' })).error).to.include({ status: 401, code: 'invalid_token' });
      expect((await client.swaps.get(UNKNOWN_ID)).error).to.include({ status: 404, code: 'not_found' });
    });

    it('throws a TypeError for an empty access token', async () => {
      let thrown: unknown;
      try {
        await fakeApi().client().swaps.get(SWAP.id, { accessToken: '' });
      } catch (err) {
        thrown = err;
      }
      expect(thrown).to.be.instanceOf(TypeError);
    });
  });

  describe('.swaps.waitForDepositAddress(id, options)', () => {
    const pending = { ...DETAIL, order: { ...SWAP, depositAddress: null } };

    it('polls every intervalMs until the service allocated the deposit address', async () => {
      const api = fakeApi().on(
        'GET',
        '/swaps/{id}',
        () => json(200, pending),
        () => json(200, pending),
        () => json(200, DETAIL),
      );
      const waits: number[] = [];
      const client = api.client({ sleep: async (ms) => void waits.push(ms) });
      const { data, error } = await client.swaps.waitForDepositAddress(SWAP.id, { intervalMs: 100, timeoutMs: 10_000 });
      expect(error).to.equal(undefined);
      expect(data?.order.depositAddress).to.equal(SWAP.depositAddress);
      expect(waits).to.deep.equal([100, 100]);
      expect(api.sent).to.have.length(3);
    });

    it('waits with the access token too', async () => {
      const api = fakeApi().on(
        'GET',
        '/swaps/{id}',
        () => json(200, pending),
        () => json(200, DETAIL),
      );
      const { data } = await api.client().swaps.waitForDepositAddress(SWAP.id, { accessToken: CREATED.accessToken, intervalMs: 100 });
      expect(data?.order.depositAddress).to.be.a('string');
      expect(api.sent.map((r) => r.headers.get('authorization'))).to.deep.equal([
        `Bearer ${CREATED.accessToken}`,
        `Bearer ${CREATED.accessToken}`,
      ]);
      expect(api.sent.some((r) => r.headers.has('x-service-signature'))).to.equal(false);
    });

    it('returns the API error as the result when the swap does not exist', async () => {
      const api = fakeApi().on('GET', '/swaps/{id}', () => apiError(404, 'not_found', 'No such swap.'));
      const { error } = await api.client().swaps.waitForDepositAddress(UNKNOWN_ID, { intervalMs: 100 });
      expect(error).to.be.instanceOf(PartnerApiError);
      expect(error).to.include({ status: 404, code: 'not_found' });
      expect(api.sent).to.have.length(1);
    });

    it('returns a WaitTimeoutError value with the last response when the address never arrives', async () => {
      const api = fakeApi().on('GET', '/swaps/{id}', () => json(200, pending));
      let clock = 1_000_000;
      const waits: number[] = [];
      const client = api.client({
        now: () => clock,
        sleep: async (ms) => {
          waits.push(ms);
          clock += ms;
        },
      });
      const { data, error, response } = await client.swaps.waitForDepositAddress(SWAP.id, { intervalMs: 100, timeoutMs: 250 });
      expect(data).to.equal(undefined);
      expect(error).to.be.instanceOf(WaitTimeoutError);
      expect(error).to.include({ code: 'wait_timeout', timeoutMs: 250 });
      expect(error?.message).to.match(/no deposit address after 250 ms \(status waiting\)/);
      expect(response.status).to.equal(200);
      // The last wait is cut to the time left, so the helper never overshoots its timeout.
      expect(waits).to.deep.equal([100, 100, 50]);
    });

    it('refuses a negative timeout or a zero interval', async () => {
      const client = fakeApi().client();
      for (const options of [{ timeoutMs: -1 }, { intervalMs: 0 }]) {
        let thrown: unknown;
        try {
          await client.swaps.waitForDepositAddress(SWAP.id, options);
        } catch (err) {
          thrown = err;
        }
        expect(thrown).to.be.instanceOf(TypeError);
      }
    });
  });

  describe('.swaps.list(query) and .swaps.listAll(filter)', () => {
    const page = (ids: string[], nextCursor: string | null) => ({ orders: ids.map((id) => swapOf({ id })), nextCursor });
    const ID = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;

    it('walks every page two at a time, following nextCursor until it is null', async () => {
      const api = fakeApi().on(
        'GET',
        '/swaps',
        () => json(200, page([ID(5), ID(4)], 'c2')),
        () => json(200, page([ID(3), ID(2)], 'c3')),
        () => json(200, page([ID(1)], null)),
      );
      const pages: string[][] = [];
      for await (const { data, error } of api.client().swaps.listAll({ limit: 2 })) {
        expect(error).to.equal(undefined);
        pages.push(data!.orders.map((o) => o.id));
      }
      expect(pages).to.deep.equal([[ID(5), ID(4)], [ID(3), ID(2)], [ID(1)]]);
      expect(api.sent.map((r) => r.query.toString())).to.deep.equal(['limit=2', 'limit=2&cursor=c2', 'limit=2&cursor=c3']);
      expect(api.sent.every((r) => r.signed)).to.equal(true);
    });

    it('returns one page, sending limit, status and cursor as the query', async () => {
      const api = fakeApi().on('GET', '/swaps', () => json(200, page([ID(1)], null)));
      const { data } = await api.client().swaps.list({ limit: 2, status: 'finished', cursor: 'c2' });
      expect(data?.nextCursor).to.equal(null);
      expect(Object.fromEntries(api.sent[0].query)).to.deep.equal({ limit: '2', status: 'finished', cursor: 'c2' });
    });

    it('returns invalid_request as a value for a cursor the API did not issue', async () => {
      const api = fakeApi().on('GET', '/swaps', () => apiError(400, 'invalid_request', 'cursor is not valid'));
      const { error } = await api.client().swaps.list({ cursor: 'not-a-cursor' });
      expect(error).to.include({ status: 400, code: 'invalid_request' });
    });

    it('yields the error page and stops when the API refuses the query', async () => {
      const api = fakeApi().on('GET', '/swaps', () => apiError(400, 'invalid_request', 'limit must be >= 1'));
      const pages = [];
      for await (const p of api.client().swaps.listAll({ limit: 0 })) pages.push(p);
      expect(pages).to.have.length(1);
      expect(pages[0].error).to.include({ status: 400 });
      expect(api.sent).to.have.length(1);
    });
  });

  describe('.sandbox', () => {
    const ORDER = { order: SWAP };

    it('pays a deposit address with POST /sandbox/deposits', async () => {
      const deposit = { network: 'BTC', asset: 'BTC', address: SWAP.depositAddress!, amount: '0.015', txHash: 'ab'.repeat(32) };
      const api = fakeApi().on('POST', '/sandbox/deposits', () => json(202, deposit));
      const body = { address: SWAP.depositAddress!, asset: 'BTC', network: 'BTC', amount: '0.015' };
      const { data, error, response } = await api.client().sandbox.deposit(body);
      expect(error).to.equal(undefined);
      expect(response.status).to.equal(202);
      expect(data?.txHash).to.equal(deposit.txHash);
      expect(api.sent[0].signed).to.equal(true);
      expect(JSON.parse(api.sent[0].body)).to.deep.equal(body);
    });

    it('injects a failure, advances the clock and decides a review, each on its path with its body', async () => {
      const api = fakeApi()
        .on('POST', '/sandbox/swaps/{id}/failures', () => json(200, ORDER))
        .on('POST', '/sandbox/swaps/{id}/clock', () => json(200, ORDER))
        .on('POST', '/sandbox/swaps/{id}/review-decision', () => json(200, ORDER));
      const { sandbox } = api.client();
      expect((await sandbox.injectFailure(SWAP.id, 'exchange')).data).to.deep.equal(ORDER);
      expect((await sandbox.advanceClock(SWAP.id, 'expiry')).data).to.deep.equal(ORDER);
      expect((await sandbox.decideReview(SWAP.id, 'approve')).data).to.deep.equal(ORDER);
      expect(api.sent.map((r) => [r.path, JSON.parse(r.body)])).to.deep.equal([
        [`/sandbox/swaps/${SWAP.id}/failures`, { stage: 'exchange' }],
        [`/sandbox/swaps/${SWAP.id}/clock`, { deadline: 'expiry' }],
        [`/sandbox/swaps/${SWAP.id}/review-decision`, { decision: 'approve' }],
      ]);
    });

    it('reorganizes a simulated chain with POST /sandbox/networks/{network}/reorganizations', async () => {
      const answer = { network: 'LTC', removedBlocks: 1, tip: { height: 100, hash: 'cd'.repeat(32) }, removedTransactions: [] };
      const api = fakeApi().on('POST', '/sandbox/networks/{network}/reorganizations', () => json(200, answer));
      expect((await api.client().sandbox.reorganize('LTC', 1)).data).to.deep.equal(answer);
      expect(api.sent[0]).to.include({ path: '/sandbox/networks/LTC/reorganizations', body: '{"blocks":1}' });
    });

    it('returns invalid_state as a value for a review decision on a swap not in review', async () => {
      const api = fakeApi().on('POST', '/sandbox/swaps/{id}/review-decision', () =>
        apiError(409, 'invalid_state', 'The swap is not in review.'),
      );
      const { data, error } = await api.client().sandbox.decideReview(SWAP.id, 'approve');
      expect(data).to.equal(undefined);
      expect(error).to.include({ status: 409, code: 'invalid_state' });
    });
  });
});
