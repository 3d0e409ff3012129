/**
 * Work that must wait until a write is committed (announcing a change, waking a worker for a job the write
 * queued): after the transaction commits when the write is in one (never if it rolls back), at once when the
 * write was a statement of its own.
 */
import type { Knex } from 'knex';

/** Runs `run` once what `db` wrote is committed; not at all if `db` is a transaction that rolls back. */
export function afterCommit(db: Knex, run: () => void): void {
  if (!db.isTransaction) return run();
  // knex settles a transaction's executionPromise when it commits (resolved) or rolls back (rejected).
  (db as unknown as { executionPromise: Promise<unknown> }).executionPromise.then(run, () => undefined);
}
