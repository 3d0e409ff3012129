/**
 * Nonces of EVM accounts (adapters/ethereum/nonces.ts), shared by every instance through `evm_nonces`. An
 * allocation runs in a transaction holding an advisory lock on its network and account, so two instances
 * never hand out the same nonce; a released nonce's row is deleted, which frees it for the next key.
 */
import type { Knex } from 'knex';
import type { NonceAllocator, NonceRequest } from '../adapters/ethereum/nonces.js';
import { transaction } from './after-commit.js';

/**
 * Rows of nonces this far below the chain's confirmed count are deleted as allocations pass: their nonces are
 * spent, and a key that asks again this late (a payout still unsigned) must not get a spent one back.
 */
const SPENT_ROWS_KEPT = 256;

/** The nonce `request.key` holds on `network`, allocating the lowest free one at or above the chain's count. */
export async function allocateEvmNonce(db: Knex, network: string, request: NonceRequest): Promise<number> {
  const { address, key, chainNonce } = request;
  return transaction(db, async (trx) => {
    // One allocation per account at a time, on every instance (released when the transaction ends).
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`evm-nonce:${network}:${address}`]);
    const held = await trx('evm_nonces').where({ network, address, key }).first('nonce');
    if (held) return Number(held.nonce);
    await trx('evm_nonces')
      .where({ network, address })
      .andWhere('nonce', '<', chainNonce - SPENT_ROWS_KEPT)
      .delete();
    // The lowest candidate (the chain's count, or one past a held nonce) that no row holds.
    const { rows } = await trx.raw(
      `select min(c.n)::text as nonce
         from (select ?::bigint as n
               union all
               select nonce + 1 from evm_nonces where network = ? and address = ? and nonce >= ?) c
        where not exists (select 1 from evm_nonces h where h.network = ? and h.address = ? and h.nonce = c.n)`,
      [chainNonce, network, address, chainNonce, network, address],
    );
    const nonce = Number((rows as Array<{ nonce: string }>)[0]!.nonce);
    await trx('evm_nonces').insert({ network, address, nonce, key });
    return nonce;
  });
}

/** Frees the nonces `key` holds on `network` (its transaction was proved never accepted). */
export async function releaseEvmNonce(db: Knex, network: string, key: string): Promise<void> {
  await db('evm_nonces').where({ network, key }).delete();
}

/** The nonces of `address` on `network` held at or above `from`, lowest first. */
export async function listHeldEvmNonces(db: Knex, network: string, address: string, from: number) {
  const rows = await db('evm_nonces').where({ network, address }).andWhere('nonce', '>=', from).orderBy('nonce').select('nonce', 'key');
  return rows.map((r: { nonce: string | number; key: string }) => ({ nonce: Number(r.nonce), key: r.key }));
}

/** Takes `nonce` of `address` for `key` unless a key holds it (the primary key decides between instances). */
export async function claimEvmNonce(db: Knex, network: string, address: string, nonce: number, key: string): Promise<boolean> {
  const inserted = await db('evm_nonces').insert({ network, address, nonce, key }).onConflict().ignore().returning('nonce');
  return inserted.length === 1;
}

/** The allocator of `network`'s accounts over `db`, for its adapters. */
export function createEvmNonceAllocator(db: Knex, network: string): NonceAllocator {
  return {
    nonceFor: (request) => allocateEvmNonce(db, network, request),
    release: (key) => releaseEvmNonce(db, network, key),
    held: (address, from) => listHeldEvmNonces(db, network, address, from),
    claim: (address, nonce, key) => claimEvmNonce(db, network, address, nonce, key),
  };
}
