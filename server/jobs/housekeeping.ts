/**
 * Periodic clean-up of short-lived rows: spent nonces, finished rate-limit windows and expired Idempotency-Keys. Safe to run on every
 * instance at once (plain deletes of expired rows). Failures are logged and the loop keeps going. On the
 * embedded database, each sweep is followed by the upkeep PostgreSQL's background processes would do
 * (store/embedded-maintenance.ts): vacuum, so the space of the rows deleted here is used again, and checkpoints.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Database } from '../store/database.js';
import { deleteExpiredNonces } from '../store/nonces.js';
import { deleteExpiredRateLimits } from '../store/rate-limits.js';
import { deleteExpiredIdempotencyKeys } from '../store/idempotency.js';

/** How often the sweep runs. */
export const HOUSEKEEPING_INTERVAL_MS = 60_000;

/**
 * Deletes the nonces whose replay window has passed and the rate-limit windows that have ended; this is
 * what keeps request_nonces at about one row per signed request of the last ten minutes.
 */
export async function sweepExpiredRows(knex: Knex, at: Date): Promise<{ nonces: number; windows: number; idempotencyKeys: number }> {
  return {
    nonces: await deleteExpiredNonces(knex, at),
    windows: await deleteExpiredRateLimits(knex, at),
    idempotencyKeys: await deleteExpiredIdempotencyKeys(knex, at),
  };
}

/**
 * Starts the sweep, with the database's upkeep after it where it has one, every `intervalMs`. A sweep still
 * running when the next is due is not doubled (the first upkeep of a long-bloated DATA_DIR can take a while).
 * Returns a function that stops it: no sweep starts after it is called, the upkeep starts no further
 * statement, and it resolves once a running sweep has ended, so the database can then be closed under none.
 */
export function startHousekeeping(
  db: Pick<Database, 'knex' | 'maintain'>,
  logger: Logger,
  now: () => Date = () => new Date(),
  intervalMs = HOUSEKEEPING_INTERVAL_MS,
): () => Promise<void> {
  const stopping = new AbortController();
  let running: Promise<void> | undefined;
  const sweep = async () => {
    try {
      const removed = await sweepExpiredRows(db.knex, now());
      if (removed.nonces + removed.windows + removed.idempotencyKeys > 0) logger.debug(removed, 'housekeeping removed expired rows');
      const upkeep = await db.maintain?.(stopping.signal);
      if (upkeep && (upkeep.vacuumed.length + upkeep.analyzed.length > 0 || upkeep.checkpointed)) {
        logger.debug(upkeep, 'housekeeping maintained the embedded database');
      }
    } catch (err) {
      logger.warn({ err }, 'housekeeping failed; will retry');
    } finally {
      running = undefined;
    }
  };
  const timer = setInterval(() => {
    if (!running && !stopping.signal.aborted) running = sweep();
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    stopping.abort();
    await running;
  };
}
