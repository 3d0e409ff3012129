/**
 * Quotes, one-time swaps with their timeline, the webhook outbox their transitions write, Idempotency-Keys,
 * and the sandbox's simulated chain (deposits seen on deposit addresses, payouts sent).
 * Amounts are `numeric` (read back as strings), never floating point.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('quotes', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('partner_id').notNullable().references('partners.id').onDelete('cascade');
    t.text('source_asset').notNullable();
    t.text('source_network').notNullable();
    t.text('destination_asset').notNullable();
    t.text('destination_network').notNullable();
    t.specificType('source_amount', 'numeric').notNullable();
    t.specificType('deposit_amount', 'numeric').notNullable();
    t.specificType('receive_amount', 'numeric').notNullable();
    t.specificType('minimum_receive_amount', 'numeric');
    t.specificType('fee_usd', 'numeric').notNullable();
    t.specificType('rate', 'numeric').notNullable();
    t.text('rate_type').notNullable();
    t.specificType('minimum_source_amount', 'numeric').notNullable();
    t.specificType('maximum_source_amount', 'numeric').notNullable();
    t.integer('estimated_minutes').notNullable();
    t.text('late_deposit_policy').notNullable();
    t.text('refund_mode').notNullable();
    t.text('refund_address');
    t.text('refund_memo');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table quotes add constraint quotes_rate_type_check check (rate_type in ('fixed', 'floating'))`);

  await knex.schema.createTable('swaps', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('partner_id').notNullable().references('partners.id').onDelete('cascade');
    // A quote makes at most one swap: the constraint that makes "used quote" atomic.
    t.uuid('quote_id').unique().references('quotes.id');
    t.text('mode').notNullable().defaultTo('standard');
    t.text('external_user').notNullable();
    t.text('source_asset').notNullable();
    t.text('source_network').notNullable();
    t.text('destination_asset').notNullable();
    t.text('destination_network').notNullable();
    t.text('destination').notNullable();
    t.text('destination_memo');
    t.text('refund_mode').notNullable();
    t.text('refund_address');
    t.text('refund_memo');
    t.text('rate_type').notNullable();
    t.specificType('source_amount', 'numeric').notNullable();
    t.specificType('deposit_amount', 'numeric').notNullable();
    t.specificType('expected_output_amount', 'numeric');
    t.specificType('minimum_output_amount', 'numeric');
    t.specificType('actual_output_amount', 'numeric');
    t.specificType('quoted_rate', 'numeric').notNullable();
    t.specificType('fee_usd', 'numeric');
    t.text('deposit_address');
    t.text('deposit_memo');
    t.text('source_tx_hash');
    t.specificType('received_amount', 'numeric');
    t.text('received_from');
    t.boolean('late_deposit').notNullable().defaultTo(false);
    t.integer('confirmation_count');
    t.integer('required_confirmations').notNullable();
    t.text('settlement_tx_hash');
    t.text('refund_tx_hash');
    t.specificType('refund_amount', 'numeric');
    t.timestamp('quote_expires_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.text('late_deposit_policy').notNullable();
    t.text('status').notNullable().defaultTo('waiting');
    t.text('failure_code');
    t.text('armed_failure');
    t.text('terms_version').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['partner_id', 'created_at', 'id']);
    t.index(['partner_id', 'status', 'created_at', 'id']);
    t.index(['status']);
  });
  await knex.raw('create unique index swaps_deposit_address_unique on swaps (deposit_address) where deposit_address is not null');
  await knex.raw(
    `alter table swaps add constraint swaps_status_check check (status in
      ('waiting', 'confirming', 'exchanging', 'sending', 'accumulating', 'finished', 'refunded', 'failed', 'expired', 'overdue', 'review'))`,
  );

  await knex.schema.createTable('swap_events', (t) => {
    t.bigIncrements('seq').primary();
    t.uuid('id').notNullable().unique().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('swap_id').notNullable().references('swaps.id').onDelete('cascade');
    t.text('status').notNullable();
    t.boolean('terminal').notNullable();
    t.text('action_required').notNullable();
    t.boolean('retryable').notNullable();
    t.text('reason_code').notNullable();
    t.integer('confirmation_count');
    t.integer('required_confirmations');
    t.text('source_tx_hash');
    t.text('settlement_tx_hash');
    t.text('refund_tx_hash');
    t.timestamp('occurred_at', { useTz: true }).notNullable();
    t.index(['swap_id', 'seq']);
  });

  // Written in the transaction of every transition and order change; webhook delivery reads it.
  await knex.schema.createTable('webhook_outbox', (t) => {
    t.bigIncrements('seq').primary();
    t.uuid('id').notNullable().unique().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('partner_id').notNullable().references('partners.id').onDelete('cascade');
    t.text('type').notNullable();
    t.jsonb('payload').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['partner_id', 'seq']);
  });

  await knex.schema.createTable('idempotency_keys', (t) => {
    t.uuid('partner_id').notNullable().references('partners.id').onDelete('cascade');
    t.text('key').notNullable();
    t.text('request_hash').notNullable();
    t.integer('response_status').notNullable();
    t.jsonb('response_body').notNullable();
    t.uuid('swap_id').references('swaps.id').onDelete('cascade');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.primary(['partner_id', 'key']);
    t.index(['expires_at']);
  });

  // The sandbox chain: transactions paid to deposit addresses, and payouts and refunds sent.
  await knex.schema.createTable('sandbox_transactions', (t) => {
    t.text('tx_hash').primary();
    t.text('network').notNullable();
    t.text('asset').notNullable();
    t.text('address').notNullable();
    t.text('memo');
    t.text('from_address').notNullable();
    t.specificType('amount', 'numeric').notNullable();
    t.integer('output_index').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['address', 'created_at']);
  });
  await knex.schema.createTable('sandbox_payouts', (t) => {
    // The caller's idempotency key (swap id and purpose): a repeated send returns the first transaction.
    t.text('idempotency_key').primary();
    t.text('tx_hash').notNullable().unique();
    t.text('network').notNullable();
    t.text('asset').notNullable();
    t.text('address').notNullable();
    t.text('memo');
    t.specificType('amount', 'numeric').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}
