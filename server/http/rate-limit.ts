/**
 * Rate limits shared by every server instance through PostgreSQL: per client IP for unauthenticated
 * operations, per partner key for signed ones (POST /quotes and POST /swaps in classes of their own), and
 * refused requests (failed authentication, unknown paths, wrong methods, oversize bodies) per IP. Answers
 * 429 `rate_limited` with Retry-After.
 *
 * Counting every request in the database made it the most expensive step of every request, so allowance is
 * leased: an instance takes points from the key's window row in chunks (1, 2, 4, ... up to 5 % of the
 * limit) with one atomic statement, spends them from memory, and takes the next chunk when they run out.
 * The database never grants more than the limit, so a partner cannot exceed it by spreading requests over
 * instances (no over-admission at all). The cost is the other way: points leased to one instance and not
 * used there are lost to the others, so a partner may be refused up to (instances - 1) x 5 % of its limit
 * early. A key's first request in a window takes one point, so low rates are counted exactly.
 */
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import type { Knex } from 'knex';
import type { RateLimitConfig } from '../config.js';
import { AppError } from '../domain/errors.js';
import { takeLease } from '../store/rate-limits.js';

type LimitClass = 'public' | 'signed' | 'quotes' | 'swaps';

// Statuses of requests refused before any handler ran; they spend the client IP's public allowance.
const COUNTED_REFUSALS = new Set([401, 404, 405, 413]);

const CLASS_OF_OPERATION: Record<string, LimitClass> = { createQuote: 'quotes', createSwap: 'swaps' };

/** The largest lease, as a fraction of the limit. */
export const MAX_LEASE_FRACTION = 0.05;

/** The two places requests are counted. */
export interface RateLimitMiddleware {
  /** After successful authentication: signed requests count against their key, others against the IP. */
  count: RequestHandler;
  /**
   * Error middleware after authentication and the nonce claim: a request refused before any handler ran
   * (401, or 404, 405 and 413 from routing and body reading) counts against its IP's public allowance, so
   * guessing signatures or probing paths is throttled too; once exhausted it is answered 429.
   */
  countRefusals: ErrorRequestHandler;
}

/** The outcome of counting one request. */
interface Decision {
  allowed: boolean;
  remaining: number;
  /** Until the window ends. */
  resetMs: number;
}

// One key's window as this instance sees it.
interface KeyState {
  expire: number;
  /** Points granted to all instances, as of this instance's last lease. */
  total: number;
  /** Leased to this instance and not spent yet. */
  left: number;
  /** The size of the next lease. */
  chunk: number;
  /** The database refused even one point: the window is used up. */
  exhausted: boolean;
  leasing?: Promise<void>;
}

/** Counts one class of requests against `limit` per window, leasing allowance from the database. */
export function createLeasedLimiter(knex: Knex, prefix: string, limit: number, windowMs: number, now: () => number = Date.now) {
  const states = new Map<string, KeyState>();
  const maxLease = Math.max(1, Math.floor(limit * MAX_LEASE_FRACTION));
  let prunedAt = now();

  async function lease(key: string, state: KeyState): Promise<void> {
    const want = Math.max(1, Math.min(state.chunk, maxLease, limit - state.total));
    let lease = await takeLease(knex, `${prefix}:${key}`, want, limit, now(), windowMs);
    if (lease.granted === 0 && want > 1) lease = await takeLease(knex, `${prefix}:${key}`, 1, limit, now(), windowMs);
    if (lease.expire !== state.expire) {
      // The window in the database is another one than this state's (it ended, or this state is new).
      state.expire = lease.expire;
      state.left = 0;
      state.chunk = 1;
      state.exhausted = false;
    }
    state.total = lease.total;
    if (lease.granted === 0) {
      state.exhausted = true;
      return;
    }
    state.left += lease.granted;
    state.chunk = Math.min(maxLease, state.chunk * 2);
  }

  function prune(at: number): void {
    if (at - prunedAt < windowMs) return;
    prunedAt = at;
    for (const [key, state] of states) if (state.expire <= at && !state.leasing) states.delete(key);
  }

  return {
    /** Spends one point of `key`; `allowed: false` when the window's limit is reached. */
    async consume(key: string): Promise<Decision> {
      const start = now();
      prune(start);
      let state = states.get(key);
      if (!state || (state.expire <= start && !state.leasing)) {
        state = { expire: 0, total: 0, left: 0, chunk: 1, exhausted: false };
        states.set(key, state);
      }
      while (state.left === 0 && !state.exhausted) {
        // Concurrent requests of one key wait for one lease instead of each taking its own.
        state.leasing ??= lease(key, state).finally(() => {
          state!.leasing = undefined;
        });
        await state.leasing;
      }
      const resetMs = Math.max(0, state.expire - now());
      if (state.left === 0) return { allowed: false, remaining: 0, resetMs };
      state.left -= 1;
      return { allowed: true, remaining: Math.max(0, limit - state.total + state.left), resetMs };
    },
  };
}

/** Creates the rate-limit middleware. Fails open when the database cannot count. */
export function rateLimit(knex: Knex, limits: RateLimitConfig): RateLimitMiddleware {
  const points: Record<LimitClass, number> = {
    public: limits.publicPerMinute,
    signed: limits.signedPerMinute,
    quotes: limits.quotesPerMinute,
    swaps: limits.swapsPerMinute,
  };
  const limiters = Object.fromEntries(
    (Object.keys(points) as LimitClass[]).map((name) => [
      name,
      createLeasedLimiter(knex, `rl_${name}`, points[name], limits.windowSeconds * 1000),
    ]),
  ) as Record<LimitClass, ReturnType<typeof createLeasedLimiter>>;

  // Resolves to undefined when the request may go on, or to the 429 to answer with.
  const consume = async (req: Request, res: Response, limitClass: LimitClass, key: string): Promise<AppError | undefined> => {
    let decision: Decision;
    try {
      decision = await limiters[limitClass].consume(key);
    } catch (err) {
      // The counters live in the database. When it is unreachable, let the request through: the operation
      // then fails on its own terms (GET /health must still say 503 with its checks) or needs no database.
      req.log?.warn({ err }, 'rate limiting unavailable; request not counted');
      return undefined;
    }
    const resetSeconds = Math.ceil(decision.resetMs / 1000);
    res.setHeader('RateLimit-Limit', String(points[limitClass]));
    res.setHeader('RateLimit-Remaining', String(decision.remaining));
    res.setHeader('RateLimit-Reset', String(resetSeconds));
    if (decision.allowed) return undefined;
    const retryAfter = Math.max(1, resetSeconds);
    return new AppError(
      429,
      'rate_limited',
      `Too many requests: the limit is ${points[limitClass]} per ${limits.windowSeconds} s for ${describe(limitClass)}. Retry after ${retryAfter} s.`,
      { limit: points[limitClass], windowSeconds: limits.windowSeconds, scope: limitClass },
      { headers: { 'Retry-After': String(retryAfter) } },
    );
  };
  // The socket's address, or the client a trusted proxy forwarded for (TRUST_PROXY; express's req.ip).
  const clientIp = (req: Request) => req.ip ?? req.socket.remoteAddress ?? 'unknown';

  return {
    async count(req, res, next) {
      const limitClass: LimitClass = req.partner ? (CLASS_OF_OPERATION[req.operation?.operationId ?? ''] ?? 'signed') : 'public';
      next(await consume(req, res, limitClass, req.partner ? req.partner.keyId : clientIp(req)));
    },
    async countRefusals(err, req, res, next) {
      if (!COUNTED_REFUSALS.has((err as { status?: number }).status ?? 0)) return next(err);
      next((await consume(req, res, 'public', clientIp(req))) ?? err);
    },
  };
}

function describe(limitClass: LimitClass): string {
  switch (limitClass) {
    case 'public':
      return 'unauthenticated requests from one IP address';
    case 'quotes':
      return 'POST /quotes per partner key';
    case 'swaps':
      return 'POST /swaps per partner key';
    default:
      return 'signed requests per partner key';
  }
}
