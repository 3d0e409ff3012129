/**
 * Where in the swap's events an armed exchange failure fired (the last event's `seq` then), kept with it
 * (adapters/sandbox/exchange.ts). The venue goes on refusing the swap's attempts from then on until an event
 * of another status than `exchanging` follows, since the step that was refused may be thrown away (the swap
 * changed before it saved its decision) and the next step must get the same answer. Failures that fired
 * before this column have none, and refuse no more attempts, as before.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table sandbox_armed_exchanges add column refused_after_event bigint`);
}
