import { expect } from 'chai';
import fc from 'fast-check';
import {
  buildChallengeText,
  CHALLENGE_NOTICE,
  CHALLENGE_TITLE,
  ChallengeTextError,
  type ChallengeFields,
} from '../../../server/domain/route-challenge.js';

const ADDRESS = 'ZxDFpn4k7xVYyc9VZ3LphrJbkpc46xfREace5bme1aXiMzKPAHA8jsTWcHSXhv9AdodSaoGXK9Mg7bk3ec4FkQrj357fZPWZX';

function fields(): ChallengeFields {
  return {
    origin: 'https://swap.example.com',
    address: ADDRESS,
    asset: 'ZANO',
    network: 'ZANO',
    user: 'user-42',
    nonce: 'n8Qd2xKp7VbR4sLm',
    issuedAt: new Date('2026-07-01T12:00:00.000Z'),
    expiresAt: new Date('2026-07-01T12:10:00.000Z'),
  };
}

describe('domain/route-challenge', () => {
  describe('buildChallengeText(fields)', () => {
    it('writes the documented ten lines joined by LF, without a trailing newline', () => {
      expect(buildChallengeText(fields())).to.equal(
        [
          'Partner Swap Service ownership challenge',
          'Sign this text to prove you control the address below. Signing does not move any funds.',
          'Origin: https://swap.example.com',
          `Address: ${ADDRESS}`,
          'Asset: ZANO',
          'Network: ZANO',
          'User: user-42',
          'Nonce: n8Qd2xKp7VbR4sLm',
          'Issued At: 2026-07-01T12:00:00.000Z',
          'Expires At: 2026-07-01T12:10:00.000Z',
        ].join('\n'),
      );
    });

    it('prints the times in UTC whatever zone the Date was made in', () => {
      const text = buildChallengeText({ ...fields(), issuedAt: new Date('2026-07-01T14:00:00+02:00') });
      expect(text).to.contain('\nIssued At: 2026-07-01T12:00:00.000Z\n');
    });

    it('refuses a non-ASCII user', () => {
      expect(() => buildChallengeText({ ...fields(), user: 'jürgen' })).to.throw(ChallengeTextError, /user must be visible ASCII/);
    });

    it('refuses a non-ASCII address', () => {
      expect(() => buildChallengeText({ ...fields(), address: ADDRESS.replace('Zx', 'Ζx') })).to.throw(
        ChallengeTextError,
        /address must be visible ASCII/,
      );
    });

    it('refuses a line break that would forge another line', () => {
      expect(() => buildChallengeText({ ...fields(), asset: 'ZANO\nNetwork: ETH' })).to.throw(
        ChallengeTextError,
        /asset must be visible ASCII/,
      );
    });

    it('refuses an empty origin', () => {
      expect(() => buildChallengeText({ ...fields(), origin: '' })).to.throw(ChallengeTextError, /origin must be a non-empty string/);
    });

    it('refuses a nonce shorter than 16 characters', () => {
      expect(() => buildChallengeText({ ...fields(), nonce: 'short' })).to.throw(ChallengeTextError, /nonce must have at least 16/);
    });

    it('refuses an invalid date', () => {
      expect(() => buildChallengeText({ ...fields(), issuedAt: new Date('nope') })).to.throw(
        ChallengeTextError,
        /issuedAt must be a valid Date/,
      );
    });

    it('refuses an expiry that is not after the issue time', () => {
      const { issuedAt } = fields();
      expect(() => buildChallengeText({ ...fields(), expiresAt: issuedAt })).to.throw(
        ChallengeTextError,
        /expiresAt .* must be after issuedAt/,
      );
    });

    it('either writes ASCII lines or throws ChallengeTextError for random strings in every field', () => {
      const text = fc.string({ unit: 'binary', maxLength: 40 });
      const printable = fc.stringMatching(/^[\x21-\x7e]{1,40}$/);
      const value = fc.oneof(text, printable);
      fc.assert(
        fc.property(value, value, value, value, value, fc.oneof(text, printable), fc.date(), fc.date(), (...args) => {
          const [origin, address, asset, network, user, nonce, issuedAt, expiresAt] = args;
          let written: string;
          try {
            written = buildChallengeText({ origin, address, asset, network, user, nonce, issuedAt, expiresAt });
          } catch (error) {
            expect(error).to.be.instanceOf(ChallengeTextError);
            return;
          }
          const lines = written.split('\n');
          expect(lines).to.have.length(10);
          expect(lines.slice(0, 2)).to.deep.equal([CHALLENGE_TITLE, CHALLENGE_NOTICE]);
          expect(written).to.match(/^[\x20-\x7e\n]+$/);
        }),
        { numRuns: 500 },
      );
    });
  });
});
