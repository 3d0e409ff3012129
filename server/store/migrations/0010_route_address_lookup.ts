/**
 * An index to find a permanent route by one of its deposit addresses (the address-owner lookup of
 * store/sandbox-chain.ts, the first read of every sandbox payment). Without it that read scanned every route
 * address row of every partner. Partial: the rows of an address still being allocated ('') are left out, so
 * a route create writes no entry for its rows; the allocation that fills a row adds one.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`create index route_addresses_address_index on route_addresses (address) where address <> ''`);
}
