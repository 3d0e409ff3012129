/**
 * POST /swaps in the store (DESIGN 6.3): in the create's transaction, one statement claims the
 * Idempotency-Key and the quote, and one stores the swap and the response the key replays from then on.
 * Before, that was four statements; on the embedded database every statement of an open transaction holds
 * up every other connection, so each one saved there is felt by every request in flight.
 *
 * The key row is inserted first: an identical request arriving meanwhile waits on the key's unique index
 * until the first commits (then it replays) or rolls back (then it proceeds itself), so a failed create
 * never binds its key. The quote is claimed only when the key is: a replay leaves the quote alone.
 */
import type { Knex } from 'knex';
import type { SwapRecord } from '../domain/swap-view.js';
import type { IdempotencyRecord } from './idempotency.js';
import { QUOTE_RETURNING, type QuoteRecord } from './quotes.js';
import { toColumns } from './rows.js';

/** The outcome of a claim: the key is this request's (with the quote, when it was usable), or it is bound. */
export type CreationClaim = { owned: true; quote: QuoteRecord | undefined } | { owned: false; bound: IdempotencyRecord };

// The row to insert comes from the `timeout` CTE, which sets the wait (set_config is volatile, so it is evaluated,
// and the WHERE makes sure of it) before the insert can wait on the key's index. The quote's update reads
// the claimed key, so it runs after the claim and changes nothing when the key is bound.
const CLAIM = `
  with timeout as (select set_config('lock_timeout', ?, true) as wait),
  claimed_key as (
    insert into idempotency_keys (partner_id, key, request_hash, response_status, response_body, created_at, expires_at)
    select ?, ?, ?, 0, '{}', ?, ? from timeout where timeout.wait is not null
    on conflict (partner_id, key) do update
      set request_hash = excluded.request_hash, response_status = 0, response_body = '{}', swap_id = null,
          created_at = excluded.created_at, expires_at = excluded.expires_at
      where idempotency_keys.expires_at <= ?
    returning key
  ),
  claimed_quote as (
    update quotes set used_at = ?
     where id = ? and partner_id = ? and used_at is null and expires_at > ? and exists (select from claimed_key)
    returning ${QUOTE_RETURNING}
  )
  select (select count(*) from claimed_key)::int as "keyClaimed", claimed_quote.*
    from (values (1)) as one left join claimed_quote on true`;

/**
 * Claims (partnerId, key) for this transaction, waiting at most `waitSeconds` for an identical request in
 * progress, and, once the key is this request's, marks the partner's quote `quoteId` used if it is unused
 * and unexpired at `now`. An expired binding of the key is taken over. Throws the driver's 55P03 error when
 * a wait (for the key, or for another transaction claiming the same quote) runs out.
 *
 * The wait is the transaction's `lock_timeout`, set by the claim itself. It stays set for the rest of the
 * transaction, so any later lock wait in it gives up after the same time, with the same error.
 */
export async function claimKeyAndQuote(
  trx: Knex.Transaction,
  claim: { partnerId: string; key: string; requestHash: string; quoteId: string; now: Date; expiresAt: Date; waitSeconds: number },
): Promise<CreationClaim> {
  const { rows } = await trx.raw(CLAIM, [
    `${Math.round(claim.waitSeconds * 1000)}ms`,
    claim.partnerId,
    claim.key,
    claim.requestHash,
    claim.now,
    claim.expiresAt,
    claim.now,
    claim.now,
    claim.quoteId,
    claim.partnerId,
    claim.now,
  ]);
  const { keyClaimed, ...quote } = rows[0] as { keyClaimed: number } & QuoteRecord;
  if (keyClaimed === 1) return { owned: true, quote: quote.id ? quote : undefined };
  const row = await trx('idempotency_keys').where({ partner_id: claim.partnerId, key: claim.key }).first();
  return {
    owned: false,
    bound: { requestHash: row.request_hash, responseStatus: row.response_status, responseBody: row.response_body, swapId: row.swap_id },
  };
}

/**
 * Stores `swap`, every column given (nothing is left to a default, so `swap` is exactly what is stored and
 * the response can be built from it first), and binds the claimed key to the response, in one statement.
 */
export async function insertSwapAndBindKey(
  trx: Knex.Transaction,
  swap: SwapRecord,
  binding: { partnerId: string; key: string; responseStatus: number; responseBody: unknown },
): Promise<void> {
  const columns = toColumns(swap);
  const names = Object.keys(columns);
  const { rowCount } = await trx.raw(
    `with created as (insert into swaps (${names.join(', ')}) values (${names.map(() => '?').join(', ')}) returning id)
     update idempotency_keys set response_status = ?, response_body = ?, swap_id = (select id from created)
      where partner_id = ? and key = ?`,
    [...Object.values(columns), binding.responseStatus, JSON.stringify(binding.responseBody), binding.partnerId, binding.key],
  );
  if (rowCount !== 1) throw new Error(`the Idempotency-Key of swap ${swap.id} was not claimed in this transaction`);
}
