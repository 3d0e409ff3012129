/** Pieces the address checks of several families share: base58 alphabets, checksums and reasons. */
import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';

/** The reason for a text whose checksum fails. */
export const MISTYPED = 'the checksum does not match, so a character is probably mistyped';

/** base58check with a double SHA-256 checksum (Bitcoin, Tron). */
export const base58check = createBase58check(sha256);

const BASE58_CHARACTER = /^[1-9A-HJ-NP-Za-km-z]$/;

/** Why `address` is not base58 (naming the first stray character), or undefined. */
export function base58Problem(address: string): string | undefined {
  const stray = [...address].find((ch) => !BASE58_CHARACTER.test(ch));
  return stray === undefined ? undefined : `it contains ${JSON.stringify(stray)}, which is not a base58 character`;
}

/** Whether two byte strings are equal. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
