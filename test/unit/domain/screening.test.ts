import { expect } from 'chai';
import {
  DenylistError,
  isDenylisted,
  MalformedScreeningAnswerError,
  MAX_SCREENING_REASON_CHARS,
  parseDenylist,
  parseScreeningAnswer,
  screeningKeyOf,
} from '../../../server/domain/screening.js';

const NETWORKS = ['BTC', 'ETH', 'BSC', 'LTC', 'ZANO'];
const EVM = '0x71C7656EC7ab88b098defB751B7401B5f6d8976F';
const BTC = 'bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh';
const ZANO = 'ZxDFpn4k7xVYyc9VZ3LphrJbkpc46xfREace5bme1aXiMzKPAHA8jsTWcHSXhv9AdodSaoGXK9Mg7bk3ec4FkQrj357fZPWZX';

describe('screening (domain)', () => {
  describe('screeningKeyOf', () => {
    it('lower-cases EVM hex and bech32 addresses, whose case carries no meaning', () => {
      expect(screeningKeyOf(EVM)).to.equal(EVM.toLowerCase());
      expect(screeningKeyOf(BTC.toUpperCase())).to.equal(BTC);
    });

    it('keeps every other address exactly as written', () => {
      expect(screeningKeyOf(ZANO)).to.equal(ZANO);
      expect(screeningKeyOf('1BoatSLRHtKNngkdXEeobR76b53LETtpyT')).to.equal('1BoatSLRHtKNngkdXEeobR76b53LETtpyT');
    });
  });

  describe('parseDenylist', () => {
    it('denies an address without a prefix on every network, in any case where case means nothing', () => {
      const list = parseDenylist(`# sanctioned\n\n${EVM.toLowerCase()}\n`, 'test', NETWORKS);
      expect(isDenylisted(list, 'ETH', EVM)).to.equal(true);
      expect(isDenylisted(list, 'BSC', EVM.toUpperCase().replace('0X', '0x'))).to.equal(true);
      expect(list.size).to.equal(1);
    });

    it('denies a NETWORK: entry on that network only', () => {
      const list = parseDenylist(`ETH:${EVM}\nZANO:${ZANO}`, 'test', NETWORKS);
      expect(isDenylisted(list, 'ETH', EVM.toLowerCase())).to.equal(true);
      expect(isDenylisted(list, 'BSC', EVM)).to.equal(false);
      expect(isDenylisted(list, 'ZANO', ZANO)).to.equal(true);
      // Zano addresses are case-sensitive: another case is another string, not the same address.
      expect(isDenylisted(list, 'ZANO', ZANO.toLowerCase())).to.equal(false);
    });

    it('names the file and the line of an entry that is not an address', () => {
      expect(() => parseDenylist(`${EVM}\nnot-an-address`, 'deny.txt', NETWORKS)).to.throw(
        DenylistError,
        /deny\.txt line 2 .*not a valid address of any network/,
      );
    });

    it('refuses an unknown network, an address invalid on its network, a lower-case prefix and spaces', () => {
      expect(() => parseDenylist(`DOGE:${EVM}`, 'f', NETWORKS)).to.throw(DenylistError, /line 1 .*DOGE is not a network of this service/);
      expect(() => parseDenylist(`BTC:${EVM}`, 'f', NETWORKS)).to.throw(DenylistError, /line 1 .*Not a valid/);
      expect(() => parseDenylist(`eth:${EVM}`, 'f', NETWORKS)).to.throw(DenylistError, /network code in capitals/);
      expect(() => parseDenylist(`${EVM} ${BTC}`, 'f', NETWORKS)).to.throw(DenylistError, /no spaces/);
    });
  });

  describe('parseScreeningAnswer', () => {
    it('reads each decision with its reason', () => {
      expect(parseScreeningAnswer('{"decision":"deny","reason":"OFAC SDN"}')).to.deep.equal({ decision: 'deny', reason: 'OFAC SDN' });
      expect(parseScreeningAnswer('{"decision":"review"}')).to.deep.equal({ decision: 'review', reason: null });
      expect(parseScreeningAnswer('{"decision":"allow","reason":null,"score":3}')).to.deep.equal({ decision: 'allow', reason: null });
    });

    it('refuses a body that is not JSON, not an object, or names no known decision', () => {
      for (const bad of ['<html>busy</html>', '', '"allow"', '["allow"]', 'null', '{}', '{"decision":"ALLOW"}', '{"decision":"block"}']) {
        expect(() => parseScreeningAnswer(bad), bad).to.throw(MalformedScreeningAnswerError);
      }
    });

    it('refuses a reason that is not a string or is longer than the limit', () => {
      expect(() => parseScreeningAnswer('{"decision":"deny","reason":42}')).to.throw(MalformedScreeningAnswerError, /not a string/);
      const long = 'x'.repeat(MAX_SCREENING_REASON_CHARS + 1);
      expect(() => parseScreeningAnswer(JSON.stringify({ decision: 'deny', reason: long }))).to.throw(
        MalformedScreeningAnswerError,
        /characters/,
      );
    });

    it('puts a reason written over several lines on one', () => {
      expect(parseScreeningAnswer('{"decision":"review","reason":"mixer\\nexposure"}').reason).to.equal('mixer exposure');
    });
  });
});
