/**
 * BIP84 (P2WPKH) addresses from an account extended public key: `<change>/<index>` below the account key,
 * bech32-encoded with the chain's prefix. Pure: no node is asked.
 */
import { HDKey } from '@scure/bip32';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base58check, bech32 } from '@scure/base';
import type { BitcoinParams } from './params.js';

/** An account key and what derives from it. */
export interface AccountKey {
  /** The account key itself. */
  hd: HDKey;
  /** The public key (33 bytes, compressed) and P2WPKH address at `change/index`. */
  derive(change: 0 | 1, index: number): { publicKey: Uint8Array; address: string; path: string };
}

const b58 = base58check(sha256);

/** Reads `extendedKey` (xpub, tpub or a SLIP-132 variant accepted by `params`); throws a readable error otherwise. */
export function parseAccountKey(extendedKey: string, params: BitcoinParams): AccountKey {
  let raw: Uint8Array;
  try {
    raw = b58.decode(extendedKey.trim());
  } catch (err) {
    throw new Error(`the extended public key for ${params.name} is not valid base58check`, { cause: err });
  }
  if (raw.length !== 78) throw new Error(`the extended public key for ${params.name} has ${raw.length} bytes, not 78`);
  const version = new DataView(raw.buffer, raw.byteOffset).getUint32(0);
  if (!params.publicKeyVersions.includes(version)) {
    throw new Error(
      `the extended key for ${params.name} has version 0x${version.toString(16).padStart(8, '0')}, ` +
        `which is not a public key of this chain (a private key, or another network's key?)`,
    );
  }
  // The private version is never used: only a public key is accepted.
  const hd = HDKey.fromExtendedKey(extendedKey.trim(), { public: version, private: 0 });
  return {
    hd,
    derive(change, index) {
      if (!Number.isSafeInteger(index) || index < 0 || index >= 0x80000000) throw new Error(`derivation index ${index} is out of range`);
      const child = hd.deriveChild(change).deriveChild(index);
      const publicKey = child.publicKey!;
      return { publicKey, address: p2wpkhAddress(publicKey, params.hrp), path: `${change}/${index}` };
    },
  };
}

/** The bech32 P2WPKH (witness v0) address of a compressed public key. */
export function p2wpkhAddress(publicKey: Uint8Array, hrp: string): string {
  const program = ripemd160(sha256(publicKey));
  return bech32.encode(hrp, [0, ...bech32.toWords(program)]);
}
