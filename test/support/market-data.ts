/**
 * Local stand-ins for the market-data providers the production rates adapter asks (Kraken, Binance,
 * Coinbase Exchange, Bitfinex): node:http servers on 127.0.0.1 answering in each provider's documented format, with
 * the last trade's price and time a test sets, a switch to fail with HTTP 500 or never answer, and a count of
 * requests per path. Each serves the endpoint server/adapters/market/sources.ts asks: Kraken's recent trades,
 * Binance's aggregate trades, Coinbase's product ticker, Bitfinex's trade history.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MarketSource } from '../../server/adapters/market/pairs.js';

/** One market's state on a fake provider: its last trade's price and time. */
export interface FakeMarket {
  price: string;
  /**
   * When the last trade was, served in the provider's format (Kraken: unix seconds with a fraction; Binance: unix
   * milliseconds; Coinbase: ISO 8601); the moment of each answer when absent, so a market left alone stays fresh.
   */
  time?: Date;
}

/** A fake provider listening on a free port. */
export interface FakeProvider {
  source: MarketSource;
  url: string;
  /** Markets by the provider's own name (XXBTZUSD, BTCUSDT, BTC-USD); an absent one is unknown to it. */
  markets: Map<string, FakeMarket>;
  /** 'ok' answers from `markets`; 500 answers an HTTP 500; 'hang' never answers; 'huge' answers 10 MB of JSON. */
  mode: 'ok' | 500 | 'hang' | 'huge';
  /** Requests received per path and query (e.g. `/api/v3/aggTrades?symbol=BTCUSDT&limit=1`). */
  requests: Map<string, number>;
  requestCount(): number;
  close(): Promise<void>;
}

/** Starts a fake `source` provider. */
export async function startFakeProvider(source: MarketSource): Promise<FakeProvider> {
  const provider: FakeProvider = {
    source,
    url: '',
    markets: new Map(),
    mode: 'ok',
    requests: new Map(),
    requestCount: () => [...provider.requests.values()].reduce((a, b) => a + b, 0),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    const path = req.url ?? '';
    provider.requests.set(path, (provider.requests.get(path) ?? 0) + 1);
    if (provider.mode === 'hang') return;
    if (provider.mode === 'huge') return send(res, 200, { padding: 'x'.repeat(10 * 1024 * 1024) });
    if (provider.mode === 500)
      return send(res, 500, source === 'coinbase' ? { message: 'Internal server error' } : 'Internal Server Error');
    const [status, body] = answer(source, new URL(path, 'http://127.0.0.1'), provider.markets);
    send(res, status, body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  provider.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return provider;
}

/** A base URL nothing listens on: connections to it are refused. */
export async function refusedUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

// The documented answers: https://docs.kraken.com/api/docs/rest-api/get-recent-trades,
// https://developers.binance.com/docs/binance-spot-api-docs/rest-api/market-data-endpoints (Compressed/Aggregate trades list),
// https://docs.cdp.coinbase.com/api-reference/exchange-api/rest-api/products/get-product-ticker.
function answer(source: MarketSource, url: URL, markets: Map<string, FakeMarket>): [number, unknown] {
  switch (source) {
    case 'kraken': {
      const pair = url.searchParams.get('pair') ?? '';
      const market = url.pathname === '/0/public/Trades' ? markets.get(pair) : undefined;
      if (!market) return [200, { error: ['EQuery:Unknown asset pair'] }];
      const time = market.time ?? new Date();
      return [
        200,
        {
          error: [],
          result: {
            // Oldest first: the last entry is the last trade; [price, volume, time, buy/sell, market/limit, misc, trade_id].
            [pair]: [[market.price, '0.00100000', time.getTime() / 1000, 'b', 'm', '', 61044956]],
            last: `${time.getTime()}000000`,
          },
        },
      ];
    }
    case 'binance': {
      const symbol = url.searchParams.get('symbol') ?? '';
      const market = url.pathname === '/api/v3/aggTrades' ? markets.get(symbol) : undefined;
      if (!market) return [400, { code: -1121, msg: 'Invalid symbol.' }];
      const time = market.time ?? new Date();
      return [200, [{ a: 26129, p: market.price, q: '4.70443515', f: 27781, l: 27781, T: time.getTime(), m: true, M: true }]];
    }
    case 'coinbase': {
      const match = /^\/products\/([^/]+)\/ticker$/.exec(url.pathname);
      const market = match ? markets.get(decodeURIComponent(match[1])) : undefined;
      if (!market) return [404, { message: 'NotFound' }];
      return [
        200,
        {
          ask: market.price,
          bid: market.price,
          volume: '12345.67',
          trade_id: 86326522,
          price: market.price,
          size: '0.00698254',
          time: (market.time ?? new Date()).toISOString(),
        },
      ];
    }
    case 'bitfinex': {
      // https://docs.bitfinex.com/reference/rest-public-trades: [[ID, MTS, AMOUNT, PRICE]], newest first; the price
      // is a JSON number, written here as the test gave it.
      const match = /^\/v2\/trades\/([^/]+)\/hist$/.exec(url.pathname);
      const market = match ? markets.get(decodeURIComponent(match[1])) : undefined;
      if (!market) return [500, ['error', 10020, 'symbol: invalid']];
      return [200, `[[1596543255,${(market.time ?? new Date()).getTime()},0.5,${market.price}]]`];
    }
  }
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  // A string that is JSON already (Bitfinex's numbers, written as given) goes out as JSON.
  const json = typeof body !== 'string' || /^[[{]/.test(body);
  res.writeHead(status, { 'content-type': json ? 'application/json' : 'text/plain' });
  res.end(text);
}
