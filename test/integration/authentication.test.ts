import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { NONCE_MARGIN_SECONDS, TIMESTAMP_TOLERANCE_SECONDS } from '../../server/domain/signing.js';
import { provisionPartner, rotatePartnerSecret } from '../../server/partners.js';
import { setPartnerStatus } from '../../server/store/partners.js';
import { createSecretBox } from '../../server/store/secret-box.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectError, readJson, request } from '../support/http.js';
import { signedFetch, signHeaders, type SignerOptions, type SignOverrides } from '../support/signer.js';

const MARKUP = '/api/v1/partner/markup';

describe('Signed partner requests', () => {
  let server: TestServer;
  let partner: SignerOptions;
  const send = (method: string, path: string, body?: unknown, overrides?: SignOverrides, who: SignerOptions = partner) =>
    readJson(signedFetch(server.origin, who, method, path, body, overrides));

  before(async () => {
    server = await startTestServer();
    partner = { ...(await server.createSigner('Acme Wallet')), user: 'customer-7' };
  });
  after(() => server.close());

  it('accepts a request signed as the README describes', async () => {
    const res = await send('GET', MARKUP);
    expect(res.status, res.text).to.equal(200);
  });

  it('refuses the same request replayed with nonce_reused', async () => {
    const headers = signHeaders(partner, 'GET', MARKUP);
    const first = await request(`${server.origin}${MARKUP}`, { headers });
    expect(first.status).to.equal(200);
    expectError(await request(`${server.origin}${MARKUP}`, { headers }), 401, 'nonce_reused');
  });

  it('refuses a replay on another server instance sharing the database', async () => {
    const other = await startTestServer({ sameDatabaseAs: server });
    try {
      const headers = signHeaders(partner, 'GET', MARKUP);
      expect((await request(`${server.origin}${MARKUP}`, { headers })).status).to.equal(200);
      expectError(await request(`${other.origin}${MARKUP}`, { headers }), 401, 'nonce_reused');
    } finally {
      await other.close();
    }
  });

  it('accepts each nonce exactly once when many requests and their replays arrive at once on two instances', async () => {
    // Nonce claims are committed in groups: a replay may share a group with its original, or race it from
    // the other instance. 40 distinct requests, each sent three times at once (twice here, once there).
    const other = await startTestServer({ sameDatabaseAs: server });
    try {
      const signed = Array.from({ length: 40 }, () => signHeaders(partner, 'GET', MARKUP));
      const sends = signed.flatMap((headers, i) =>
        [server.origin, server.origin, other.origin].map(async (origin) => ({ i, res: await request(`${origin}${MARKUP}`, { headers }) })),
      );
      const answers = await Promise.all(sends);
      for (let i = 0; i < signed.length; i++) {
        const mine = answers.filter((a) => a.i === i).map((a) => a.res);
        expect(
          mine.filter((r) => r.status === 200),
          `request ${i}`,
        ).to.have.length(1);
        for (const refused of mine.filter((r) => r.status !== 200)) expectError(refused, 401, 'nonce_reused');
      }
    } finally {
      await other.close();
    }
  });

  it('applies a rotated secret and a disabled key at once on every instance, though each caches partners', async () => {
    const other = await startTestServer({ sameDatabaseAs: server });
    try {
      const signer = await server.createSigner('Rotating');
      const on = (origin: string, options: SignerOptions = signer) =>
        request(`${origin}${MARKUP}`, { headers: signHeaders(options, 'GET', MARKUP) });
      // Both instances have the partner cached.
      expect((await on(server.origin)).status).to.equal(200);
      expect((await on(other.origin)).status).to.equal(200);

      const rotated = await rotatePartnerSecret(server.knex, server.secretBox, signer.keyId);
      for (const origin of [other.origin, server.origin]) {
        expectError(await on(origin), 401, 'invalid_signature');
        expect((await on(origin, { ...signer, secret: rotated.secret })).status).to.equal(200);
      }

      await setPartnerStatus(server.knex, signer.keyId, 'disabled');
      for (const origin of [other.origin, server.origin]) {
        expectError(await on(origin, { ...signer, secret: rotated.secret }), 401, 'partner_disabled');
      }
      await setPartnerStatus(server.knex, signer.keyId, 'active');
      for (const origin of [other.origin, server.origin]) {
        expect((await on(origin, { ...signer, secret: rotated.secret })).status).to.equal(200);
      }
    } finally {
      await other.close();
    }
  });

  for (const header of ['x-service-key-id', 'x-service-user', 'x-service-timestamp', 'x-service-nonce', 'x-service-signature']) {
    it(`answers authentication_required when ${header} is missing`, async () => {
      const headers = signHeaders(partner, 'GET', MARKUP);
      delete headers[header];
      const res = await request<{ error: { details: { missing: string[] } } }>(`${server.origin}${MARKUP}`, { headers });
      expectError(res, 401, 'authentication_required');
      expect(res.body.error.details.missing).to.deep.equal([header]);
    });
  }

  it('answers authentication_required for a nonce that is too short', async () => {
    expectError(await send('GET', MARKUP, undefined, { nonce: 'short' }), 401, 'authentication_required');
  });

  it('answers unknown_key for a key id nobody has', async () => {
    expectError(await send('GET', MARKUP, undefined, {}, { ...partner, keyId: 'pk_sandbox_nobody' }), 401, 'unknown_key');
  });

  it('answers invalid_signature when signed with another secret', async () => {
    expectError(await send('GET', MARKUP, undefined, { secret: 'pss_sk_not-the-right-secret-at-all' }), 401, 'invalid_signature');
  });

  it('answers timestamp_out_of_window for a timestamp 301 s old', async () => {
    const stale = String(Math.floor(Date.now() / 1000) - 301);
    expectError(await send('GET', MARKUP, undefined, { timestamp: stale }), 401, 'timestamp_out_of_window');
  });

  it('answers timestamp_out_of_window for a timestamp 301 s ahead', async () => {
    const future = String(Math.floor(Date.now() / 1000) + 301);
    expectError(await send('GET', MARKUP, undefined, { timestamp: future }), 401, 'timestamp_out_of_window');
  });

  it('accepts a timestamp 250 s old (inside the window)', async () => {
    const res = await send('GET', MARKUP, undefined, { timestamp: String(Math.floor(Date.now() / 1000) - 250) });
    expect(res.status).to.equal(200);
  });

  describe('tampering with what was signed', () => {
    const body = { percent: 1 };
    const tampered: Array<[string, SignOverrides]> = [
      ['the method', { signedMethod: 'POST' }],
      ['the path', { signedPathAndQuery: '/api/v1/partner/webhook' }],
      ['the query', { signedPathAndQuery: `${MARKUP}?x=1` }],
      ['the body', { signedBody: JSON.stringify({ percent: 2 }) }],
      ['the user', { signedUser: 'customer-8' }],
      ['the audience', { signedAudience: 'https://other.example.com' }],
    ];
    for (const [what, overrides] of tampered) {
      it(`answers invalid_signature when ${what} differs from what was signed`, async () => {
        expectError(await send('PUT', MARKUP, body, overrides), 401, 'invalid_signature');
      });
    }

    it('signs the query exactly as sent', async () => {
      // An unknown query parameter passes authentication (it was signed) and then fails validation.
      const res = await send('GET', `${MARKUP}?b=2&a=1`);
      expectError(res, 400, 'invalid_request');
    });
  });

  it('answers partner_disabled once the partner is disabled, and accepts it again when re-enabled', async () => {
    const issued = await server.createPartner('Soon disabled');
    const signer = { keyId: issued.keyId, secret: issued.secret, audience: server.config.publicOrigin };
    await setPartnerStatus(server.knex, issued.keyId, 'disabled');
    expectError(await send('GET', MARKUP, undefined, {}, signer), 401, 'partner_disabled');
    await setPartnerStatus(server.knex, issued.keyId, 'active');
    expect((await send('GET', MARKUP, undefined, {}, signer)).status).to.equal(200);
  });

  it('authenticates before validating: an unsigned request with a broken body is a 401', async () => {
    const res = await request(`${server.origin}${MARKUP}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '{"percent": ',
    });
    expectError(res, 401, 'authentication_required');
  });

  it('answers a signed request with malformed JSON with 400 malformed_json', async () => {
    expectError(await send('PUT', MARKUP, '{"percent": '), 400, 'malformed_json');
  });

  describe('swap access tokens', () => {
    const SWAP = '/api/v1/swaps/3f2b8a1e-6c4d-4e7a-9b1f-2d5c8e0a4b71';
    it('asks for a token on the stream when none is sent', async () => {
      expectError(await request(`${server.origin}${SWAP}/stream`), 401, 'authentication_required');
    });
    it('refuses a made-up token, even one that looks right', async () => {
      const headers = { authorization: 'Bearer sat_made_up_token_0123456789' };
      expectError(await request(`${server.origin}${SWAP}/stream`, { headers }), 401, 'invalid_token');
      expectError(await request(`${server.origin}${SWAP}`, { headers }), 401, 'invalid_token');
    });
    it('refuses an Authorization header that is not a bearer token', async () => {
      expectError(await request(`${server.origin}${SWAP}`, { headers: { authorization: 'Basic dXNlcjpwYXNz' } }), 401, 'invalid_token');
    });
  });

  it('keeps the secret out of the database in plaintext', async () => {
    const rows = await server.knex('partners').select('secret_sealed');
    for (const row of rows) expect(row.secret_sealed).to.match(/^v2\./).and.not.contain(partner.secret);
  });

  it("refuses a sealed secret copied into another partner's row (bound to its key id)", async () => {
    // Someone who can write to the database and knows Mallory's secret copies her sealed value into
    // Victim's row, then signs as Victim with Mallory's secret.
    const mallory = await server.createPartner('Mallory');
    const victim = await server.createPartner('Victim');
    const [{ secret_sealed: sealed }] = await server.knex('partners').where({ key_id: mallory.keyId }).select('secret_sealed');
    await server.knex('partners').where({ key_id: victim.keyId }).update({ secret_sealed: sealed });
    const asVictim = { keyId: victim.keyId, secret: mallory.secret, audience: server.config.publicOrigin };
    expectError(await send('GET', MARKUP, undefined, {}, asVictim), 401, 'invalid_signature');
  });

  it('answers a partner whose secret was sealed under another SECRETS_KEY with a counted 401, not a 500', async () => {
    const issued = await provisionPartner(server.knex, createSecretBox(randomBytes(32)), { name: 'Old key', mode: 'sandbox' });
    const signer = { keyId: issued.keyId, secret: issued.secret, audience: server.config.publicOrigin };
    const first = await send('GET', MARKUP, undefined, {}, signer);
    expectError(first, 401, 'invalid_signature');
    // Counted against the client IP's public allowance like every failed authentication.
    const second = await send('GET', MARKUP, undefined, {}, signer);
    expectError(second, 401, 'invalid_signature');
    expect(Number(second.headers.get('ratelimit-remaining'))).to.equal(Number(first.headers.get('ratelimit-remaining')) - 1);
  });
});

describe('Nonce memory at the edge of the timestamp window (injected clock)', () => {
  let server: TestServer;
  let partner: SignerOptions;
  const START_SECONDS = 1_800_000_000;
  let clockMs = START_SECONDS * 1000;
  const at = (seconds: number) => (clockMs = seconds * 1000);

  before(async () => {
    server = await startTestServer({ deps: { now: () => new Date(clockMs) } });
    partner = await server.createSigner('Clocked');
  });
  after(() => server.close());

  it('refuses a replay of a request timestamped 300 s ahead for as long as its timestamp is accepted', async () => {
    at(START_SECONDS);
    const headers = signHeaders(partner, 'GET', MARKUP, '', { timestamp: String(START_SECONDS + 300) });
    expect((await request(`${server.origin}${MARKUP}`, { headers })).status).to.equal(200);
    // The timestamp check still accepts this request until the end of second S+600.
    for (const seconds of [START_SECONDS + 600.1, START_SECONDS + 600.999]) {
      at(seconds);
      expectError(await request(`${server.origin}${MARKUP}`, { headers }), 401, 'nonce_reused');
    }
    // Then the timestamp itself is refused: no moment exists at which the replay is accepted.
    at(START_SECONDS + 601);
    expectError(await request(`${server.origin}${MARKUP}`, { headers }), 401, 'timestamp_out_of_window');
  });

  it('remembers the nonce for the signed timestamp plus the tolerance plus a margin', async () => {
    at(START_SECONDS + 10_000);
    const timestamp = START_SECONDS + 10_000 - 100;
    const headers = signHeaders(partner, 'GET', MARKUP, '', { timestamp: String(timestamp) });
    expect((await request(`${server.origin}${MARKUP}`, { headers })).status).to.equal(200);
    const [row] = await server.knex('request_nonces').where({ key_id: partner.keyId, nonce: headers['x-service-nonce'] });
    expect(new Date(row.expires_at).getTime() / 1000).to.equal(timestamp + TIMESTAMP_TOLERANCE_SECONDS + NONCE_MARGIN_SECONDS);
  });
});
