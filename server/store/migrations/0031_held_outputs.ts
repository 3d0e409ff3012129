/**
 * Held outputs (docs/treasury.md "Held outputs"; the chain boundary): an output to a watched address that the
 * ledger records but no swap or route may credit, because it cannot be valued or spent as it is: a Zano
 * transfer of an asset the service does not know, one with `unlock_time` set, or native value on an EVM
 * deposit address that no transaction of its own explains. `held_reason` says why, in words for an operator;
 * `resolved_at` / `resolved_by` / `resolution` record the operator who dealt with it (ops CLI `outputs
 * resolve`). A held output is never swept, refunded or credited by the service on its own.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table chain_outputs add column held_reason text');
  await knex.raw('alter table chain_outputs add column resolved_at timestamptz');
  await knex.raw('alter table chain_outputs add column resolved_by text');
  await knex.raw('alter table chain_outputs add column resolution text');
  await knex.raw(
    'create index chain_outputs_held on chain_outputs (network, seen_at) where held_reason is not null and resolved_at is null',
  );
}
