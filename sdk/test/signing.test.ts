import { expect } from 'chai';
import { canonicalText, signatureHeader, signedHeaders } from '../src/index.js';
import { signingVector, signingVectorInput } from '../../test/support/signing-vector.js';

// The worked example published in docs/signing.md and the spec; the server's tests check the same vector.
const vector = signingVector;
const input = signingVectorInput;

describe('sdk signing', () => {
  it('builds the canonical text of the worked example', () => {
    expect(canonicalText(input)).to.equal(vector.canonicalText);
  });

  it('produces the signature of the worked example', () => {
    expect(signatureHeader(vector.secret, input)).to.equal(vector.signatureHeader);
  });

  it('hashes the empty string when there is no body', () => {
    const text = canonicalText({ ...input, method: 'get', body: new Uint8Array() });
    expect(text.split('\n')[2]).to.equal('GET');
    expect(text.split('\n')[8]).to.equal('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('sets all five headers', () => {
    expect(Object.keys(signedHeaders(vector.secret, input))).to.deep.equal([
      'x-service-key-id',
      'x-service-user',
      'x-service-timestamp',
      'x-service-nonce',
      'x-service-signature',
    ]);
  });
});
