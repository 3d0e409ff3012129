/**
 * The rule that turns several market sources' prices into one (DESIGN section 10, "Prices"): drop the
 * stale ones, take the median of the rest, drop those further than the spread from that median, and
 * answer the median of what is left when at least `minSources` remain. Pure: the clock is passed in.
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
  /** Largest distance from the median, in percent of the median, that still agrees (decimal string). */
  maxSpreadPercent: string;
  /** Fresh, agreeing observations needed for a price. */
  minSources: number;
}

/** Why an observation was left out. */
export interface Rejection {
  source: string;
  reason: 'stale' | 'outlier';
  /** Human-readable: how old, or how far from the median. */
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

  const center = median(fresh.map((o) => o.price));
  const maxSpread = new Money(rule.maxSpreadPercent);
  const agreeing = fresh.filter((o) => {
    const spreadPercent = o.price.minus(center).abs().div(center).times(100);
    if (spreadPercent.lessThanOrEqualTo(maxSpread)) return true;
    rejected.push({
      source: o.source,
      reason: 'outlier',
      detail: `its price ${o.price.toFixed()} is ${spreadPercent.toDecimalPlaces(2).toFixed()}% from the median ${center.toFixed()}, over ${rule.maxSpreadPercent}%`,
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
