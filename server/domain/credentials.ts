/** Formats of partner credentials. Randomness is passed in, so these stay pure and testable. */

/** Bytes of randomness in a generated shared secret (256 bits). */
export const SECRET_RANDOM_BYTES = 32;
/** Bytes of randomness in a generated key id. */
export const KEY_ID_RANDOM_BYTES = 9;

const KEY_ID_PATTERN = /^[A-Za-z0-9_-]{3,64}$/;

/** A key id such as pk_sandbox_Xk3v9QaL2bTn from random bytes. */
export function formatKeyId(random: Uint8Array, mode: 'sandbox' | 'production'): string {
  return `pk_${mode === 'sandbox' ? 'sandbox' : 'live'}_${Buffer.from(random).toString('base64url')}`;
}

/** A shared secret such as pss_sk_<43 base64url characters> from random bytes. */
export function formatSecret(random: Uint8Array): string {
  return `pss_sk_${Buffer.from(random).toString('base64url')}`;
}

/** Why a chosen key id is unacceptable, or undefined when it is fine. */
export function keyIdProblem(keyId: string): string | undefined {
  return KEY_ID_PATTERN.test(keyId) ? undefined : 'a key id is 3-64 characters of A-Z, a-z, 0-9, _ and -';
}

/** Why a chosen secret is unacceptable, or undefined when it is fine. */
export function secretProblem(secret: string): string | undefined {
  if (!/^[\x21-\x7e]+$/.test(secret)) return 'a secret is visible ASCII only';
  if (secret.length < 24) return 'a secret has at least 24 characters';
  if (secret.length > 256) return 'a secret has at most 256 characters';
  return undefined;
}
