/**
 * Production prices from public market data (docs/architecture.md#production, "Prices"; docs/prices.md): each asset's USD
 * price is the median of what Kraken, Binance and Coinbase Exchange say, by the rule in consensus.ts (at least
 * two sources, each younger than `maxAgeSeconds` by the provider's own trade time; with three, those within
 * `maxSpreadPercent` of the median; with exactly two, only when they are within `maxSpreadPercent` of each
 * other). Otherwise priceUsd throws AppError 503 `service_unavailable` naming each source's problem in our
 * words (a MarketSourceError's `publicReason`: `kraken is unreachable`, `coinbase answered HTTP 500`), with
 * Retry-After; what the provider itself said goes only to the log, once each time a source's failure changes.
 *
 * Binance quotes in USDT, not USD. Its price becomes USD by multiplying with the USDT/USD median of the
 * other sources (Kraken USDTZUSD, Coinbase USDT-USD), fresh and agreeing by the same rule but needing only
 * one source; the result is as old as the older of the two prices. When no USDT/USD price is available,
 * Binance is left out of that asset's median (and the message says so). USDT and USDC themselves are priced
 * from their markets like any asset, never assumed to be worth 1.
 *
 * Quotes are asked per request, so answers are cached per source and market for `cacheSeconds` (failures
 * too, so a down provider is not hammered), with at most one request in flight per source and market;
 * the cached prices pass the freshness rule again at every use, so no price older than `maxAgeSeconds` is
 * ever served. Market prices are current prices: priceUsd's `at` is not used, freshness is judged on `now`.
 */
import type { Logger } from 'pino';
import { AppError } from '../../domain/errors.js';
import { Money, type Amount } from '../../domain/money.js';
import { messageOf, redactUrls } from '../boundary.js';
import type { RatesAdapter } from '../rates.js';
import { consensusPrice, type ConsensusRule, type PriceObservation } from './consensus.js';
import { MARKET_PAIRS, MARKET_SOURCES, type MarketPairs, type MarketSource } from './pairs.js';
import { createSourceClient, DEFAULT_MARKET_URLS, MarketSourceError, type SourceClient, type SourceQuote } from './sources.js';

/** Fresh, agreeing sources an asset's price needs. */
export const MIN_PRICE_SOURCES = 2;

/**
 * The default RATES_MAX_SPREAD_PERCENT: below the smallest percentage fee of the catalogue (0.5 %, floating
 * swaps), which start-up checks (server/config.ts), so that sources that agree cannot differ by a fee.
 */
export const DEFAULT_MAX_SPREAD_PERCENT = '0.4';

/** How long one answer of a provider is reused by default. */
export const DEFAULT_CACHE_SECONDS = 5;

/** Options of createMarketRates. */
export interface MarketRatesOptions {
  /** The providers to ask (RATES_SOURCES); all three by default. */
  sources?: readonly MarketSource[];
  /** Base URLs overriding DEFAULT_MARKET_URLS (KRAKEN_URL, BINANCE_URL, COINBASE_URL). */
  urls?: Partial<Record<MarketSource, string>>;
  /** A source price older than this is not used (RATES_MAX_AGE_SECONDS); 60 by default. */
  maxAgeSeconds?: number;
  /**
   * A source price further than this from the median, in percent, is not used, and two sources further apart than
   * this give no price (RATES_MAX_SPREAD_PERCENT, decimal string); DEFAULT_MAX_SPREAD_PERCENT by default.
   */
  maxSpreadPercent?: string;
  /** How long one answer of a provider (price or failure) is reused; DEFAULT_CACHE_SECONDS by default, must be below maxAgeSeconds. */
  cacheSeconds?: number;
  /** Time limit of one provider request; 3 by default. */
  fetchTimeoutSeconds?: number;
  /** The clock: freshness and the cache are judged on it. */
  now?: () => Date;
  /** Injectable fetch; the global fetch by default. */
  fetch?: typeof fetch;
  /**
   * Stablecoins no provider lists, priced at their peg in USD (RATES_PEGGED): the service then carries the risk
   * of a depeg for them, which is why none is pegged unless configured.
   */
  pegged?: Readonly<Record<string, string>>;
  /** The symbol-to-market table; MARKET_PAIRS by default (tests may narrow it). */
  pairs?: Readonly<Record<string, MarketPairs>>;
  /** Where a source's failure is told in full (the provider's own words, with URLs redacted); none by default. */
  logger?: Pick<Logger, 'warn'>;
}

/** A source's answer for one market: a price, or why there is none in our words (`reason`) and in full (`detail`). */
type CachedAnswer = { ok: true; quote: SourceQuote } | { ok: false; reason: string; detail?: string };

interface CacheEntry {
  /** When the answer settled, on the clock; undefined while the request is in flight. */
  settledAtMs?: number;
  answer: Promise<CachedAnswer>;
}

/** Creates the market-data rates adapter. */
export function createMarketRates(options: MarketRatesOptions = {}): RatesAdapter {
  const {
    sources = MARKET_SOURCES,
    urls = {},
    maxAgeSeconds = 60,
    maxSpreadPercent = DEFAULT_MAX_SPREAD_PERCENT,
    cacheSeconds = DEFAULT_CACHE_SECONDS,
    fetchTimeoutSeconds = 3,
    now = () => new Date(),
    fetch: fetchImpl = globalThis.fetch,
    pairs = MARKET_PAIRS,
  } = options;
  if (cacheSeconds >= maxAgeSeconds) throw new RangeError(`cacheSeconds (${cacheSeconds}) must be below maxAgeSeconds (${maxAgeSeconds})`);
  const rule: ConsensusRule = { maxAgeSeconds, maxSpreadPercent, minSources: MIN_PRICE_SOURCES };
  const retryAfterSeconds = Math.max(1, Math.ceil(cacheSeconds));
  const clients = new Map<MarketSource, SourceClient>(
    sources.map((source) => [
      source,
      createSourceClient(source, {
        baseUrl: urls[source] ?? DEFAULT_MARKET_URLS[source],
        fetch: fetchImpl,
        timeoutMs: fetchTimeoutSeconds * 1000,
      }),
    ]),
  );
  const cache = new Map<string, CacheEntry>();
  // The last failure logged per source and market: a failure is logged when it starts or changes, not at every ask.
  const failing = new Map<string, string>();

  // The answer of `source` for `market`: cached for cacheSeconds after it settled, shared while in flight.
  function ask(source: MarketSource, market: string): Promise<CachedAnswer> {
    const key = `${source} ${market}`;
    const cached = cache.get(key);
    if (cached && (cached.settledAtMs === undefined || now().getTime() - cached.settledAtMs < cacheSeconds * 1000)) return cached.answer;
    const client = clients.get(source)!;
    const entry: CacheEntry = {
      answer: client(market).then(
        (quote): CachedAnswer => {
          failing.delete(key);
          return { ok: true, quote };
        },
        (err: unknown): CachedAnswer => {
          const reason = err instanceof MarketSourceError ? err.publicReason : 'failed';
          const detail = redactUrls(messageOf(err));
          if (failing.get(key) !== detail)
            options.logger?.warn({ source, market, reason, detail }, `market source ${source} failed for ${market}`);
          failing.set(key, detail);
          return { ok: false, reason, detail };
        },
      ),
    };
    entry.answer.then(() => (entry.settledAtMs = now().getTime()));
    cache.set(key, entry);
    return entry.answer;
  }

  // The USD quotes of `symbol` by source, each a price or why there is none.
  async function usdQuotes(symbol: string, markets: [MarketSource, string][]): Promise<Map<MarketSource, CachedAnswer>> {
    const needsUsdt = markets.some(([source]) => source === 'binance');
    const [answers, usdt] = await Promise.all([
      Promise.all(markets.map(async ([source, market]) => [source, await ask(source, market)] as const)),
      needsUsdt ? usdtInUsd() : undefined,
    ]);
    return new Map(
      answers.map(([source, answer]): [MarketSource, CachedAnswer] => {
        if (!answer.ok || answer.quote.currency === 'USD') return [source, answer];
        if (!usdt?.ok)
          return [source, { ok: false, reason: `quotes ${symbol} in USDT, and USDT/USD has no price to convert it (${usdt?.reason})` }];
        const at = answer.quote.at < usdt.at ? answer.quote.at : usdt.at;
        return [source, { ok: true, quote: { price: answer.quote.price.times(usdt.price), currency: 'USD', at } }];
      }),
    );
  }

  // USDT's price in USD from the sources that quote it in USD; one fresh source is enough to convert.
  async function usdtInUsd(): Promise<{ ok: true; price: Amount; at: Date } | { ok: false; reason: string }> {
    const markets = marketsOf('USDT').filter(([source]) => source !== 'binance');
    const answers = await Promise.all(markets.map(async ([source, market]) => [source, await ask(source, market)] as const));
    const observations = answers.flatMap(([source, a]) => (a.ok ? [{ source, price: a.quote.price, at: a.quote.at }] : []));
    const result = consensusPrice(observations, now(), { ...rule, minSources: 1 });
    if (!result.ok) {
      const failures = answers.flatMap(([source, a]) => (a.ok ? [] : [`${source} ${a.reason}`]));
      return { ok: false, reason: [...failures, ...result.rejected.map((r) => `${r.source}: ${r.detail}`), result.reason].join('; ') };
    }
    const used = observations.filter((o) => result.sources.includes(o.source));
    return { ok: true, price: result.price, at: new Date(Math.min(...used.map((o) => o.at.getTime()))) };
  }

  function marketsOf(symbol: string): [MarketSource, string][] {
    const listed = pairs[symbol] ?? {};
    return sources.flatMap((source): [MarketSource, string][] => (listed[source] ? [[source, listed[source]]] : []));
  }

  return {
    async priceUsd(symbol, network) {
      const peg = options.pegged?.[symbol];
      if (peg !== undefined) return new Money(peg);
      const markets = marketsOf(symbol);
      if (markets.length < MIN_PRICE_SOURCES) {
        // Not a passing outage: no Retry-After, waiting does not help.
        throw new AppError(
          503,
          'service_unavailable',
          `No market price for ${symbol} on ${network}: ${markets.length === 0 ? 'none' : `only ${markets.map(([s]) => s).join(', ')}`} of the configured sources (${sources.join(', ')}) lists it, and a price needs ${MIN_PRICE_SOURCES}.`,
        );
      }
      const answers = await usdQuotes(symbol, markets);
      const observations: PriceObservation[] = [];
      const problems: string[] = [];
      for (const [source, answer] of answers) {
        if (answer.ok) observations.push({ source, price: answer.quote.price, at: answer.quote.at });
        else problems.push(`${source} ${answer.reason}`);
      }
      const result = consensusPrice(observations, now(), rule);
      if (result.ok) return result.price;
      problems.push(...result.rejected.map((r) => `${r.source}: ${r.detail}`));
      throw new AppError(
        503,
        'service_unavailable',
        `No market price for ${symbol} right now: ${result.reason} (${problems.join('; ')}). Retry after ${retryAfterSeconds} s.`,
        undefined,
        { headers: { 'Retry-After': String(retryAfterSeconds) } },
      );
    },
  };
}
