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
import {
  checkWebhookTarget,
  checkWebhookUrlForm,
  forbiddenAddressReason,
  WebhookTargetError,
} from '../../../server/domain/webhook-targets.js';

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

describe('domain/webhook-targets', () => {
  describe('forbiddenAddressReason()', () => {
    const forbidden = [
      '127.0.0.1',
      '127.255.255.254',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fc00::1',
      'fd00:ec2::254',
      'fe80::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '::ffff:a9fe:a9fe',
      '64:ff9b::7f00:1',
      '64:ff9b::a9fe:a9fe',
    ];
    for (const address of forbidden) {
      it(`refuses ${address}`, () => {
        expect(forbiddenAddressReason(address)).to.be.a('string');
      });
    }

    for (const address of ['93.184.215.14', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808']) {
      it(`accepts the public address ${address}`, () => {
        expect(forbiddenAddressReason(address)).to.equal(undefined);
      });
    }

    it('names what the address is', () => {
      expect(forbiddenAddressReason('169.254.169.254')).to.match(/link-local.*metadata/);
      expect(forbiddenAddressReason('::ffff:127.0.0.1')).to.match(/loopback/);
    });
  });

  describe('checkWebhookUrlForm()', () => {
    it('accepts http in sandbox mode and refuses it in production', () => {
      expect(checkWebhookUrlForm('http://127.0.0.1:9000/hooks', 'sandbox').port).to.equal('9000');
      expect(() => checkWebhookUrlForm('http://partner.example.org/hooks', 'production')).to.throw(WebhookTargetError, /https/);
    });

    it('refuses other schemes, credentials and fragments in every mode', () => {
      for (const url of [
        'ftp://partner.example.org/',
        'https://a:b@partner.example.org/',
        'https://partner.example.org/#x',
        'partner.example.org',
      ]) {
        expect(() => checkWebhookUrlForm(url, 'sandbox'), url).to.throw(WebhookTargetError);
      }
    });
  });

  describe('checkWebhookTarget()', () => {
    const resolveTo =
      (...addresses: string[]) =>
      async () =>
        addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

    it('refuses a name when any of its addresses is not public', async () => {
      const url = new URL('https://hooks.partner.example.org/x');
      const error = await checkWebhookTarget(url, 'production', resolveTo('93.184.215.14', '10.0.0.5')).catch((err: unknown) => err);
      expect(error).to.be.instanceOf(WebhookTargetError);
      expect((error as Error).message).to.contain('10.0.0.5 (hooks.partner.example.org resolves to it) is a private address');
    });

    it('accepts a name whose addresses are all public', async () => {
      await checkWebhookTarget(new URL('https://hooks.partner.example.org/x'), 'production', resolveTo('93.184.215.14', '2606:4700::1'));
    });

    it('refuses a name that does not resolve', async () => {
      const fail = async () => {
        throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' });
      };
      const error = await checkWebhookTarget(new URL('https://nowhere.invalid/'), 'production', fail).catch((err: unknown) => err);
      expect((error as Error).message).to.match(/does not resolve \(ENOTFOUND\)/);
    });

    it('checks nothing in sandbox mode', async () => {
      await checkWebhookTarget(new URL('http://127.0.0.1/'), 'sandbox', resolveTo());
    });
  });
});
