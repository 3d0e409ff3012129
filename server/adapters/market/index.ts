/**
 * Production prices from public market data (Kraken, Binance, Coinbase Exchange): the adapter, its
 * configuration parser, the symbol-to-market table and the pure price rule. See rates.ts for the behaviour.
 */
export {
  createMarketRates,
  DEFAULT_CACHE_SECONDS,
  DEFAULT_MAX_SPREAD_PERCENT,
  MIN_PRICE_SOURCES,
  type MarketRatesOptions,
} from './rates.js';
export { parseMarketRatesEnv, type MarketRatesEnvOptions } from './config.js';
export { MARKET_PAIRS, MARKET_SOURCES, type MarketPairs, type MarketSource } from './pairs.js';
export { consensusPrice, median, type Consensus, type ConsensusRule, type PriceObservation, type Rejection } from './consensus.js';
export { DEFAULT_MARKET_URLS, MarketSourceError } from './sources.js';
