import { expect } from 'chai';
import {
  checkWebhookTarget,
  checkWebhookUrlForm,
  forbiddenAddressReason,
  refusedAddress,
  WebhookTargetError,
  type TargetPolicy,
} from '../../../server/domain/webhook-targets.js';

// The policies of the modes, as config.ts modeCapabilities decides them.
const SANDBOX: TargetPolicy = { requireHttps: false, allowPrivateTargets: false, canAllowPrivateTargets: true };
const PRODUCTION: TargetPolicy = { requireHttps: true, allowPrivateTargets: false, canAllowPrivateTargets: false };
const LOCAL_DEVELOPMENT: TargetPolicy = { ...SANDBOX, allowPrivateTargets: true };

describe('domain/webhook-targets', () => {
  describe('forbiddenAddressReason()', () => {
    const forbidden: Array<[address: string, reason: RegExp]> = [
      ['127.0.0.1', /loopback/],
      ['127.255.255.254', /loopback/],
      ['10.0.0.1', /private/],
      ['172.16.0.1', /private/],
      ['172.31.255.255', /private/],
      ['192.168.0.1', /private/],
      ['169.254.169.254', /link-local.*metadata/],
      ['100.64.0.1', /carrier-grade NAT/],
      ['0.0.0.0', /unspecified/],
      ['192.0.2.1', /documentation/],
      ['192.88.99.1', /6to4 relay/],
      ['198.18.0.1', /benchmarking/],
      ['224.0.0.1', /multicast/],
      ['255.255.255.255', /reserved/],
      ['::1', /loopback/],
      ['::', /unspecified/],
      ['::7f00:1', /IPv4-compatible/],
      ['fc00::1', /unique local/],
      ['fd00:ec2::254', /unique local/],
      ['fe80::1', /link-local/],
      ['fe80::1%eth0', /link-local/],
      ['ff02::1', /multicast/],
      ['100::1', /discard/],
      ['2001:db8::1', /documentation/],
      ['3fff::1', /documentation/],
      ['5f00::1', /not a global unicast address/],
      ['[::1]', /loopback/],
      // IPv4 inside IPv6, judged by the IPv4 address: mapped (as written, and as the URL parser writes it),
      // translated, and the well-known NAT64 prefix.
      ['::ffff:127.0.0.1', /IPv4-mapped address of 127\.0\.0\.1, a loopback address/],
      ['::ffff:7f00:1', /IPv4-mapped address of 127\.0\.0\.1, a loopback/],
      ['::ffff:10.0.0.1', /of 10\.0\.0\.1, a private address/],
      ['::ffff:a9fe:a9fe', /of 169\.254\.169\.254, a link-local/],
      ['::ffff:0:127.0.0.1', /IPv4-translated address of 127\.0\.0\.1, a loopback/],
      ['::ffff:0:a9fe:a9fe', /IPv4-translated address of 169\.254\.169\.254/],
      ['64:ff9b::7f00:1', /NAT64 address of 127\.0\.0\.1, a loopback/],
      ['64:ff9b::a9fe:a9fe', /NAT64 address of 169\.254\.169\.254/],
      // IPv4 inside IPv6, refused outright whatever it carries.
      ['64:ff9b:1::808:808', /local-use NAT64/],
      ['64:ff9b:1:ffff::7f00:1', /local-use NAT64/],
      ['2002:7f00:1::1', /6to4/],
      ['2002:808:808::1', /6to4/],
      ['2001:0:4136:e378:8000:63bf:3fff:fdd2', /Teredo/],
      ['2001:2::1', /benchmarking/],
      ['2001:20::1', /ORCHID/],
    ];
    for (const [address, reason] of forbidden) {
      it(`refuses ${address}, naming why`, () => {
        expect(forbiddenAddressReason(address)).to.match(reason);
      });
    }

    for (const address of [
      '93.184.215.14',
      '8.8.8.8',
      '172.32.0.1',
      '100.128.0.1',
      '2606:4700:4700::1111',
      '2a00:1450:4001:80b::200e',
      '::ffff:8.8.8.8',
      '::ffff:0:8.8.8.8',
      '64:ff9b::808:808',
      '2001:4860:4860::8888',
    ]) {
      it(`accepts the global unicast address ${address}`, () => {
        expect(forbiddenAddressReason(address)).to.equal(undefined);
      });
    }

    it('says a host name is not an address', () => {
      expect(forbiddenAddressReason('localhost')).to.equal('not an IP address');
    });
  });

  describe('refusedAddress()', () => {
    it('refuses in every mode, and hints at WEBHOOK_ALLOW_PRIVATE_TARGETS in sandbox mode only', () => {
      expect(refusedAddress('127.0.0.1', SANDBOX)?.message).to.equal(
        'url must reach a public address; 127.0.0.1 is a loopback address (a sandbox server run for local development can allow it: WEBHOOK_ALLOW_PRIVATE_TARGETS=true).',
      );
      expect(refusedAddress('10.0.0.5', PRODUCTION, 'hooks.partner.example.org')?.message).to.equal(
        'url must reach a public address; 10.0.0.5 (hooks.partner.example.org resolves to it) is a private address.',
      );
    });

    it('refuses nothing with allowPrivateTargets, and nothing public without it', () => {
      expect(refusedAddress('127.0.0.1', LOCAL_DEVELOPMENT)).to.equal(undefined);
      expect(refusedAddress('93.184.215.14', SANDBOX)).to.equal(undefined);
    });
  });

  describe('checkWebhookUrlForm()', () => {
    it('accepts http in sandbox mode and refuses it in production', () => {
      expect(checkWebhookUrlForm('http://127.0.0.1:9000/hooks', SANDBOX.requireHttps).port).to.equal('9000');
      expect(() => checkWebhookUrlForm('http://partner.example.org/hooks', PRODUCTION.requireHttps)).to.throw(
        WebhookTargetError,
        'url must use https in production mode.',
      );
    });

    it('refuses other schemes, credentials and fragments in every mode', () => {
      for (const url of [
        'ftp://partner.example.org/',
        'https://a:b@partner.example.org/',
        'https://partner.example.org/#x',
        'partner.example.org',
      ]) {
        for (const { requireHttps } of [SANDBOX, PRODUCTION]) {
          expect(() => checkWebhookUrlForm(url, requireHttps), url).to.throw(WebhookTargetError);
        }
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
      const error = await checkWebhookTarget(url, PRODUCTION, resolveTo('93.184.215.14', '10.0.0.5')).catch((err: unknown) => err);
      expect(error).to.be.instanceOf(WebhookTargetError);
      expect((error as Error).message).to.contain('10.0.0.5 (hooks.partner.example.org resolves to it) is a private address');
    });

    it('accepts a name whose addresses are all public', async () => {
      await checkWebhookTarget(new URL('https://hooks.partner.example.org/x'), PRODUCTION, resolveTo('93.184.215.14', '2606:4700::1'));
    });

    it('refuses a name that does not resolve', async () => {
      const fail = async () => {
        throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' });
      };
      const error = await checkWebhookTarget(new URL('https://nowhere.invalid/'), PRODUCTION, fail).catch((err: unknown) => err);
      expect((error as Error).message).to.match(/does not resolve \(ENOTFOUND\)/);
    });

    it('refuses local addresses in sandbox mode too, the URL parser’s form of a mapped address included', async () => {
      for (const url of [
        'http://127.0.0.1:9000/hooks',
        'http://[::ffff:127.0.0.1]:9000/hooks',
        'http://169.254.169.254/latest/meta-data/',
      ]) {
        const error = await checkWebhookTarget(new URL(url), SANDBOX, resolveTo()).catch((err: unknown) => err);
        expect(error, url).to.be.instanceOf(WebhookTargetError);
      }
    });

    it('checks nothing with allowPrivateTargets', async () => {
      await checkWebhookTarget(new URL('http://127.0.0.1/'), LOCAL_DEVELOPMENT, resolveTo());
    });
  });
});
