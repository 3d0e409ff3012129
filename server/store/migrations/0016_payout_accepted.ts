/**
 * When the chain first accepted a payout's broadcast (`accepted_at`). A payout accepted once may be on the
 * chain whatever a later broadcast answers, so a refusal after that never marks it failed (which would let a
 * refund or payout be committed again): it holds it for review (jobs/payout-sender.ts).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table payouts add column accepted_at timestamptz');
  await knex.raw(`update payouts set accepted_at = updated_at where status in ('broadcast', 'confirmed')`);
}
