/**
 * The guard of POST /swaps' single statement (store/swap-creation.ts): a create runs as one statement with
 * no transaction around it, so when it did not get everything (the quote was used meanwhile, or the key
 * bound) the statement must fail as a whole, and this function is how it fails: with SQLSTATE PS001 and
 * the reason as the message, which the store turns back into an outcome.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create function pss_swap_not_created(reason text) returns text language plpgsql as $$
    begin
      raise exception using errcode = 'PS001', message = reason;
    end
    $$`);
}
