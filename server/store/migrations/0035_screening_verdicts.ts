/**
 * Address screening (docs/screening.md): the verdict on each sender of a payment to a swap's address, kept
 * so a deposit is screened once, the ops CLI shows why a swap is held (the provider's reason), and no
 * automatic refund ever goes to a sender that was denied or held for review. One row per swap and sender;
 * the decisions that deny or hold are also in the operator action trail (`screening.verdict`).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table screening_verdicts (
      swap_id uuid not null references swaps (id) on delete cascade,
      network text not null,
      -- As the chain names it; compared in its screening key (lower case for EVM hex and bech32).
      address text not null,
      address_key text not null,
      role text not null check (role in ('sender')),
      decision text not null check (decision in ('allow', 'deny', 'review')),
      reason text,
      provider text not null check (provider in ('denylist', 'provider')),
      -- What went wrong when the provider failed (the decision is then SCREENING_FAIL_MODE's).
      failure text,
      screened_at timestamptz not null,
      primary key (swap_id, role, address_key)
    )`);
}
