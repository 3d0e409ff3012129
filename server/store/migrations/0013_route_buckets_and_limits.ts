/**
 * Permanent routes under abuse (issue 33): a route address is public, so anyone can pay it, and a partner could
 * create routes without end.
 * - `route_buckets`: the valuation of a waiting same-asset bucket, one row per route, asset and network while
 *   the bucket waits. Before, every deposit of the bucket carried a copy, so each poll that grew a bucket of n
 *   deposits rewrote (and announced) all n: quadratic work for n payments of dust.
 * - `route_deposits.status` may be `dust`: an output below its asset's dust floor, recorded (no payment is
 *   ever lost, docs/architecture.md#every-payment-accounted-for) but never valued, accumulated or followed; polls read only the open, non-dust rows.
 * - `permanent_routes.active_at`: the route's last sign of life (creation, a deposit, an expect-deposit call);
 *   the polling interval grows with the time since.
 * - `partner_route_counts`: routes per partner, kept by the statement that creates routes, so the per-partner
 *   quota is checked exactly with one row instead of counting the partner's routes on every create.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('route_buckets', (t) => {
    t.uuid('route_id').notNullable().references('permanent_routes.id').onDelete('cascade');
    t.text('asset').notNullable();
    t.text('network').notNullable();
    t.specificType('accumulated_usd', 'numeric').notNullable();
    t.specificType('threshold_usd', 'numeric').notNullable();
    t.timestamp('valued_at', { useTz: true }).notNullable();
    t.primary(['route_id', 'asset', 'network']);
  });
  // Every deposit of a bucket carried the bucket's latest valuation; the newest copy describes it.
  await knex.raw(
    `insert into route_buckets (route_id, asset, network, accumulated_usd, threshold_usd, valued_at)
     select distinct on (route_id, asset, network) route_id, asset, network, accumulated_usd, threshold_usd, coalesce(valued_at, updated_at)
       from route_deposits
      where status = 'accumulating' and accumulated_usd is not null and threshold_usd is not null
      order by route_id, asset, network, coalesce(valued_at, updated_at) desc`,
  );
  await knex.schema.alterTable('route_deposits', (t) => {
    t.dropColumn('accumulated_usd');
    t.dropColumn('threshold_usd');
    t.dropColumn('valued_at');
  });
  await knex.raw('alter table route_deposits drop constraint route_deposits_status_check');
  await knex.raw(
    `alter table route_deposits add constraint route_deposits_status_check check (
       (order_id is null and status in ('confirming', 'accumulating', 'dust')) or (order_id is not null and status = 'ordered'))`,
  );
  // A poll reads the route's open deposits; dust is never open, however much of it a route receives.
  await knex.raw('drop index route_deposits_open');
  await knex.raw("create index route_deposits_open on route_deposits (route_id, created_at) where order_id is null and status <> 'dust'");

  await knex.raw('alter table permanent_routes add column active_at timestamptz');
  await knex.raw(
    `update permanent_routes r
        set active_at = greatest(r.created_at, r.updated_at,
                                 (select max(d.first_seen_at) from route_deposits d where d.route_id = r.id and d.status <> 'dust'))`,
  );
  await knex.raw('alter table permanent_routes alter column active_at set not null');
  // The sweep takes routes inside an expect-deposit window first: a range of this index finds the open windows.
  await knex.raw("create index permanent_routes_expecting on permanent_routes (expect_deposit_until) where status = 'active'");

  await knex.schema.createTable('partner_route_counts', (t) => {
    t.uuid('partner_id').primary().references('partners.id').onDelete('cascade');
    t.integer('routes').notNullable();
  });
  await knex.raw(
    'insert into partner_route_counts (partner_id, routes) select partner_id, count(*) from permanent_routes group by partner_id',
  );
}
