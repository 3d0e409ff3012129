/**
 * Operator decisions (issue 12): who decided what about a swap held for a person, why and when. The
 * decision's status change itself is an ordinary transition (timeline entry and webhook); this table keeps
 * what the timeline does not show partners: the operator's name and reason.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('operator_decisions', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    // Financial records: a decision stays with its swap, and a swap with decisions is not deleted on its own.
    t.uuid('swap_id').notNullable().references('swaps.id');
    t.text('operator').notNullable();
    // exchange | refund | fail
    t.text('decision').notNullable();
    t.text('reason').notNullable();
    t.text('from_status').notNullable();
    t.text('to_status').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['swap_id', 'created_at']);
  });
  await knex.raw(
    "alter table operator_decisions add constraint operator_decisions_decision_check check (decision in ('exchange', 'refund', 'fail'))",
  );
}
