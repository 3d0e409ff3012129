/**
 * Reads the market-rates variables (docs/architecture.md#production) into createMarketRates options, for server/config.ts
 * to call with the environment it was given: RATES_SOURCES, KRAKEN_URL, BINANCE_URL, COINBASE_URL,
 * RATES_MAX_AGE_SECONDS, RATES_MAX_SPREAD_PERCENT and RATES_PEGGED. Every bad value is a problem naming the variable,
 * to be reported with the others at start-up. spreadFeeProblems checks the spread against the catalogue's fees.
 */
import type { Catalog } from '../../domain/catalog.js';
import { Money } from '../../domain/money.js';
import { MARKET_PAIRS, MARKET_SOURCES, type MarketSource } from './pairs.js';
import { DEFAULT_CACHE_SECONDS, DEFAULT_MAX_SPREAD_PERCENT } from './rates.js';
import { DEFAULT_MARKET_URLS } from './sources.js';

/** The options the environment decides; the rest of MarketRatesOptions keeps its defaults. */
export interface MarketRatesEnvOptions {
  sources: readonly MarketSource[];
  urls: Partial<Record<MarketSource, string>>;
  maxAgeSeconds: number;
  maxSpreadPercent: string;
  /** Stablecoins no provider lists, priced at their peg in USD (RATES_PEGGED, e.g. fUSD:1); none by default. */
  pegged: Readonly<Record<string, string>>;
}

const URL_VARIABLES: Readonly<Record<MarketSource, string>> = {
  kraken: 'KRAKEN_URL',
  binance: 'BINANCE_URL',
  coinbase: 'COINBASE_URL',
  bitfinex: 'BITFINEX_URL',
};

/** Parses the market-rates variables of `env`; `problems` lists every bad value (empty when all are good). */
export function parseMarketRatesEnv(env: Record<string, string | undefined>): { options: MarketRatesEnvOptions; problems: string[] } {
  const problems: string[] = [];
  const value = (name: string) => {
    const raw = env[name]?.trim();
    return raw === undefined || raw === '' ? undefined : raw;
  };

  let sources: MarketSource[] = [...MARKET_SOURCES];
  const listed = value('RATES_SOURCES');
  if (listed !== undefined) {
    const names = listed.split(',').map((name) => name.trim().toLowerCase());
    const unknown = names.filter((name) => !(MARKET_SOURCES as readonly string[]).includes(name));
    const distinct = [...new Set(names)].filter((name): name is MarketSource => (MARKET_SOURCES as readonly string[]).includes(name));
    if (unknown.length > 0)
      problems.push(
        `RATES_SOURCES=${JSON.stringify(listed)} names unknown sources (${unknown.join(', ')}); use ${MARKET_SOURCES.join(', ')}`,
      );
    else if (distinct.length < 2)
      problems.push(`RATES_SOURCES=${JSON.stringify(listed)} must name at least two sources: a price needs two that agree`);
    else sources = distinct;
  }

  const urls: Partial<Record<MarketSource, string>> = {};
  for (const source of MARKET_SOURCES) {
    const name = URL_VARIABLES[source];
    const url = value(name);
    if (url === undefined) continue;
    let protocol: string | undefined;
    try {
      protocol = new URL(url).protocol;
    } catch {
      protocol = undefined;
    }
    if (protocol === 'http:' || protocol === 'https:') urls[source] = url;
    else problems.push(`${name}=${JSON.stringify(url)} must be an http:// or https:// base URL, e.g. ${DEFAULT_MARKET_URLS[source]}`);
  }

  let maxAgeSeconds = 60;
  const age = value('RATES_MAX_AGE_SECONDS');
  if (age !== undefined) {
    if (/^\d+$/.test(age) && Number(age) > DEFAULT_CACHE_SECONDS && Number(age) <= 3600) maxAgeSeconds = Number(age);
    else
      problems.push(
        `RATES_MAX_AGE_SECONDS=${JSON.stringify(age)} must be a whole number of seconds above ${DEFAULT_CACHE_SECONDS} (how long a price is cached) and at most 3600`,
      );
  }

  let maxSpreadPercent = DEFAULT_MAX_SPREAD_PERCENT;
  const spread = value('RATES_MAX_SPREAD_PERCENT');
  if (spread !== undefined) {
    if (/^\d{1,2}(\.\d{1,4})?$/.test(spread) && /[1-9]/.test(spread)) maxSpreadPercent = spread;
    else
      problems.push(`RATES_MAX_SPREAD_PERCENT=${JSON.stringify(spread)} must be a positive decimal percentage below 100, e.g. 0.4 or 0.25`);
  }

  const pegged: Record<string, string> = {};
  for (const entry of (value('RATES_PEGGED') ?? '').split(',').map((part) => part.trim())) {
    if (entry === '') continue;
    const match = /^([A-Za-z][A-Za-z0-9]{0,15}):(\d{1,6}(\.\d{1,8})?)$/.exec(entry);
    if (!match || !/[1-9]/.test(match[2])) {
      problems.push(`RATES_PEGGED entry ${JSON.stringify(entry)} must be SYMBOL:price in USD, e.g. fUSD:1`);
    } else if (MARKET_PAIRS[match[1]]) {
      problems.push(`RATES_PEGGED names ${match[1]}, which the market sources price; a peg would override the market`);
    } else pegged[match[1]] = match[2];
  }

  return { options: { sources, urls, maxAgeSeconds, maxSpreadPercent, pegged }, problems };
}

/**
 * The spread limit must be tighter than the smallest percentage fee the catalogue charges (fixed and floating
 * swaps, permanent routes before the partner's markup, which only adds): sources that agree within it could
 * otherwise differ by a whole fee, and a price that far off would cost the service the fee. Empty when it is.
 */
export function spreadFeeProblems(maxSpreadPercent: string, catalog: Pick<Catalog, 'fees' | 'routes'>): string[] {
  const fees: Array<[string, string]> = [
    ['fees.fixedPercent', catalog.fees.fixedPercent],
    ['fees.floatingPercent', catalog.fees.floatingPercent],
    ['routes.feePercent', catalog.routes.feePercent],
  ];
  const [name, smallest] = fees.reduce((min, fee) => (new Money(fee[1]).lessThan(min[1]) ? fee : min));
  if (new Money(maxSpreadPercent).lessThan(smallest)) return [];
  return [
    `RATES_MAX_SPREAD_PERCENT=${maxSpreadPercent} must be below the smallest percentage fee the catalogue charges (${name} = ${smallest}): two sources that agree within the spread could differ by a whole fee`,
  ];
}
