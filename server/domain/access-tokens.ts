/**
 * Swap access tokens (docs/architecture.md#access-tokens): `sat_` and the base64url HMAC-SHA256 of the swap id under a key derived
 * from SECRETS_KEY. Nothing is stored: the token is derived again to answer an idempotent replay and to check
 * a presented token, so no plaintext (and no hash to steal) sits in the database. A token reads only its swap.
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** Prefix of every swap access token. */
export const ACCESS_TOKEN_PREFIX = 'sat_';

/** Issues and checks swap access tokens. */
export interface SwapTokens {
  /** The token of swap `swapId` (the same every time). */
  tokenFor(swapId: string): string;
  /** Whether `token` is the token of `swapId`, compared in constant time. */
  matches(swapId: string, token: string): boolean;
}

/** Creates the token derivation over the 32-byte secrets key. */
export function createSwapTokens(secretsKey: Buffer): SwapTokens {
  const key = Buffer.from(hkdfSync('sha256', secretsKey, Buffer.alloc(0), 'pss swap access token v1', 32));
  const tokenFor = (swapId: string) => ACCESS_TOKEN_PREFIX + createHmac('sha256', key).update(swapId, 'utf8').digest('base64url');
  return {
    tokenFor,
    matches(swapId, token) {
      const expected = Buffer.from(tokenFor(swapId));
      const given = Buffer.from(token);
      return expected.length === given.length && timingSafeEqual(expected, given);
    },
  };
}
