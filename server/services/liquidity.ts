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
import type { Catalog, CatalogAsset } from '../domain/catalog.js';
import { formatDown, formatUp, Money, type Amount } from '../domain/money.js';
import { nativeCoinOf } from '../networks/index.js';
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
  /** Each asset's balance, what is promised of it and its hot-wallet rule's state, read without the lock (metrics). */
  snapshot(db: Knex, assets: readonly CatalogAsset[], at: Date): Promise<TreasuryState[]>;
  /**
   * Locks `asset`'s liquidity in `trx` and reads what may go to cold storage at `at`: above HOT_WALLET_MAX, the
   * surplus down to halfway between the two rules, never more than what nothing promised (0 when none).
   */
  coldSurplus(trx: Knex.Transaction, asset: CatalogAsset, at: Date): Promise<Amount>;
}

/** One asset of a hot wallet, as the metrics show it (decimal strings). */
export interface TreasuryState {
  network: string;
  asset: string;
  spendable: string;
  /** Payouts the balance may not show yet. */
  payouts: string;
  reserved: string;
  available: string;
  /** HOT_WALLET_MIN / HOT_WALLET_MAX: `below_minimum` (an alert), `above_maximum` (surplus for cold storage), or `ok`. */
  rule: 'ok' | 'below_minimum' | 'above_maximum';
  /** Above the maximum: what goes to cold storage, down to halfway between the two; else '0'. */
  surplus: string;
}

/** Production's liquidity, from the hot wallets' balances on `status` and what the database has promised. */
export function createHotWalletLiquidity(deps: {
  catalog: Catalog;
  status: Pick<NetworkStatus, 'balance' | 'feeEstimate'>;
  partnerSharePercent: string;
  /** HOT_WALLET_MIN / HOT_WALLET_MAX by asset key (`USDT/ETH`). */
  hotWalletMin?: Readonly<Record<string, string>>;
  hotWalletMax?: Readonly<Record<string, string>>;
}): Liquidity {
  const share = new Money(deps.partnerSharePercent).div(100);
  const slippage = new Money(deps.catalog.fees.floatingSlippagePercent).div(100);
  const feeReserve = (asset: CatalogAsset) =>
    nativeCoinOf(asset.network) === asset.symbol
      ? new Money(deps.status.feeEstimate(asset.network) ?? 0).times(FEE_RESERVE_PAYOUTS)
      : new Money(0);
  // The hot-wallet rule of `asset` for what the wallet holds (its balance less what it still owes): below
  // HOT_WALLET_MIN, above HOT_WALLET_MAX (with the surplus down to halfway between the two), or ok.
  const ruleOf = (asset: CatalogAsset, held: Amount): { rule: TreasuryState['rule']; surplus: Amount } => {
    const key = `${asset.symbol}/${asset.network}`;
    const min = deps.hotWalletMin?.[key];
    const max = deps.hotWalletMax?.[key];
    if (min !== undefined && held.lessThan(min)) return { rule: 'below_minimum', surplus: new Money(0) };
    if (max === undefined || !held.greaterThan(max)) return { rule: 'ok', surplus: new Money(0) };
    const target = min === undefined ? new Money(max) : new Money(max).plus(min).div(2);
    return { rule: 'above_maximum', surplus: held.minus(target) };
  };
  return {
    async coldSurplus(trx, asset, at) {
      await lockLiquidity(trx, asset.network, asset.symbol, at);
      const balance = deps.status.balance(asset);
      if (balance === undefined) return new Money(0);
      const committed = await readCommitments(trx, { network: asset.network, asset: asset.symbol, at, balanceHeight: balance.height });
      const held = new Money(balance.spendable).minus(committed.payouts);
      const { surplus } = ruleOf(asset, held);
      // What no payout, reservation or fee reserve needs: the transfer never takes a promise away.
      const free = held.minus(feeReserve(asset)).minus(committed.reserved);
      return new Money(formatDown(Money.max(0, Money.min(surplus, free)), asset.precision));
    },
    async snapshot(db, assets, at) {
      const states: TreasuryState[] = [];
      for (const asset of assets) {
        const balance = deps.status.balance(asset);
        if (balance === undefined) continue;
        const committed = await readCommitments(db, { network: asset.network, asset: asset.symbol, at, balanceHeight: balance.height });
        // What the wallet holds for the service's own use: its balance less what it still owes.
        const held = new Money(balance.spendable).minus(committed.payouts);
        const { rule, surplus } = ruleOf(asset, held);
        states.push({
          network: asset.network,
          asset: asset.symbol,
          spendable: balance.spendable,
          payouts: committed.payouts,
          reserved: committed.reserved,
          available: Money.max(0, held.minus(feeReserve(asset)).minus(committed.reserved)).toFixed(),
          rule,
          surplus: formatDown(surplus, asset.precision),
        });
      }
      return states;
    },
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
      const base = new Money(balance.spendable).minus(committed.payouts).minus(feeReserve(asset));
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
