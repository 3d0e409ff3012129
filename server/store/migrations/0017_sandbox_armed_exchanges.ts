/**
 * Exchange failures a partner armed in the sandbox (POST /sandbox/swaps/{id}/failures, stage `exchange`),
 * kept by the sandbox's exchange venue (adapters/sandbox/exchange.ts) rather than read by the swap
 * decision: the attempt it refused (`refused_key`), so a retried step gets the same answer and a new
 * attempt (after a review) is executed unless the failure is armed again.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`create table sandbox_armed_exchanges (
      swap_id uuid primary key,
      refused_key text,
      created_at timestamptz not null default now()
    )`);
  // Exchange failures armed before this table: the venue fires them as it would have.
  await knex.raw(`insert into sandbox_armed_exchanges (swap_id) select id from swaps where armed_failure = 'exchange'`);
}
