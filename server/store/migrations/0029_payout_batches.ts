/**
 * Batched payouts on the Bitcoin family (jobs/payout-sender.ts, docs/payouts.md "Batching"): payouts that come
 * due within `<NET>_PAYOUT_BATCH_SECONDS` go out in one transaction, each still its own payout (its own swap,
 * key, status and timeline).
 * - `payout_batches`: one transaction shared by several payouts; `payouts.batch_id` names the batch a payout
 *   is in (cleared when it leaves one: a refusal that can pass sends it back to pending).
 * - `payout_batch_versions`: every signed version of a batch (the first, each CPFP child or BIP125
 *   replacement), its hash and bytes stored before it is broadcast, with the payouts it pays and the output
 *   index of each (`outputs`: payout id to output index; a CPFP child pays none). The chain watcher matches a
 *   block's hash against them and records the block on every payout the version pays.
 * - `payouts.tx_hash` is no longer unique (every payout of a batch names the batch's hash): a plain index.
 * - `payouts.solo`: the payout goes out alone from now on (a batch that held it was refused for good, and
 *   alone the refusal finds the payout it is about).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table payout_batches (
      id uuid primary key,
      network text not null,
      -- signed: stored, never accepted; broadcast: the chain accepted a version; dissolved: refused before any
      -- version was accepted (its payouts went back to pending, or were held).
      status text not null check (status in ('signed', 'broadcast', 'dissolved')),
      -- Its newest version offers the network's fee cap: it waits there.
      at_fee_cap boolean not null default false,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`);
  await knex.raw(`
    create table payout_batch_versions (
      batch_id uuid not null references payout_batches(id) on delete cascade,
      version integer not null,
      -- 'payment': pays the batch's outputs; 'boost': a child paying for the payment (CPFP).
      kind text not null check (kind in ('payment', 'boost')),
      tx_hash text not null,
      signed_bytes text not null,
      -- Coin per kvB (of the package with its ancestors, for a boost).
      fee text not null,
      -- The payouts it pays: {"<payout id>": <output index>}; empty for a boost.
      outputs jsonb not null default '{}'::jsonb,
      created_at timestamptz not null,
      attempted_at timestamptz,
      broadcast_at timestamptz,
      primary key (batch_id, version),
      unique (batch_id, tx_hash)
    )`);
  await knex.raw('create index payout_batch_versions_tx on payout_batch_versions (tx_hash)');
  await knex.raw('alter table payouts add column batch_id uuid references payout_batches(id)');
  await knex.raw('alter table payouts add column solo boolean not null default false');
  await knex.raw('create index payouts_batch on payouts (batch_id) where batch_id is not null');
  await knex.raw('alter table payouts drop constraint payouts_tx_hash_key');
  await knex.raw('create index payouts_tx_hash on payouts (tx_hash) where tx_hash is not null');
}
