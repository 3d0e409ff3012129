/**
 * Nonces of EVM accounts held by a payment (adapters/ethereum/nonces.ts): one row per held nonce, deleted when
 * released. A key holds one nonce per account; a nonce is held by one key.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`create table evm_nonces (
      network text not null,
      address text not null,
      nonce bigint not null,
      key text not null,
      created_at timestamptz not null default now(),
      primary key (network, address, nonce),
      unique (network, address, key)
    )`);
}
