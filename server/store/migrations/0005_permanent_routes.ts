/**
 * Permanent routes: ownership challenges, the routes created from verified proofs, and their reusable
 * deposit addresses (one row per `ASSET/NETWORK`; the address is '' until a job allocates it).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('route_challenges', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('partner_id').notNullable().references('partners.id').onDelete('cascade');
    t.text('external_user').notNullable();
    t.text('destination_asset').notNullable();
    t.text('destination_network').notNullable();
    t.text('destination_address').notNullable();
    t.text('label');
    t.text('text').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('permanent_routes', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('partner_id').notNullable().references('partners.id').onDelete('cascade');
    t.text('external_user').notNullable();
    t.text('destination_asset').notNullable();
    t.text('destination_network').notNullable();
    t.text('destination_address').notNullable();
    t.text('label');
    t.text('status').notNullable().defaultTo('active');
    t.specificType('fee_percent', 'numeric').notNullable();
    t.specificType('markup_percent', 'numeric').notNullable();
    t.specificType('fee_floor_usd', 'numeric').notNullable();
    t.specificType('min_swap_usd', 'numeric').notNullable();
    t.specificType('max_auto_swap_usd', 'numeric').notNullable();
    t.timestamp('expect_deposit_until', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    // Create or recover: one route per partner, user and verified destination.
    t.unique(['partner_id', 'external_user', 'destination_asset', 'destination_address']);
    t.index(['partner_id', 'created_at', 'id']);
  });

  await knex.schema.createTable('route_addresses', (t) => {
    t.uuid('route_id').notNullable().references('permanent_routes.id').onDelete('cascade');
    t.text('asset_key').notNullable();
    t.text('network').notNullable();
    t.text('address').notNullable().defaultTo('');
    t.primary(['route_id', 'asset_key']);
  });
}
