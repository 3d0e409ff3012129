/**
 * Cold transfers (jobs/cold-transfers.ts, docs/treasury.md "Cold storage"): a hot wallet's surplus above
 * `HOT_WALLET_MAX` goes to `<NET>_COLD_ADDRESS` as a payout of the outbox with purpose `cold`, which pays for no
 * swap: its `swap_id` is null (and only its). It is stored, signed, broadcast, bumped and followed like any
 * payout; `released_at` is set when an operator released one held for them (ops CLI `cold release`), so the
 * next surplus may go out.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table payouts alter column swap_id drop not null');
  await knex.raw('alter table payouts drop constraint payouts_purpose_check');
  await knex.raw(
    `alter table payouts add constraint payouts_purpose_check check (purpose in ('payout', 'refund', 'extra_refund', 'cold'))`,
  );
  await knex.raw(`alter table payouts add constraint payouts_cold_no_swap check ((purpose = 'cold') = (swap_id is null))`);
  await knex.raw('alter table payouts add column released_at timestamptz');
  await knex.raw(`create index payouts_cold on payouts (network, asset, created_at) where purpose = 'cold'`);
}
