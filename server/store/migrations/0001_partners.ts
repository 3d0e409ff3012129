/** Partners and their credentials, the nonce memory of signed requests, markups and the rate-limit counters. */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('partners', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('key_id').notNullable().unique();
    t.text('name').notNullable();
    t.text('status').notNullable().defaultTo('active');
    // AES-256-GCM under SECRETS_KEY (store/secret-box.ts); never the plaintext.
    t.text('secret_sealed').notNullable();
    t.timestamp('secret_rotated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table partners add constraint partners_status_check check (status in ('active', 'disabled'))`);

  await knex.schema.createTable('request_nonces', (t) => {
    t.text('key_id').notNullable();
    t.text('nonce').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.primary(['key_id', 'nonce']);
    t.index(['expires_at']);
  });

  await knex.schema.createTable('partner_markups', (t) => {
    t.uuid('partner_id').primary().references('partners.id').onDelete('cascade');
    t.decimal('percent', 5, 2).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table partner_markups add constraint partner_markups_percent_check check (percent >= 0 and percent <= 3)`);

  // The layout rate-limiter-flexible's RateLimiterPostgres expects (created here so it never runs DDL itself).
  await knex.schema.createTable('rate_limits', (t) => {
    t.string('key', 255).primary();
    t.integer('points').notNullable().defaultTo(0);
    t.bigInteger('expire');
  });
}
