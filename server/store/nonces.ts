/** Single use of request nonces, shared by every server instance through the database. */
import type { Knex } from 'knex';

/**
 * Records (keyId, nonce) until `expiresAt`. Returns false when the pair is already recorded and unexpired,
 * i.e. the request is a replay. Atomic: of two concurrent claims exactly one wins.
 */
export async function claimNonce(db: Knex, keyId: string, nonce: string, now: Date, expiresAt: Date): Promise<boolean> {
  const result = await db.raw(
    `insert into request_nonces (key_id, nonce, expires_at) values (?, ?, ?)
     on conflict (key_id, nonce) do update set expires_at = excluded.expires_at
       where request_nonces.expires_at <= ?
     returning key_id`,
    [keyId, nonce, expiresAt, now],
  );
  return result.rows.length === 1;
}

/** Deletes nonces that expired before `now`; returns how many. */
export async function deleteExpiredNonces(db: Knex, now: Date): Promise<number> {
  return db('request_nonces').where('expires_at', '<=', now).delete();
}
