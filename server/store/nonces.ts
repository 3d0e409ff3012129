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

/** The outcome of claiming a nonce, with the partner key's current version. */
export interface NonceClaim {
  fresh: boolean;
  /** The partner's `updated_at` and status now; undefined when the key no longer exists. */
  partner: { updatedAt: Date; status: string } | undefined;
}

/**
 * claimNonce, and in the same round trip the key's current version and status, so an instance that caches
 * partners learns of a rotation or a disabling on the very next request.
 */
export async function claimNonceAndReadPartner(db: Knex, keyId: string, nonce: string, now: Date, expiresAt: Date): Promise<NonceClaim> {
  const result = await db.raw(
    `with claimed as (
       insert into request_nonces (key_id, nonce, expires_at) values (?, ?, ?)
       on conflict (key_id, nonce) do update set expires_at = excluded.expires_at
         where request_nonces.expires_at <= ?
       returning key_id)
     select (select count(*) from claimed)::int as fresh, p.updated_at, p.status
       from (select 1) one left join partners p on p.key_id = ?`,
    [keyId, nonce, expiresAt, now, keyId],
  );
  const row = result.rows[0] as { fresh: number; updated_at: Date | null; status: string | null };
  return {
    fresh: row.fresh === 1,
    partner: row.updated_at ? { updatedAt: row.updated_at, status: row.status! } : undefined,
  };
}
