/**
 * Nonces of the EVM accounts we send from (the hot wallet, and deposit addresses while they are swept). An
 * account's transactions are mined in nonce order, so two payouts must never sign with the same nonce, and a
 * nonce no transaction will use stalls every later one: the allocator is shared by every instance (the
 * database implements it: store/evm-nonces.ts), and the adapter holds no database handle.
 */

/** What a nonce is asked for. */
export interface NonceRequest {
  /** The sending account (checksummed). */
  address: string;
  /** The payment it is for (a payout's idempotency key, a sweep's key): one nonce per key. */
  key: string;
  /** The account's confirmed transaction count now (`eth_getTransactionCount` at `latest`). */
  chainNonce: number;
}

/**
 * Hands out nonces per account. The contract:
 * - the same key always gets the same nonce, until it is released (a payout signed twice for one key spends
 *   one nonce: only one of the two can ever be mined);
 * - two keys never hold the same nonce of one account at once, whichever instance asks;
 * - a new key gets the lowest nonce >= `chainNonce` that no held key has (a released nonce is reused);
 * - `release(key)` frees the key's nonce: its transaction was proved never accepted (refused, or its nonce
 *   went to another transaction).
 */
export interface NonceAllocator {
  nonceFor(request: NonceRequest): Promise<number>;
  release(key: string): Promise<void>;
  /** The nonces of `address` held at or above `from`, lowest first, each with its key. */
  held(address: string, from: number): Promise<Array<{ nonce: number; key: string }>>;
  /** Takes `nonce` of `address` for `key` if no key holds it; false when one does. */
  claim(address: string, nonce: number, key: string): Promise<boolean>;
}
