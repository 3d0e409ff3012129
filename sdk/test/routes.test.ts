import { expect } from 'chai';
import {
  PartnerApiError,
  type PermanentDepositList,
  type PermanentRoute,
  type PermanentRouteTarget,
  type SignChallenge,
} from '../src/index.js';
import { apiError, fakeApi, json, type FakeApi, type SentRequest } from './support/fake-api.js';

const ADDRESS = 'ZxDFpn4k7xVYyc9VZ3LphrJbkpc46xfREace5bme1aXiMzKPAHA8jsTWcHSXhv9AdodSaoGXK9Mg7bk3ec4FkQrj357fZPWZX';
const ZANO_TARGET: PermanentRouteTarget = {
  destinationAsset: 'ZANO',
  destinationNetwork: 'ZANO',
  destinationAddress: ADDRESS,
  label: 'Main wallet',
};
const PROOF = { publicKey: 'a1'.repeat(32), signature: 'b2'.repeat(64) };
const ROUTE_ID = '7c0e2d4a-1b3f-4e5d-8a9b-0c1d2e3f4a5b';
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

const routeOf = (overrides: Partial<PermanentRoute> = {}): PermanentRoute => ({
  route_id: ROUTE_ID,
  external_user_id: 'customer-1',
  destination_asset: 'ZANO',
  destination_network: 'ZANO',
  destination_address: ADDRESS,
  label: 'Main wallet',
  status: 'active',
  addresses: { 'USDT/TRX': 'TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE' },
  fee: { percent: 0.5, floor_usd: 1 },
  min_swap_usd: 25,
  max_auto_swap_usd: 10_000,
  accumulations: [],
  expect_deposit_until: null,
  created_at: '2026-06-14T10:00:00.000Z',
  updated_at: '2026-06-14T10:00:00.000Z',
  ...overrides,
});

/** Challenges numbered per call, as the service hands out a fresh single-use one each time. */
function challenges(api: FakeApi): FakeApi {
  let issued = 0;
  return api.on('POST', '/permanent-routes/challenges', (request: SentRequest) => {
    issued++;
    const target = JSON.parse(request.body) as PermanentRouteTarget;
    return json(201, {
      challenge_id: `ch_${issued}`,
      challenge: `Partner Swap Service route ownership\nAddress: ${target.destinationAddress}\nUser: ${request.headers.get('x-service-user')}\nNonce: ${issued}`,
      expires_at: '2026-06-14T10:10:00.000Z',
    });
  });
}

async function thrownBy(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('sdk routes', () => {
  describe('.createChallenge(target)', () => {
    it('sends the target signed and returns the text to sign, naming the address and the client user', async () => {
      const api = challenges(fakeApi());
      const { data, error, response } = await api.client({ userId: 'user-42' }).routes.createChallenge(ZANO_TARGET);
      expect(error).to.equal(undefined);
      expect(response.status).to.equal(201);
      expect(data?.challenge).to.contain(`Address: ${ADDRESS}`).and.contain('User: user-42');
      expect(api.sent[0].signed).to.equal(true);
      expect(JSON.parse(api.sent[0].body)).to.deep.equal(ZANO_TARGET);
    });
  });

  describe('.createVerified({ target, sign })', () => {
    it("signs the challenge text and creates the route with the proof and the client's user; each call gets a fresh challenge", async () => {
      const api = challenges(fakeApi()).on('POST', '/permanent-routes', () => json(201, routeOf({ external_user_id: 'user-42' })));
      const client = api.client({ userId: 'user-42' });
      const signed: string[] = [];
      const sign: SignChallenge = (text) => {
        signed.push(text);
        return PROOF; // a synchronous callback works too
      };
      const first = await client.routes.createVerified({ target: ZANO_TARGET, sign });
      expect(first.error, first.error?.message).to.equal(undefined);
      expect(first.response.status).to.equal(201);
      expect(first.data).to.include({ route_id: ROUTE_ID, external_user_id: 'user-42' });
      const creates = api.sent.filter((r) => r.path === '/permanent-routes');
      expect(JSON.parse(creates[0].body)).to.deep.equal({
        ...ZANO_TARGET,
        externalUserId: 'user-42',
        challengeId: 'ch_1',
        message: signed[0],
        ...PROOF,
      });
      expect(creates[0].signed).to.equal(true);

      await client.routes.createVerified({ target: ZANO_TARGET, sign: async (text) => (signed.push(text), PROOF) });
      expect(signed).to.have.length(2);
      expect(signed[1]).not.to.equal(signed[0]);
      expect(JSON.parse(api.sent.filter((r) => r.path === '/permanent-routes')[1].body).challengeId).to.equal('ch_2');
    });

    it('leaves label out of the create body when the target has none', async () => {
      const api = challenges(fakeApi()).on('POST', '/permanent-routes', () => json(201, routeOf()));
      const { label: _label, ...unlabelled } = ZANO_TARGET;
      await api.client().routes.createVerified({ target: unlabelled, sign: () => PROOF });
      expect(JSON.parse(api.sent[1].body)).not.to.have.property('label');
    });

    it('returns ownership_not_verified as a value when the service refuses the proof', async () => {
      const api = challenges(fakeApi()).on('POST', '/permanent-routes', () =>
        apiError(403, 'ownership_not_verified', 'The signature does not prove ownership.'),
      );
      const { data, error, response } = await api.client().routes.createVerified({ target: ZANO_TARGET, sign: () => PROOF });
      expect(data).to.equal(undefined);
      expect(error).to.be.instanceOf(PartnerApiError);
      expect(error).to.include({ status: 403, code: 'ownership_not_verified' });
      expect(response.status).to.equal(403);
    });

    it('returns the challenge error value without calling sign when the target is refused', async () => {
      const api = fakeApi().on('POST', '/permanent-routes/challenges', () =>
        apiError(400, 'invalid_settlement_target', 'The address has a bad checksum.'),
      );
      let called = false;
      const { error } = await api.client().routes.createVerified({
        target: ZANO_TARGET,
        sign: () => {
          called = true;
          return PROOF;
        },
      });
      expect(error).to.include({ status: 400, code: 'invalid_settlement_target' });
      expect(called).to.equal(false);
      expect(api.sent).to.have.length(1);
    });

    it('throws a TypeError when sign is missing or answers with the wallet RPC field names', async () => {
      const api = challenges(fakeApi());
      const client = api.client();
      expect(await thrownBy(() => client.routes.createVerified({ target: ZANO_TARGET } as never))).to.be.instanceOf(TypeError);
      expect(api.sent).to.have.length(0);
      expect(await thrownBy(() => client.routes.createVerified({ target: ZANO_TARGET, sign: () => ({ sig: 'ab', pkey: 'cd' }) as never })))
        .to.be.instanceOf(TypeError)
        .with.property('message')
        .that.matches(/publicKey, signature/);
      expect(api.sent.map((r) => r.path)).to.deep.equal(['/permanent-routes/challenges']);
    });
  });

  describe('.create(request)', () => {
    it('sends a challenge signed by hand as it is', async () => {
      const api = fakeApi().on('POST', '/permanent-routes', () => json(201, routeOf({ destination_asset: 'fUSD' })));
      const request = {
        destinationAsset: 'fUSD',
        destinationNetwork: 'ZANO',
        destinationAddress: ADDRESS,
        externalUserId: 'customer-1',
        challengeId: 'ch_9',
        message: 'the challenge text',
        ...PROOF,
      } as const;
      const { data, error } = await api.client().routes.create(request);
      expect(error).to.equal(undefined);
      expect(data?.destination_asset).to.equal('fUSD');
      expect(JSON.parse(api.sent[0].body)).to.deep.equal(request);
    });
  });

  describe('.get(id), .list(query) and .listAll(filter)', () => {
    it('reads a route by id', async () => {
      const api = fakeApi().on('GET', '/permanent-routes/{id}', () => json(200, routeOf()));
      const { data, error } = await api.client().routes.get(ROUTE_ID);
      expect(error).to.equal(undefined);
      expect(data).to.include({ route_id: ROUTE_ID, destination_asset: 'ZANO' });
      expect(api.sent[0]).to.include({ path: `/permanent-routes/${ROUTE_ID}`, signed: true });
    });

    it('lists routes one page at a time following next_cursor', async () => {
      const api = fakeApi().on(
        'GET',
        '/permanent-routes',
        () => json(200, { routes: [routeOf({ route_id: 'r2' })], next_cursor: 'c2' }),
        () => json(200, { routes: [routeOf({ route_id: 'r1' })], next_cursor: null }),
      );
      const pages = [];
      for await (const page of api.client().routes.listAll({ limit: 1 })) {
        if (page.error) throw page.error;
        pages.push(page.data.routes.map((r) => r.route_id));
      }
      expect(pages).to.deep.equal([['r2'], ['r1']]);
      expect(api.sent.map((r) => r.query.toString())).to.deep.equal(['limit=1', 'limit=1&cursor=c2']);
    });

    it('returns one page with list', async () => {
      const api = fakeApi().on('GET', '/permanent-routes', () => json(200, { routes: [routeOf()], next_cursor: 'c2' }));
      const first = await api.client().routes.list({ limit: 1 });
      expect(first.data?.routes).to.have.length(1);
      expect(first.data?.next_cursor).to.equal('c2');
    });

    it('returns not_found as a value for an unknown id', async () => {
      const api = fakeApi().on('GET', '/permanent-routes/{id}', () => apiError(404, 'not_found', 'No such route.'));
      const { data, error } = await api.client().routes.get(UNKNOWN_ID);
      expect(data).to.equal(undefined);
      expect(error).to.be.instanceOf(PartnerApiError);
      expect(error).to.include({ status: 404, code: 'not_found' });
    });

    it('yields an error page last and stops', async () => {
      const api = fakeApi().on('GET', '/permanent-routes', () => apiError(400, 'invalid_request', 'limit must be >= 1'));
      const pages = [];
      for await (const page of api.client().routes.listAll({ limit: 0 })) pages.push(page);
      expect(pages).to.have.length(1);
      expect(pages[0]?.error).to.include({ status: 400 });
    });
  });

  describe('.expectDeposit(id), .deposits(id, query) and .listAllDeposits(id, filter)', () => {
    const accumulation = {
      asset: 'USDT',
      network: 'TRX',
      accumulated_usd: '15',
      threshold_usd: '25',
      remaining_usd: '10',
      same_asset_required: true,
      valued_at: '2026-06-14T10:00:00.000Z',
      message: 'Send 10 USD more of USDT on TRX.',
    } as const;
    const depositOf = (id: string, amountBaseUnits: string) => ({
      id,
      asset: 'USDT',
      network: 'TRX',
      txHash: 'ab'.repeat(32),
      outputIndex: 0,
      amountBaseUnits,
      confirmationCount: 19,
      requiredConfirmations: 19,
      status: 'accumulating',
      terminal: false,
      actionRequired: 'customer',
      retryable: false,
      reasonCode: 'accumulating',
      orderId: null,
      firstSeenAt: '2026-06-14T10:00:00.000Z',
      lastSeenAt: '2026-06-14T10:00:00.000Z',
      accumulated_usd: '15',
      threshold_usd: '25',
      remaining_usd: '10',
      same_asset_required: true,
      valued_at: '2026-06-14T10:00:00.000Z',
      message: null,
    });
    const pageOf = (deposits: ReturnType<typeof depositOf>[], next_cursor: string | null) =>
      ({ route_id: ROUTE_ID, accumulations: [accumulation], deposits, next_cursor }) as PermanentDepositList;

    it('opens the fast-polling window with POST /permanent-routes/{id}/expect-deposit', async () => {
      const answer = { ok: true, expect_deposit_until: '2026-06-14T10:30:00.000Z' } as const;
      const api = fakeApi().on('POST', '/permanent-routes/{id}/expect-deposit', () => json(200, answer));
      const expected = await api.client().routes.expectDeposit(ROUTE_ID);
      expect(expected.error).to.equal(undefined);
      expect(expected.data).to.deep.equal(answer);
      expect(api.sent[0]).to.include({ path: `/permanent-routes/${ROUTE_ID}/expect-deposit`, signed: true, body: '' });
    });

    it('lists the deposits one page at a time, every page with the whole route accumulations', async () => {
      const api = fakeApi().on(
        'GET',
        '/permanent-routes/{id}/deposits',
        () => json(200, pageOf([depositOf('d2', '5000000')], 'c2')),
        () => json(200, pageOf([depositOf('d1', '10000000')], null)),
      );
      const pages: PermanentDepositList[] = [];
      for await (const page of api.client().routes.listAllDeposits(ROUTE_ID, { limit: 1 })) {
        if (page.error) throw page.error;
        pages.push(page.data);
      }
      expect(pages.map((p) => p.deposits.map((d) => d.id))).to.deep.equal([['d2'], ['d1']]);
      for (const page of pages) expect(page.accumulations).to.deep.equal([accumulation]);
      expect(api.sent.map((r) => `${r.path}?${r.query}`)).to.deep.equal([
        `/permanent-routes/${ROUTE_ID}/deposits?limit=1`,
        `/permanent-routes/${ROUTE_ID}/deposits?limit=1&cursor=c2`,
      ]);
    });

    it('returns one page of deposits', async () => {
      const api = fakeApi().on('GET', '/permanent-routes/{id}/deposits', () => json(200, pageOf([], null)));
      const { data } = await api.client().routes.deposits(ROUTE_ID);
      expect(data).to.deep.equal(pageOf([], null));
    });

    it('returns not_found as a value for an unknown route', async () => {
      const api = fakeApi()
        .on('POST', '/permanent-routes/{id}/expect-deposit', () => apiError(404, 'not_found', 'No such route.'))
        .on('GET', '/permanent-routes/{id}/deposits', () => apiError(404, 'not_found', 'No such route.'));
      const client = api.client();
      const expected = await client.routes.expectDeposit(UNKNOWN_ID);
      expect(expected.data).to.equal(undefined);
      expect(expected.error).to.be.instanceOf(PartnerApiError).and.include({ status: 404, code: 'not_found' });
      expect((await client.routes.deposits(UNKNOWN_ID)).error).to.include({ status: 404, code: 'not_found' });
    });

    it('does not retry expectDeposit after a 503: it carries no Idempotency-Key', async () => {
      const api = fakeApi().on('POST', '/permanent-routes/{id}/expect-deposit', () => apiError(503, 'service_unavailable', 'try later'));
      expect((await api.client().routes.expectDeposit(ROUTE_ID)).error).to.include({ status: 503 });
      expect(api.sent).to.have.length(1);
    });

    it('yields an error page last and stops', async () => {
      const api = fakeApi().on('GET', '/permanent-routes/{id}/deposits', () => apiError(400, 'invalid_request', 'limit must be >= 1'));
      const pages = [];
      for await (const page of api.client().routes.listAllDeposits(ROUTE_ID, { limit: 0 })) pages.push(page);
      expect(pages).to.have.length(1);
      expect(pages[0]?.error).to.include({ status: 400 });
    });

    it('throws a TypeError for an empty id, before sending anything', async () => {
      const api = fakeApi();
      const client = api.client();
      for (const call of [() => client.routes.deposits(''), () => client.routes.expectDeposit(''), () => client.routes.get('')]) {
        expect(await thrownBy(call))
          .to.be.instanceOf(TypeError)
          .with.property('message')
          .that.matches(/id must be a non-empty string/);
      }
      expect(api.sent).to.have.length(0);
    });
  });
});
