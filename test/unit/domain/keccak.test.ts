import { randomBytes } from 'node:crypto';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { hex, utf8 } from '@scure/base';
import { expect } from 'chai';
import { keccak256 } from '../../../server/domain/keccak.js';

describe('keccak256 (hash-wasm)', () => {
  it('is the original Keccak-256, not SHA3-256', () => {
    expect(hex.encode(keccak256(new Uint8Array()))).to.equal('c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    expect(hex.encode(keccak256(utf8.decode('abc')))).to.equal('4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45');
  });

  it('agrees with @noble/hashes on inputs of every length around the 136-byte block', () => {
    for (let length = 0; length <= 3 * 136 + 1; length++) {
      const data = randomBytes(length);
      expect(hex.encode(keccak256(data)), `length ${length}`).to.equal(hex.encode(keccak_256(data)));
    }
  });

  it('hashes its parts as one concatenated input', () => {
    const [a, b, c] = [randomBytes(32), randomBytes(200), randomBytes(1)];
    expect(hex.encode(keccak256(a, b, c))).to.equal(hex.encode(keccak_256(Buffer.concat([a, b, c]))));
  });

  it('hashes a view into a larger buffer as its own bytes only (byteOffset and length respected)', () => {
    const whole = randomBytes(300);
    const view = whole.subarray(17, 17 + 150);
    expect(hex.encode(keccak256(view))).to.equal(hex.encode(keccak_256(Uint8Array.from(view))));
  });

  it('returns a new array each time (a later hash leaves an earlier result as it was)', () => {
    const first = keccak256(utf8.decode('first'));
    const copy = hex.encode(first);
    keccak256(utf8.decode('second'));
    expect(hex.encode(first)).to.equal(copy);
    expect(first).to.have.length(32);
  });
});
