/**
 * Rate limits over a one-minute window, counted in PostgreSQL by rate-limiter-flexible so that every server
 * instance shares them: per client IP for unauthenticated operations, per partner key for signed ones (with
 * POST /quotes and POST /swaps as classes of their own), and refused requests (failed authentication, unknown
 * paths, wrong methods, oversize bodies) per IP. Answers 429 `rate_limited` with Retry-After.
 */
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import type { Knex } from 'knex';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimitConfig } from '../config.js';
import { AppError } from '../domain/errors.js';
import { createRateLimitStoreClient } from '../store/rate-limits.js';

type LimitClass = 'public' | 'signed' | 'quotes' | 'swaps';

// Statuses of requests refused before any handler ran; they spend the client IP's public allowance.
const COUNTED_REFUSALS = new Set([401, 404, 405, 413]);

const CLASS_OF_OPERATION: Record<string, LimitClass> = { createQuote: 'quotes', createSwap: 'swaps' };

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

/** Creates the rate-limit middleware. Fails open when the database cannot count. */
export function rateLimit(knex: Knex, limits: RateLimitConfig): RateLimitMiddleware {
  const points: Record<LimitClass, number> = {
    public: limits.publicPerMinute,
    signed: limits.signedPerMinute,
    quotes: limits.quotesPerMinute,
    swaps: limits.swapsPerMinute,
  };
  const store = createRateLimitStoreClient(knex);
  const limiters = Object.fromEntries(
    (Object.keys(points) as LimitClass[]).map((name) => [
      name,
      new RateLimiterPostgres({
        storeClient: store,
        storeType: 'pool',
        tableName: 'rate_limits',
        tableCreated: true,
        clearExpiredByTimeout: false,
        keyPrefix: `rl_${name}`,
        points: points[name],
        duration: limits.windowSeconds,
      }),
    ]),
  ) as Record<LimitClass, RateLimiterPostgres>;

  // Resolves to undefined when the request may go on, or to the 429 to answer with.
  const consume = async (req: Request, res: Response, limitClass: LimitClass, key: string): Promise<AppError | undefined> => {
    try {
      setHeaders(res, points[limitClass], await limiters[limitClass].consume(key));
      return undefined;
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) {
        // The counters live in the database. When it is unreachable, let the request through: the operation
        // then fails on its own terms (GET /health must still say 503 with its checks) or needs no database.
        req.log?.warn({ err }, 'rate limiting unavailable; request not counted');
        return undefined;
      }
      setHeaders(res, points[limitClass], err);
      const retryAfter = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
      return new AppError(
        429,
        'rate_limited',
        `Too many requests: the limit is ${points[limitClass]} per ${limits.windowSeconds} s for ${describe(limitClass)}. Retry after ${retryAfter} s.`,
        { limit: points[limitClass], windowSeconds: limits.windowSeconds, scope: limitClass },
        { headers: { 'Retry-After': String(retryAfter) } },
      );
    }
  };
  const clientIp = (req: Request) => req.socket.remoteAddress ?? 'unknown';

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

function setHeaders(res: Response, limit: number, result: RateLimiterRes): void {
  res.setHeader('RateLimit-Limit', String(limit));
  res.setHeader('RateLimit-Remaining', String(Math.max(0, result.remainingPoints)));
  res.setHeader('RateLimit-Reset', String(Math.max(0, Math.ceil(result.msBeforeNext / 1000))));
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
