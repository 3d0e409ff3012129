/**
 * A permanent route lists the asset keys it takes (`asset_keys`, sorted), and `route_addresses` holds a row
 * only once its address is allocated. Before, a create wrote a placeholder row ('') per asset key, each with
 * its key and foreign-key check, and the allocation then updated every one: two writes of about twelve rows
 * per route where one array and one insert do. Placeholder rows already stored stay valid: the allocation
 * fills them, and a route's view shows '' for any key without an address.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table permanent_routes add column asset_keys text[] not null default '{}'`);
  await knex.raw(
    `update permanent_routes r
        set asset_keys = array(select a.asset_key from route_addresses a where a.route_id = r.id order by a.asset_key collate "C")`,
  );
  await knex.raw(`alter table permanent_routes alter column asset_keys drop default`);
}
