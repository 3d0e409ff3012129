/** Single use of request nonces, shared by every server instance through the database. */
import type { Knex } from 'knex';
import { groupCommit } from './group-commit.js';

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

/** One request's nonce. */
interface NonceRequest {
  keyId: string;
  nonce: string;
  expiresAt: Date;
}

/** Claims nonces in batches; see createNonceClaims. */
export type NonceClaims = ReturnType<typeof createNonceClaims>;

/**
 * Claims request nonces, and reads each key's current version and status in the same round trip, so an
 * instance that caches partners learns of a rotation or a disabling on the very next request.
 *
 * Claims are committed in groups: the claims that arrive while one statement is running are sent
 * together as the next one (a single INSERT ... SELECT FROM unnest), so under load a commit covers many
 * requests instead of one each, and a lone request waits for nothing. Every claim is still decided by the
 * database's unique key before its request goes on: of two claims of one (key, nonce) exactly one is
 * fresh, on this instance or any other. The same pair twice in one group is decided here: the first wins.
 */
export function createNonceClaims(db: Knex, now: () => Date) {
  const claim = groupCommit(async (batch: NonceRequest[]): Promise<NonceClaim[]> => {
    const first = new Map<string, NonceRequest>();
    for (const request of batch) {
      const id = `${request.keyId}\n${request.nonce}`;
      if (!first.has(id)) first.set(id, request);
    }
    const unique = [...first.values()];
    const keyIds = [...new Set(unique.map((c) => c.keyId))];
    // One statement, planned once per connection (pss_claim_nonces, migration 0022, holds its text).
    const result = await db.raw(
      `select kind, key_id, nonce, updated_at, status from pss_claim_nonces(?::text[], ?::text[], ?::timestamptz[], ?::timestamptz, ?::text[])`,
      [unique.map((c) => c.keyId), unique.map((c) => c.nonce), unique.map((c) => c.expiresAt), now(), keyIds],
    );
    const rows: Array<{ kind: 'n' | 'p'; key_id: string; nonce: string | null; updated_at: Date | null; status: string | null }> =
      result.rows;
    const fresh = new Set<string>();
    const partners = new Map<string, { updatedAt: Date; status: string }>();
    for (const row of rows) {
      if (row.kind === 'n') fresh.add(`${row.key_id}\n${row.nonce}`);
      else partners.set(row.key_id, { updatedAt: row.updated_at!, status: row.status! });
    }
    // The same pair twice in one group: the first is fresh (if the database took it), the others are not.
    return batch.map((request) => {
      const id = `${request.keyId}\n${request.nonce}`;
      const isFirst = first.get(id) === request;
      return { fresh: isFirst && fresh.has(id), partner: partners.get(request.keyId) };
    });
  });

  return {
    /**
     * Records (keyId, nonce) until `expiresAt`. `fresh` is false when the pair is already recorded and
     * unexpired, i.e. the request is a replay.
     */
    claim(keyId: string, nonce: string, expiresAt: Date): Promise<NonceClaim> {
      return claim({ keyId, nonce, expiresAt });
    },
  };
}
