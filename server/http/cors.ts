/**
 * CORS, only where a browser belongs (issue 38): the public operations and the reads a swap access token
 * authenticates (`GET /swaps/{id}` with a bearer token, `GET /swaps/{id}/stream`) answer preflights and carry
 * the CORS headers for the origins of CORS_ORIGINS. A signed operation never gets a browser's permission: it
 * needs the partner secret, and a partner secret in a browser is a leak, so its preflight is refused with
 * 403 `browser_not_allowed` and an Error body that says so. A preflight from an origin not listed is 403
 * `origin_not_allowed`. Neither refusal carries Access-Control-Allow-Origin, so the browser's fetch rejects.
 *
 * Preflights (OPTIONS) are no operation of the spec: they are HTTP's own, as 405 is, so they are answered
 * here, before routing by the operation table. With CORS_ORIGINS empty nothing changes: no CORS header is
 * sent and a preflight is the 405 it always was.
 */
import type { RequestHandler } from 'express';
import type { CorsOrigins } from '../config.js';
import { AppError } from '../domain/errors.js';
import { matchRoute, type OperationRoute } from './operations.js';

/** The request headers a browser may send: the access token, and the stream's resume point. */
export const CORS_ALLOWED_HEADERS = ['authorization', 'last-event-id'] as const;

/** The response headers a page may read: the request id, and the rate-limit headers the server sends. */
export const CORS_EXPOSED_HEADERS = ['x-request-id', 'retry-after', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'] as const;

/** How long a browser may cache a preflight's permission. */
export const CORS_MAX_AGE_SECONDS = 600;

/** What the CORS middleware needs. */
export interface CorsOptions {
  /** CORS_ORIGINS: the origins allowed, `*` for any (sandbox only), empty for no CORS. */
  origins: CorsOrigins;
  /** The operation table, to tell public and token operations from signed ones. */
  routes: readonly OperationRoute[];
  /** The path prefix of the operations (`/api/v1`). */
  basePath: string;
}

/** The CORS middleware; runs before routing, since a preflight's OPTIONS is no operation of the spec. */
export function cors({ origins, routes, basePath }: CorsOptions): RequestHandler {
  const any = origins === '*';
  const allowed = new Set(any ? [] : origins);
  return (req, res, next) => {
    const origin = req.get('origin');
    if (origin === undefined || (!any && allowed.size === 0)) return next();
    const requestedMethod = req.get('access-control-request-method');
    const preflight = req.method === 'OPTIONS' && requestedMethod !== undefined;
    const path = req.path.startsWith(`${basePath}/`) ? req.path.slice(basePath.length) : undefined;
    const match = path === undefined ? undefined : matchRoute(routes, preflight ? requestedMethod : req.method, path);
    // An unknown path or method is answered by routing (404, 405), as it is without CORS.
    if (match?.kind !== 'operation') return next();
    const route = match.route;
    // The answer depends on Origin whenever origins are listed: caches must keep one per origin.
    if (!any) res.vary('Origin');
    const originAllowed = any || allowed.has(origin);

    if (preflight) {
      const requestedHeaders = (req.get('access-control-request-headers') ?? '')
        .split(',')
        .map((name) => name.trim().toLowerCase())
        .filter(Boolean);
      if (!servesBrowsers(route, requestedHeaders)) return next(signedRefusal(route));
      if (!originAllowed) return next(originRefusal());
      res.setHeader('Access-Control-Allow-Origin', any ? '*' : origin);
      res.setHeader('Access-Control-Allow-Methods', route.method === 'get' ? 'GET, HEAD' : route.method.toUpperCase());
      res.setHeader('Access-Control-Allow-Headers', CORS_ALLOWED_HEADERS.join(', '));
      res.setHeader('Access-Control-Max-Age', String(CORS_MAX_AGE_SECONDS));
      res.status(204).end();
      return;
    }
    const sentHeaders = Object.keys(req.headers);
    if (originAllowed && servesBrowsers(route, sentHeaders)) {
      // Set before the request goes on, so that an error (401 invalid_token, 429) is readable by the page too.
      res.setHeader('Access-Control-Allow-Origin', any ? '*' : origin);
      res.setHeader('Access-Control-Expose-Headers', CORS_EXPOSED_HEADERS.join(', '));
    }
    next();
  };
}

// Public operations and token reads serve browsers; a signed operation never does, nor a token-or-signed
// read asked with the signed headers (x-service-*) instead of a bearer token.
function servesBrowsers(route: OperationRoute, headerNames: readonly string[]): boolean {
  switch (route.security) {
    case 'public':
    case 'token':
      return true;
    case 'tokenOrSigned':
      return !headerNames.some((name) => name.startsWith('x-service-'));
    case 'signed':
      return false;
  }
}

function signedRefusal(route: OperationRoute): AppError {
  const operation = `${route.method.toUpperCase()} ${route.path}`;
  return new AppError(
    403,
    'browser_not_allowed',
    `${operation} is signed with the partner secret and is not served to browsers: a partner secret in a browser is a leak. ` +
      'Call it from your backend; a browser reads a swap with its access token (GET /swaps/{id}, GET /swaps/{id}/stream).',
    { operation },
  );
}

// The origin is not repeated in the message: the Error message is at most 1024 characters, an Origin header is not.
function originRefusal(): AppError {
  return new AppError(
    403,
    'origin_not_allowed',
    "This page's origin is not allowed to call the API from a browser; the operator lists the allowed origins in CORS_ORIGINS.",
  );
}
