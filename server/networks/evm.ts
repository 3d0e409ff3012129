/**
 * The EVM family (ETH, BSC): 0x + 40 hex digits, mixed case carrying the EIP-55 checksum; each network's chain
 * id; its ERC-20 tokens (`<NET>_TOKENS`); and the production variables of an EVM JSON-RPC network
 * (adapters/ethereum/).
 */
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { hex } from '@scure/base';
import { keccak256 } from '../domain/keccak.js';
import type { AddressFormat, ChainParams, NetworkFacts, ProductionFamily } from './network.js';
import {
  COLD_ADDRESS,
  CONFIRMATIONS,
  decimalVariable,
  MAX_TIP_AGE_SECONDS,
  noBatching,
  replaceAfterVariable,
  SCAN_SECONDS,
  urlVariable,
} from './variables.js';

/** An EVM chain: the id its node reports (eth_chainId) and payouts are signed for. */
export interface EvmChainParams extends ChainParams {
  chainId: number;
}

function evmFormat(label: string): AddressFormat {
  return {
    label,
    format: 'EVM',
    check: checkEvm,
    sandboxAddress: (seed) => `0x${eip55(hex.encode(seed.subarray(0, 20)))}`,
    sandboxTxHash: (seed) => `0x${hex.encode(seed)}`,
  };
}

function checkEvm(address: string): string | undefined {
  if (/^[0-9a-fA-F]{40}$/.test(address)) return 'it lacks the 0x prefix';
  if (!address.startsWith('0x')) return 'it must start with 0x';
  const digits = address.slice(2);
  if (!/^[0-9a-fA-F]*$/.test(digits)) return 'after 0x it may contain only hex digits (0-9, a-f)';
  if (digits.length !== 40) return `it has ${digits.length} hex digits after 0x; an address has 40`;
  // One case throughout carries no checksum (EIP-55 keeps those valid); mixed case must match it.
  if (digits === digits.toLowerCase() || digits === digits.toUpperCase()) return undefined;
  return digits === eip55(digits.toLowerCase())
    ? undefined
    : 'its mixed-case checksum (EIP-55) does not match, so a character is probably mistyped';
}

function eip55(lowerHex: string): string {
  const hash = hex.encode(keccak256(utf8ToBytes(lowerHex)));
  return [...lowerHex].map((ch, i) => (parseInt(hash[i], 16) >= 8 ? ch.toUpperCase() : ch)).join('');
}

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
    if (!symbol || !address || rest.length > 0 || !/^0x[0-9a-fA-F]{40}$/.test(address)) {
      throw new Error(`token entry "${entry}" is not SYMBOL:0x<40 hex digits>`);
    }
    if (tokens[symbol]) throw new Error(`token ${symbol} is listed twice`);
    tokens[symbol] = { address: `0x${eip55(address.slice(2).toLowerCase())}` };
  }
  return tokens;
}

/** The chain id of `network` when `<NET>_CHAIN_ID` is unset: its main network's. */
export function defaultChainId(network: string): number | undefined {
  const chain = EVM_NETWORKS[network]?.chains.main as EvmChainParams | undefined;
  return chain?.chainId;
}

/** The variables of an EVM network. */
export const EVM_FAMILY: ProductionFamily = {
  family: 'ethereum',
  software: 'EVM JSON-RPC (anvil, geth, any node)',
  variables: [
    urlVariable('RPC_URL', "the {NET} node's JSON-RPC URL"),
    {
      suffix: 'XPUB',
      meaning: 'the {NET} account extended public key deposit addresses derive from',
      required: true,
      check: (value, name) =>
        /^[1-9A-HJ-NP-Za-km-z]+$/.test(value) ? undefined : `${name} must be an extended public key (base58: xpub...)`,
    },
    {
      suffix: 'HOT_WALLET_KEY_FILE',
      meaning: "the file holding the {NET} hot wallet's private key",
      required: true,
      // The file itself (private to this user, a key inside) is read by production-config.ts at start.
      check: (value, name) => (/[\0\n]/.test(value) ? `${name} must be a file path` : undefined),
    },
    {
      suffix: 'DEPOSIT_KEY_FILE',
      meaning: "the file holding the deposit account's extended private key, which signs sweeps (unset: no sweeping)",
      check: (value, name) => (/[\0\n]/.test(value) ? `${name} must be a file path` : undefined),
    },
    {
      suffix: 'TOKENS',
      meaning: 'the ERC-20 tokens served, SYMBOL:0xcontract,...',
      check: (value, name) => {
        try {
          parseTokens(value);
          return undefined;
        } catch (err) {
          return `${name}: ${(err as Error).message}`;
        }
      },
    },
    {
      suffix: 'CHAIN_ID',
      meaning: "the chain id the node must report (default: the network's main chain; anvil: 31337)",
      default: (network) => String(defaultChainId(network)),
      check: (value, name, context) =>
        /^[1-9]\d{0,14}$/.test(value)
          ? undefined
          : `${name}=${JSON.stringify(value)} must be the chain id the ${context.network} node reports (eth_chainId), a whole number of at least 1, e.g. ${defaultChainId(context.network)} (unset: ${defaultChainId(context.network)}; anvil: 31337)`,
    },
    CONFIRMATIONS,
    MAX_TIP_AGE_SECONDS,
    SCAN_SECONDS,
    // About fifteen Ethereum blocks (BSC: sixty).
    replaceAfterVariable(() => '180'),
    decimalVariable(
      'MAX_FEE_GWEI',
      "the most a payout's version may offer per gas, in gwei",
      '500',
      /^\d{1,6}(\.\d{1,9})?$/,
      'a fee in gwei per gas above 0, e.g. 500',
    ),
    COLD_ADDRESS,
  ],
  refused: noBatching('ethereum'),
};

const evmNetwork = (facts: Omit<NetworkFacts, 'address' | 'senderKnown' | 'production'>): NetworkFacts => ({
  ...facts,
  address: evmFormat(facts.name),
  senderKnown: true,
  production: { kind: 'family', family: EVM_FAMILY },
});

/** Ethereum. */
export const ETH = evmNetwork({
  id: 'ETH',
  code: 'ERC20',
  name: 'Ethereum',
  nativeCoin: 'ETH',
  confirmations: 12,
  blockSeconds: 12,
  chains: { main: { name: 'ETH main', chainId: 1 } as EvmChainParams },
  markets: { kraken: 'XETHZUSD', binance: 'ETHUSDT', coinbase: 'ETH-USD' },
});

/** BNB Smart Chain: its fees are paid in BNB. */
export const BSC = evmNetwork({
  id: 'BSC',
  code: 'BEP20',
  name: 'BNB Smart Chain',
  nativeCoin: 'BNB',
  confirmations: 15,
  blockSeconds: 3,
  chains: { main: { name: 'BSC main', chainId: 56 } as EvmChainParams },
  markets: { kraken: 'BNBUSD', binance: 'BNBUSDT' },
});

const EVM_NETWORKS: Readonly<Record<string, NetworkFacts>> = { ETH, BSC };
