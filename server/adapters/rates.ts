/**
 * The rates adapter: USD prices of catalogue assets at a moment. Production plugs a market-data provider in
 * here; the sandbox implementation drifts slowly and deterministically around the catalogue's reference prices.
 */
import type { Amount } from '../domain/money.js';

/** Source of USD prices. */
export interface RatesAdapter {
  /** USD price of one unit of `symbol` on `network` at `at`; throws AppError 503 when prices are unavailable. */
  priceUsd(symbol: string, network: string, at: Date): Promise<Amount>;
}
