/**
 * Address screening of permanent-route deposits (docs/screening.md): the verdict on the sender of each route
 * deposit, taken once, when the route poll first sees the payment. A deposit whose sender is denied or held
 * for review is converted alone into an order held for an operator (`screening_hold`), and no refund of a
 * route order ever goes to such a sender. The decisions that deny or hold are also in the operator action
 * trail (`screening.verdict`, its target the route).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table route_deposit_verdicts (
      deposit_id uuid primary key references route_deposits (id) on delete cascade,
      network text not null,
      -- As the chain names it; compared in its screening key (lower case for EVM hex and bech32).
      address text not null,
      address_key text not null,
      decision text not null check (decision in ('allow', 'deny', 'review')),
      reason text,
      provider text not null check (provider in ('denylist', 'provider')),
      -- What went wrong when the provider failed (the decision is then SCREENING_FAIL_MODE's).
      failure text,
      screened_at timestamptz not null
    )`);
}
