/**
 * A route's deposit addresses are stored one row per network, as they are allocated (jobs/route-addresses.ts:
 * the assets of a network share its address), not one row per asset key. A ZANO route takes 14 asset keys on
 * 10 networks, so an allocation wrote 14 rows (each with its key, foreign-key check and address-index entry)
 * where 10 say the same; the asset keys a route takes stay in `permanent_routes.asset_keys`, and its view maps
 * each key to its network's address.
 *
 * Rows still empty ('', written by a create before migration 0011) go: a route shows '' for a key without a
 * row, and its pending job inserts the row. Of a network's rows, one is kept (all of them hold the same
 * address, since allocation was always per network). The address index loses its `address <> ''` condition,
 * as no row is empty any more.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`delete from route_addresses where address = ''`);
  // Collapsing must lose nothing: refuse (and change nothing) if a network's rows ever disagreed.
  const { rows } = await knex.raw(
    `select route_id, network from route_addresses group by route_id, network having count(distinct address) > 1 limit 1`,
  );
  if (rows.length > 0) {
    throw new Error(`route ${rows[0].route_id} has several addresses on network ${rows[0].network}; resolve before upgrading`);
  }
  await knex.raw(
    `delete from route_addresses a using route_addresses b
      where a.route_id = b.route_id and a.network = b.network and a.asset_key > b.asset_key`,
  );
  await knex.raw(`alter table route_addresses drop constraint route_addresses_pkey`);
  await knex.raw(`alter table route_addresses drop column asset_key`);
  await knex.raw(`alter table route_addresses add primary key (route_id, network)`);
  await knex.raw(`alter table route_addresses alter column address drop default`);
  await knex.raw(`alter table route_addresses add constraint route_addresses_address_check check (address <> '')`);
  await knex.raw(`drop index route_addresses_address_index`);
  await knex.raw(`create index route_addresses_address_index on route_addresses (address)`);
}
