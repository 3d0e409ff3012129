/** Health and Meta operations: liveness with dependency checks, and the served spec. */
import { AppError } from '../domain/errors.js';
import { pingDatabase } from '../store/database.js';
import type { Handlers } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';

/** Handlers for getHealth and getOpenApiDocument. */
export function createHealthHandlers(deps: HandlerDeps): Pick<Handlers, 'getHealth' | 'getOpenApiDocument'> {
  // The document (about 160 kB) never changes while the process runs: serialised once, not per request.
  const documentJson = Buffer.from(JSON.stringify(deps.apiDocument));
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

    async getOpenApiDocument({ res }) {
      res.status(200).type('application/json').send(documentJson);
      return { handled: true };
    },
  };
}
