/**
 * The treasury (services/liquidity.ts, docs/treasury.md):
 * - `liquidity_locks`: one row per asset a hot wallet pays. A quote, and a swap's payout intent, lock it
 *   (`for update`) in the transaction that promises the asset, so two promises of one asset are never
 *   checked against the same remainder.
 * - `quotes.reserved_amount`: what a production quote holds back of its destination asset (its receive
 *   amount, raised by the slippage bound when floating) while it is unused and unexpired, then, carried to the
 *   swap made from it, until the swap's payout is committed or its deadline passes. Null: the quote reserves
 *   nothing (the sandbox, whose hot wallet pays anything).
 * - `swaps.confirmation_deadline`: a fixed rate holds for a deposit seen before `quote_expires_at` and
 *   confirmed before this (FIXED_RATE_CONFIRMATION_GRACE_SECONDS later); null for floating swaps and route
 *   orders.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table liquidity_locks (
      network text not null,
      asset text not null,
      locked_at timestamptz not null,
      primary key (network, asset)
    )`);
  await knex.raw('alter table quotes add column reserved_amount numeric check (reserved_amount >= 0)');
  await knex.raw(
    'create index quotes_reserving on quotes (destination_network, destination_asset, expires_at) where reserved_amount is not null and used_at is null',
  );
  await knex.raw('alter table swaps add column confirmation_deadline timestamptz');
  await knex.raw(
    `create index swaps_reserving on swaps (destination_network, destination_asset) where status in ('waiting', 'confirming', 'exchanging')`,
  );
  // Payouts a balance read may not show yet: unmined, or mined above the height the balance was read at.
  await knex.raw(
    `create index payouts_outstanding on payouts (network, asset, block_height) where status not in ('failed', 'reverted', 'cancelled')`,
  );
}
