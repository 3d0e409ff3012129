import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectError, readJson, request } from '../support/http.js';
import { signedFetch, type SignerOptions } from '../support/signer.js';
import { validatorRouteCompilations } from '../../server/http/validator-routes.js';

describe("the validator's route lookup", () => {
  let server: TestServer;
  let signer: SignerOptions;
  before(async () => {
    server = await startTestServer();
    signer = await server.createSigner('Lookup');
  });
  after(() => server.close());

  // One of each kind: public, signed, a path parameter, an unknown id, a path no operation has.
  async function sendEach(): Promise<void> {
    expect((await request(`${server.origin}/api/v1/assets`)).status).to.equal(200);
    expect((await request(`${server.origin}/api/v1/pairs`)).status).to.equal(200);
    expect((await readJson(signedFetch(server.origin, signer, 'GET', '/api/v1/partner/markup'))).status).to.equal(200);
    const unknown = await readJson(
      signedFetch(server.origin, signer, 'GET', '/api/v1/permanent-routes/00000000-0000-4000-8000-000000000000'),
    );
    expectError(unknown, 404, 'not_found');
    expectError(await request(`${server.origin}/api/v1/no-such-thing`), 404, 'not_found');
  }

  it('compiles each documented path once: later requests reuse the patterns and answer the same', async () => {
    await sendEach();
    const afterFirst = validatorRouteCompilations();
    // The validator compiled through the kept patterns' wrapper, so it reads the replaced export.
    expect(afterFirst).to.be.greaterThan(0);
    for (let i = 0; i < 10; i++) await sendEach();
    expect(validatorRouteCompilations()).to.equal(afterFirst);
  });
});
