/**
 * A chosen outcome for a fixed-rate deposit of another amount (POST /swaps `amountMismatchPolicy`):
 * `swaps.amount_mismatch_policy` holds the swap's policy (one-time swaps made before it refunded such a
 * deposit, so they are `refund`; a route order has none), `excess_refund_amount` what goes back of an
 * overpayment under `refund_excess` and `excess_refund_tx_hash` the transaction once the chain accepted it.
 * That refund is a payout of its own purpose, `excess_refund`.
 * `swap_events.note` says, on the entry of the step a rule decided, which rule applied and why.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table swaps add column amount_mismatch_policy text
                    check (amount_mismatch_policy in ('refund', 'market_rate', 'refund_excess'))`);
  await knex.raw(`update swaps set amount_mismatch_policy = 'refund' where mode = 'standard'`);
  await knex.raw('alter table swaps add column excess_refund_amount numeric, add column excess_refund_tx_hash text');
  await knex.raw('alter table swap_events add column note text');
  await knex.raw('alter table payouts drop constraint payouts_purpose_check');
  await knex.raw(
    `alter table payouts add constraint payouts_purpose_check check (purpose in ('payout', 'refund', 'extra_refund', 'excess_refund', 'cold'))`,
  );
}
