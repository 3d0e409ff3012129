/** ERC-20 tokens an EVM network serves, from `<NET>_TOKENS` (`USDT:0x...,USDC:0x...`). */
import { getAddress, isAddress } from 'viem';

/** A token contract; its decimals are read from the contract when not given. */
export interface TokenConfig {
  address: string;
  decimals?: number;
}

/** Parses `SYMBOL:contract,...` into checksummed contracts by symbol; throws a readable error for a bad entry. */
export function parseTokens(value: string): Record<string, TokenConfig> {
  const tokens: Record<string, TokenConfig> = {};
  for (const entry of value.split(',').map((part) => part.trim())) {
    if (entry === '') continue;
    const [symbol, address, ...rest] = entry.split(':').map((part) => part.trim());
    if (!symbol || !address || rest.length > 0 || !isAddress(address, { strict: false })) {
      throw new Error(`token entry "${entry}" is not SYMBOL:0x<40 hex digits>`);
    }
    if (tokens[symbol]) throw new Error(`token ${symbol} is listed twice`);
    tokens[symbol] = { address: getAddress(address) };
  }
  return tokens;
}
