import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { createSecretBox, partnerSecretOwner, SecretUnreadableError } from '../../../server/store/secret-box.js';

describe('SecretBox', () => {
  const box = createSecretBox(randomBytes(32));
  const owner = partnerSecretOwner('pk_acme');

  it('opens what it sealed for the same owner', () => {
    expect(box.open(box.seal('pss_sk_secret', owner), owner)).to.equal('pss_sk_secret');
  });

  it('refuses to open a value for another owner', () => {
    expect(() => box.open(box.seal('pss_sk_secret', owner), partnerSecretOwner('pk_globex'))).to.throw(SecretUnreadableError);
  });

  it('refuses a value sealed under another key', () => {
    const other = createSecretBox(randomBytes(32));
    expect(() => box.open(other.seal('pss_sk_secret', owner), owner)).to.throw(SecretUnreadableError);
  });

  it('refuses a tampered ciphertext', () => {
    const [version, iv, tag, ciphertext] = box.seal('pss_sk_secret', owner).split('.');
    const flipped = Buffer.from(ciphertext, 'base64url');
    flipped[0] ^= 1;
    expect(() => box.open([version, iv, tag, flipped.toString('base64url')].join('.'), owner)).to.throw(SecretUnreadableError);
  });

  it('does not open a value in the unbound first format as a bound one', () => {
    const sealed = box.seal('pss_sk_secret', owner).replace(/^v2\./, 'v1.');
    expect(() => box.open(sealed, owner)).to.throw(SecretUnreadableError);
  });
});
