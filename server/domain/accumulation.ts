/**
 * Accumulation on permanent routes (docs/architecture.md#routes-and-the-wallet-proof), as a pure decision over one same-asset bucket: the
 * confirmed deposits of one route, asset and network that belong to no order yet.
 * - A deposit worth more than the route's automatic maximum is converted alone and goes to review.
 * - The others convert together, in one order, once their value reaches `min_swap_usd`; that order goes to
 *   review when the sum exceeds the maximum.
 * - Below the minimum they wait (`accumulating`), and the bucket's valuation is what the partner sees.
 * Every deposit of the bucket appears in exactly one decision, so none is converted twice or left out.
 */
import { Money, type Amount } from './money.js';

/** A confirmed deposit without an order. */
export interface BucketDeposit {
  id: string;
  /** In units of the asset. */
  amount: string;
}

/** The route's thresholds, in USD. */
export interface BucketLimits {
  minSwapUsd: string;
  maxAutoSwapUsd: string;
}

/** What happens to (part of) a bucket. */
export type BucketDecision =
  | { kind: 'convert'; depositIds: string[]; amount: string; valueUsd: string; review: boolean }
  | { kind: 'wait'; depositIds: string[]; amount: string; accumulatedUsd: string; remainingUsd: string };

/** Fraction digits of the USD figures partners see. */
export const USD_DECIMALS = 2;

/** Decides a bucket valued at `priceUsd` per unit. */
export function decideBucket(deposits: BucketDeposit[], priceUsd: Amount, limits: BucketLimits): BucketDecision[] {
  const minimum = new Money(limits.minSwapUsd);
  const maximum = new Money(limits.maxAutoSwapUsd);
  const decisions: BucketDecision[] = [];
  const pooled: BucketDeposit[] = [];
  for (const deposit of deposits) {
    const value = new Money(deposit.amount).times(priceUsd);
    if (value.greaterThan(maximum)) {
      decisions.push({ kind: 'convert', depositIds: [deposit.id], amount: deposit.amount, valueUsd: usd(value), review: true });
    } else {
      pooled.push(deposit);
    }
  }
  if (pooled.length === 0) return decisions;
  const amount = Money.sum(...pooled.map((d) => d.amount));
  const value = amount.times(priceUsd);
  const depositIds = pooled.map((d) => d.id);
  if (value.greaterThanOrEqualTo(minimum)) {
    decisions.push({ kind: 'convert', depositIds, amount: amount.toFixed(), valueUsd: usd(value), review: value.greaterThan(maximum) });
  } else {
    // Rounded down and up respectively, so a waiting bucket never shows itself at or past the threshold.
    decisions.push({
      kind: 'wait',
      depositIds,
      amount: amount.toFixed(),
      accumulatedUsd: usd(value),
      remainingUsd: minimum.minus(value).toDecimalPlaces(USD_DECIMALS, Money.ROUND_UP).toFixed(USD_DECIMALS),
    });
  }
  return decisions;
}

/** The message a waiting deposit shows its customer. */
export function accumulationMessage(remainingUsd: string, asset: string, network: string): string {
  return `Send at least ${remainingUsd} USD more of ${asset} on ${network} to start the conversion.`;
}

/** A USD value rounded down to cents, with both digits (`12.40`). */
export const usd = (value: Amount): string => value.toDecimalPlaces(USD_DECIMALS, Money.ROUND_DOWN).toFixed(USD_DECIMALS);

/**
 * Whether a route payment of `amount` is dust: below its asset's catalogue `dustFloor` times `factor`
 * (ROUTE_DUST_FLOOR_FACTOR). Dust is recorded but never valued, accumulated or announced: anyone can pay a
 * route address, and each payment handled costs the service more than dust is worth.
 */
export function isDust(amount: string, dustFloor: string, factor: string): boolean {
  return new Money(amount).lessThan(new Money(dustFloor).times(factor));
}

/**
 * The regular poll interval of a route idle (no deposit, no expect-deposit call) for `idleSeconds`: the base
 * interval, doubled after each full idle period, up to the cap. All in seconds.
 */
export function idlePollSeconds(
  idleSeconds: number,
  policy: { pollSeconds: number; idlePeriodSeconds: number; maxSeconds: number },
): number {
  const doublings = Math.max(0, Math.floor(idleSeconds / policy.idlePeriodSeconds));
  // 2^31 times any interval is past any cap; the exponent stays small enough to be exact.
  return Math.min(policy.maxSeconds, policy.pollSeconds * 2 ** Math.min(doublings, 31));
}
