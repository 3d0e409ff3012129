/** Health and Meta operations: liveness with dependency checks, and the served spec. */
import { gzipSync } from 'node:zlib';
import { AppError } from '../domain/errors.js';
import { pingDatabase } from '../store/database.js';
import type { Handlers } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';

/** Handlers for getHealth and getOpenApiDocument. */
export function createHealthHandlers(deps: HandlerDeps): Pick<Handlers, 'getHealth' | 'getOpenApiDocument'> {
  // The document (about 160 kB) never changes while the process runs: serialised and compressed once, not per
  // request. A client that accepts gzip (browsers, fetch, curl --compressed) gets about a fifth of the bytes.
  const documentJson = Buffer.from(JSON.stringify(deps.apiDocument));
  const documentGzip = gzipSync(documentJson, { level: 9 });
  return {
    async getHealth() {
      const database = await pingDatabase(deps.knex);
      const checks = { database: { status: database.ok ? ('ok' as const) : ('fail' as const), latencyMs: database.latencyMs } };
      if (!database.ok) {
        throw new AppError(503, 'service_unavailable', 'The database is unreachable; the service cannot take requests.', { checks });
      }
      return {
        status: 200,
        body: { status: 'ok', version: deps.apiVersion, time: deps.now().toISOString(), checks },
      };
    },

    async getOpenApiDocument({ req, res }) {
      res.status(200).type('application/json').vary('Accept-Encoding');
      if (req.acceptsEncodings('gzip', 'identity') === 'gzip') res.set('Content-Encoding', 'gzip').send(documentGzip);
      else res.send(documentJson);
      return { handled: true };
    },
  };
}
