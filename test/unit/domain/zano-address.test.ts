import { randomBytes } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { hex } from '@scure/base';
import { expect } from 'chai';
import {
  decodeZanoAddress,
  encodeZanoAddress,
  isZanoPublicKey,
  ZANO_ADDRESS_TAGS,
  ZanoAddressError,
} from '../../../server/domain/zano-address.js';

// Vectors of /work/shared/reference/zano-vectors.md (from the Zano utilities' published tests).
const REFERENCE = [
  {
    address: 'ZxDFpn4k7xVYyc9VZ3LphrJbkpc46xfREace5bme1aXiMzKPAHA8jsTWcHSXhv9AdodSaoGXK9Mg7bk3ec4FkQrj357fZPWZX',
    tag: 0xc5,
    kind: 'standard',
    spend: 'b3eee2376f32bf2bfb5cf9c023f569380c84ac8c64ddc8f7c109730dc8e97d7a',
    view: 'fa9c2811c53eb1044490e931f92ad9ddf317220df08ccfb5b83eccfdbd38f135',
  },
  {
    address: 'ZxD5aoLDPTdcaRx4uCpyW4XiLfEXejepAVz8cSY2fwHNEiJNu6NmpBBDLGTJzCsUvn3acCVDVDPMV8yQXdPooAp338Se7AxeH',
    tag: 0xc5,
    kind: 'standard',
    spend: '9f5e1fa93630d4b281b18bb67a3db79e9622fc703cc3ad4a453a82e0a36d51fa',
  },
  {
    address: 'iZ2kFmwxRHoaRxm1ni8HnfUTkYuKbni8s4CE2Z4GgFfH99BJ6cnbAtJTgUnZjPj9CTCTKy1qqM9wPCTp92uBC7e47JPoHxGL5UU2D1tpQMg4',
    tag: 0x3678,
    kind: 'integrated',
    spend: 'b48bcc1896a6c7ddfb1daa575160a42e0f17a18cfc741317c545e8486b0c30ab',
    paymentId: '1e4cbed444118c99',
  },
  {
    address: 'aZxbBZTLRNv9VJpNtt3geei3o4mye12eFe6bNZAzxtiBg49XYns3HAkBVBn3N46s9A8Ai7PBbZxnbQZ3huf2zg3NAXQpyvGqLd7',
    tag: 0x98c8,
    kind: 'auditable',
    spend: 'b3eee2376f32bf2bfb5cf9c023f569380c84ac8c64ddc8f7c109730dc8e97d7a',
    flags: 0x01,
  },
] as const;

// Zano's own table `addr_entries` in hyle-team/zano tests/unit_tests/base58.cpp: one account in every layout.
const ZANO_SPEND = '9f5e1fa93630d4b281b18bb67a3db79e9622fc703cc3ad4a453a82e0a36d51fa';
const ZANO_VIEW = 'a3f208c8f9ba49bab28eed62b35b0f6be0a297bcd85c2faa1eb1820527bcf7e3';
const ZANO_UNIT_TESTS = [
  {
    name: 'a classic standard address',
    address: 'ZxD5aoLDPTdcaRx4uCpyW4XiLfEXejepAVz8cSY2fwHNEiJNu6NmpBBDLGTJzCsUvn3acCVDVDPMV8yQXdPooAp338Se7AxeH',
    tag: ZANO_ADDRESS_TAGS.standard,
    kind: 'standard',
  },
  {
    name: 'a classic integrated address',
    address: 'iZ2Zi6RmTWwcaRx4uCpyW4XiLfEXejepAVz8cSY2fwHNEiJNu6NmpBBDLGTJzCsUvn3acCVDVDPMV8yQXdPooAp3iTqEsjvJoco1aLSZXS6T',
    tag: ZANO_ADDRESS_TAGS.integrated,
    kind: 'integrated',
    paymentId: '87440d0b9acc42f1',
  },
  {
    name: 'a new-format standard address with flags',
    address: 'ZxD5aoLDPTdcaRx4uCpyW4XiLfEXejepAVz8cSY2fwHNEiJNu6NmpBBDLGTJzCsUvn3acCVDVDPMV8yQXdPooAp3APrDvRoL5C',
    tag: ZANO_ADDRESS_TAGS.standard,
    kind: 'standard',
    flags: 0xfe,
  },
  {
    name: 'a new-format integrated address with flags',
    address: 'iZ4mBxubNfqcaRx4uCpyW4XiLfEXejepAVz8cSY2fwHNEiJNu6NmpBBDLGTJzCsUvn3acCVDVDPMV8yQXdPooAp3iTrG7nU5rRCWmcozLaMoY95sAbo6',
    tag: ZANO_ADDRESS_TAGS.integratedV2,
    kind: 'integrated',
    paymentId: '3ba0527bcfb1fa93630d28eed6',
    flags: 0xfe,
  },
  {
    name: 'an auditable address',
    address: 'aZxb9Et6FhP9AinRwcPqSqBKjckre7PgoZjK3q5YG2fUKHYWFZMWjB6YAEAdw4yDDUGEQ7CGEgbqhGRKeadGV1jLYcEJMEmqQFn',
    tag: ZANO_ADDRESS_TAGS.auditable,
    kind: 'auditable',
    flags: 0x01,
  },
  {
    name: 'an auditable integrated address',
    address: 'aiZXDondHWu9AinRwcPqSqBKjckre7PgoZjK3q5YG2fUKHYWFZMWjB6YAEAdw4yDDUGEQ7CGEgbqhGRKeadGV1jLYcEJM9xJH8EbjuRiMJgFmPRATsEV9',
    tag: ZANO_ADDRESS_TAGS.auditableIntegrated,
    kind: 'auditable_integrated',
    paymentId: '3ba0527bcfb1fa93630d28eed6',
    flags: 0x01,
  },
] as const;

// The documented example of hyle-team/zano src/rpc/core_rpc_server_commands_defs.h (gw_addr).
const GATEWAY = 'gwZ5sqZkre33rxhoo9ht5xcmzy5khvr2hFSfvk7TeXeMXxby7acC3fs1D';

// hyle-team/zano tests/unit_tests/base58.cpp: test_serialized_keys (spend, view, flags 0) and its address.
const SERIALIZED_KEYS = hex.decode(
  'f724bc5c6cfbb9d97602c300423a2f28641874513a035778a0c1778d833201e9220939689edf1abd5bc1d031f73ecd6c993add66d6808870456afeb8e7eeb68d00',
);
const SERIALIZED_KEYS_ADDRESS = 'ZxDqHy6WnyYY5yQcdApjMb8tVPik5BC3LFdaevfbGq7X1KY5vdsWmUi5UQgse2GBZFbMsb47TFqBmPpdFHDDwDxR2ZuZ6zX4W';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

function messageOf(address: string): string {
  try {
    decodeZanoAddress(address);
  } catch (err) {
    expect(err).to.be.instanceOf(ZanoAddressError);
    return (err as Error).message;
  }
  throw new Error(`${address} was accepted`);
}

function withCharacter(address: string, at: number): string {
  const next = BASE58[(BASE58.indexOf(address[at]) + 1) % BASE58.length];
  return `${address.slice(0, at)}${next}${address.slice(at + 1)}`;
}

describe('decodeZanoAddress', () => {
  describe('the vectors of zano-vectors.md', () => {
    for (const vector of REFERENCE) {
      it(`decodes ${vector.address.slice(0, 6)}... as ${vector.kind} with tag 0x${vector.tag.toString(16)}`, () => {
        const decoded = decodeZanoAddress(vector.address);
        expect(decoded.tag).to.equal(vector.tag);
        expect(decoded.kind).to.equal(vector.kind);
        expect(hex.encode(decoded.spendPublicKey)).to.equal(vector.spend);
        expect(decoded.paymentId && hex.encode(decoded.paymentId)).to.equal('paymentId' in vector ? vector.paymentId : undefined);
        expect(decoded.flags).to.equal('flags' in vector ? vector.flags : undefined);
      });
    }

    it('finds the spend and view public keys given there for the first address', () => {
      const [first] = REFERENCE;
      const decoded = decodeZanoAddress(first.address);
      expect(hex.encode(decoded.spendPublicKey)).to.equal(first.spend);
      expect(hex.encode(decoded.viewPublicKey)).to.equal(first.view);
    });
  });

  describe("the layouts of Zano's own unit tests", () => {
    for (const vector of ZANO_UNIT_TESTS) {
      it(`decodes ${vector.name}`, () => {
        const decoded = decodeZanoAddress(vector.address);
        expect(decoded.tag).to.equal(vector.tag);
        expect(decoded.kind).to.equal(vector.kind);
        expect(hex.encode(decoded.spendPublicKey)).to.equal(ZANO_SPEND);
        expect(hex.encode(decoded.viewPublicKey)).to.equal(ZANO_VIEW);
        expect(decoded.paymentId && hex.encode(decoded.paymentId)).to.equal('paymentId' in vector ? vector.paymentId : undefined);
        expect(decoded.flags).to.equal('flags' in vector ? vector.flags : undefined);
      });
    }
  });

  describe('refusals', () => {
    it('refuses a gateway address because it has no spend key', () => {
      expect(messageOf(GATEWAY)).to.match(/gateway address.*no spend key/);
      const integratedGateway = encodeZanoAddress(ZANO_ADDRESS_TAGS.integratedGateway, SERIALIZED_KEYS.subarray(0, 41));
      expect(messageOf(integratedGateway)).to.match(/gateway address/);
    });

    it('refuses every address whose last or a middle character changed, naming the checksum or the encoding', () => {
      for (const { address } of [...REFERENCE, ...ZANO_UNIT_TESTS]) {
        for (const at of [address.length - 1, Math.floor(address.length / 2), 5]) {
          expect(messageOf(withCharacter(address, at)), `${address} @${at}`).to.match(
            /checksum does not match|not valid CryptoNote base58/,
          );
        }
      }
    });

    it('says the checksum does not match when the text still decodes', () => {
      // The vectors' middle characters sit inside full 11-character blocks, where one change still decodes.
      const [{ address }] = REFERENCE;
      expect(messageOf(withCharacter(address, 20))).to.equal('the checksum does not match: a character is probably mistyped');
    });

    it("refuses undecodable text: Zano's own negative base58 cases, characters outside base58, truncation", () => {
      // hyle-team/zano tests/unit_tests/base58.cpp TEST_decode_addr_neg.
      for (const text of ['zuT7GAdgbA819VwdWVDP', 'PuT7GAdgbA819VwdWVD', '11efCaY6UjG7JrxuC', 'jerj2e4mESo', '1', '1111', '11', 'ZZZZZZ']) {
        expect(() => decodeZanoAddress(text), text).to.throw(ZanoAddressError);
      }
      expect(messageOf('0uT7GAdgbA819VwdWVDP')).to.equal('it contains "0", which is not a base58 character');
      expect(messageOf('IuT7GAdgbA819VwdWVDP')).to.match(/"I", which is not a base58 character/);
      expect(messageOf(REFERENCE[0].address.slice(0, -1))).to.match(/not valid CryptoNote base58/);
      expect(messageOf('')).to.equal('the address is empty');
      expect(messageOf('Z'.repeat(276))).to.match(/no Zano address is longer than 275/);
    });

    it('refuses a tag that is no Zano address type', () => {
      // As Zano's fails_on_invalid_address_prefix: the right keys under tag 0.
      expect(messageOf(encodeZanoAddress(0, SERIALIZED_KEYS))).to.equal('its tag 0x0 is not a Zano mainnet address type');
    });

    it('refuses keys that are not points, as Zano fails_on_invalid_address_spend_key / _view_key do', () => {
      const badSpend = SERIALIZED_KEYS.slice();
      badSpend[0] = 0;
      const badView = SERIALIZED_KEYS.slice();
      badView[badView.length - 2] = 1;
      expect(messageOf(encodeZanoAddress(ZANO_ADDRESS_TAGS.standard, badSpend))).to.equal(
        'its spend public key is not a valid Ed25519 point',
      );
      expect(messageOf(encodeZanoAddress(ZANO_ADDRESS_TAGS.standard, badView))).to.equal(
        'its view public key is not a valid Ed25519 point',
      );
    });

    it('refuses bodies of the wrong size for their tag', () => {
      const keys = SERIALIZED_KEYS.subarray(0, 64);
      // As Zano's fails_on_invalid_address_content: the first byte dropped shifts the keys off the curve.
      expect(messageOf(encodeZanoAddress(ZANO_ADDRESS_TAGS.standard, SERIALIZED_KEYS.subarray(1)))).to.match(/not a valid Ed25519 point/);
      expect(messageOf(encodeZanoAddress(ZANO_ADDRESS_TAGS.standard, Uint8Array.of(...SERIALIZED_KEYS, 0)))).to.match(
        /carries 64 or 65 bytes, this one 66/,
      );
      expect(messageOf(encodeZanoAddress(ZANO_ADDRESS_TAGS.auditable, keys))).to.match(/carries 65 bytes, this one 64/);
      expect(messageOf(encodeZanoAddress(ZANO_ADDRESS_TAGS.integrated, keys))).to.equal('it is an integrated address without a payment id');
      const longPaymentId = new Uint8Array(129).fill(7);
      expect(messageOf(encodeZanoAddress(ZANO_ADDRESS_TAGS.integratedV2, Uint8Array.of(...SERIALIZED_KEYS, ...longPaymentId)))).to.match(
        /payment id is 129 bytes; Zano allows at most 128/,
      );
    });
  });
});

describe('encodeZanoAddress', () => {
  it("reproduces Zano's get_account_address_as_str for the serialized keys of its unit test", () => {
    expect(encodeZanoAddress(ZANO_ADDRESS_TAGS.standard, SERIALIZED_KEYS.subarray(0, 64))).to.equal(SERIALIZED_KEYS_ADDRESS);
  });

  it('round-trips every vector through decodeZanoAddress', () => {
    for (const { address } of [...REFERENCE, ...ZANO_UNIT_TESTS]) {
      const decoded = decodeZanoAddress(address);
      const flags = decoded.flags === undefined ? [] : [decoded.flags];
      const body = Uint8Array.of(...decoded.spendPublicKey, ...decoded.viewPublicKey, ...flags, ...(decoded.paymentId ?? []));
      expect(encodeZanoAddress(decoded.tag, body)).to.equal(address);
    }
  });
});

describe('isZanoPublicKey', () => {
  it('accepts the Ed25519 base point and the keys of the vectors', () => {
    expect(isZanoPublicKey(hex.decode('5866666666666666666666666666666666666666666666666666666666666666'))).to.equal(true);
    expect(isZanoPublicKey(hex.decode(ZANO_SPEND))).to.equal(true);
    expect(isZanoPublicKey(hex.decode(ZANO_VIEW))).to.equal(true);
  });

  it('refuses a non-canonical y, x = 0 with the sign bit set, and a wrong length', () => {
    // y = p = 2^255 - 19 encodes 0 non-canonically; crypto-ops.c refuses it before any curve arithmetic.
    expect(isZanoPublicKey(hex.decode('edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f'))).to.equal(false);
    // y = 1 is the identity (x = 0), valid only with the sign bit clear.
    expect(isZanoPublicKey(hex.decode('0100000000000000000000000000000000000000000000000000000000000000'))).to.equal(true);
    expect(isZanoPublicKey(hex.decode('0100000000000000000000000000000000000000000000000000000000000080'))).to.equal(false);
    expect(isZanoPublicKey(new Uint8Array(31))).to.equal(false);
  });

  it("agrees with @noble/curves' strict point decoding on 2,000 random keys (about half of them points)", () => {
    let points = 0;
    for (let i = 0; i < 2000; i++) {
      const key = randomBytes(32);
      let onCurve = true;
      try {
        ed25519.Point.fromBytes(key, false);
      } catch {
        onCurve = false;
      }
      if (onCurve) points++;
      expect(isZanoPublicKey(key), hex.encode(key)).to.equal(onCurve);
    }
    expect(points).to.be.within(800, 1200);
  });
});
