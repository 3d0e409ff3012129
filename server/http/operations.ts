/**
 * The operation table, read from the bundled spec: which operation a method and path reach, the security
 * each requires, and the express route it is served on. The spec stays the only place routes are declared.
 */

/** Which credentials an operation accepts. */
export type SecurityKind = 'public' | 'signed' | 'token' | 'tokenOrSigned';

/** One operation of the spec as the router sees it. */
export interface OperationRoute {
  readonly operationId: string;
  /** Lower-case HTTP method. */
  readonly method: string;
  /** The spec's path template, e.g. /swaps/{id}. */
  readonly path: string;
  /** The same path in express syntax, e.g. /swaps/:id. */
  readonly expressPath: string;
  readonly security: SecurityKind;
  readonly tag: string;
  readonly pattern: RegExp;
  /** The operation declares no parameter (path, query, header) and no request body: a request can be checked for nothing. */
  readonly takesNoInput: boolean;
}

/** Outcome of matching a request path against the table. */
export type RouteMatch =
  { kind: 'operation'; route: OperationRoute } | { kind: 'method_not_allowed'; allowed: string[] } | { kind: 'not_found' };

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

interface SpecOperation {
  operationId?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: unknown[];
  requestBody?: unknown;
}

interface SpecDocument {
  security?: Array<Record<string, string[]>>;
  paths: Record<string, Record<string, SpecOperation> & { parameters?: unknown[] }>;
}

/** Builds the operation table from an OpenAPI document; throws when an operation lacks an operationId. */
export function indexOperations(document: unknown): OperationRoute[] {
  const doc = document as SpecDocument;
  const routes: OperationRoute[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      if (!operation.operationId) throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
      routes.push({
        operationId: operation.operationId,
        method,
        path,
        expressPath: path.replace(/\{([^}]+)\}/g, ':$1'),
        security: securityKind(operation.security ?? doc.security ?? []),
        tag: operation.tags?.[0] ?? 'default',
        takesNoInput: !operation.requestBody && !operation.parameters?.length && !item.parameters?.length,
        pattern: new RegExp(
          `^${path
            .split(/\{[^}]+\}/)
            .map(escapeRegExp)
            .join('[^/]+')}$`,
        ),
      });
    }
  }
  return routes;
}

/**
 * Finds the operation for `method` and `path` (path relative to the API base, without query). A concrete path
 * wins over a templated one that also matches (/permanent-routes/challenges over /permanent-routes/{id}), as
 * OpenAPI asks, whatever the method: a method that path lacks is 405 there. Between templates, the one with a
 * literal segment where the other has a parameter, first from the left, wins: the order express-openapi-validator
 * sorts its routes in, so that routing and validation always agree on the path.
 */
export function matchRoute(routes: readonly OperationRoute[], method: string, path: string): RouteMatch {
  const candidates = routes.filter((r) => r.pattern.test(path));
  if (candidates.length === 0) return { kind: 'not_found' };
  const best = candidates.reduce((a, b) => (compareConcreteness(b.path, a.path) < 0 ? b : a));
  const matched = candidates.filter((r) => compareConcreteness(r.path, best.path) === 0);
  // HEAD is answered by the GET operation (express sends the headers without the body), as load balancers expect.
  const wanted = method.toLowerCase() === 'head' && !matched.some((r) => r.method === 'head') ? 'get' : method.toLowerCase();
  const route = matched.find((r) => r.method === wanted);
  if (route) return { kind: 'operation', route };
  return { kind: 'method_not_allowed', allowed: [...new Set(matched.map((r) => r.method.toUpperCase()))] };
}

/**
 * Negative when path template `a` is the more concrete of two that match one URL: at the first segment where
 * one has a literal and the other a parameter, the literal's. Zero when they have the same shape.
 */
function compareConcreteness(a: string, b: string): number {
  const isParameter = (segment: string | undefined) => segment?.startsWith('{') === true;
  const as = a.split('/');
  const bs = b.split('/');
  for (let i = 0; i < Math.max(as.length, bs.length); i++) {
    if (isParameter(as[i]) !== isParameter(bs[i])) return isParameter(as[i]) ? 1 : -1;
  }
  return 0;
}

function securityKind(requirements: Array<Record<string, string[]>>): SecurityKind {
  const schemes = requirements.map((r) => Object.keys(r));
  const signed = schemes.some((s) => s.includes('serviceSignature'));
  const token = schemes.some((s) => s.includes('bearerAuth'));
  if (signed && token) return 'tokenOrSigned';
  if (signed) return 'signed';
  if (token) return 'token';
  return 'public';
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
