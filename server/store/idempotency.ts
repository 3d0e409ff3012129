/**
 * Idempotency-Keys of POST /swaps (docs/architecture.md#idempotency): what a bound key holds, and their housekeeping. A key is
 * claimed, already bound to its response, by the statement that stores the swap (store/swap-creation.ts).
 */
import type { Knex } from 'knex';

/** A bound key: the request it belongs to and the response to replay. */
export interface IdempotencyRecord {
  requestHash: string;
  responseStatus: number;
  responseBody: unknown;
  swapId: string | null;
}

/** The error PostgreSQL raises when a lock wait passes `lock_timeout`. */
export const LOCK_NOT_AVAILABLE = '55P03';

/** Deletes bindings that expired before `now`; returns how many. */
export async function deleteExpiredIdempotencyKeys(db: Knex, now: Date): Promise<number> {
  return db('idempotency_keys').where('expires_at', '<=', now).delete();
}
