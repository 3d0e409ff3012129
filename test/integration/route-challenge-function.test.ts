import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { migrate } from '../../server/store/database.js';
import { CHALLENGE_SPENDABLE } from '../../server/store/route-challenge.js';
import {
  CREATE_ROUTES_FUNCTION,
  deployStatementFunctions,
  functionSignature,
  functionText,
  type StatementFunction,
} from '../../server/store/statement-functions.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectError } from '../support/http.js';
import { createVerifiedRoute, signRouteRequest, type Route } from '../support/routes.js';
import { swapClient } from '../support/swaps.js';

// The challenge rule as migration 0022 wrote it out before it was generated: the same conditions in another order.
const RULE_AS_WRITTEN_OUT = `c.used_at is null and c.expires_at > input.created_at
       and c.partner_id = input.partner_id and c.external_user = input.external_user
       and c.destination_asset = input.destination_asset and c.destination_network = input.destination_network
       and c.destination_address = input.destination_address and c.text = input.message`;

// What an earlier version deployed: the rule in its old order, and a line of its own (a harmless change).
const EARLIER_VERSION: StatementFunction = {
  ...CREATE_ROUTES_FUNCTION,
  query: `\n      -- deployed by an earlier version${CREATE_ROUTES_FUNCTION.query.replace(CHALLENGE_SPENDABLE, RULE_AS_WRITTEN_OUT)}`,
};

describe('pss_create_routes, generated from the challenge rule', () => {
  let server: TestServer;
  let client: ReturnType<typeof swapClient>;
  const signature = functionSignature(CREATE_ROUTES_FUNCTION);

  before(async () => {
    server = await startTestServer();
    client = swapClient(server.origin, { ...(await server.createSigner('Router')), user: 'user-42' });
  });
  after(() => server.close());

  const deployed = async (): Promise<{ marker: string | null; source: string; version: string }> => {
    const { rows } = await server.knex.raw(
      `select obj_description(oid, 'pg_proc') as marker, prosrc as source, xmin::text as version from pg_proc where oid = to_regprocedure(?)`,
      [signature],
    );
    expect(rows, `${signature} is deployed`).to.have.length(1);
    return rows[0];
  };
  const generatedMarker = () =>
    `pss:${CREATE_ROUTES_FUNCTION.version}:${createHash('sha256').update(functionText(CREATE_ROUTES_FUNCTION)).digest('hex')}`;
  // The function's body as PostgreSQL stores it: the text between the dollar quotes.
  const generatedSource = () => functionText(CREATE_ROUTES_FUNCTION).split('$$')[1];
  const deployEarlierVersion = async () => {
    await server.knex.raw(functionText(EARLIER_VERSION));
    await server.knex.raw(`comment on function ${signature} is 'pss:an-earlier-version'`);
  };

  it('is deployed as generated after migrate, its comment the sha256 of the generated text', async () => {
    const { marker, source } = await deployed();
    expect(marker).to.equal(generatedMarker());
    expect(source).to.equal(generatedSource());
    expect(source).to.contain(CHALLENGE_SPENDABLE);
  });

  it('is left alone by a migrate that finds it current', async () => {
    const before = await deployed();
    expect(await migrate(server.knex)).to.deep.equal([]);
    expect(await deployed()).to.deep.equal(before);
  });

  it('is left in place when a newer version is deployed: an older release restarting does not put its rule back', async () => {
    await deployEarlierVersion();
    const newer = `pss:${CREATE_ROUTES_FUNCTION.version + 1}:${'0'.repeat(64)}`;
    await server.knex.raw(`comment on function ${signature} is '${newer}'`);
    const before = await deployed();
    await migrate(server.knex);
    expect(await deployed()).to.deep.equal(before);
    expect(before.marker).to.equal(newer);
    // Put back as generated for the tests after this one.
    await server.knex.raw(`comment on function ${signature} is 'pss:an-earlier-version'`);
    await migrate(server.knex);
    expect((await deployed()).marker).to.equal(generatedMarker());
  });

  it('is replaced by the generated text on the next migrate when another text is deployed', async () => {
    await deployEarlierVersion();
    const stale = await deployed();
    expect(stale.marker).to.equal('pss:an-earlier-version');
    expect(stale.source).to.contain('deployed by an earlier version');

    expect(await migrate(server.knex)).to.deep.equal([]); // no migration: the function alone was replaced
    const { marker, source } = await deployed();
    expect(marker).to.equal(generatedMarker());
    expect(source).to.equal(generatedSource());
  });

  it('is replaced once when instances deploy it at the same moment', async () => {
    await deployEarlierVersion();
    const replaced = await Promise.all(Array.from({ length: 4 }, () => deployStatementFunctions(server.knex)));
    // The first to hold the lock replaces it; the others then find it current (or found it so before locking).
    expect(replaced.flat()).to.deep.equal(['pss_create_routes']);
    expect((await deployed()).marker).to.equal(generatedMarker());
  });

  it('creates a route through HTTP with the restored function, and refuses its challenge a second time', async () => {
    await deployEarlierVersion();
    await migrate(server.knex);
    const route = await createVerifiedRoute(client, 'user-42');
    expect(route.status).to.equal('active');

    const request = await signRouteRequest(client, 'user-42');
    const created = await client.send<Route>('POST', '/api/v1/permanent-routes', request);
    expect(created.status, created.text).to.equal(201);
    // The same challenge again: the function spent it, and the refusal's reason comes from the same rule.
    const again = await client.send('POST', '/api/v1/permanent-routes', request);
    expectError(again, 400, 'invalid_challenge');
    expect(again.text).to.contain('it was already used');
  });
});
