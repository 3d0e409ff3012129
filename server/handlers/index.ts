/** The handler table: one entry per operationId of the spec. */
import type { Handlers } from '../http/handler-types.js';
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

/**
 * Builds every handler over the given dependencies. The result is typed by operationId, so an operation added
 * to the spec is a compile error until it is handled: no operation answers 501 (the spec declares none).
 */
export function createHandlers(deps: HandlerDeps): Handlers {
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
    ...createSwapStreamHandlers(deps),
  };
}
