/**
 * Liquidity (DESIGN 10): how much of an asset the service can still promise to pay. In production that is the
 * hot wallet's spendable balance (as the network board last read it; requests never call a node), less the
 * payouts committed but not yet broadcast, less what live fixed quotes and fixed-rate swaps not paid out yet
 * promise, less a fee reserve on the network's native asset. Quotes bound their maximum by it; a pair with
 * less than its minimum is 409 pair_unavailable. The sandbox's hot wallet pays anything.
 */
import type { Knex } from 'knex';
import { NATIVE_ASSET, type CatalogAsset } from '../domain/catalog.js';
import { Money, type Amount } from '../domain/money.js';
import { sumCommittedPayouts } from '../store/payouts.js';
import type { NetworkStatus } from './network-status.js';

/** Payout fees the native asset's balance keeps back (for payouts of tokens as much as of itself). */
export const FEE_RESERVE_PAYOUTS = 20;

/** How much of an asset can still be promised. */
export interface Liquidity {
  /** What the service can still promise to pay in `asset`, or undefined when nothing limits it. */
  available(asset: CatalogAsset, at: Date): Promise<Amount | undefined>;
}

/** No limit: the sandbox. */
export const unlimitedLiquidity: Liquidity = { available: async () => undefined };

/** Production's liquidity, from the hot wallets' balances on `status` and what the database has promised. */
export function createHotWalletLiquidity(deps: { knex: Knex; status: NetworkStatus }): Liquidity {
  return {
    async available(asset, at) {
      const spendable = deps.status.spendable(asset);
      if (spendable === undefined) return new Money(0);
      const committed = await sumCommittedPayouts(deps.knex, asset.network, asset.symbol, at);
      const native = NATIVE_ASSET[asset.network] === asset.symbol;
      const reserve = native ? new Money(deps.status.feeEstimate(asset.network) ?? 0).times(FEE_RESERVE_PAYOUTS) : new Money(0);
      return Money.max(0, new Money(spendable).minus(committed).minus(reserve));
    },
  };
}
