/**
 * Which market each provider quotes for each catalogue symbol: the one table to edit when a provider lists
 * or delists an asset. Prices are per symbol, not per network (USDT on Ethereum and on Tron is one asset to
 * the markets). A symbol missing here, or listed by fewer than two configured sources, has no production price.
 *
 * - kraken: the pair's Kraken name, used both in `?pair=` and as the key of the answer's `result`.
 * - binance: the spot symbol, always quoted in USDT (Binance has no USD markets; see rates.ts for the conversion).
 * - coinbase: the Coinbase Exchange product id, quoted in USD.
 * - bitfinex: the trading pair's symbol (`t` + base + quote), quoted in USD; listed only where it brings a
 *   second source (XMR: Binance and Coinbase list none).
 */

/** The market-data providers this module speaks to. */
export const MARKET_SOURCES = ['kraken', 'binance', 'coinbase', 'bitfinex'] as const;

/** One of MARKET_SOURCES. */
export type MarketSource = (typeof MARKET_SOURCES)[number];

/** Each provider's market for one symbol; an absent provider does not list it. */
export type MarketPairs = Partial<Record<MarketSource, string>>;

/** The markets of each catalogue symbol. ZANO and fUSD are on none of the providers. */
export const MARKET_PAIRS: Readonly<Record<string, MarketPairs>> = {
  BTC: { kraken: 'XXBTZUSD', binance: 'BTCUSDT', coinbase: 'BTC-USD' },
  ETH: { kraken: 'XETHZUSD', binance: 'ETHUSDT', coinbase: 'ETH-USD' },
  LTC: { kraken: 'XLTCZUSD', binance: 'LTCUSDT', coinbase: 'LTC-USD' },
  XRP: { kraken: 'XXRPZUSD', binance: 'XRPUSDT', coinbase: 'XRP-USD' },
  DOGE: { kraken: 'XDGUSD', binance: 'DOGEUSDT', coinbase: 'DOGE-USD' },
  SOL: { kraken: 'SOLUSD', binance: 'SOLUSDT', coinbase: 'SOL-USD' },
  TRX: { kraken: 'TRXUSD', binance: 'TRXUSDT' },
  TON: { kraken: 'TONUSD', binance: 'TONUSDT' },
  BNB: { kraken: 'BNBUSD', binance: 'BNBUSDT' },
  // Binance cannot price USDT itself: its USDT quotes are what the USDT price converts.
  USDT: { kraken: 'USDTZUSD', coinbase: 'USDT-USD' },
  USDC: { kraken: 'USDCUSD', binance: 'USDCUSDT', coinbase: 'USDC-USD' },
  XMR: { kraken: 'XXMRZUSD', bitfinex: 'tXMRUSD' },
};
