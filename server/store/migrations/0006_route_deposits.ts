/**
 * Permanent-route deposits, the orders that convert them, and the partner's markup earnings.
 * - `permanent_routes.next_poll_at`: when the route's addresses are next looked at (the poll job of that
 *   moment is the only one that acts, so stale jobs from an earlier schedule do nothing).
 * - `route_deposits`: one row per transaction output paid to a route address. Until it joins an order it
 *   carries its own status (`confirming`, `accumulating`); afterwards the order's status is its status.
 * - `swaps`: a route order is a swap with mode `permanent` that names its route and the fee terms it was
 *   created under; the markup it earned is recorded at exchange. Its deposit address is the route's, so
 *   the uniqueness of deposit addresses now holds for one-time swaps only.
 * - `partner_earnings`: one entry per finished route order (unique per order).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('permanent_routes', (t) => {
    t.timestamp('next_poll_at', { useTz: true });
  });
  await knex.raw('update permanent_routes set next_poll_at = now()');
  await knex.raw("create index permanent_routes_next_poll on permanent_routes (next_poll_at) where status = 'active'");

  await knex.schema.alterTable('swaps', (t) => {
    // Orders are financial records: a route with orders cannot be deleted on its own (no cascade).
    t.uuid('route_id').references('permanent_routes.id');
    t.index(['route_id']);
    t.specificType('fee_percent', 'numeric');
    t.specificType('fee_floor_usd', 'numeric');
    t.specificType('markup_percent', 'numeric');
    t.specificType('markup_amount', 'numeric');
    t.specificType('markup_usd', 'numeric');
  });
  // A one-time swap's deposit address is its own; route orders name their route's reusable address.
  await knex.raw('drop index swaps_deposit_address_unique');
  await knex.raw(
    "create unique index swaps_deposit_address_unique on swaps (deposit_address) where deposit_address is not null and mode = 'standard'",
  );

  await knex.schema.createTable('route_deposits', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('route_id').notNullable().references('permanent_routes.id').onDelete('cascade');
    t.text('asset').notNullable();
    t.text('network').notNullable();
    t.text('address').notNullable();
    t.text('tx_hash').notNullable();
    t.integer('output_index').notNullable();
    t.text('from_address').notNullable();
    t.specificType('amount', 'numeric').notNullable();
    // The amount in the asset's smallest unit, fixed when the deposit is first seen.
    t.text('amount_base_units').notNullable();
    t.timestamp('broadcast_at', { useTz: true }).notNullable();
    t.integer('confirmation_count').notNullable();
    t.integer('required_confirmations').notNullable();
    // confirming | accumulating while the deposit has no order; the order's status applies once it has one.
    t.text('status').notNullable();
    t.timestamp('first_seen_at', { useTz: true }).notNullable();
    t.timestamp('last_seen_at', { useTz: true }).notNullable();
    t.timestamp('confirmed_at', { useTz: true });
    // The bucket's valuation while accumulating.
    t.specificType('accumulated_usd', 'numeric');
    t.specificType('threshold_usd', 'numeric');
    t.timestamp('valued_at', { useTz: true });
    t.uuid('order_id').references('swaps.id');
    t.text('refund_tx_hash');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    // A transaction output is one deposit, however often it is seen.
    t.unique(['tx_hash', 'output_index']);
    t.index(['route_id', 'created_at', 'id']);
    t.index(['order_id']);
  });
  // What each poll reads (the route's deposits without an order) and what route reads show (the waiting ones).
  await knex.raw('create index route_deposits_open on route_deposits (route_id, created_at) where order_id is null');
  await knex.raw("create index route_deposits_accumulating on route_deposits (route_id, created_at) where status = 'accumulating'");
  await knex.raw(
    `alter table route_deposits add constraint route_deposits_status_check check (
       (order_id is null and status in ('confirming', 'accumulating')) or (order_id is not null and status = 'ordered'))`,
  );

  await knex.schema.createTable('partner_earnings', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('partner_id').notNullable().references('partners.id').onDelete('cascade');
    t.uuid('route_id').notNullable().references('permanent_routes.id').onDelete('cascade');
    t.uuid('order_id').notNullable().unique().references('swaps.id');
    t.text('asset').notNullable();
    t.text('network').notNullable();
    t.specificType('amount', 'numeric').notNullable();
    t.specificType('amount_usd', 'numeric').notNullable();
    t.specificType('markup_percent', 'numeric').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['partner_id', 'created_at', 'id']);
  });
}
