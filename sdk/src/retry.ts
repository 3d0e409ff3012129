/**
 * When and how long to retry. A 429 is always retried (the service refuses it before doing anything);
 * 502, 503, 504 and network failures only for safe methods (GET, HEAD, OPTIONS) or for a request that
 * carries an Idempotency-Key (POST /swaps), where a repeat replays instead of acting twice.
 */

/** Bounds of the retry loop. */
export interface RetryOptions {
  /** Retries after the first attempt (default 3; 0 disables retrying). */
  maxRetries?: number;
  /** First backoff step in milliseconds (default 250); doubles each attempt, with full jitter. */
  baseDelayMs?: number;
  /** Largest backoff step in milliseconds (default 8000). */
  maxDelayMs?: number;
  /** Longest Retry-After the client waits for; a longer one is returned to the caller (default 60000). */
  maxRetryAfterMs?: number;
}

/** The defaults applied to RetryOptions. */
export const DEFAULT_RETRY: Required<RetryOptions> = { maxRetries: 3, baseDelayMs: 250, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 };

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const TRANSIENT_STATUSES = new Set([502, 503, 504]);

/** One finished attempt, as the retry rules see it. */
export interface Attempt {
  method: string;
  /** Whether the request carries an Idempotency-Key header. */
  idempotent: boolean;
  /** The response status, or undefined after a network failure. */
  status?: number;
}

/** Whether the attempt may be repeated safely and usefully. */
export function isRetryable(attempt: Attempt): boolean {
  if (attempt.status === 429) return true;
  const repeatable = SAFE_METHODS.has(attempt.method.toUpperCase()) || attempt.idempotent;
  if (attempt.status === undefined) return repeatable;
  return repeatable && TRANSIENT_STATUSES.has(attempt.status);
}

/**
 * How long to wait before retry number `retry` (0-based): Retry-After when the server sent one (undefined
 * when it exceeds maxRetryAfterMs: give up and let the caller decide), else exponential backoff with jitter.
 */
export function retryDelayMs(
  retry: number,
  retryAfter: string | null | undefined,
  options: Required<RetryOptions>,
  random: () => number = Math.random,
): number | undefined {
  if (retryAfter && /^\d+$/.test(retryAfter.trim())) {
    const ms = Number(retryAfter.trim()) * 1000;
    return ms <= options.maxRetryAfterMs ? ms : undefined;
  }
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** retry);
  return Math.round(ceiling * random());
}
