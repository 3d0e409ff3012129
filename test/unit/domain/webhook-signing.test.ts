import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import {
  createWebhookSecret,
  secretHint,
  signWebhook,
  webhookBody,
  webhookKey,
  webhookSignature,
  WEBHOOK_SECRET_BYTES,
} from '../../../server/domain/webhook-signing.js';
import { signingVector } from '../../support/signing-vector.js';

// The example of the Standard Webhooks specification (and of its reference libraries' tests).
const SPEC_EXAMPLE = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

describe('domain/webhook-signing', () => {
  describe('webhookSignature()', () => {
    it('produces the signature of the Standard Webhooks example', () => {
      const { secret, id, timestamp, body, signature } = SPEC_EXAMPLE;
      expect(webhookSignature(secret, id, timestamp, body)).to.equal(signature);
    });

    it('produces the webhook signature of test/fixtures/signing-vector.json (the recipes in examples/signing/ check it too)', () => {
      const { webhookSecret, webhookId, webhookTimestamp, webhookBody: body, webhookSignature: signature } = signingVector;
      expect(webhookSignature(webhookSecret, webhookId, Number(webhookTimestamp), body)).to.equal(signature);
      // The official library agrees (its verify() would refuse the fixed timestamp as too old).
      expect(new Webhook(webhookSecret).sign(webhookId, new Date(Number(webhookTimestamp) * 1000), body)).to.equal(signature);
    });

    it('keys the HMAC with the base64-decoded part after whsec_', () => {
      expect(webhookKey(SPEC_EXAMPLE.secret)).to.deep.equal(Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64'));
      expect(() => webhookKey('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).to.throw(/whsec_/);
    });
  });

  describe('signWebhook()', () => {
    it('sets webhook-id, the attempt time in whole seconds, and a signature the official library accepts', () => {
      const secret = createWebhookSecret(Buffer.alloc(WEBHOOK_SECRET_BYTES, 7));
      const at = new Date();
      const body = webhookBody('swap.updated', new Date('2026-06-14T10:41:18.000Z'), { order: { id: 'x' }, event: null });
      const headers = signWebhook(secret, 'd7e5f1c2-0b3a-4c6d-9e8f-1a2b3c4d5e6f', at, body);
      expect(headers['webhook-id']).to.equal('d7e5f1c2-0b3a-4c6d-9e8f-1a2b3c4d5e6f');
      expect(headers['webhook-timestamp']).to.equal(String(Math.floor(at.getTime() / 1000)));
      expect(new Webhook(secret).verify(body, { ...headers })).to.deep.equal(JSON.parse(body));
    });

    it('signs a body of type, timestamp and data, in that order', () => {
      expect(webhookBody('webhook.test', new Date('2026-06-14T09:15:02.000Z'), { message: 'hi' })).to.equal(
        '{"type":"webhook.test","timestamp":"2026-06-14T09:15:02.000Z","data":{"message":"hi"}}',
      );
    });
  });

  describe('createWebhookSecret() and secretHint()', () => {
    it('makes whsec_ and the base64 of the random bytes, and hints at its last four characters', () => {
      const secret = createWebhookSecret(Buffer.from('0123456789abcdefghijklmn'));
      expect(secret).to.equal(`whsec_${Buffer.from('0123456789abcdefghijklmn').toString('base64')}`);
      expect(secretHint(secret)).to.equal(`whsec_…${secret.slice(-4)}`);
    });

    it('refuses fewer than 24 random bytes', () => {
      expect(() => createWebhookSecret(Buffer.alloc(16))).to.throw(/24/);
    });
  });
});
