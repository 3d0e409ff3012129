/**
 * Deposit addresses of an EVM network (docs/architecture.md#production): BIP44 from the account's extended public key
 * (m/44'/60'/0' for Ethereum), external chain: `0/<index>`, the index the core allocates per request.
 * Addresses are EIP-55 checksummed; EVM deposits carry no memo.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { HDKey } from '@scure/bip32';
import { bytesToHex, publicKeyToAddress } from 'viem/utils';
import type { AddressSource } from '../chain.js';

/** The checksummed address of an uncompressed or compressed secp256k1 public key. */
export function addressOfPublicKey(publicKey: Uint8Array): string {
  return publicKeyToAddress(bytesToHex(secp256k1.Point.fromBytes(publicKey).toBytes(false)));
}

/** The HD key of an extended key string (xpub or xprv); throws with a readable message when it is not one. */
export function parseExtendedKey(extendedKey: string): HDKey {
  try {
    return HDKey.fromExtendedKey(extendedKey.trim());
  } catch (err) {
    throw new Error("the EVM account key is not a valid extended key (xpub/xprv of m/44'/60'/0')", { cause: err });
  }
}

/**
 * Whether the extended private key `xprv` is the one behind the account extended public key `xpub` (the same
 * public key and chain code: every `0/<index>` address of one is the other's). Throws when either is not an
 * extended key, or `xprv` holds no private key.
 */
export function isAccountKeyOf(xprv: string, xpub: string): boolean {
  const secret = parseExtendedKey(xprv);
  if (!secret.privateKey) throw new Error('the key is an extended public key, not the extended private key (xprv)');
  const account = parseExtendedKey(xpub);
  const same = (a: Uint8Array | null, b: Uint8Array | null) => !!a && !!b && bytesToHex(a) === bytesToHex(b);
  return same(secret.publicKey, account.publicKey) && same(secret.chainCode, account.chainCode);
}

/** The address at `0/<index>` below the account key `account`. */
export function deriveDepositAddress(account: HDKey, index: number): string {
  const child = account.deriveChild(0).deriveChild(index);
  if (!child.publicKey) throw new Error(`no public key at 0/${index}`);
  return addressOfPublicKey(child.publicKey);
}

/** The address source over the account extended public key `xpub`. */
export function createEvmAddressSource(xpub: string): AddressSource {
  const account = parseExtendedKey(xpub);
  return {
    async depositAddress(_asset, request) {
      return { address: deriveDepositAddress(account, await request.index()), memo: null };
    },
  };
}
