/** Housekeeping of the rate_limits table that rate-limiter-flexible counts in. */
import type { Knex } from 'knex';

/** Deletes counters whose window ended before `now`; returns how many. */
export async function deleteExpiredRateLimits(db: Knex, now: Date): Promise<number> {
  return db('rate_limits').where('expire', '<', now.getTime()).delete();
}
