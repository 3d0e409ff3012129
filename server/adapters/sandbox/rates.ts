/**
 * Sandbox prices: each asset's reference price moves along a sine wave of `driftPercent` amplitude with a
 * six-hour period. Deterministic in time, so tests and partners see stable but moving rates.
 */
import { Money } from '../../domain/money.js';
import { findAsset, type Catalog } from '../../domain/catalog.js';
import { AppError } from '../../domain/errors.js';
import type { RatesAdapter } from '../rates.js';

const DRIFT_PERIOD_SECONDS = 6 * 60 * 60;

/** Creates the sandbox rates adapter over a catalogue. */
export function createSandboxRates(catalog: Catalog): RatesAdapter {
  return {
    async priceUsd(symbol, network, at) {
      const asset = findAsset(catalog, symbol, network);
      if (!asset) throw new AppError(503, 'service_unavailable', `No price for ${symbol}/${network}`);
      const phase = new Money(at.getTime()).div(1000).mod(DRIFT_PERIOD_SECONDS).div(DRIFT_PERIOD_SECONDS);
      const wave = Money.sin(phase.times(2).times(Money.acos(-1)));
      const factor = new Money(1).plus(new Money(asset.driftPercent).div(100).times(wave));
      return new Money(asset.priceUsd).times(factor);
    },
  };
}
