/**
 * Idempotency-Keys of POST /swaps (DESIGN 6.3). The key row is inserted in the create's own transaction:
 * an identical request arriving meanwhile blocks on the row's unique index until the first commits (then it
 * replays) or rolls back (then it proceeds itself), so a failed create never binds its key.
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

/**
 * Claims (partnerId, key) for this transaction, waiting at most `waitSeconds` for an identical request in
 * progress. Returns undefined when the caller now owns the key, or the record bound by an earlier request.
 * An expired binding is taken over. Throws the driver's 55P03 error when the wait runs out.
 *
 * The wait is the transaction's `lock_timeout`, set by the claim itself (one statement, not three: on the
 * embedded database every statement of an open transaction holds up every other connection). It stays
 * set for the rest of the transaction, so any later lock wait in it (another swap claiming the same quote)
 * gives up after the same time, with the same error.
 */
export async function claimIdempotencyKey(
  trx: Knex.Transaction,
  claim: { partnerId: string; key: string; requestHash: string; now: Date; expiresAt: Date; waitSeconds: number },
): Promise<IdempotencyRecord | undefined> {
  // The row to insert comes from a subquery that sets the timeout (set_config is volatile, so it is
  // evaluated, and the WHERE makes sure of it), before the insert can wait on the key's index.
  const claimed = await trx.raw(
    `insert into idempotency_keys (partner_id, key, request_hash, response_status, response_body, created_at, expires_at)
     select ?, ?, ?, 0, '{}', ?, ?
       from (select set_config('lock_timeout', ?, true) as wait) as timeout
      where timeout.wait is not null
     on conflict (partner_id, key) do update
       set request_hash = excluded.request_hash, response_status = 0, response_body = '{}', swap_id = null,
           created_at = excluded.created_at, expires_at = excluded.expires_at
       where idempotency_keys.expires_at <= ?
     returning key`,
    [claim.partnerId, claim.key, claim.requestHash, claim.now, claim.expiresAt, `${Math.round(claim.waitSeconds * 1000)}ms`, claim.now],
  );
  if (claimed.rows.length === 1) return undefined;
  const row = await trx('idempotency_keys').where({ partner_id: claim.partnerId, key: claim.key }).first();
  return { requestHash: row.request_hash, responseStatus: row.response_status, responseBody: row.response_body, swapId: row.swap_id };
}

/** Stores the response a claimed key replays from now on. */
export async function bindIdempotencyKey(
  trx: Knex.Transaction,
  binding: { partnerId: string; key: string; responseStatus: number; responseBody: unknown; swapId: string },
): Promise<void> {
  await trx('idempotency_keys')
    .where({ partner_id: binding.partnerId, key: binding.key })
    .update({ response_status: binding.responseStatus, response_body: JSON.stringify(binding.responseBody), swap_id: binding.swapId });
}

/** Deletes bindings that expired before `now`; returns how many. */
export async function deleteExpiredIdempotencyKeys(db: Knex, now: Date): Promise<number> {
  return db('idempotency_keys').where('expires_at', '<=', now).delete();
}
