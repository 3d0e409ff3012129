/**
 * The rate_limits table: one row per limited key holding its current window (it starts with the key's first
 * request and ends at `expire`, in ms) and the allowance server instances have taken from it
 * (http/rate-limit.ts leases it in chunks); and its housekeeping.
 */
import type { Knex } from 'knex';

/** What one lease request got, and the window as the database holds it. */
export interface Lease {
  granted: number;
  /** Points granted in this window to every instance, this lease included. */
  total: number;
  /** End of the window, ms since the epoch. */
  expire: number;
}

/**
 * Takes `want` points of `key`'s window, all or nothing, never letting the window's total pass `limit`;
 * atomic under concurrency, so instances together never take more than `limit`. A window that has ended is
 * replaced by a new one of `windowMs` starting now. When `want` does not fit, takes nothing.
 */
export async function takeLease(db: Knex, key: string, want: number, limit: number, now: number, windowMs: number): Promise<Lease> {
  const result = await db.raw(
    `insert into rate_limits as r (key, points, expire) values (?, ?, ?)
     on conflict (key) do update set
       points = case when r.expire <= ? then excluded.points else r.points + excluded.points end,
       expire = case when r.expire <= ? then excluded.expire else r.expire end
     where r.expire <= ? or r.points + excluded.points <= ?
     returning points, expire`,
    [key, want, now + windowMs, now, now, now, limit],
  );
  if (result.rows.length === 1) return { granted: want, total: Number(result.rows[0].points), expire: Number(result.rows[0].expire) };
  const row = await db('rate_limits').where({ key }).first('points', 'expire');
  return { granted: 0, total: Number(row?.points ?? limit), expire: Number(row?.expire ?? now + windowMs) };
}

/** Deletes counters whose window ended before `now`; returns how many. */
export async function deleteExpiredRateLimits(db: Knex, now: Date): Promise<number> {
  return db('rate_limits').where('expire', '<', now.getTime()).delete();
}
