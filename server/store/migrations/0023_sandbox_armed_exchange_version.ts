/**
 * The version of the swap (its `updated_at`) an exchange failure was armed at, kept with the armed failure
 * (adapters/sandbox/exchange.ts): only an attempt on that version or a later one fires it. A step that read
 * the swap before the arming asks for an older version, and its decision is thrown away, so it must not
 * spend the failure. Kept on the row the firing statement updates, it is checked again after that statement
 * waits for an arming in progress (PostgreSQL re-reads a locked row; it does not re-read another table).
 * Failures armed before this column have none and fire on any attempt, as before.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table sandbox_armed_exchanges add column armed_at timestamptz`);
}
