/**
 * Work that must wait until a write is committed (announcing a change, waking a worker for a job the write
 * queued): after the transaction commits when the write is in one (never if it rolls back), at once when the
 * write was a statement of its own.
 *
 * knex documents no commit hook (and its transaction's own settling is no such hook: it settles when a
 * savepoint is released, whatever the outer transaction does, and on a rollback without an error), so every
 * transaction that may carry such work is opened through `transaction` below, which keeps the work registered
 * for it and runs it once its `knex.transaction` promise has resolved, that is once it has committed.
 */
import type { Knex } from 'knex';

// The work waiting on each transaction opened through `transaction`; a savepoint keeps its own list and hands
// it to its parent when it is released, so work registered inside a savepoint that rolls back never runs.
const pending = new WeakMap<Knex.Transaction, Array<() => void>>();

/**
 * Runs `work` in a transaction of `db` (a savepoint when `db` is a transaction already), then, once the
 * outermost transaction has committed, the work `afterCommit` registered for it; none of it if it rolls back.
 * A rollback always rejects, also one by `trx.rollback()` without an error.
 */
export async function transaction<T>(db: Knex, work: (trx: Knex.Transaction) => Promise<T>, config?: Knex.TransactionConfig): Promise<T> {
  const parent = db.isTransaction ? pendingOf(db as Knex.Transaction) : undefined;
  const registered: Array<() => void> = [];
  // knex resolves a transaction rolled back by `trx.rollback()` without an error unless told not to; rejecting
  // it makes "resolved" mean "committed".
  const result = await db.transaction(
    (trx) => {
      pending.set(trx, registered);
      return work(trx);
    },
    { ...config, doNotRejectOnRollback: false },
  );
  if (parent) parent.push(...registered);
  else for (const run of registered) runCommitted(run);
  return result;
}

/** Runs `run` once what `db` wrote is committed; not at all if `db` is a transaction that rolls back. */
export function afterCommit(db: Knex, run: () => void): void {
  if (!db.isTransaction) return run();
  pendingOf(db as Knex.Transaction).push(run);
}

function pendingOf(trx: Knex.Transaction): Array<() => void> {
  const registered = pending.get(trx);
  // A transaction opened by knex.transaction directly would drop its after-commit work without a word.
  if (!registered) throw new Error('afterCommit needs a transaction opened through transaction() of server/store/after-commit.ts');
  return registered;
}

// The transaction has committed whatever `run` does: a failure of `run` surfaces as an uncaught error instead
// of rejecting the caller's transaction (which its caller might retry), and the rest of the work still runs.
function runCommitted(run: () => void): void {
  try {
    run();
  } catch (err) {
    queueMicrotask(() => {
      throw err;
    });
  }
}
