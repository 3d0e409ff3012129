/**
 * Periodic clean-up of short-lived rows: spent nonces, finished rate-limit windows and expired Idempotency-Keys. Safe to run on every
 * instance at once (plain deletes of expired rows). Failures are logged and the loop keeps going.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
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

/** Starts the sweep; returns a function that stops it. */
export function startHousekeeping(knex: Knex, logger: Logger, now: () => Date = () => new Date()): () => void {
  const sweep = async () => {
    try {
      const removed = await sweepExpiredRows(knex, now());
      if (removed.nonces + removed.windows + removed.idempotencyKeys > 0) logger.debug(removed, 'housekeeping removed expired rows');
    } catch (err) {
      logger.warn({ err }, 'housekeeping failed; will retry');
    }
  };
  const timer = setInterval(() => void sweep(), HOUSEKEEPING_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
