/**
 * Production's chains. Derivation indexes of deposit addresses (docs/architecture.md#production): an address derived from an extended public key needs
 * a number, allocated once per key (a swap id, a route allocation) and never reused. One sequence serves
 * every network (an index is unique across them; gaps are harmless: nothing scans for used indexes).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`create sequence deposit_index_seq minvalue 0 start 0`);
  await knex.raw(`create table deposit_indexes (
      network text not null,
      key text not null,
      index bigint not null unique,
      created_at timestamptz not null default now(),
      primary key (network, key)
    )`);
  // One instance watches each network at a time (jobs/chain-watch.ts): the holder renews its lease with every scan.
  await knex.raw(`create table chain_watch_leases (
      network text primary key,
      holder text not null,
      expires_at timestamptz not null
    )`);
  // Liquidity (services/liquidity.ts) sums what live fixed quotes promise per destination asset.
  await knex.raw(
    `create index quotes_live_fixed on quotes (destination_network, destination_asset, expires_at) where rate_type = 'fixed' and used_at is null`,
  );
}
