import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { signTestWebhook, verifyWebhook, WebhookVerificationError, type WebhookVerificationReason } from '../src/index.js';

// One valid delivery; each test breaks exactly one thing.
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const NOW = new Date('2026-06-14T10:41:18.000Z');
const DATA = { message: 'hello' };
const valid = () =>
  signTestWebhook({ secret: SECRET, type: 'webhook.test', data: DATA, id: 'msg_2Lh9qWZk4V1bXc7Rt8Ns0Pa3Ye', timestamp: NOW });
const options = { now: () => NOW };

function refusal(run: () => unknown): WebhookVerificationError {
  try {
    run();
  } catch (err) {
    expect(err).to.be.instanceOf(WebhookVerificationError);
    return err as WebhookVerificationError;
  }
  throw new Error('expected a WebhookVerificationError');
}

function expectRefused(run: () => unknown, reason: WebhookVerificationReason, message: RegExp) {
  const error = refusal(run);
  expect(error.reason).to.equal(reason);
  expect(error.code).to.equal('webhook_verification_failed');
  expect(error.message).to.match(message);
}

describe('sdk webhooks', () => {
  describe('verifyWebhook()', () => {
    it('returns the event of a valid delivery', () => {
      const { body, headers } = valid();
      expect(verifyWebhook(body, headers, SECRET, options)).to.deep.equal({
        type: 'webhook.test',
        timestamp: NOW.toISOString(),
        data: DATA,
      });
    });

    it('accepts the body as bytes, and headers as a fetch Headers object', () => {
      const { body, headers } = valid();
      expect(verifyWebhook(Buffer.from(body), new Headers(headers), SECRET, options).type).to.equal('webhook.test');
    });

    it('accepts signatures made by the official standardwebhooks library', () => {
      const body = '{"type":"swap.updated","timestamp":"2026-06-14T10:41:18.000Z","data":{"order":{"id":"x"},"event":null}}';
      const signature = new Webhook(SECRET).sign('msg_1', NOW, body);
      const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(NOW.getTime() / 1000), 'webhook-signature': signature };
      expect(verifyWebhook(body, headers, SECRET, options)).to.deep.equal(JSON.parse(body));
    });

    it('is verified by the official standardwebhooks library when signed by signTestWebhook', () => {
      const { body, headers } = signTestWebhook({ secret: SECRET, type: 'webhook.test', data: DATA });
      expect(new Webhook(SECRET).verify(body, headers)).to.deep.equal(JSON.parse(body));
    });

    it('accepts any matching signature of a space-separated list, and any of several secrets', () => {
      const { body, headers } = valid();
      const listed = { ...headers, 'webhook-signature': `v1,bm90IGl0 ${headers['webhook-signature']}` };
      expect(verifyWebhook(body, listed, SECRET, options).type).to.equal('webhook.test');
      expect(verifyWebhook(body, headers, ['whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', SECRET], options).type).to.equal('webhook.test');
    });

    it('refuses a changed body (bad signature)', () => {
      const { body, headers } = valid();
      expectRefused(() => verifyWebhook(body.replace('hello', 'hellp'), headers, SECRET, options), 'invalid_signature', /does not match/);
    });

    it('refuses another secret (bad signature)', () => {
      const { body, headers } = valid();
      expectRefused(() => verifyWebhook(body, headers, 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', options), 'invalid_signature', /secret/);
    });

    it('refuses a changed webhook-id (bad signature)', () => {
      const { body, headers } = valid();
      expectRefused(
        () => verifyWebhook(body, { ...headers, 'webhook-id': 'msg_other' }, SECRET, options),
        'invalid_signature',
        /does not match/,
      );
    });

    it('refuses a stale timestamp beyond 5 minutes', () => {
      const { body, headers } = valid();
      const later = { now: () => new Date(NOW.getTime() + 301_000) };
      expectRefused(() => verifyWebhook(body, headers, SECRET, later), 'timestamp_too_old', /301 s old, more than the 300 s tolerance/);
    });

    it('refuses a timestamp more than 5 minutes ahead', () => {
      const { body, headers } = valid();
      const earlier = { now: () => new Date(NOW.getTime() - 301_000) };
      expectRefused(() => verifyWebhook(body, headers, SECRET, earlier), 'timestamp_too_new', /in the future/);
    });

    it('accepts a timestamp exactly 5 minutes old', () => {
      const { body, headers } = valid();
      expect(verifyWebhook(body, headers, SECRET, { now: () => new Date(NOW.getTime() + 300_000) }).type).to.equal('webhook.test');
    });

    it('refuses a secret that is not whsec_<base64>, and says when it is the API secret', () => {
      const { body, headers } = valid();
      expectRefused(() => verifyWebhook(body, headers, 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', options), 'invalid_secret', /whsec_<base64>/);
      expectRefused(() => verifyWebhook(body, headers, 'pss_sk_3Jd9sPq2VwXy7RtLm4Nb6Hc1', options), 'invalid_secret', /API signing secret/);
      expectRefused(() => verifyWebhook(body, headers, 'whsec_!!!', options), 'invalid_secret', /not base64/);
    });

    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const) {
      it(`refuses a delivery without ${name}`, () => {
        const { body, headers } = valid();
        const { [name]: _removed, ...rest } = headers;
        void _removed;
        expectRefused(() => verifyWebhook(body, rest, SECRET, options), 'missing_header', new RegExp(`${name} header is missing`));
      });
    }

    it('refuses a signature header without a v1 signature', () => {
      const { body, headers } = valid();
      expectRefused(
        () => verifyWebhook(body, { ...headers, 'webhook-signature': 'v2,abc' }, SECRET, options),
        'invalid_signature',
        /no v1 signature/,
      );
    });

    it('refuses parsed JSON instead of the raw body, saying why', () => {
      const { body, headers } = valid();
      expectRefused(() => verifyWebhook(JSON.parse(body) as never, headers, SECRET, options), 'invalid_body', /raw/);
    });
  });

  describe('signTestWebhook()', () => {
    it('takes the timestamp as Unix seconds, and puts it in the body and the header', () => {
      const { body, headers } = signTestWebhook({ secret: SECRET, type: 'swap.updated', data: {}, timestamp: 1781433678 });
      expect(headers['webhook-timestamp']).to.equal('1781433678');
      expect(JSON.parse(body).timestamp).to.equal(new Date(1781433678 * 1000).toISOString());
      expect(headers['webhook-id']).to.match(/^[0-9a-f-]{36}$/);
      expect(headers['content-type']).to.equal('application/json');
    });
  });
});
