/**
 * The rule that turns several market sources' prices into one (docs/architecture.md#production, "Prices"; docs/prices.md).
 * Pure: the clock is passed in.
 *
 * 1. Drop the stale observations: older than `maxAgeSeconds` at `now`, by the provider's own trade time, or
 *    stamped more than FUTURE_TOLERANCE_SECONDS ahead of `now`.
 * 2. Exactly two fresh and `minSources` 2: the median of two is their mean, so each would be within half
 *    their gap of it and one bad source could move the price by about the spread. Instead the two must
 *    agree with each other: |a - b| relative to the lower of the two (the stricter reading: it is never
 *    below the gap relative to their mean) at most `maxSpreadPercent`. Then the price is their mean (off
 *    by at most half the spread from either); otherwise there is no price, and the reason names both.
 * 3. Otherwise (three or more fresh, or `minSources` 1): take their median, drop those further than the
 *    spread from it, and answer the median of what is left when at least `minSources` remain.
 */
import { Money, type Amount } from '../../domain/money.js';

/** One source's price of one asset, in USD, with the moment it describes. */
export interface PriceObservation {
  source: string;
  price: Amount;
  /** When the price was true: the provider's own timestamp, or the time its answer arrived. */
  at: Date;
}

/** What the rule asks of the observations. */
export interface ConsensusRule {
  /** An observation older than this, judged at `now`, is stale. */
  maxAgeSeconds: number;
  /**
   * Largest distance from the median, in percent of the median, that still agrees; with exactly two sources, the
   * largest gap between them, in percent of the lower (decimal string).
   */
  maxSpreadPercent: string;
  /** Fresh, agreeing observations needed for a price. */
  minSources: number;
}

/** How far ahead of this host's clock a provider's trade time may be (clock skew) before it is refused. */
export const FUTURE_TOLERANCE_SECONDS = 30;

/** Why an observation was left out. */
export interface Rejection {
  source: string;
  /**
   * Too old; stamped ahead of this host's clock by more than FUTURE_TOLERANCE_SECONDS; too far from the
   * median; or one of exactly two sources too far apart to tell which is right.
   */
  reason: 'stale' | 'future' | 'outlier' | 'disagreement';
  /** Human-readable: how old, how far from the median, or how far from the other source. */
  detail: string;
}

/** The rule's answer: a price from the named sources, or why there is none. */
export type Consensus =
  { ok: true; price: Amount; sources: string[]; rejected: Rejection[] } | { ok: false; reason: string; rejected: Rejection[] };

/** The median of a non-empty list (the mean of the two middle values for an even count). */
export function median(values: readonly Amount[]): Amount {
  if (values.length === 0) throw new RangeError('median of an empty list');
  const sorted = [...values].sort((a, b) => a.comparedTo(b));
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : sorted[middle - 1].plus(sorted[middle]).div(2);
}

/** Applies the freshness, spread and minimum-count rule to `observations` at `now`. */
export function consensusPrice(observations: readonly PriceObservation[], now: Date, rule: ConsensusRule): Consensus {
  const rejected: Rejection[] = [];
  const fresh = observations.filter((o) => {
    const ageSeconds = (now.getTime() - o.at.getTime()) / 1000;
    if (ageSeconds < -FUTURE_TOLERANCE_SECONDS) {
      // A time ahead of ours is no proof of freshness: a provider (or a clock) that stamps the future would
      // pass every age check for as long as it is ahead.
      rejected.push({
        source: o.source,
        reason: 'future',
        detail: `its price is stamped ${Math.round(-ageSeconds)} s ahead of this host's clock, over ${FUTURE_TOLERANCE_SECONDS} s`,
      });
      return false;
    }
    if (ageSeconds <= rule.maxAgeSeconds) return true;
    rejected.push({
      source: o.source,
      reason: 'stale',
      detail: `its price is ${Math.round(ageSeconds)} s old, over ${rule.maxAgeSeconds} s`,
    });
    return false;
  });
  if (fresh.length < rule.minSources) {
    return { ok: false, reason: `${fresh.length} fresh source${fresh.length === 1 ? '' : 's'}, ${rule.minSources} needed`, rejected };
  }

  const maxSpread = new Money(rule.maxSpreadPercent);
  if (fresh.length === 2 && rule.minSources === 2) {
    const [a, b] = fresh;
    const gapPercent = a.price.minus(b.price).abs().div(Money.min(a.price, b.price)).times(100);
    if (gapPercent.lessThanOrEqualTo(maxSpread))
      return { ok: true, price: median([a.price, b.price]), sources: [a.source, b.source], rejected };
    const gap = above(gapPercent, maxSpread);
    // Neither can be told right: both are left out.
    for (const [one, other] of [
      [a, b],
      [b, a],
    ]) {
      rejected.push({
        source: one.source,
        reason: 'disagreement',
        detail: `its price ${one.price.toFixed()} disagrees with ${other.source}'s ${other.price.toFixed()}`,
      });
    }
    return {
      ok: false,
      reason: `the only 2 fresh sources, ${a.source} and ${b.source}, are ${gap}% apart (of the lower price), over ${rule.maxSpreadPercent}%`,
      rejected,
    };
  }

  const center = median(fresh.map((o) => o.price));
  const agreeing = fresh.filter((o) => {
    const spreadPercent = o.price.minus(center).abs().div(center).times(100);
    if (spreadPercent.lessThanOrEqualTo(maxSpread)) return true;
    rejected.push({
      source: o.source,
      reason: 'outlier',
      detail: `its price ${o.price.toFixed()} is ${above(spreadPercent, maxSpread)}% from the median ${center.toFixed()}, over ${rule.maxSpreadPercent}%`,
    });
    return false;
  });
  if (agreeing.length < rule.minSources) {
    return {
      ok: false,
      reason: `${agreeing.length} of ${fresh.length} fresh sources within ${rule.maxSpreadPercent}% of their median, ${rule.minSources} needed`,
      rejected,
    };
  }
  return { ok: true, price: median(agreeing.map((o) => o.price)), sources: agreeing.map((o) => o.source), rejected };
}

// `percent`, known to be above `limit`, with two decimals, or as many more (up to eight) as it takes to show it above.
function above(percent: Amount, limit: Amount): string {
  let places = 2;
  while (places < 8 && percent.toDecimalPlaces(places).lessThanOrEqualTo(limit)) places++;
  return percent.toDecimalPlaces(places).toFixed();
}
