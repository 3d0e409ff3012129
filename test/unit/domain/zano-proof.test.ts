import { randomBytes } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, concatBytes, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { base58xmr } from '@scure/base';
import { expect } from 'chai';
import fc from 'fast-check';
import sodium from 'sodium-native';
import { buildChallengeText } from '../../../server/domain/route-challenge.js';
import { encodeZanoAddress, ZANO_ADDRESS_TAGS } from '../../../server/domain/zano-address.js';
import {
  signZanoMessage,
  verifyZanoProof,
  ZANO_SIGN_HDS,
  zanoPublicKey,
  zanoSignedHash,
  type ZanoProof,
  type ZanoProofFormat,
} from '../../../server/domain/zano-proof.js';

// /work/shared/reference/zano-vectors.md: the first address of the table, its spend secret and the two signatures.
const VECTOR = {
  address: 'ZxDFpn4k7xVYyc9VZ3LphrJbkpc46xfREace5bme1aXiMzKPAHA8jsTWcHSXhv9AdodSaoGXK9Mg7bk3ec4FkQrj357fZPWZX',
  auditableAddress: 'aZxbBZTLRNv9VJpNtt3geei3o4mye12eFe6bNZAzxtiBg49XYns3HAkBVBn3N46s9A8Ai7PBbZxnbQZ3huf2zg3NAXQpyvGqLd7',
  secretKey: '80b3e96a3eb765332b0fd3e44e0fefa58747a70025bf91aa4a7b758ab6f5590d',
  publicKey: 'b3eee2376f32bf2bfb5cf9c023f569380c84ac8c64ddc8f7c109730dc8e97d7a',
  viewPublicKey: 'fa9c2811c53eb1044490e931f92ad9ddf317220df08ccfb5b83eccfdbd38f135',
  message: 'Zano ownership challenge: nonce=0123456789abcdef',
  messageHash: 'af6aeff88ec16e9ce8659d76e5edac99f0bbaa6dd8a35713c8267e5638aa27f7',
  v2Hash: 'f059c49c7a03a1f9ccdbc55b4598f599b9ba7c3ce86189788e327a827982c3ce',
  v2Signature:
    '05ea6a263932751e03afb1c1ad143532f458cedd3c8b77e0aa2c5a40f5531e04e781bf80330d9f968bd2ea1d42c917d0213e3e71cde809606b3a31beba13c20d',
  legacySignature:
    'ffe4ff766e2fd694f648a3bd05dda6d17648622c943e9ce45604c75d068bef06a1639984c07f6e16302f5bb7391d2c49e93bea9fdd90a908dccb2c71d957a301',
} as const;

/** The order of Ed25519's prime-order subgroup. */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;

// The example proof for the spec and the docs: the vectors' key signing a real challenge text, with a fixed k.
const SPEC_EXAMPLE = {
  address: VECTOR.address,
  message: buildChallengeText({
    origin: 'https://swap.example.com',
    address: VECTOR.address,
    asset: 'ZANO',
    network: 'ZANO',
    user: 'user-42',
    nonce: 'n8Qd2xKp7VbR4sLm',
    issuedAt: new Date('2026-07-01T12:00:00.000Z'),
    expiresAt: new Date('2026-07-01T12:10:00.000Z'),
  }),
  publicKey: VECTOR.publicKey,
  signature:
    'e540c8b008894bd9a3a4895c041efe5cea734069cfc01f703ffd37b2acd97b0a3bd255c4eea6cee2e1a399bae6b68f20f959660b596408e5a39ec2c8a76fb608',
  k: scalarBytes(bytesToScalar(keccak_256(utf8ToBytes('partner-swap-service spec example k'))) % L),
};

function bytesToScalar(bytes: Uint8Array): bigint {
  return BigInt('0x' + bytesToHex(Uint8Array.from(bytes).reverse()));
}

function scalarBytes(value: bigint): Uint8Array {
  return hexToBytes(value.toString(16).padStart(64, '0')).reverse();
}

/** A fresh secret scalar in [1, l): random bytes from node:crypto reduced mod l. */
function freshSecret(): Uint8Array {
  const value = bytesToScalar(randomBytes(32)) % L;
  return value === 0n ? freshSecret() : scalarBytes(value);
}

/** A fresh wallet: its spend secret and its standard address. */
function freshWallet(): { secret: Uint8Array; address: string; publicKey: string } {
  const secret = freshSecret();
  const publicKey = zanoPublicKey(secret);
  const view = hexToBytes(zanoPublicKey(freshSecret()));
  return { secret, publicKey, address: encodeZanoAddress(ZANO_ADDRESS_TAGS.standard, concatBytes(hexToBytes(publicKey), view)) };
}

function freshChallenge(address: string): string {
  const issuedAt = new Date();
  return buildChallengeText({
    origin: 'https://swap.example.com',
    address,
    asset: 'fUSD',
    network: 'ZANO',
    user: `user-${randomBytes(4).toString('hex')}`,
    nonce: randomBytes(16).toString('base64url'),
    issuedAt,
    expiresAt: new Date(issuedAt.getTime() + 600_000),
  });
}

/** A valid proof by a fresh wallet over a fresh challenge text. */
function freshProof(format: ZanoProofFormat = 'v2'): ZanoProof {
  const wallet = freshWallet();
  const message = freshChallenge(wallet.address);
  const signed = signZanoMessage(wallet.secret, message, freshSecret(), format);
  return { address: wallet.address, message, ...signed };
}

/** The signature with one byte (0-63) changed. */
function flipByte(signature: string, index: number): string {
  const bytes = hexToBytes(signature);
  bytes[index] ^= 0x01;
  return bytesToHex(bytes);
}

/** The signature with scalar c (part 0) or r (part 1) replaced by the same value plus l, which still fits 32 bytes. */
function plusL(signature: string, part: 0 | 1): string {
  const bytes = hexToBytes(signature);
  const scalar = bytes.subarray(32 * part, 32 * part + 32);
  scalar.set(scalarBytes(bytesToScalar(scalar) + L));
  return bytesToHex(bytes);
}

function expectRefused(proof: ZanoProof, reason: RegExp): void {
  const result = verifyZanoProof(proof);
  expect(result.ok, JSON.stringify(result)).to.equal(false);
  if (!result.ok) expect(result.reason).to.match(reason);
}

describe('domain/zano-proof', () => {
  describe('zanoSignedHash(message, format)', () => {
    it('is the original Keccak-256 of the message for legacy', () => {
      expect(bytesToHex(zanoSignedHash('', 'legacy'))).to.equal('c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
      expect(bytesToHex(zanoSignedHash(VECTOR.message, 'legacy'))).to.equal(VECTOR.messageHash);
    });

    it('is Keccak-256 of the NUL-padded HDS and the message hash for v2', () => {
      expect(ZANO_SIGN_HDS).to.have.length(32);
      expect(bytesToHex(zanoSignedHash(VECTOR.message, 'v2'))).to.equal(VECTOR.v2Hash);
    });
  });

  describe('zanoPublicKey(secretKey)', () => {
    it("derives the vectors' spend public key from their secret without seed hashing", () => {
      expect(zanoPublicKey(hexToBytes(VECTOR.secretKey))).to.equal(VECTOR.publicKey);
    });

    it('refuses a secret that is not a scalar below l', () => {
      expect(() => zanoPublicKey(scalarBytes(L))).to.throw(RangeError);
      expect(() => zanoPublicKey(new Uint8Array(31))).to.throw(TypeError);
    });
  });

  describe('verifyZanoProof() with the published vectors', () => {
    const vectorProof = (signature: string): ZanoProof => ({
      address: VECTOR.address,
      message: VECTOR.message,
      publicKey: VECTOR.publicKey,
      signature,
    });

    it('accepts the v2 signature as v2', () => {
      expect(verifyZanoProof(vectorProof(VECTOR.v2Signature))).to.deep.equal({ ok: true, format: 'v2' });
    });

    it('refuses the v2 signature as a legacy one', () => {
      const result = verifyZanoProof(vectorProof(VECTOR.v2Signature), { formats: ['legacy'] });
      expect(result).to.deep.equal({
        ok: false,
        reason: 'signature does not verify for this message and public key (as a legacy Zano signature)',
      });
    });

    it('accepts the legacy signature only as legacy', () => {
      expect(verifyZanoProof(vectorProof(VECTOR.legacySignature))).to.deep.equal({ ok: true, format: 'legacy' });
      expect(verifyZanoProof(vectorProof(VECTOR.legacySignature), { formats: ['v2'] }).ok).to.equal(false);
    });

    it('accepts upper-case hex in the public key and the signature', () => {
      const proof = { ...vectorProof(VECTOR.v2Signature.toUpperCase()), publicKey: VECTOR.publicKey.toUpperCase() };
      expect(verifyZanoProof(proof)).to.deep.equal({ ok: true, format: 'v2' });
    });

    it('accepts the same signature for the auditable address of the same account', () => {
      expect(verifyZanoProof({ ...vectorProof(VECTOR.v2Signature), address: VECTOR.auditableAddress })).to.deep.equal({
        ok: true,
        format: 'v2',
      });
    });

    it('refuses the vector signature for a message with one character changed', () => {
      expectRefused({ ...vectorProof(VECTOR.v2Signature), message: VECTOR.message.replace('f', 'e') }, /does not verify/);
    });
  });

  describe('signZanoMessage(secretKey, message, k, format)', () => {
    it('makes the spec example: a v2 proof of a challenge text by the vectors key', () => {
      const signed = signZanoMessage(hexToBytes(VECTOR.secretKey), SPEC_EXAMPLE.message, SPEC_EXAMPLE.k, 'v2');
      expect(signed).to.deep.equal({ publicKey: SPEC_EXAMPLE.publicKey, signature: SPEC_EXAMPLE.signature });
      const { address, message, publicKey, signature } = SPEC_EXAMPLE;
      expect(verifyZanoProof({ address, message, publicKey, signature })).to.deep.equal({ ok: true, format: 'v2' });
    });

    for (const format of ['v2', 'legacy'] as const) {
      it(`signs a fresh challenge with a fresh key that verifies as ${format}`, () => {
        expect(verifyZanoProof(freshProof(format))).to.deep.equal({ ok: true, format });
      });
    }

    it('signs random messages with random keys that verify in the format they were made in', () => {
      fc.assert(
        fc.property(
          fc.uint8Array({ minLength: 32, maxLength: 32 }),
          fc.uint8Array({ minLength: 32, maxLength: 32 }),
          fc.string({ unit: 'grapheme', maxLength: 200 }),
          fc.constantFrom<ZanoProofFormat>('v2', 'legacy'),
          (secretSeed, kSeed, message, format) => {
            const secret = scalarBytes((bytesToScalar(secretSeed) % (L - 1n)) + 1n);
            const k = scalarBytes((bytesToScalar(kSeed) % (L - 1n)) + 1n);
            const signed = signZanoMessage(secret, message, k, format);
            const address = encodeZanoAddress(
              ZANO_ADDRESS_TAGS.standard,
              concatBytes(hexToBytes(signed.publicKey), hexToBytes(VECTOR.viewPublicKey)),
            );
            expect(verifyZanoProof({ address, message, ...signed })).to.deep.equal({ ok: true, format });
          },
        ),
        { numRuns: 40 },
      );
    });
  });

  describe('verifyZanoProof() refusals', () => {
    it('refuses a changed message', () => {
      const proof = freshProof();
      expectRefused({ ...proof, message: proof.message.replace('Nonce: ', 'Nonce: x') }, /signature does not verify/);
    });

    it('refuses a signature with a byte of c changed', () => {
      const proof = freshProof();
      expectRefused({ ...proof, signature: flipByte(proof.signature, 0) }, /signature does not verify/);
    });

    it('refuses a signature with a byte of r changed', () => {
      const proof = freshProof();
      expectRefused({ ...proof, signature: flipByte(proof.signature, 40) }, /signature does not verify/);
    });

    it("refuses another key's public key for the address", () => {
      const proof = freshProof();
      expectRefused({ ...proof, publicKey: freshWallet().publicKey }, /not the address's spend public key/);
    });

    it("refuses a signature made by another wallet's key", () => {
      const proof = freshProof();
      const other = freshWallet();
      expectRefused({ ...proof, address: other.address, publicKey: other.publicKey }, /signature does not verify/);
    });

    it('refuses a non-canonical scalar c (c + l)', () => {
      const proof = freshProof();
      expectRefused({ ...proof, signature: plusL(proof.signature, 0) }, /not canonical: its scalar c/);
    });

    it('refuses a non-canonical scalar r (r + l)', () => {
      const proof = freshProof();
      expectRefused({ ...proof, signature: plusL(proof.signature, 1) }, /not canonical: its scalar r/);
    });

    it('refuses an address whose spend key is a non-canonical encoding (y + p of the point y = 1)', () => {
      // 2^255 - 18 = p + 1: the encoding of the identity point with y reduced past p.
      const nonCanonical = 'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f';
      const address = encodeZanoAddress(
        ZANO_ADDRESS_TAGS.standard,
        concatBytes(hexToBytes(nonCanonical), hexToBytes(VECTOR.viewPublicKey)),
      );
      const proof = freshProof();
      expectRefused({ ...proof, address, publicKey: nonCanonical }, /spend public key is not a valid Ed25519 point/);
    });

    it('refuses a public key that differs from the spend key only in a non-canonical encoding', () => {
      // "Negative zero": the identity point with the sign bit of x set, which strict decoding refuses.
      const identity = '01' + '00'.repeat(31);
      const negativeZero = '01' + '00'.repeat(30) + '80';
      const address = encodeZanoAddress(ZANO_ADDRESS_TAGS.standard, concatBytes(hexToBytes(identity), hexToBytes(VECTOR.viewPublicKey)));
      expectRefused({ ...freshProof(), address, publicKey: negativeZero }, /not the address's spend public key/);
    });

    it("accepts a spend key with a small-order component, as Zano's check_signature does (libsodium refuses it)", () => {
      // No wallet makes such a key, but Zano only decodes the key, so its proof is valid there: the check's
      // native path (libsodium, prime-order subgroup only) must hand it to the JavaScript one.
      const torsion = ed25519.Point.fromHex('c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a');
      expect(torsion.isSmallOrder()).to.equal(true);
      const secret = bytesToScalar(freshSecret());
      const pub = ed25519.Point.BASE.multiply(secret).add(torsion).toBytes();
      const address = encodeZanoAddress(ZANO_ADDRESS_TAGS.standard, concatBytes(pub, hexToBytes(VECTOR.viewPublicKey)));
      const message = freshChallenge(address);
      const h = zanoSignedHash(message, 'v2');
      // r*G + c*(s*G + T) = k*G when c is a multiple of 8 (T's order) and r = k - c*s: draw k until c is one.
      let signature = '';
      while (!signature) {
        const k = bytesToScalar(freshSecret());
        const c = bytesToScalar(keccak_256(concatBytes(h, pub, ed25519.Point.BASE.multiply(k).toBytes()))) % L;
        if (c % 8n !== 0n) continue;
        expect(() => sodium.crypto_scalarmult_ed25519_noclamp(new Uint8Array(32), scalarBytes(c), pub)).to.throw();
        signature = bytesToHex(concatBytes(scalarBytes(c), scalarBytes((((k - c * secret) % L) + L) % L)));
      }
      const proof = { address, message, publicKey: bytesToHex(pub), signature };
      expect(verifyZanoProof(proof)).to.deep.equal({ ok: true, format: 'v2' });
      expectRefused({ ...proof, message: `${message}.` }, /signature does not verify/);
    });

    it('refuses a gateway address, which has no spend key', () => {
      const address = encodeZanoAddress(ZANO_ADDRESS_TAGS.gateway, hexToBytes(VECTOR.viewPublicKey));
      expectRefused({ ...freshProof(), address }, /^the address is not usable: .*gateway address/);
    });

    it('refuses an address with a bad checksum', () => {
      const bytes = base58xmr.decode(VECTOR.address);
      bytes[bytes.length - 1] ^= 0x01;
      const address = base58xmr.encode(bytes);
      const proof = { address, message: VECTOR.message, publicKey: VECTOR.publicKey, signature: VECTOR.v2Signature };
      expectRefused(proof, /^the address is not usable: the checksum does not match/);
    });

    it('refuses undecodable address text', () => {
      expectRefused({ ...freshProof(), address: 'not-a-zano-address' }, /^the address is not usable: it contains "-"/);
    });

    it('refuses a malformed public key', () => {
      const proof = freshProof();
      expectRefused({ ...proof, publicKey: proof.publicKey.slice(2) }, /publicKey is malformed: expected 64 hex characters/);
    });

    it('refuses a malformed signature', () => {
      const proof = freshProof();
      expectRefused({ ...proof, signature: 'zz' + proof.signature.slice(2) }, /signature is malformed: expected 128 hex characters/);
    });

    it('refuses a field that is not a string', () => {
      expectRefused({ ...freshProof(), message: undefined as unknown as string }, /message must be a string/);
    });

    it('never throws for random strings in every field', () => {
      const wallet = freshWallet();
      const text = fc.string({ unit: 'binary', maxLength: 300 });
      fc.assert(
        fc.property(
          fc.oneof(text, fc.constant(wallet.address), fc.constant(VECTOR.address)),
          text,
          fc.oneof(text, fc.stringMatching(/^[0-9a-fA-F]{64}$/), fc.constant(wallet.publicKey), fc.constant(VECTOR.publicKey)),
          fc.oneof(text, fc.stringMatching(/^[0-9a-fA-F]{128}$/), fc.stringMatching(/^[0-9a-f]{63}0[0-9a-f]{63}0$/)),
          (address, message, publicKey, signature) => {
            const result = verifyZanoProof({ address, message, publicKey, signature });
            expect(typeof result.ok).to.equal('boolean');
            if (!result.ok) expect(result.reason).to.be.a('string').and.not.equal('');
          },
        ),
        { numRuns: 300 },
      );
    });
  });
});
