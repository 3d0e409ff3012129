/** The rate_limits table that rate-limiter-flexible counts in: its connection adapter and housekeeping. */
import type { Knex } from 'knex';
import { queryUnnamed } from './raw-sql.js';

/** What RateLimiterPostgres calls with storeType 'pool': a query with text, values and a statement name. */
export interface RateLimitStoreClient {
  query(query: { name?: string; text: string; values?: unknown[] }): Promise<unknown>;
}

/**
 * A store client for rate-limiter-flexible over the knex pool that runs every query unnamed. The library
 * names its statements (server-side prepared statements are per connection); the embedded PGlite serves
 * all socket connections from one session, where a second connection preparing the same name fails with
 * "prepared statement already exists". Unnamed, the same SQL works on both databases.
 */
export function createRateLimitStoreClient(db: Knex): RateLimitStoreClient {
  return {
    query: ({ text, values }) => queryUnnamed(db, text, values),
  };
}

/** Deletes counters whose window ended before `now`; returns how many. */
export async function deleteExpiredRateLimits(db: Knex, now: Date): Promise<number> {
  return db('rate_limits').where('expire', '<', now.getTime()).delete();
}
