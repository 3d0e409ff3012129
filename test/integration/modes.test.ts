import { startTestServer, type TestServer } from '../support/server.js';
import { expectError } from '../support/http.js';
import { readJson } from '../support/http.js';
import { signedFetch, type SignerOptions } from '../support/signer.js';

describe('service modes', () => {
  let server: TestServer;
  let partner: SignerOptions;
  before(async () => {
    // loadConfig refuses production without real adapters; the app itself is built in production mode here.
    server = await startTestServer({ configOverrides: { serviceMode: 'production' } });
    partner = await server.createSigner();
  });
  after(() => server.close());

  it('does not serve sandbox operations outside sandbox mode (404)', async () => {
    const res = await readJson(
      signedFetch(server.origin, partner, 'POST', '/api/v1/sandbox/deposits', { address: 'x', asset: 'BTC', network: 'BTC', amount: '1' }),
    );
    expectError(res, 404, 'not_found');
  });
});
