/**
 * The version of the swap (its `updated_at`) at which an armed exchange failure fired, kept with it
 * (adapters/sandbox/exchange.ts). Once fired, the venue refuses the swap's attempts until the refusal is seen
 * to have taken effect (the swap's `failure_code` is `exchange_failed`), because the refused step may be
 * thrown away (the swap changed before it saved its decision) and the next step must get the same answer.
 * A failure that fired before this column keeps only its `refused_key`, and the venue now refuses nothing
 * more for it (before, it refused retries of that one attempt); a spent failure is put in that same state
 * (`refused_key = 'spent'`, no `fired_version`).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table sandbox_armed_exchanges add column fired_version timestamptz`);
}
