/** Single use of request nonces, shared by every server instance through the database. */
import type { Knex } from 'knex';

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

/** One request's nonce, waiting for its batch. */
interface PendingClaim {
  keyId: string;
  nonce: string;
  expiresAt: Date;
  resolve(claim: NonceClaim): void;
  reject(err: unknown): void;
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
  let waiting: PendingClaim[] = [];
  let running = false;

  async function run(batch: PendingClaim[]): Promise<void> {
    const first = new Map<string, PendingClaim>();
    const repeats: PendingClaim[] = [];
    for (const claim of batch) {
      const id = `${claim.keyId}\n${claim.nonce}`;
      if (first.has(id)) repeats.push(claim);
      else first.set(id, claim);
    }
    const unique = [...first.values()];
    const keyIds = [...new Set(unique.map((c) => c.keyId))];
    let rows: Array<{ kind: 'n' | 'p'; key_id: string; nonce: string | null; updated_at: Date | null; status: string | null }>;
    try {
      const result = await db.raw(
        `with claimed as (
           insert into request_nonces (key_id, nonce, expires_at)
           select * from unnest(?::text[], ?::text[], ?::timestamptz[])
           on conflict (key_id, nonce) do update set expires_at = excluded.expires_at
             where request_nonces.expires_at <= ?
           returning key_id, nonce)
         select 'n' as kind, key_id, nonce, null::timestamptz as updated_at, null::text as status from claimed
         union all
         select 'p', key_id, null, updated_at, status from partners where key_id = any(?::text[])`,
        [unique.map((c) => c.keyId), unique.map((c) => c.nonce), unique.map((c) => c.expiresAt), now(), keyIds],
      );
      rows = result.rows;
    } catch (err) {
      for (const claim of batch) claim.reject(err);
      return;
    }
    const fresh = new Set<string>();
    const partners = new Map<string, { updatedAt: Date; status: string }>();
    for (const row of rows) {
      if (row.kind === 'n') fresh.add(`${row.key_id}\n${row.nonce}`);
      else partners.set(row.key_id, { updatedAt: row.updated_at!, status: row.status! });
    }
    for (const [id, claim] of first) claim.resolve({ fresh: fresh.has(id), partner: partners.get(claim.keyId) });
    for (const claim of repeats) claim.resolve({ fresh: false, partner: partners.get(claim.keyId) });
  }

  async function drain(): Promise<void> {
    running = true;
    try {
      while (waiting.length > 0) {
        const batch = waiting;
        waiting = [];
        await run(batch);
      }
    } finally {
      running = false;
    }
  }

  return {
    /**
     * Records (keyId, nonce) until `expiresAt`. `fresh` is false when the pair is already recorded and
     * unexpired, i.e. the request is a replay.
     */
    claim(keyId: string, nonce: string, expiresAt: Date): Promise<NonceClaim> {
      return new Promise((resolve, reject) => {
        waiting.push({ keyId, nonce, expiresAt, resolve, reject });
        // The first claim waits for the end of this turn of the event loop, gathering the claims of the
        // requests that arrived with it; later ones ride with the next statement.
        if (!running && waiting.length === 1) setImmediate(() => void drain());
      });
    },
  };
}
