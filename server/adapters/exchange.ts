/**
 * The exchange venue: where a swap's conversion is executed once its deposit is credited (docs/architecture.md#sandbox). The
 * service converts from its own inventory, so in production nothing outside refuses a conversion today (the
 * hot wallet's liquidity is checked when quotes are made); a venue that can refuse, such as the sandbox's
 * (adapters/sandbox/exchange.ts, where a partner arms an exchange failure), says so here.
 *
 * Like the chain adapters it takes no database handle and is never called inside a database transaction.
 */

/**
 * One conversion attempt: the swap, and the swap's last change as the step read it. Every retry of one
 * attempt names the same version; a step that read a version since replaced is thrown away and asks again,
 * naming the newer version.
 */
export interface ExchangeAttempt {
  swapId: string;
  swapVersion: Date;
}

/** Executes conversions. */
export interface ExchangeVenue {
  /**
   * Why the venue refuses `attempt` (the swap's deposit is then refunded), or null when it executes it.
   * Asked again for the same version (a retried step), it gives the same answer; a refusal also holds for
   * the swap's later versions until it took effect, since the refused step may be thrown away.
   */
  refusal(attempt: ExchangeAttempt): Promise<string | null>;
}

/** The service's own inventory: every conversion is executed. */
export function createInventoryExchange(): ExchangeVenue {
  return { refusal: async () => null };
}
