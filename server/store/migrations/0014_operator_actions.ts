/**
 * The operator action trail (issue 33): every action a person takes through the CLIs (a partner created, a
 * secret rotated, a key disabled or enabled, a webhook redelivered, a review decided) with who, what, on
 * what, why, when and how it ended. A succeeded row commits in the action's own transaction; a refused or
 * failed one is written after the action rolled back, so no row claims what did not happen.
 *
 * Append-only in the database itself: triggers refuse UPDATE, DELETE and TRUNCATE, whoever connects, so a
 * mistaken script or a hand-typed statement cannot rewrite the record (a superuser can still drop the
 * triggers; that too is a visible act, not a quiet edit).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table operator_actions (
      -- Increasing: the trail's order, newest first, even between actions of the same millisecond.
      id bigint generated always as identity primary key,
      actor text not null check (length(actor) between 1 and 200),
      -- e.g. partner.create, partner.rotate_secret, partner.disable, partner.enable, webhook.redeliver, review.decide
      action text not null,
      -- What the action is on: a partner's key id, a webhook message id, a swap id.
      target text not null,
      reason text,
      outcome text not null check (outcome in ('succeeded', 'refused', 'failed')),
      -- What the action did (new status, attempt number) or why it was refused (the error's code and message). Never a secret.
      details jsonb,
      acted_at timestamptz not null default now()
    )`);
  await knex.raw('create index operator_actions_action_id on operator_actions (action, id)');
  await knex.raw('create index operator_actions_target_id on operator_actions (target, id)');
  await knex.raw(`
    create function pss_operator_actions_append_only() returns trigger language plpgsql as $$
    begin
      raise exception using errcode = 'PS002', message = 'operator_actions is append-only: ' || tg_op || ' is refused';
    end
    $$`);
  await knex.raw(`
    create trigger operator_actions_no_update_or_delete before update or delete on operator_actions
      for each row execute function pss_operator_actions_append_only()`);
  await knex.raw(`
    create trigger operator_actions_no_truncate before truncate on operator_actions
      for each statement execute function pss_operator_actions_append_only()`);
}
