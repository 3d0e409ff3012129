import { expect } from 'chai';
import { AppError } from '../../../server/domain/errors.js';
import { canonicalText, checkTimestamp, computeSignature, parseSignedHeaders, signaturesMatch } from '../../../server/domain/signing.js';
import { signingVector, signingVectorInput } from '../../support/signing-vector.js';

const vector = signingVector;
const request = signingVectorInput;
const validHeaders: Record<string, string> = {
  'x-service-key-id': vector.keyId,
  'x-service-user': vector.user,
  'x-service-timestamp': vector.timestamp,
  'x-service-nonce': vector.nonce,
  'x-service-signature': vector.signatureHeader,
};

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return (err as AppError).code;
  }
  return undefined;
}

describe('signing', () => {
  it('builds the canonical text of the published worked example', () => {
    expect(canonicalText(request)).to.equal(vector.canonicalText);
  });

  it('computes the signature of the published worked example', () => {
    expect(`v1=${computeSignature(vector.secret, request)}`).to.equal(vector.signatureHeader);
  });

  it('compares signatures without accepting a prefix or another length', () => {
    const hex = computeSignature(vector.secret, request);
    expect(signaturesMatch(hex, hex)).to.equal(true);
    expect(signaturesMatch(hex, hex.slice(0, 62))).to.equal(false);
    expect(signaturesMatch(hex, `${hex.slice(0, 63)}0`)).to.equal(hex.endsWith('0'));
  });

  describe('parseSignedHeaders(get)', () => {
    const parse = (overrides: Record<string, string | undefined>) => () =>
      parseSignedHeaders((name) => ({ ...validHeaders, ...overrides })[name]);

    it('reads valid headers', () => {
      expect(parse({})()).to.include({ keyId: vector.keyId, user: vector.user, signatureHex: vector.signatureHeader.slice(3) });
    });
    it('refuses a user with a space or over 128 characters', () => {
      expect(codeOf(parse({ 'x-service-user': 'two words' }))).to.equal('authentication_required');
      expect(codeOf(parse({ 'x-service-user': 'u'.repeat(129) }))).to.equal('authentication_required');
    });
    it('refuses a nonce outside 16-128 characters of [A-Za-z0-9_-]', () => {
      expect(codeOf(parse({ 'x-service-nonce': 'a'.repeat(15) }))).to.equal('authentication_required');
      expect(codeOf(parse({ 'x-service-nonce': `${'a'.repeat(16)}!` }))).to.equal('authentication_required');
    });
    it('refuses a timestamp that is not whole seconds as malformed', () => {
      expect(codeOf(parse({ 'x-service-timestamp': '1781431925.5' }))).to.equal('authentication_required');
    });
    it('refuses a signature without v1= or in upper case as malformed', () => {
      expect(codeOf(parse({ 'x-service-signature': vector.signatureHeader.slice(3) }))).to.equal('authentication_required');
      expect(codeOf(parse({ 'x-service-signature': vector.signatureHeader.toUpperCase() }))).to.equal('authentication_required');
    });
  });

  describe('checkTimestamp(timestamp, now)', () => {
    it('accepts exactly 300 s either way and refuses 301', () => {
      expect(codeOf(() => checkTimestamp('1000', 1300))).to.equal(undefined);
      expect(codeOf(() => checkTimestamp('1600', 1300))).to.equal(undefined);
      expect(codeOf(() => checkTimestamp('999', 1300))).to.equal('timestamp_out_of_window');
      expect(codeOf(() => checkTimestamp('1601', 1300))).to.equal('timestamp_out_of_window');
    });
  });
});
