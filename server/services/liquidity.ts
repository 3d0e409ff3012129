/**
 * Liquidity (docs/treasury.md): how much of an asset the service can still promise to pay, checked under the
 * asset's lock in the transaction that makes the promise, so no interleaving of quotes and payouts promises
 * more than the hot wallet holds.
 *
 *   base      = spendable (as the network board last read it, with the tip height before it; requests
 *               never call a node) − payouts that may not show in that balance yet − a fee reserve (on the
 *               network's native asset)
 *   available = base − every live reservation (quotes, and the swaps made from them, until their payout
 *               is committed or their deadline passes)
 *   forPartner = min(available, base × LIQUIDITY_PARTNER_SHARE_PERCENT % − the partner's own reservations)
 *
 * A swap whose payout is being committed does not count its own reservation (it is what it spends), so no
 * remainder is clamped before it is given back. A quote reserves its receive amount, raised by the slippage
 * bound when floating (a floating payout follows the market). The sandbox's hot wallet pays anything.
 */
import type { Knex } from 'knex';
import { NATIVE_ASSET, type Catalog, type CatalogAsset } from '../domain/catalog.js';
import { formatUp, Money, type Amount } from '../domain/money.js';
import { lockLiquidity, readCommitments } from '../store/liquidity.js';
import type { NetworkStatus } from './network-status.js';

/** Payout fees the native asset's balance keeps back (for payouts of tokens as much as of itself). */
export const FEE_RESERVE_PAYOUTS = 20;

/** What can still be promised of one asset, under its lock. */
export interface Room {
  /** To anyone. */
  available: Amount;
  /** To the partner asked about (`available` when none was named). */
  forPartner: Amount;
}

/** How much of an asset can still be promised. */
export interface Liquidity {
  /**
   * Locks `asset`'s liquidity in `trx` (until it ends) and reads what can still be promised at `at`, to
   * `partnerId` when named, without swap `exceptSwapId`'s own reservation.
   */
  lock(trx: Knex.Transaction, asset: CatalogAsset, at: Date, options?: { partnerId?: string; exceptSwapId?: string }): Promise<Room>;
  /** What a quote paying `receiveAmount` of `asset` at `rateType` reserves. */
  reservationOf(asset: CatalogAsset, receiveAmount: string, rateType: 'fixed' | 'floating'): string;
}

/** Production's liquidity, from the hot wallets' balances on `status` and what the database has promised. */
export function createHotWalletLiquidity(deps: {
  catalog: Catalog;
  status: Pick<NetworkStatus, 'balance' | 'feeEstimate'>;
  partnerSharePercent: string;
}): Liquidity {
  const share = new Money(deps.partnerSharePercent).div(100);
  const slippage = new Money(deps.catalog.fees.floatingSlippagePercent).div(100);
  return {
    async lock(trx, asset, at, options = {}) {
      await lockLiquidity(trx, asset.network, asset.symbol, at);
      const balance = deps.status.balance(asset);
      if (balance === undefined) return { available: new Money(0), forPartner: new Money(0) };
      const committed = await readCommitments(trx, {
        network: asset.network,
        asset: asset.symbol,
        at,
        balanceHeight: balance.height,
        partnerId: options.partnerId,
        exceptSwapId: options.exceptSwapId,
      });
      const native = NATIVE_ASSET[asset.network] === asset.symbol;
      const reserve = native ? new Money(deps.status.feeEstimate(asset.network) ?? 0).times(FEE_RESERVE_PAYOUTS) : new Money(0);
      const base = new Money(balance.spendable).minus(committed.payouts).minus(reserve);
      const available = Money.max(0, base.minus(committed.reserved));
      if (options.partnerId === undefined) return { available, forPartner: available };
      const partnerRoom = Money.max(0, base.times(share).minus(committed.partnerReserved));
      return { available, forPartner: Money.min(available, partnerRoom) };
    },
    reservationOf(asset, receiveAmount, rateType) {
      const amount = new Money(receiveAmount);
      return rateType === 'fixed' ? amount.toFixed() : formatUp(amount.times(slippage.plus(1)), asset.precision);
    },
  };
}
