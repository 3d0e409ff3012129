/**
 * Signed webhooks (docs/architecture.md#streams-and-webhooks): each partner's webhook (URL, sealed secret, on/off), every delivery attempt,
 * and the outbox's dispatch mark. The dispatcher claims outbox rows without `dispatched_at` and, in the same
 * transaction, queues their first delivery job and sets the mark, so a committed row gets its job even when
 * the process dies right after the commit that wrote it.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('partner_webhooks', (t) => {
    t.uuid('partner_id').primary().references('partners.id').onDelete('cascade');
    t.text('url').notNullable();
    t.boolean('enabled').notNullable().defaultTo(true);
    // AES-256-GCM under SECRETS_KEY, bound to `webhook-secret:<partner id>` (store/secret-box.ts).
    t.text('secret_sealed').notNullable();
    t.text('secret_hint').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('webhook_attempts', (t) => {
    t.bigIncrements('seq').primary();
    t.uuid('id').notNullable().unique().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('partner_id').notNullable().references('partners.id').onDelete('cascade');
    // The message's webhook-id: the outbox row's id, or the id of a webhook.test message.
    t.text('message_id').notNullable();
    t.text('type').notNullable();
    t.integer('attempt').notNullable();
    t.text('url').notNullable();
    t.integer('status_code');
    t.text('error');
    t.integer('duration_ms').notNullable();
    t.boolean('succeeded').notNullable();
    t.timestamp('attempted_at', { useTz: true }).notNullable();
    t.timestamp('next_attempt_at', { useTz: true });
    // One row per attempt: a delivery job that runs again after its attempt was recorded does nothing.
    t.unique(['message_id', 'attempt']);
    t.index(['partner_id', 'attempted_at', 'seq']);
  });

  await knex.schema.alterTable('webhook_outbox', (t) => {
    t.timestamp('dispatched_at', { useTz: true });
  });
  // Rows written before webhooks existed had no webhook to go to.
  await knex('webhook_outbox').update({ dispatched_at: knex.ref('created_at') });
  await knex.raw('create index webhook_outbox_undispatched on webhook_outbox (seq) where dispatched_at is null');
}
