/**
 * Builds the express application: request id, logging, body reading, routing by the spec's operation
 * table, request (and optionally response) validation against the spec, handlers, and the error handler.
 * It neither reads configuration nor listens; server/main.ts and the tests do that.
 */
import express, { type Express, type Request, type RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { Logger } from 'pino';
import { AppError } from '../domain/errors.js';
import { createHandlers } from '../handlers/index.js';
import type { HandlerDeps } from '../handlers/deps.js';
import type { Metrics } from '../metrics.js';
import { createNonceClaims } from '../store/nonces.js';
import type { SecretBox } from '../store/secret-box.js';
import { closeResponseSchemas } from '../spec.js';
import { authenticate, claimNonce, createPartnerCache } from './authenticate.js';
import { parseJsonBody, readRawBody } from './body.js';
import { cors } from './cors.js';
import { mountDocs } from './docs.js';
import { rateLimit } from './rate-limit.js';
import { errorHandler } from './errors.js';
import {
  isFixedBody,
  type AuthenticatedPartner,
  type Handler,
  type HandlerContext,
  type Handlers,
  type OperationId,
} from './handler-types.js';
import { indexOperations, matchRoute, type OperationRoute } from './operations.js';
import { requestId } from './request-id.js';
import { requestLog } from './request-log.js';

/** The path prefix every operation is served under (the spec's server URL). */
export const API_BASE_PATH = '/api/v1';

/** Everything the application needs, built by the caller. */
export interface AppDeps extends HandlerDeps {
  logger: Logger;
  /** Opens the partner secrets sealed at rest. */
  secretBox: SecretBox;
  /** Replace handlers (tests); defaults to the real table. */
  handlers?: Partial<Handlers>;
  /** Request durations and rate-limit refusals are measured here (none: not measured). */
  metrics?: Metrics;
}

declare module 'express-serve-static-core' {
  interface Request {
    /** The spec operation this request reached (set by routing). */
    operation?: OperationRoute;
    /** The partner a verified signature belongs to (signed operations). */
    partner?: AuthenticatedPartner;
  }
}

/** Creates the application; the caller listens on it. */
export function createApp(deps: AppDeps): Express {
  // Sandbox operations exist only where they are given the simulated chain they drive (main.ts: in sandbox
  // mode); elsewhere their paths are unknown (404).
  const routes = indexOperations(deps.apiDocument).filter((r) => r.tag !== 'Sandbox' || deps.sandbox !== undefined);
  const handlers: Handlers = { ...createHandlers(deps), ...deps.handlers };
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // req.ip (the client of public rate limits) comes from X-Forwarded-For only through the proxies TRUST_PROXY names.
  const { trustProxy } = deps.config;
  app.set('trust proxy', Array.isArray(trustProxy) ? [...trustProxy] : trustProxy);

  if (deps.metrics) app.use(deps.metrics.observeRequests());
  app.use(requestId());
  app.use(requestLog(deps.logger));
  // The reference page is no spec operation: it is answered here, before routing by the operation table.
  mountDocs(app, { documentUrl: `${API_BASE_PATH}/openapi.json` });
  // CORS before routing: a browser's preflight (OPTIONS) is no operation of the spec, and the headers a page
  // needs must be on every answer it reads, errors included (server/http/cors.ts).
  app.use(cors({ origins: deps.config.corsOrigins, routes, basePath: API_BASE_PATH }));
  // Route first: an unknown path or a wrong method is answered before any of the body is read.
  app.use(routeToOperation(routes));
  app.use(readRawBody());
  // Authentication comes before validation: an unauthenticated request is 401 whatever its body or query.
  const limits = rateLimit(deps.knex, deps.config.rateLimits);
  const authentication = { knex: deps.knex, secretBox: deps.secretBox, audience: deps.config.publicOrigin, now: deps.now };
  const partners = createPartnerCache(authentication);
  app.use(authenticate(authentication, partners));
  app.use(limits.count);
  // The nonce is claimed after the key's limit: a request refused with 429 stores nothing.
  app.use(claimNonce(authentication, partners, createNonceClaims(deps.knex, deps.now)));
  app.use(limits.countRefusals);
  app.use(parseJsonBody());
  app.use(headAsGet());
  app.use(
    validateUnlessNothingToCheck(
      deps.config.validateResponses,
      OpenApiValidator.middleware({
        // Responses are checked against a closed copy of the contract: the published one leaves them open for
        // fields added later within v1, but this service must send only the fields it documents (server/spec.ts).
        apiSpec: (deps.config.validateResponses ? closeResponseSchemas(deps.apiDocument) : structuredClone(deps.apiDocument)) as never,
        validateRequests: { allErrors: true },
        validateResponses: deps.config.validateResponses ? { allErrors: true } : false,
        // Authentication runs before validation, in our own middleware (docs/architecture.md#signed-requests).
        validateSecurity: false,
        validateFormats: true,
      }),
    ),
  );
  // Routing chose the operation already; its handler is called directly, with the path parameters the
  // validator matched and checked (one lookup, instead of express trying every route's pattern in turn).
  const bound = new Map<string, RequestHandler>();
  for (const route of routes) {
    const handler = handlers[route.operationId as OperationId] as Handler<OperationId> | undefined;
    if (!handler) throw new Error(`No handler for operation ${route.operationId}`);
    bound.set(route.operationId, bindHandler(route, handler, deps.logger, deps.config.validateResponses));
  }
  app.use((req, res, next) => {
    const handle = req.operation && bound.get(req.operation.operationId);
    if (!handle) return next();
    handle(req, res, next);
  });
  if (deps.metrics) app.use(deps.metrics.countRateLimitRefusals());
  app.use(errorHandler(deps.logger));
  return app;
}

// Unknown paths are 404 and known paths with the wrong method 405, both with the Error body, before any
// other work is done for them.
function routeToOperation(routes: OperationRoute[]): RequestHandler {
  return (req, res, next) => {
    const path = req.path.startsWith(`${API_BASE_PATH}/`) ? req.path.slice(API_BASE_PATH.length) : undefined;
    const match = path === undefined ? ({ kind: 'not_found' } as const) : matchRoute(routes, req.method, path);
    if (match.kind === 'operation') {
      req.operation = match.route;
      return next();
    }
    if (match.kind === 'method_not_allowed') {
      return next(
        new AppError(
          405,
          'method_not_allowed',
          `${req.method} is not allowed here; use ${match.allowed.join(' or ')}.`,
          { allowed: match.allowed },
          {
            headers: { Allow: match.allowed.join(', ') },
          },
        ),
      );
    }
    next(
      new AppError(404, 'not_found', `No operation at ${req.method} ${req.path}; the API is described at ${API_BASE_PATH}/openapi.json.`),
    );
  };
}

/**
 * Runs the validator's middlewares, except on a request that gives an operation nothing to check: the operation
 * declares no parameter and no body, and the request has no query string and no body. Those are `/health`,
 * `/openapi.json`, `/assets`, the partner's webhook and markup reads and the webhook test send. The validator
 * would find nothing to refuse there, yet its route lookup (a path-to-regexp compiled per spec path, per
 * request, in express-openapi-validator 5.6.2) and request checks were 17% of the main thread's time on
 * `GET /assets` (CPU profile under `make bench`). A query string or a body still goes through it, so an unknown
 * query parameter is refused as before. Only while responses are not validated: the validator checks them too.
 */
function validateUnlessNothingToCheck(validateResponses: boolean, middlewares: RequestHandler[]): RequestHandler {
  const validation = express.Router();
  validation.use(middlewares);
  return (req, res, next) => {
    const nothingToCheck =
      !validateResponses &&
      req.operation?.takesNoInput === true &&
      !req.originalUrl.includes('?') &&
      (req.headers['content-length'] ?? '0') === '0' &&
      req.headers['transfer-encoding'] === undefined;
    if (nothingToCheck) return next();
    validation(req, res, next);
  };
}

// HEAD reaches the GET operation (routing chose it); after authentication, which signs the method as sent,
// it is validated and handled as that GET. Node still sends no body: the response was created for a HEAD.
function headAsGet(): RequestHandler {
  return (req, _res, next) => {
    if (req.method === 'HEAD' && req.operation?.method === 'get') req.method = 'GET';
    next();
  };
}

function bindHandler(route: OperationRoute, handler: Handler<OperationId>, logger: Logger, validateResponses: boolean): RequestHandler {
  // Fixed bodies (the catalogue) are serialised once, unless responses are validated: the validator checks
  // what goes through res.json.
  const serialised = new WeakMap<object, Buffer>();
  return async (req, res, next) => {
    try {
      const context = {
        operationId: route.operationId,
        requestId: (req as Request & { id: string }).id,
        path: (req as Request & { openapi?: { pathParams?: Record<string, string> } }).openapi?.pathParams ?? req.params,
        query: req.query,
        headers: req.headers,
        body: req.body,
        partner: req.partner,
        // A getter: the request's child logger is made only when a handler reads `log`.
        get log() {
          return (req as Request & { log?: Logger }).log ?? logger;
        },
        req,
        res,
      } as unknown as HandlerContext<OperationId>;
      const result = (await handler(context)) as { handled: true } | { status: number; body: unknown; headers?: Record<string, string> };
      if ('handled' in result) return;
      for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
      if (!validateResponses && isFixedBody(result.body)) {
        let bytes = serialised.get(result.body);
        if (!bytes) serialised.set(result.body, (bytes = Buffer.from(JSON.stringify(result.body))));
        res.status(result.status).setHeader('Content-Type', 'application/json; charset=utf-8');
        res.setHeader('Content-Length', bytes.length);
        res.end(bytes);
        return;
      }
      res.status(result.status).json(result.body);
    } catch (err) {
      next(err);
    }
  };
}
