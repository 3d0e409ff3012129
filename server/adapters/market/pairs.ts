/**
 * Which market each provider quotes for each catalogue symbol: a network's coin in its entry of the table of
 * networks (server/networks/, `markets`), a token here. Prices are per symbol, not per network (USDT on
 * Ethereum and on Tron is one asset to the markets). A symbol missing here, or listed by fewer than two
 * configured sources, has no production price.
 *
 * - kraken: the pair's Kraken name, used both in `?pair=` and as the key of the answer's `result`.
 * - binance: the spot symbol, always quoted in USDT (Binance has no USD markets; see rates.ts for the conversion).
 * - coinbase: the Coinbase Exchange product id, quoted in USD.
 * - bitfinex: the trading pair's symbol (`t` + base + quote), quoted in USD; listed only where it brings a
 *   second source (XMR: Binance and Coinbase list none).
 */
import { NETWORKS } from '../../networks/index.js';

/** The market-data providers this module speaks to. */
export const MARKET_SOURCES = ['kraken', 'binance', 'coinbase', 'bitfinex'] as const;

/** One of MARKET_SOURCES. */
export type MarketSource = (typeof MARKET_SOURCES)[number];

/** Each provider's market for one symbol; an absent provider does not list it. */
export type MarketPairs = Partial<Record<MarketSource, string>>;

/**
 * The markets of tokens: assets that are no network's coin, priced per symbol whatever network carries them.
 * Binance cannot price USDT itself: its USDT quotes are what the USDT price converts.
 */
const TOKEN_MARKETS: Readonly<Record<string, MarketPairs>> = {
  USDT: { kraken: 'USDTZUSD', coinbase: 'USDT-USD' },
  USDC: { kraken: 'USDCUSD', binance: 'USDCUSDT', coinbase: 'USDC-USD' },
};

/**
 * The markets of each catalogue symbol: each network's coin from the table of networks (server/networks/),
 * and the tokens. ZANO and fUSD are on none of the providers.
 */
export const MARKET_PAIRS: Readonly<Record<string, MarketPairs>> = Object.freeze({
  ...Object.fromEntries(
    Object.values(NETWORKS)
      .filter((facts) => Object.keys(facts.markets).length > 0)
      .map((facts) => [facts.nativeCoin, facts.markets]),
  ),
  ...TOKEN_MARKETS,
});
