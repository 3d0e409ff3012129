/**
 * Sweeps of EVM deposits to the hot wallet (jobs/evm-sweep.ts): one row per deposit output (network, transaction,
 * output or log index) once its swap has credited or refunded it, with the derivation index of its address and
 * the transactions that moved it. A row is the sweep's whole state, so a restart carries on where it stopped.
 * One instance sweeps each network at a time: the holder renews its lease with every pass.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`create table evm_sweeps (
      network text not null,
      tx_hash text not null,
      output_index integer not null,
      address text not null,
      derivation_index bigint not null,
      asset text not null,
      -- pending -> (funding: the hot wallet's gas top-up, until mined -> pending) -> swept (broadcast) -> confirmed;
      -- empty: nothing left to move (another sweep of the address moved it, or less than its gas);
      -- failed: refused too often, or its transaction reverted: an operator looks.
      state text not null check (state in ('pending', 'funding', 'swept', 'confirmed', 'empty', 'failed')),
      funding_tx_hash text,
      sweep_tx_hash text,
      -- What the sweep moved, in units of the asset.
      amount numeric,
      attempts integer not null default 0,
      last_error text,
      next_attempt_at timestamptz not null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      primary key (network, tx_hash, output_index)
    )`);
  await knex.raw(`create index evm_sweeps_open on evm_sweeps (network, next_attempt_at) where state in ('pending', 'funding', 'swept')`);
  await knex.raw(`create table evm_sweep_leases (
      network text primary key,
      holder text not null,
      expires_at timestamptz not null
    )`);
}
