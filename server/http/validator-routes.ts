/**
 * express-openapi-validator (5.6.2, the newest release) finds a request's operation by compiling every
 * documented path with path-to-regexp, on every request, until one matches (`lookupRoute` in
 * middlewares/openapi.metadata.js): path-to-regexp alone was 3.6 % of a signed POST /quotes's CPU in a
 * profile. The paths and options are the same every time, so the compiled pattern is kept here and handed
 * out again. (express's router is not affected: it calls path-to-regexp's `match`, which does not go
 * through the export.)
 *
 * The validator reads `pathToRegexp` from the module's exports at each call, so replacing that export
 * takes effect for it. `validator-routes.test.ts` sends requests through the validator and fails if the
 * patterns are compiled again, that is, if a new release stops reading the export this way.
 */
import { createRequire } from 'node:module';

type PathToRegexp = (path: unknown, options?: Record<string, unknown>) => { regexp: RegExp; keys: unknown[] };

/** Compiled patterns kept; a caller compiling more distinct paths than this gets the rest uncached. */
const MAX_KEPT = 1_000;

const requireHere = createRequire(import.meta.url);
/** The path-to-regexp instance the validator loads (resolved from the validator's own location). */
const pathToRegexpModule = createRequire(requireHere.resolve('express-openapi-validator'))('path-to-regexp') as {
  pathToRegexp: PathToRegexp;
};

const isPlain = (value: unknown) => ['string', 'number', 'boolean', 'undefined'].includes(typeof value);

// The cache key of a string path and its options; undefined when an option is not a plain value. The validator
// passes exactly { sensitive, strict } (booleans), for every documented path of every request, so that case
// is keyed without serialising the options.
function keyOf(path: string, options: Record<string, unknown>): string | undefined {
  const names = Object.keys(options);
  if (names.length === 2 && typeof options.sensitive === 'boolean' && typeof options.strict === 'boolean') {
    return `${path}\u0000${options.sensitive ? 's' : '-'}${options.strict ? 't' : '-'}`;
  }
  return Object.values(options).every(isPlain) ? `${path}\u0000${JSON.stringify(options)}` : undefined;
}

let compilations = 0;
let installed = false;

/** Makes path-to-regexp's `pathToRegexp` hand out one compiled pattern per path and options. Idempotent. */
export function keepCompiledValidatorRoutes(): void {
  if (installed) return;
  installed = true;
  const compile = pathToRegexpModule.pathToRegexp;
  const kept = new Map<string, ReturnType<PathToRegexp>>();
  pathToRegexpModule.pathToRegexp = (path, options = {}) => {
    // Only string paths whose options are all strings, numbers or booleans (the validator's `sensitive` and
    // `strict`): anything else, e.g. an `encodePath` function, is compiled as before. The result is shared:
    // its RegExp has no `g` or `y` flag (path-to-regexp makes it with "" or "i"), so exec keeps no state,
    // and the validator only reads the result.
    const key = typeof path === 'string' ? keyOf(path, options) : undefined;
    const hit = key === undefined ? undefined : kept.get(key);
    if (hit) return hit;
    compilations++;
    const compiled = compile(path, options);
    if (key !== undefined && kept.size < MAX_KEPT && !compiled.regexp.global && !compiled.regexp.sticky) kept.set(key, compiled);
    return compiled;
  };
}

/** How many patterns were compiled since start-up (for the test). */
export function validatorRouteCompilations(): number {
  return compilations;
}
