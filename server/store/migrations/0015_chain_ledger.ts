/**
 * The chain ledger and the payout outbox (docs/architecture.md#production, #every-payment-accounted-for).
 *
 * - `chain_outputs`: every transaction output a network's watcher reported to a watched address, keyed by
 *   network, transaction and output index, with its block (null while unmined) and its removal by a
 *   reorganisation. Confirmations are `chain_cursors.tip_height - block_height + 1`, never the clock.
 * - `chain_cursors`: per network, where its watcher has read to (the tip's height and hash, and the
 *   adapter's own position).
 * - `payouts`: the outbox. A step that decides to pay commits the intent (amount fixed once); the sender
 *   job commits the signed bytes and their transaction hash before broadcasting them, and rebroadcasts the
 *   same bytes on every retry.
 * - `swaps.deposits`: each payment to the swap's address as the swap accounts for it (Swap.deposits).
 *
 * The simulated chain of the sandbox keeps its own state: every row carries the id of the database
 * transaction that wrote it (its watcher reads what committed since its last position, race-free), payouts
 * keep their signed bytes, and reorganisations are recorded (a transaction in a removed block is marked).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table chain_outputs (
      network text not null,
      tx_hash text not null,
      output_index integer not null,
      asset text not null,
      address text not null,
      memo text,
      amount numeric not null,
      -- The paying address where the network names one sender (refundMode sender), else null.
      from_address text,
      block_height bigint,
      block_hash text,
      seen_at timestamptz not null,
      removed_at timestamptz,
      primary key (network, tx_hash, output_index)
    )`);
  await knex.raw('create index chain_outputs_address on chain_outputs (address, seen_at)');
  await knex.raw('create index chain_outputs_block on chain_outputs (network, block_height)');
  await knex.raw(`
    create table chain_cursors (
      network text primary key,
      tip_height bigint not null,
      tip_hash text not null,
      -- The adapter's position (opaque to the core), passed back on the next scan.
      position text,
      scanned_at timestamptz not null
    )`);
  await knex.raw(`
    create table payouts (
      id uuid primary key,
      -- Unique per purpose: '<swap id>:payout', '<swap id>:refund', '<swap id>:refund:<tx>:<index>' ...
      idempotency_key text not null unique,
      swap_id uuid not null references swaps(id) on delete cascade,
      purpose text not null check (purpose in ('payout', 'refund', 'extra_refund')),
      network text not null,
      asset text not null,
      address text not null,
      memo text,
      amount numeric not null check (amount > 0),
      -- pending (intent) -> signed (hash and bytes committed) -> broadcast -> confirmed;
      -- failed: proved never broadcast; review: an ambiguous broadcast an operator must look at.
      status text not null check (status in ('pending', 'signed', 'broadcast', 'confirmed', 'failed', 'review')),
      tx_hash text unique,
      signed_bytes text,
      block_height bigint,
      attempts integer not null default 0,
      last_error text,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`);
  await knex.raw('create index payouts_swap on payouts (swap_id)');
  await knex.raw(`create index payouts_open on payouts (network, status) where status in ('pending', 'signed', 'broadcast')`);
  await knex.raw(`alter table swaps add column deposits jsonb not null default '[]'::jsonb`);

  // The simulated chain (sandbox).
  await knex.raw('alter table sandbox_transactions add column removed_by bigint');
  await knex.raw('alter table sandbox_transactions add column xid xid8 not null default pg_current_xact_id()');
  await knex.raw('create index sandbox_transactions_xid on sandbox_transactions (network, xid)');
  await knex.raw('alter table sandbox_payouts add column signed_bytes text');
  await knex.raw('alter table sandbox_payouts add column xid xid8 not null default pg_current_xact_id()');
  await knex.raw('create index sandbox_payouts_xid on sandbox_payouts (network, xid)');
  await knex.raw(`
    create table sandbox_reorgs (
      id bigint generated always as identity primary key,
      network text not null,
      from_height bigint not null,
      to_height bigint not null,
      created_at timestamptz not null,
      xid xid8 not null default pg_current_xact_id()
    )`);
  await knex.raw('create index sandbox_reorgs_network on sandbox_reorgs (network, xid)');
  // Failures a partner armed for a swap's payout (the sandbox sender refuses to broadcast it).
  await knex.raw(`create table sandbox_armed_payouts (swap_id uuid primary key, created_at timestamptz not null default now())`);
}
