import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { DemoSecretUnreadableError, ensureDemoPartner } from '../../server/partners.js';
import { createSecretBox } from '../../server/store/secret-box.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { readJson } from '../support/http.js';
import { signedFetch } from '../support/signer.js';

describe('the sandbox demo partner', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('is created once when several instances start together, and all of them print the same working credentials', async () => {
    const results = await Promise.all([1, 2, 3].map(() => ensureDemoPartner(server.knex, server.secretBox)));
    expect(new Set(results.map((r) => JSON.stringify(r))).size).to.equal(1);
    const demo = results[0]!;
    const res = await readJson(
      signedFetch(server.origin, { ...demo, audience: server.config.publicOrigin }, 'GET', '/api/v1/partner/markup'),
    );
    expect(res.status).to.equal(200);
  });

  it('says how to recover when its secret was sealed under another SECRETS_KEY', async () => {
    const otherBox = createSecretBox(randomBytes(32));
    let thrown: unknown;
    try {
      await ensureDemoPartner(server.knex, otherBox);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).to.be.instanceOf(DemoSecretUnreadableError);
    expect((thrown as Error).message).to.contain('rotate-secret --key-id demo');
  });
});
