/**
 * One client per market-data provider: asks one market's last trade over the provider's public REST API
 * and reads the provider's documented answer, nothing more. Every answer carries the provider's own time of
 * that trade, so a provider serving an old price is refused as stale (RATES_MAX_AGE_SECONDS, consensus.ts)
 * however new its answer is; none is stamped with the local clock. Every failure (unreachable, timeout, HTTP
 * error, provider error, unexpected body, a price that is not a positive decimal, a missing or invalid time, an
 * answer larger than adapters/boundary.ts's MAX_ANSWER_BYTES) becomes a MarketSourceError: its message says what
 * went wrong, for logs; its `publicReason`, in our words, is all a client is told (the provider's own text never is).
 *
 * - Kraken `GET /0/public/Trades?pair=XXBTZUSD&count=1`: `{ error: [], result: { XXBTZUSD: [[price, volume,
 *   time, buy/sell, market/limit, misc, trade_id]], last } }`, oldest first; the last entry is the last trade,
 *   its `time` in unix seconds (a float) and `price` a decimal string; `last` is a polling cursor, not a time.
 *   (Its `Ticker`, used before, carries no time at all.)
 * - Binance `GET /api/v3/aggTrades?symbol=BTCUSDT&limit=1`: `[{ a, p, q, f, l, T, m, M }]`, the most recent
 *   aggregate trade: `p` its price in USDT, `T` its time in unix milliseconds. (`/api/v3/ticker/price` has no
 *   time; the `closeTime` of `/api/v3/ticker` and `/api/v3/ticker/24hr` is the end of their statistics window,
 *   documented as the time of the request, so it says nothing of how old `lastPrice` is.)
 * - Coinbase Exchange `GET /products/BTC-USD/ticker`: `{ trade_id, price, size, time, bid, ask, volume }`;
 *   `time` (ISO 8601) is the last trade's.
 *
 * - Bitfinex `GET /v2/trades/tXMRUSD/hist?limit=1`: `[[ID, MTS, AMOUNT, PRICE]]`, the most recent trade first:
 *   `MTS` its time in unix milliseconds, `PRICE` a JSON number (read from the text as written, never through a
 *   float). (Its `/v2/ticker/tXMRUSD` carries no time.)
 *
 * So on every provider a quiet market's price ages even when the answer is new.
 */
import { isLosslessNumber, parse as parseLossless } from 'lossless-json';
import { toAmount, type Amount } from '../../domain/money.js';
import { AnswerTooLargeError, MAX_ANSWER_BYTES, readBoundedText } from '../boundary.js';
import type { MarketSource } from './pairs.js';

/** A provider's last price of one market. */
export interface SourceQuote {
  price: Amount;
  /** The currency `price` is in: USD, or USDT for Binance. */
  currency: 'USD' | 'USDT';
  /** When the price was true: the time of the provider's last trade, as the provider gives it. */
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
}

/** Asks one market's price; throws MarketSourceError. */
export type SourceClient = (market: string) => Promise<SourceQuote>;

/** What a 503 may say of a provider, after its name (`kraken is unreachable`). */
export const MALFORMED_ANSWER = 'gave a malformed answer';

/** A provider could not give a price: the message says why, for logs; `publicReason` says it for the 503 that may follow. */
export class MarketSourceError extends Error {
  constructor(
    message: string,
    readonly publicReason: string = MALFORMED_ANSWER,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'MarketSourceError';
  }
}

/** Each provider's public API. */
export const DEFAULT_MARKET_URLS: Readonly<Record<MarketSource, string>> = {
  kraken: 'https://api.kraken.com',
  binance: 'https://api.binance.com',
  coinbase: 'https://api.exchange.coinbase.com',
  bitfinex: 'https://api-pub.bitfinex.com',
};

const USER_AGENT = 'partner-swap-service (market rates)';

/** The client of `source`. */
export function createSourceClient(source: MarketSource, options: SourceClientOptions): SourceClient {
  switch (source) {
    case 'kraken':
      return async (pair) => {
        const body = await getJson(options, `/0/public/Trades?pair=${encodeURIComponent(pair)}&count=1`);
        const errors = (body as { error?: unknown }).error;
        if (Array.isArray(errors) && errors.length > 0) throw new MarketSourceError(`answered ${errors.join('; ')}`, 'answered an error');
        const trades = (body as { result?: Record<string, unknown> }).result?.[pair];
        if (!Array.isArray(trades)) throw new MarketSourceError(`answered without result.${pair}, the list of its trades`);
        if (trades.length === 0) throw new MarketSourceError(`answered no trade of ${pair}`, `answered no trade of ${pair}`);
        const field = `result.${pair}[${trades.length - 1}]`;
        const last: unknown = trades[trades.length - 1];
        if (!Array.isArray(last)) throw new MarketSourceError(`answered ${field} = ${shown(last)}, not a trade`);
        return { price: parsePrice(last[0], `${field}[0]`), currency: 'USD', at: parseUnixTime(last[2], `${field}[2]`, 1000) };
      };
    case 'binance':
      return async (symbol) => {
        const body = await getJson(options, `/api/v3/aggTrades?symbol=${encodeURIComponent(symbol)}&limit=1`);
        if (!Array.isArray(body)) throw new MarketSourceError(`answered ${shown(body)}, not a list of trades`);
        if (body.length === 0) throw new MarketSourceError(`answered no trade of ${symbol}`, `answered no trade of ${symbol}`);
        const field = `[${body.length - 1}]`;
        const last = body[body.length - 1] as { p?: unknown; T?: unknown } | null;
        if (typeof last !== 'object' || last === null) throw new MarketSourceError(`answered ${field} = ${shown(last)}, not a trade`);
        return { price: parsePrice(last.p, `${field}.p`), currency: 'USDT', at: parseUnixTime(last.T, `${field}.T`, 1) };
      };
    case 'coinbase':
      return async (product) => {
        const body = (await getJson(options, `/products/${encodeURIComponent(product)}/ticker`)) as { price?: unknown; time?: unknown };
        return { price: parsePrice(body.price, 'price'), currency: 'USD', at: parseIsoTime(body.time, 'time') };
      };
    case 'bitfinex':
      return async (symbol) => {
        const body = await getJson(options, `/v2/trades/${encodeURIComponent(symbol)}/hist?limit=1`, true);
        // An error is ["error", code, message].
        if (Array.isArray(body) && body[0] === 'error') throw new MarketSourceError(`answered ${shown(body)}`, 'answered an error');
        if (!Array.isArray(body)) throw new MarketSourceError(`answered ${shown(body)}, not a list of trades`);
        if (body.length === 0) throw new MarketSourceError(`answered no trade of ${symbol}`, `answered no trade of ${symbol}`);
        const last: unknown = body[0];
        if (!Array.isArray(last) || last.length < 4) throw new MarketSourceError(`answered [0] = ${shown(last)}, not a trade`);
        const [, time, , price] = last as unknown[];
        // The documented price is a JSON number: a string there is not the documented answer.
        if (!isLosslessNumber(price)) throw new MarketSourceError(`answered [0][3] = ${shown(price)}, not a number`);
        return { price: parsePrice(price.value, '[0][3]'), currency: 'USD', at: parseUnixTime(numberOf(time), '[0][1]', 1) };
      };
  }
}

// A Bitfinex number read losslessly (lossless-json) as a number (a time: an integer well inside a double's range).
const numberOf = (value: unknown): unknown => (isLosslessNumber(value) ? Number(value.value) : value);

// `lossless`: numbers stay as written (LosslessNumber), for a provider that writes prices as JSON numbers.
async function getJson(options: SourceClientOptions, path: string, lossless = false): Promise<unknown> {
  const url = `${options.baseUrl.replace(/\/+$/, '')}${path}`;
  let response: Response;
  let text: string;
  try {
    response = await options.fetch(url, {
      headers: { accept: 'application/json', 'user-agent': USER_AGENT },
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    text = await readBoundedText(response, MAX_ANSWER_BYTES);
  } catch (err) {
    if (err instanceof AnswerTooLargeError) {
      throw new MarketSourceError(`answered more than ${MAX_ANSWER_BYTES} bytes`, 'gave an answer too large', { cause: err });
    }
    const timedOut = (err as { name?: string }).name === 'TimeoutError';
    const reason = timedOut ? `did not answer within ${options.timeoutMs} ms` : 'is unreachable';
    throw new MarketSourceError(timedOut ? reason : `${reason} (${describeNetworkError(err)})`, reason, { cause: err });
  }
  if (!response.ok) throw new MarketSourceError(`answered HTTP ${response.status}${excerpt(text)}`, `answered HTTP ${response.status}`);
  try {
    return lossless ? parseLossless(text) : (JSON.parse(text) as unknown);
  } catch (err) {
    throw new MarketSourceError(`answered a body that is not JSON${excerpt(text)}`, MALFORMED_ANSWER, { cause: err });
  }
}

function parsePrice(value: unknown, field: string): Amount {
  if (typeof value === 'string' && /^(?:0|[1-9]\d*)(?:\.\d+)?$/.test(value)) {
    const price = toAmount(value);
    if (price.greaterThan(0)) return price;
  }
  throw new MarketSourceError(`answered ${field} = ${shown(value)}, not a positive decimal price`);
}

// A time the provider gives as a number of units since 1970 (Kraken: seconds, with a fraction; Binance: whole
// milliseconds), `msPerUnit` milliseconds each.
function parseUnixTime(value: unknown, field: string, msPerUnit: number): Date {
  const valid = typeof value === 'number' && value > 0 && (msPerUnit === 1 ? Number.isSafeInteger(value) : Number.isFinite(value));
  const at = valid ? new Date(Math.round(value * msPerUnit)) : undefined;
  if (!at || Number.isNaN(at.getTime()))
    throw new MarketSourceError(
      `answered ${field} = ${shown(value)}, not a valid time (${msPerUnit === 1 ? 'unix milliseconds' : 'unix seconds'})`,
    );
  return at;
}

// An ISO 8601 time with its zone (Coinbase: 2026-03-01T12:00:00.123456Z).
function parseIsoTime(value: unknown, field: string): Date {
  const at =
    typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/.test(value)
      ? new Date(value)
      : undefined;
  if (!at || Number.isNaN(at.getTime())) throw new MarketSourceError(`answered ${field} = ${shown(value)}, not a valid ISO 8601 time`);
  return at;
}

function describeNetworkError(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message ?? String(err);
}

// A value of the answer as a message may show it: JSON, cut short (an answer may be megabytes).
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 100 ? `${text.slice(0, 100)}...` : text;
}

function excerpt(text: string): string {
  const trimmed = text.trim().slice(0, 200);
  return trimmed ? `: ${trimmed}` : '';
}
