/**
 * Bulk status (GET /swaps?ids=...): the caller's swaps among the ids asked, in that order, each once; another
 * partner's swap and an unknown id are left out alike. Through HTTP and through the SDK's swaps.getMany.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { createPartnerClient } from '../../sdk/src/index.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectError } from '../support/http.js';
import { btcToUsdt, swapClient, type Swap } from '../support/swaps.js';

describe('bulk status: GET /swaps?ids=', () => {
  let server: TestServer;
  let acme: ReturnType<typeof swapClient>;
  let globex: ReturnType<typeof swapClient>;
  let mine: Swap[];
  let theirs: Swap;
  before(async () => {
    server = await startTestServer({
      env: { RATE_LIMIT_SWAPS_PER_MINUTE: '10000', RATE_LIMIT_QUOTES_PER_MINUTE: '10000', RATE_LIMIT_SIGNED_PER_MINUTE: '10000' },
    });
    acme = swapClient(server.origin, await server.createSigner('Acme'));
    globex = swapClient(server.origin, await server.createSigner('Globex'));
    mine = [];
    for (let i = 0; i < 3; i++) mine.push((await acme.create(btcToUsdt())).order);
    theirs = (await globex.create(btcToUsdt())).order;
  });
  after(() => server.close());

  const bulk = (client: ReturnType<typeof swapClient>, query: string) =>
    client.send<{ orders: Swap[]; nextCursor: string | null }>('GET', `/api/v1/swaps?${query}`);

  it("answers the caller's swaps in the order asked, each once, never another partner's or an unknown id", async () => {
    const unknown = randomUUID();
    const ids = [mine[2]!.id, theirs.id, unknown, mine[0]!.id, mine[2]!.id];
    const res = await bulk(acme, `ids=${ids.join(',')}`);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.orders.map((o) => o.id)).to.deep.equal([mine[2]!.id, mine[0]!.id]);
    expect(res.body.nextCursor).to.equal(null);
    expect(res.text).not.to.contain(theirs.id);

    // The other partner sees its own swap, and none of acme's, from the same list.
    const other = await bulk(globex, `ids=${ids.join(',')}`);
    expect(other.body.orders.map((o) => o.id)).to.deep.equal([theirs.id]);
  });

  it("answers another partner's id exactly as an unknown one: an empty list", async () => {
    const foreign = await bulk(acme, `ids=${theirs.id}`);
    const unknown = await bulk(acme, `ids=${randomUUID()}`);
    expect(foreign.status).to.equal(200);
    expect(foreign.body).to.deep.equal({ orders: [], nextCursor: null });
    expect(unknown.body).to.deep.equal(foreign.body);
  });

  it('accepts the comma percent-encoded (%2C), as a proxy may forward it', async () => {
    const res = await bulk(acme, `ids=${mine[0]!.id}%2C${mine[1]!.id}`);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.orders.map((o) => o.id)).to.deep.equal([mine[0]!.id, mine[1]!.id]);
  });

  it('accepts ids in upper case, and filters by status too', async () => {
    const res = await bulk(acme, `ids=${mine[1]!.id.toUpperCase()}&status=waiting`);
    expect(res.body.orders.map((o) => o.id)).to.deep.equal([mine[1]!.id]);
    const none = await bulk(acme, `ids=${mine[1]!.id}&status=finished`);
    expect(none.body.orders).to.deep.equal([]);
  });

  it('refuses more than 100 ids, an id that is no uuid, and a cursor with ids (400)', async () => {
    const many = Array.from({ length: 101 }, () => randomUUID()).join(',');
    expectError(await bulk(acme, `ids=${many}`), 400, 'invalid_request');
    expectError(await bulk(acme, 'ids=not-a-uuid'), 400, 'invalid_request');
    const page = await bulk(acme, 'limit=1');
    expect(page.body.nextCursor).to.be.a('string');
    expectError(await bulk(acme, `ids=${mine[0]!.id}&cursor=${page.body.nextCursor}`), 400, 'invalid_request');
  });

  it('is in the SDK: swaps.getMany(ids) returns the same answer', async () => {
    const signer = await server.createSigner('Acme SDK');
    const client = createPartnerClient({
      baseUrl: server.baseUrl,
      audience: signer.audience,
      keyId: signer.keyId,
      secret: signer.secret,
      userId: 'customer-1',
    });
    const sdkSwaps = swapClient(server.origin, signer);
    const own = [(await sdkSwaps.create(btcToUsdt())).order, (await sdkSwaps.create(btcToUsdt())).order];
    const { data, error } = await client.swaps.getMany([own[1]!.id, theirs.id, own[0]!.id]);
    expect(error).to.equal(undefined);
    expect(data!.orders.map((o) => o.id)).to.deep.equal([own[1]!.id, own[0]!.id]);
    expect(() => client.swaps.getMany([])).to.throw(TypeError);
  });
});
