/**
 * Sandbox prices: each asset's reference price moves along a sine wave of `driftPercent` amplitude with a
 * six-hour period. Deterministic in time, so tests and partners see stable but moving rates.
 */
import { Money } from '../../domain/money.js';
import { findAsset, type Catalog } from '../../domain/catalog.js';
import { AppError } from '../../domain/errors.js';
import type { RatesAdapter } from '../rates.js';

const DRIFT_PERIOD_SECONDS = 6 * 60 * 60;

// The wave is a factor, not an amount: 24 significant digits are far more than any price keeps, and the
// sine's series at Money's 50 digits was a quarter of the CPU time of a quote.
const Wave = Money.clone({ precision: 24 });
const TWO_PI = Wave.acos(-1).times(2);

/** Creates the sandbox rates adapter over a catalogue. */
export function createSandboxRates(catalog: Catalog): RatesAdapter {
  // A quote prices both of its assets at the same instant: the wave of the last instant is kept.
  let last: { ms: number; wave: InstanceType<typeof Wave> } | undefined;
  const waveAt = (ms: number) => {
    if (last?.ms !== ms) {
      const phase = new Wave(ms).div(1000).mod(DRIFT_PERIOD_SECONDS).div(DRIFT_PERIOD_SECONDS);
      last = { ms, wave: Wave.sin(phase.times(TWO_PI)) };
    }
    return last.wave;
  };
  return {
    async priceUsd(symbol, network, at) {
      const asset = findAsset(catalog, symbol, network);
      if (!asset) throw new AppError(503, 'service_unavailable', `No price for ${symbol}/${network}`);
      const factor = new Money(1).plus(new Money(asset.driftPercent).div(100).times(waveAt(at.getTime()).toString()));
      return new Money(asset.priceUsd).times(factor);
    },
  };
}
