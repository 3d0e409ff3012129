/**
 * One client per market-data provider: asks one market's last price over the provider's public REST API
 * and reads the provider's documented answer, nothing more. Every failure (unreachable, timeout, HTTP
 * error, provider error, unexpected body) becomes a MarketSourceError whose message says what went wrong.
 *
 * - Kraken `GET /0/public/Ticker?pair=XXBTZUSD`: `{ error: [], result: { XXBTZUSD: { c: [price, lot volume], ... } } }`;
 *   `c[0]` is the last trade price. No timestamp: the price is as old as the answer.
 * - Binance `GET /api/v3/ticker/price?symbol=BTCUSDT`: `{ symbol, price }`, in USDT. No timestamp either.
 * - Coinbase Exchange `GET /products/BTC-USD/ticker`: `{ trade_id, price, size, time, bid, ask, volume }`;
 *   `time` is the last trade's, so a quiet market's price ages even when the answer is new.
 */
import { toAmount, type Amount } from '../../domain/money.js';
import type { MarketSource } from './pairs.js';

/** A provider's last price of one market. */
export interface SourceQuote {
  price: Amount;
  /** The currency `price` is in: USD, or USDT for Binance. */
  currency: 'USD' | 'USDT';
  /** When the price was true: the provider's trade time, or when its answer arrived. */
  at: Date;
}

/** How a client reaches its provider. */
export interface SourceClientOptions {
  /** Base URL of the provider's API, without a trailing path (e.g. https://api.kraken.com). */
  baseUrl: string;
  /** Injectable fetch (tests, proxies); the global fetch by default. */
  fetch: typeof fetch;
  /** Time limit of one request, connect to last byte. */
  timeoutMs: number;
  /** The clock that stamps answers without a timestamp of their own. */
  now: () => Date;
}

/** Asks one market's price; throws MarketSourceError. */
export type SourceClient = (market: string) => Promise<SourceQuote>;

/** A provider could not give a price; the message says why, for the 503 that may follow. */
export class MarketSourceError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MarketSourceError';
  }
}

/** Each provider's public API. */
export const DEFAULT_MARKET_URLS: Readonly<Record<MarketSource, string>> = {
  kraken: 'https://api.kraken.com',
  binance: 'https://api.binance.com',
  coinbase: 'https://api.exchange.coinbase.com',
};

const USER_AGENT = 'partner-swap-service (market rates)';

/** The client of `source`. */
export function createSourceClient(source: MarketSource, options: SourceClientOptions): SourceClient {
  switch (source) {
    case 'kraken':
      return async (pair) => {
        const body = await getJson(options, `/0/public/Ticker?pair=${encodeURIComponent(pair)}`);
        const errors = (body as { error?: unknown }).error;
        if (Array.isArray(errors) && errors.length > 0) throw new MarketSourceError(`answered ${errors.join('; ')}`);
        const ticker = (body as { result?: Record<string, { c?: unknown }> }).result?.[pair];
        const last = Array.isArray(ticker?.c) ? ticker.c[0] : undefined;
        return { price: parsePrice(last, `result.${pair}.c[0]`), currency: 'USD', at: options.now() };
      };
    case 'binance':
      return async (symbol) => {
        const body = (await getJson(options, `/api/v3/ticker/price?symbol=${encodeURIComponent(symbol)}`)) as {
          symbol?: unknown;
          price?: unknown;
        };
        if (body.symbol !== symbol) throw new MarketSourceError(`answered for symbol ${JSON.stringify(body.symbol)}, not ${symbol}`);
        return { price: parsePrice(body.price, 'price'), currency: 'USDT', at: options.now() };
      };
    case 'coinbase':
      return async (product) => {
        const body = (await getJson(options, `/products/${encodeURIComponent(product)}/ticker`)) as { price?: unknown; time?: unknown };
        const at = typeof body.time === 'string' ? new Date(body.time) : undefined;
        if (!at || Number.isNaN(at.getTime())) throw new MarketSourceError(`answered without a valid time: ${JSON.stringify(body.time)}`);
        return { price: parsePrice(body.price, 'price'), currency: 'USD', at };
      };
  }
}

async function getJson(options: SourceClientOptions, path: string): Promise<unknown> {
  const url = `${options.baseUrl.replace(/\/+$/, '')}${path}`;
  let response: Response;
  let text: string;
  try {
    response = await options.fetch(url, {
      headers: { accept: 'application/json', 'user-agent': USER_AGENT },
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    text = await response.text();
  } catch (err) {
    const timedOut = (err as { name?: string }).name === 'TimeoutError';
    throw new MarketSourceError(
      timedOut ? `did not answer within ${options.timeoutMs} ms` : `is unreachable (${describeNetworkError(err)})`,
      {
        cause: err,
      },
    );
  }
  if (!response.ok) throw new MarketSourceError(`answered HTTP ${response.status}${excerpt(text)}`);
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new MarketSourceError(`answered a body that is not JSON${excerpt(text)}`, { cause: err });
  }
}

function parsePrice(value: unknown, field: string): Amount {
  if (typeof value === 'string' && /^(?:0|[1-9]\d*)(?:\.\d+)?$/.test(value)) {
    const price = toAmount(value);
    if (price.greaterThan(0)) return price;
  }
  throw new MarketSourceError(`answered ${field} = ${JSON.stringify(value)}, not a positive decimal price`);
}

function describeNetworkError(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message ?? String(err);
}

function excerpt(text: string): string {
  const trimmed = text.trim().slice(0, 200);
  return trimmed ? `: ${trimmed}` : '';
}
