/**
 * Quote pricing (docs/architecture.md#quotes): from the USD prices of two catalogue assets, the amount a deposit pays out
 * for each rate type, with the service fee and the destination network's payout fee folded into the
 * receive amount, the pair's limits converted into the source asset, and what a refund returns (the deposit
 * less the same network payout fee, in the source asset). Pure and decimal throughout:
 * amounts enter and leave as strings or Decimals, never as JS numbers.
 */
import type { Catalog, CatalogAsset } from './catalog.js';
import { formatDown, formatUp, Money, type Amount } from './money.js';

/** A rate type a swap is executed at. */
export type RateType = 'fixed' | 'floating';

/** Extra fraction digits a rate carries beyond the destination's precision (capped at 18). */
export const RATE_EXTRA_DIGITS = 4;
/** Fraction digits of `feeUsd`. */
export const FEE_USD_DECIMALS = 2;

/** The priced terms of one rate type. */
export interface PricedTerms {
  rateType: RateType;
  /** Destination units per source unit at market prices, rounded down. */
  rate: string;
  /** What `sourceAmount` pays out after fees, rounded down to the destination precision (may be "0"). */
  receiveAmount: string;
  /** Floating only: the slippage bound; null for fixed. */
  minimumReceiveAmount: string | null;
  /** Service fee plus payout fee, in USD, rounded up to cents. */
  feeUsd: string;
}

/** The pair's limits in the source asset at the current price. */
export interface SourceLimits {
  minimumSourceAmount: string;
  maximumSourceAmount: string;
}

/** Which rate types the pair offers: fixed only when both assets allow it. */
export function rateTypesOf(source: CatalogAsset, destination: CatalogAsset): RateType[] {
  return source.fixedRate && destination.fixedRate ? ['fixed', 'floating'] : ['floating'];
}

/** The market rate: destination units per source unit, rounded down to the destination precision + 4 digits. */
export function marketRate(destination: CatalogAsset, sourcePriceUsd: Amount, destinationPriceUsd: Amount): Amount {
  const digits = Math.min(18, destination.precision + RATE_EXTRA_DIGITS);
  return new Money(formatDown(sourcePriceUsd.div(destinationPriceUsd), digits));
}

/**
 * Prices `sourceAmount` at one rate type: receive = (amount x rate x (1 - fee%)) - payout fee in destination
 * units, rounded down to the destination precision and never below zero. So receive <= amount x rate.
 */
export function priceTerms(
  catalog: Catalog,
  input: {
    destination: CatalogAsset;
    sourceAmount: Amount;
    sourcePriceUsd: Amount;
    destinationPriceUsd: Amount;
    rateType: RateType;
  },
): PricedTerms {
  const { destination, sourceAmount, sourcePriceUsd, destinationPriceUsd, rateType } = input;
  const rate = marketRate(destination, sourcePriceUsd, destinationPriceUsd);
  const feePercent = new Money(rateType === 'fixed' ? catalog.fees.fixedPercent : catalog.fees.floatingPercent);
  const payoutFeeUsd = new Money(catalog.networks[destination.network].payoutFeeUsd);
  const gross = sourceAmount.times(rate);
  const serviceFee = gross.times(feePercent).div(100);
  const payoutFee = payoutFeeOf(catalog, destination, destinationPriceUsd);
  const net = Money.max(0, gross.minus(serviceFee).minus(payoutFee));
  const receive = formatDown(net, destination.precision);
  const feeUsd = sourceAmount.times(sourcePriceUsd).times(feePercent).div(100).plus(payoutFeeUsd);
  const slippage = new Money(catalog.fees.floatingSlippagePercent).div(100);
  return {
    rateType,
    rate: rate.toFixed(),
    receiveAmount: receive,
    minimumReceiveAmount:
      rateType === 'floating' ? formatDown(new Money(receive).times(new Money(1).minus(slippage)), destination.precision) : null,
    feeUsd: formatUp(feeUsd, FEE_USD_DECIMALS),
  };
}

/**
 * The exact-output price of `destinationAmount` at a fixed rate: the least deposit of `source`, at its
 * precision, that pays out at least `destinationAmount` after the service fee and the payout fee (priceTerms
 * read backwards), and the terms of paying out exactly `destinationAmount` for it. Rounded up, in the
 * service's favour: the customer receives exactly what was asked, never less, and the rounding of the deposit
 * stays with the service.
 */
export function priceExactOutput(
  catalog: Catalog,
  input: {
    source: CatalogAsset;
    destination: CatalogAsset;
    destinationAmount: Amount;
    sourcePriceUsd: Amount;
    destinationPriceUsd: Amount;
  },
): { sourceAmount: string; terms: PricedTerms } {
  const { source, destination, destinationAmount, sourcePriceUsd, destinationPriceUsd } = input;
  const rate = marketRate(destination, sourcePriceUsd, destinationPriceUsd);
  const kept = new Money(1).minus(new Money(catalog.fees.fixedPercent).div(100));
  const payoutFee = payoutFeeOf(catalog, destination, destinationPriceUsd);
  // receive = A x rate x kept - payoutFee >= D  <=>  A >= (D + payoutFee) / (rate x kept)
  const sourceAmount = formatUp(destinationAmount.plus(payoutFee).div(rate.times(kept)), source.precision);
  const priced = priceTerms(catalog, {
    destination,
    sourceAmount: new Money(sourceAmount),
    sourcePriceUsd,
    destinationPriceUsd,
    rateType: 'fixed',
  });
  return { sourceAmount, terms: { ...priced, receiveAmount: destinationAmount.toFixed() } };
}

/** The catalogue's USD limits converted into the destination asset: minimum rounded up, maximum rounded down. */
export function destinationLimits(
  catalog: Catalog,
  destination: CatalogAsset,
  destinationPriceUsd: Amount,
): { minimumDestinationAmount: string; maximumDestinationAmount: string } {
  return {
    minimumDestinationAmount: formatUp(new Money(catalog.limitsUsd.minimum).div(destinationPriceUsd), destination.precision),
    maximumDestinationAmount: formatDown(new Money(catalog.limitsUsd.maximum).div(destinationPriceUsd), destination.precision),
  };
}

/** What a payout of `asset` costs on its network, in units of the asset: the network's `payoutFeeUsd` at `priceUsd` (unrounded). */
export function payoutFeeOf(catalog: Catalog, asset: CatalogAsset, priceUsd: Amount): Amount {
  return new Money(catalog.networks[asset.network].payoutFeeUsd).div(priceUsd);
}

/** What a refund of a deposit returns: the deposit less the network's payout fee, or why nothing is returned. */
export type RefundTerms = { held: false; amount: string; fee: string } | { held: true; remainder: string; fee: string };

/**
 * A refund of `deposit` of `source` at the source's USD price `sourcePriceUsd`: the network's payout fee (as
 * quotes take it from payouts, payoutFeeOf) rounded up to the asset's precision, so the service never bears
 * more than the rule says, and the deposit less that fee, rounded down. Where that remainder does not exceed
 * the asset's dust floor (or is not positive) nothing is refunded: `held`, the deposit kept for an operator.
 */
export function refundTerms(catalog: Catalog, source: CatalogAsset, deposit: string, sourcePriceUsd: Amount): RefundTerms {
  const fee = formatUp(payoutFeeOf(catalog, source, sourcePriceUsd), source.precision);
  const remainder = new Money(formatDown(new Money(deposit).minus(fee), source.precision));
  if (remainder.lessThanOrEqualTo(source.dustFloor)) return { held: true, remainder: remainder.toFixed(), fee };
  return { held: false, amount: remainder.toFixed(), fee };
}

/** Picks the terms with the higher receive amount; on a tie, fixed (it guarantees the amount). */
export function bestTerms(terms: PricedTerms[]): PricedTerms {
  return terms.reduce((best, next) => {
    const cmp = new Money(next.receiveAmount).comparedTo(best.receiveAmount);
    return cmp > 0 || (cmp === 0 && next.rateType === 'fixed' && best.rateType !== 'fixed') ? next : best;
  });
}

/** The catalogue's USD limits converted into the source asset: minimum rounded up, maximum rounded down. */
export function sourceLimits(catalog: Catalog, source: CatalogAsset, sourcePriceUsd: Amount): SourceLimits {
  return {
    minimumSourceAmount: formatUp(new Money(catalog.limitsUsd.minimum).div(sourcePriceUsd), source.precision),
    maximumSourceAmount: formatDown(new Money(catalog.limitsUsd.maximum).div(sourcePriceUsd), source.precision),
  };
}

/** The USD value of `amount` of an asset at `priceUsd`. */
export function usdValue(amount: Amount, priceUsd: Amount): Amount {
  return amount.times(priceUsd);
}

/** What a permanent-route order pays out, and the fee and markup it carries. */
export interface RouteOrderTerms {
  rate: string;
  /** Rounded down to the destination precision (may be "0"). */
  receiveAmount: string;
  /** The route fee in USD, rounded up to cents. */
  feeUsd: string;
  /** The partner's share of the fee: its markup percent of the value, in the destination asset, rounded down. */
  markupAmount: string;
  /** The USD value of `markupAmount` at the conversion price, rounded down to cents. */
  markupUsd: string;
}

/**
 * Prices a route order (docs/architecture.md#routes-and-the-wallet-proof): fee = max(value x percent, floor), where percent includes the markup;
 * receive = (value - fee) / destination price, rounded down and never below zero. The markup is the
 * partner's part of that fee: value x markup percent.
 */
export function priceRouteOrder(input: {
  destination: CatalogAsset;
  sourceAmount: Amount;
  sourcePriceUsd: Amount;
  destinationPriceUsd: Amount;
  feePercent: string;
  feeFloorUsd: string;
  markupPercent: string;
}): RouteOrderTerms {
  const { destination, sourceAmount, sourcePriceUsd, destinationPriceUsd } = input;
  const value = sourceAmount.times(sourcePriceUsd);
  const fee = Money.max(value.times(input.feePercent).div(100), input.feeFloorUsd);
  const net = Money.max(0, value.minus(fee));
  const markupAmount = formatDown(value.times(input.markupPercent).div(100).div(destinationPriceUsd), destination.precision);
  return {
    rate: marketRate(destination, sourcePriceUsd, destinationPriceUsd).toFixed(),
    receiveAmount: formatDown(net.div(destinationPriceUsd), destination.precision),
    feeUsd: formatUp(fee, FEE_USD_DECIMALS),
    markupAmount,
    markupUsd: formatDown(new Money(markupAmount).times(destinationPriceUsd), FEE_USD_DECIMALS),
  };
}
