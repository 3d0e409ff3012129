/**
 * Payouts that always end (jobs/payout-sender.ts, docs/payouts.md):
 * - `payout_versions`: every signed version of a payout (the first, each fee replacement, an EVM nonce's
 *   cancellation), its hash and bytes stored before it is broadcast. Whichever version a block holds is the
 *   payout: the watcher matches blocks against every version's hash.
 * - two more ends of a payout: `reverted` (mined, and the receipt says it paid nothing) and `cancelled` (its
 *   EVM nonce was taken by our own zero-value self-transfer: nothing was paid).
 * - `chain_alerts`: a confirmed payout or a credited deposit that a reorganisation took out of the chain after
 *   its swap ended, for an operator (ops CLI `alerts list`, the pss_chain_alerts_open metric).
 * - `held_reason`: why a payout waits for an operator; `retry_at` and `refusals`: a refusal that can pass
 *   (fee too low, mempool full, funds not there yet) is retried with backoff, and a payout that cannot be
 *   built after a few attempts is held.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table payouts drop constraint payouts_status_check');
  await knex.raw(`alter table payouts add constraint payouts_status_check
    check (status in ('pending', 'signed', 'broadcast', 'confirmed', 'failed', 'review', 'reverted', 'cancelled'))`);
  await knex.raw('alter table payouts add column held_reason text');
  await knex.raw('alter table payouts add column retry_at timestamptz');
  await knex.raw('alter table payouts add column refusals integer not null default 0');
  await knex.raw('alter table payouts add column at_fee_cap boolean not null default false');
  await knex.raw(`
    create table payout_versions (
      payout_id uuid not null references payouts(id) on delete cascade,
      version integer not null,
      -- 'payment': pays the payout's outputs; 'cancel': an EVM zero-value self-transfer at the payout's nonce;
      -- 'boost': a child paying for the payment (CPFP, where the node accepts no replacement).
      kind text not null check (kind in ('payment', 'cancel', 'boost')),
      tx_hash text not null,
      signed_bytes text not null,
      -- The fee it offers, in the family's terms: EVM max fee per gas in gwei, Bitcoin family coin per kvB.
      fee text not null,
      created_at timestamptz not null,
      -- When a broadcast of it was first tried (set before the call: the bytes may have left the process
      -- from then on), and when the chain first accepted it; null while never tried / never accepted.
      attempted_at timestamptz,
      broadcast_at timestamptz,
      primary key (payout_id, version),
      -- A payout paid again after one proved never taken can sign the very same transaction (the same nonce or
      -- inputs, the same fees): the hash is then a version of both, and only the live payout can be mined.
      unique (payout_id, tx_hash)
    )`);
  await knex.raw('create index payout_versions_tx on payout_versions (tx_hash)');
  await knex.raw(`
    insert into payout_versions (payout_id, version, kind, tx_hash, signed_bytes, fee, created_at, attempted_at, broadcast_at)
    select id, 1, 'payment', tx_hash, signed_bytes, '0', updated_at, case when status = 'signed' and accepted_at is null then null else updated_at end, accepted_at
      from payouts where tx_hash is not null and signed_bytes is not null`);
  await knex.raw(`create index payouts_held on payouts (network) where status in ('review', 'reverted', 'cancelled')`);
  // What the chain took back after it counted (a confirmed payout, a credited deposit, after its swap ended):
  // an operator item and an alert, until an operator marks it seen.
  await knex.raw(`
    create table chain_alerts (
      id uuid primary key,
      network text not null,
      kind text not null check (kind in ('payout_removed', 'deposit_removed')),
      swap_id uuid references swaps(id) on delete cascade,
      tx_hash text not null,
      output_index integer,
      detail text not null,
      created_at timestamptz not null,
      resolved_at timestamptz,
      resolved_by text
    )`);
  await knex.raw('create index chain_alerts_open on chain_alerts (network) where resolved_at is null');
  // An operator's fourth decision: pay again, once the payout is proven to have paid nothing.
  await knex.raw('alter table operator_decisions drop constraint operator_decisions_decision_check');
  await knex.raw(
    "alter table operator_decisions add constraint operator_decisions_decision_check check (decision in ('exchange', 'pay-again', 'refund', 'fail'))",
  );
}
