/** What the parts of one EVM network's adapters share: the node client, its chain id, and its assets. */
import { erc20Abi, getAddress, type Hex, type PublicClient } from 'viem';
import type { TokenConfig } from './tokens.js';

/** Decimals of every EVM network's native asset. */
export const NATIVE_DECIMALS = 18;

/** An asset as the adapters move it: the native asset (no contract) or an ERC-20 token. */
export interface EvmAsset {
  symbol: string;
  /** The token contract (checksummed); null for the native asset. */
  contract: string | null;
  decimals: number;
}

/** The assets of one network: the native one by symbol, tokens by symbol and by contract. */
export interface AssetBook {
  nativeSymbol: string;
  /** The asset named `symbol`; throws for one the network was not configured with. */
  of(symbol: string): Promise<EvmAsset>;
  /** The token at `contract` (any case), or undefined. */
  byContract(contract: string): Promise<EvmAsset | undefined>;
  /** The configured token contracts (checksummed). */
  contracts: string[];
}

/** The assets over `tokens`; decimals not configured are read from each contract once, when first needed. */
export function createAssetBook(client: PublicClient, nativeSymbol: string, tokens: Record<string, TokenConfig>): AssetBook {
  const resolved = new Map<string, Promise<EvmAsset>>();
  const symbolOfContract = new Map(Object.entries(tokens).map(([symbol, token]) => [getAddress(token.address).toLowerCase(), symbol]));
  const of = (symbol: string): Promise<EvmAsset> => {
    if (symbol === nativeSymbol) return Promise.resolve({ symbol, contract: null, decimals: NATIVE_DECIMALS });
    const token = tokens[symbol];
    if (!token) return Promise.reject(new Error(`no contract is configured for token ${symbol}`));
    let asset = resolved.get(symbol);
    if (!asset) {
      const contract = getAddress(token.address);
      asset = (async () => {
        const decimals =
          token.decimals ?? Number(await client.readContract({ address: contract as Hex, abi: erc20Abi, functionName: 'decimals' }));
        return { symbol, contract, decimals };
      })();
      // A failed read is tried again next time.
      asset.catch(() => resolved.delete(symbol));
      resolved.set(symbol, asset);
    }
    return asset;
  };
  return {
    nativeSymbol,
    of,
    async byContract(contract) {
      const symbol = symbolOfContract.get(contract.toLowerCase());
      return symbol === undefined ? undefined : of(symbol);
    },
    contracts: Object.values(tokens).map((token) => getAddress(token.address)),
  };
}
