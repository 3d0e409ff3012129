/**
 * A sweep's transaction is recorded before it is broadcast (jobs/evm-sweep.ts): its hash, amount and signed
 * bytes are committed first, so a process killed after the node took it finds it on restart (and a process
 * killed before broadcasts the same bytes), instead of finding the address empty and recording nothing moved.
 * Rows swept before this migration have no bytes; they are followed as before.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table evm_sweeps add column sweep_tx_bytes text`);
}
