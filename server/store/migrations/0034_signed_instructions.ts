/**
 * Signed deposit instructions (docs/signing.md#signed-deposit-instructions): a swap's compact JWS over its deposit
 * instructions, written once with its deposit address, and a permanent route's over its addresses and verified
 * destination, written once all its addresses are allocated. Stored, not signed on each read, so that every read,
 * webhook and stream shows the same bytes and a swap signed before a key rotation still verifies after it.
 * Null: not signed yet (no address yet), or a swap or route from before this migration.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table swaps add column deposit_instructions_jws text');
  await knex.raw('alter table permanent_routes add column addresses_jws text');
}
