/**
 * Concurrent swap streams of one server instance (docs/architecture.md#streams-and-webhooks, #errors-limits-and-health): at most so many per access token, per
 * client IP, per partner and in all. A stream is admitted only when every count is below its limit, and
 * holds one place in each until it is released. Counts live in memory: a stream is a connection to this
 * instance, and ends with it (a restart frees every place).
 */

/** Which limit refused a stream, narrowest first (the order they are checked in). */
export type StreamLimitScope = 'token' | 'ip' | 'partner' | 'instance';

/** Every scope, in the order they are checked. */
export const STREAM_LIMIT_SCOPES: readonly StreamLimitScope[] = ['token', 'ip', 'partner', 'instance'];

/** The most concurrent streams allowed in each scope. */
export type StreamLimits = Readonly<Record<StreamLimitScope, number>>;

/** What a stream is counted under: its token (one per swap, so the swap id names it), client IP and partner. */
export type StreamKeys = Readonly<Record<Exclude<StreamLimitScope, 'instance'>, string>>;

/** The answer to a stream asking to open: a place to release when it ends, or the limit it would exceed. */
export type StreamAdmission = { admitted: true; release(): void } | { admitted: false; scope: StreamLimitScope; limit: number };

/** Counts open streams against `limits`. */
export interface StreamLimiter {
  /** Takes a place in every scope for a stream with `keys`, or none when any scope is full. */
  admit(keys: StreamKeys): StreamAdmission;
  /** Streams holding a place. */
  open(): number;
}

/** Creates an empty limiter. */
export function createStreamLimiter(limits: StreamLimits): StreamLimiter {
  const counts = { token: new Map<string, number>(), ip: new Map<string, number>(), partner: new Map<string, number>() };
  let total = 0;
  const scoped = ['token', 'ip', 'partner'] as const;

  return {
    admit(keys) {
      for (const scope of scoped) {
        if ((counts[scope].get(keys[scope]) ?? 0) >= limits[scope]) return { admitted: false, scope, limit: limits[scope] };
      }
      if (total >= limits.instance) return { admitted: false, scope: 'instance', limit: limits.instance };
      for (const scope of scoped) counts[scope].set(keys[scope], (counts[scope].get(keys[scope]) ?? 0) + 1);
      total++;
      let released = false;
      return {
        admitted: true,
        release() {
          // A stream ends along several paths (client gone, terminal entry, lifetime, shutdown); count it once.
          if (released) return;
          released = true;
          total--;
          for (const scope of scoped) {
            const left = (counts[scope].get(keys[scope]) ?? 1) - 1;
            // Keys of ended streams are dropped, so the maps hold only what is open.
            if (left === 0) counts[scope].delete(keys[scope]);
            else counts[scope].set(keys[scope], left);
          }
        },
      };
    },
    open: () => total,
  };
}
