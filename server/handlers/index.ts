/** The handler table: one entry per operationId of the spec. */
import { notImplemented } from '../domain/errors.js';
import type { Handler, Handlers, OperationId } from '../http/handler-types.js';
import { createCatalogHandlers } from './catalog.js';
import type { HandlerDeps } from './deps.js';
import { createHealthHandlers } from './health.js';
import { createPartnerHandlers } from './partner.js';
import { createIssuedQuotes } from '../store/quotes.js';
import { createQuoteHandlers } from './quotes.js';
import { createRouteHandlers } from './routes.js';
import { createSandboxHandlers } from './sandbox.js';
import { createSwapHandlers } from './swaps.js';
import { createSwapStreamHandlers } from './swap-stream.js';
import { createWebhookHandlers } from './webhooks.js';

/** Specified operations whose implementation has not landed yet; they answer 501 not_implemented. */
export const PENDING_OPERATIONS = [] as const satisfies readonly OperationId[];

type PendingOperation = (typeof PENDING_OPERATIONS)[number];

/** Builds every handler over the given dependencies. */
export function createHandlers(deps: HandlerDeps): Handlers {
  const pending = Object.fromEntries(PENDING_OPERATIONS.map((id) => [id, pendingHandler(id)])) as unknown as {
    [Id in PendingOperation]: Handler<Id>;
  };
  // Quotes this instance issued, so that a swap created from one here needs no read of it first.
  const issued = createIssuedQuotes();
  return {
    ...createHealthHandlers(deps),
    ...createCatalogHandlers(deps),
    ...createPartnerHandlers(deps),
    ...createQuoteHandlers(deps, issued),
    ...createRouteHandlers(deps),
    ...createSwapHandlers(deps, issued),
    ...createSandboxHandlers(deps),
    ...createWebhookHandlers(deps),
    ...pending,
    ...createSwapStreamHandlers(deps),
  };
}

function pendingHandler(operationId: OperationId): Handler<OperationId> {
  return async () => {
    throw notImplemented(operationId);
  };
}
