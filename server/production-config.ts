/**
 * Production's networks and prices (docs/architecture.md#production): which networks run, how to reach their nodes, and where
 * prices come from. Each network is off unless NETWORKS names it, and a network NETWORKS names must have
 * every variable its family needs: the start is refused with one line per missing or malformed variable.
 *
 * Which networks have a family, and each family's variables with their checks, are in the table of networks
 * (server/networks/): `bitcoin` (Bitcoin Core JSON-RPC: LTC, BTC), `ethereum` (EVM JSON-RPC: ETH, BSC), `zano`
 * (the Zano wallet JSON-RPC: ZANO and the fUSD asset) and `monero` (monero-wallet-rpc: XMR). This module runs
 * those checks, reads the key files they name, and builds each network's typed configuration.
 */
import { readFileSync } from 'node:fs';
import { isAccountKeyOf } from './adapters/ethereum/addresses.js';
import { parseTokens, type TokenConfig } from './adapters/ethereum/tokens.js';
import { parseMarketRatesEnv, type MarketRatesEnvOptions } from './adapters/market/config.js';
import { validateAddress, type AddressChain } from './domain/addresses.js';
import type { Catalog, CatalogAsset } from './domain/catalog.js';
import { Money } from './domain/money.js';
import { DEFAULT_PAYOUT_BATCH_MAX } from './networks/bitcoin.js';
import { defaultChainId } from './networks/evm.js';
import {
  PRODUCTION_NETWORKS,
  productionFamilyOf,
  requireNetwork,
  SANDBOX_ONLY_NETWORKS,
  type FamilyName,
  type ProductionFamily,
} from './networks/index.js';
import { privateFileProblem } from './secrets-key.js';

/** A Bitcoin Core-family network: a watch-only wallet for deposits and funding, a signer wallet for signing. */
export interface BitcoinNetworkConfig {
  readonly family: 'bitcoin';
  readonly network: string;
  /** The chain the node runs: it decides the address format (bech32 prefix). */
  readonly chain: 'main' | 'test' | 'regtest';
  /** The watch-only wallet's RPC URL (with credentials and /wallet/<name>). */
  readonly rpcUrl: string;
  /** The signer wallet's RPC URL. */
  readonly signerRpcUrl: string;
  /** The account extended public key deposit addresses derive from (BIP84). */
  readonly xpub: string;
  /** Overrides the catalogue's deposit confirmations. */
  readonly confirmations: number | undefined;
  /** A tip older than this makes the network unhealthy (default: ten of the catalogue's block times). */
  readonly maxTipAgeSeconds: number | undefined;
  /** The fee rate (coin per kvB) used while the node has no estimate. */
  readonly fallbackFeeRate: string;
  /** How often the watcher asks the node, overriding the adapter's pace (regtest and devnets). */
  readonly scanSeconds: number | undefined;
  /** Seconds an unmined payout waits after its last broadcast before it is replaced at a higher fee. */
  readonly replaceAfterSeconds: number;
  /** The most a payout's version may pay, in coin per kvB (`<NET>_MAX_FEE_RATE`). */
  readonly maxFeeRate: string;
  /** Payouts due within this many seconds go out in one transaction (`<NET>_PAYOUT_BATCH_SECONDS`); 0: each alone. */
  readonly payoutBatchSeconds: number;
  /** The most payouts one batch pays (`<NET>_PAYOUT_BATCH_MAX`). */
  readonly payoutBatchMax: number;
  /** Where a hot wallet's surplus above HOT_WALLET_MAX goes (`<NET>_COLD_ADDRESS`); none: it stays, with an alert. */
  readonly coldAddress: string | undefined;
}

export { DEFAULT_PAYOUT_BATCH_MAX, MAX_PAYOUT_BATCH_MAX } from './networks/bitcoin.js';

/** An EVM network: a JSON-RPC node, a hot wallet whose key is read from a file, and ERC-20 tokens. */
export interface EthereumNetworkConfig {
  readonly family: 'ethereum';
  readonly network: string;
  readonly rpcUrl: string;
  /**
   * The chain id the node must report (`<NET>_CHAIN_ID`; DEFAULT_CHAIN_IDS when unset): payouts are signed for
   * it, and a node reporting another is unhealthy (`chain id mismatch`).
   */
  readonly chainId: number;
  /** The account extended public key deposit addresses derive from (BIP44). */
  readonly xpub: string;
  /** The file holding the hot wallet's private key (hex), read once at start. */
  readonly hotWalletKeyFile: string;
  /**
   * The file holding the deposit account's extended private key (the xprv behind `xpub`), which signs sweeps
   * of deposits to the hot wallet; none: sweeping is off and deposits stay on their addresses.
   */
  readonly depositKeyFile: string | undefined;
  /** Token contracts by catalogue symbol (checksummed). */
  readonly tokens: Readonly<Record<string, TokenConfig>>;
  readonly confirmations: number | undefined;
  readonly maxTipAgeSeconds: number | undefined;
  readonly scanSeconds: number | undefined;
  /** Seconds an unmined payout waits after its last broadcast before it is replaced at a higher fee. */
  readonly replaceAfterSeconds: number;
  /** The most a payout's version may offer per gas, in gwei (`<NET>_MAX_FEE_GWEI`). */
  readonly maxFeeGwei: string;
  /** A test hook (`PSS_TEST_EVM_NATIVE_GAS`): the gas limit of native payouts instead of an estimate. */
  readonly testNativeGas: bigint | undefined;
  /** As on the Bitcoin family (`<NET>_COLD_ADDRESS`). */
  readonly coldAddress: string | undefined;
}

/** Zano: a watch-only wallet (deposits, building payouts) and a signer wallet, both over the wallet JSON-RPC. */
export interface ZanoNetworkConfig {
  readonly family: 'zano';
  readonly network: string;
  /** The watch-only wallet's RPC URL (e.g. http://127.0.0.1:11212/json_rpc). */
  readonly rpcUrl: string;
  /** The signer wallet's RPC URL: it holds the spend key and only signs. */
  readonly signerRpcUrl: string;
  /** The fUSD asset id, when not the documented one. */
  readonly fusdAssetId: string | undefined;
  readonly confirmations: number | undefined;
  readonly maxTipAgeSeconds: number | undefined;
  readonly scanSeconds: number | undefined;
  /** As on the Bitcoin family (`<NET>_COLD_ADDRESS`). */
  readonly coldAddress: string | undefined;
}

/** Monero: a view-only wallet (deposits, unsigned payouts) and an offline signer wallet, both monero-wallet-rpc. */
export interface MoneroNetworkConfig {
  readonly family: 'monero';
  readonly network: string;
  /** The view-only wallet's RPC URL (`XMR_RPC_URL`, e.g. http://127.0.0.1:18088/json_rpc). */
  readonly rpcUrl: string;
  /** The signer wallet's RPC URL (`XMR_SIGNER_RPC_URL`): it holds the spend key and only signs. */
  readonly signerRpcUrl: string;
  readonly confirmations: number | undefined;
  readonly maxTipAgeSeconds: number | undefined;
  readonly scanSeconds: number | undefined;
  /** As on the Bitcoin family (`<NET>_COLD_ADDRESS`). */
  readonly coldAddress: string | undefined;
  /** `<NET>_HOLD_UNMINED_SECONDS`: a payout in no block this long after its broadcast is held (no fee bumping). */
  readonly holdUnminedSeconds: number | undefined;
}

export type NetworkConfig = BitcoinNetworkConfig | EthereumNetworkConfig | ZanoNetworkConfig | MoneroNetworkConfig;

/** Production's configuration of networks and prices. */
export interface ProductionConfig {
  readonly networks: readonly NetworkConfig[];
  /** Where prices come from (adapters/market: RATES_SOURCES, the provider URLs, RATES_MAX_*). */
  readonly rates: MarketRatesEnvOptions;
}

/**
 * Each EVM network's chain id when `<NET>_CHAIN_ID` is unset: its main network (Ethereum 1, BNB Smart Chain 56),
 * from the table of networks. A test chain (anvil: 31337) must be named.
 */
export const DEFAULT_CHAIN_IDS: Readonly<Record<string, number>> = Object.fromEntries(
  PRODUCTION_NETWORKS.flatMap((network) => {
    const chainId = defaultChainId(network);
    return chainId === undefined ? [] : [[network, chainId]];
  }),
);

type Env = Record<string, string | undefined>;

/**
 * Reads production's networks and prices from `env`; every problem is pushed onto `problems` (one line each,
 * naming the variable), and what could be read is returned. Each network's variables and their checks are its
 * family's, in the table of networks (server/networks/); what is read here beyond them is the files they name.
 */
export function readProductionConfig(env: Env, problems: string[]): ProductionConfig {
  const value = (name: string) => {
    const raw = env[name]?.trim();
    return raw === undefined || raw === '' ? undefined : raw;
  };

  const listed = (value('NETWORKS') ?? '')
    .split(',')
    .map((n) => n.trim().toUpperCase())
    .filter((n) => n !== '');
  if (listed.length === 0) {
    problems.push(
      'NETWORKS is required when SERVICE_MODE=production: the networks to serve, e.g. NETWORKS=LTC,ETH (each configured by its <NET>_* variables; see docs/production.md)',
    );
  }
  const networks: NetworkConfig[] = [];
  for (const network of new Set(listed)) {
    const family = productionFamilyOf(network);
    if (!family) {
      const sandboxOnly = SANDBOX_ONLY_NETWORKS[network];
      problems.push(
        `NETWORKS names ${network}, which has no production adapter; the ones there are: ${PRODUCTION_NETWORKS.join(', ')}` +
          (sandboxOnly ? ` (${network} is served by the sandbox only: ${sandboxOnly})` : ''),
      );
      continue;
    }
    const read = readVariables(family, network, value, problems);
    networks.push(buildNetworkConfig(family.family, network, read, value, problems));
  }

  const rates = parseMarketRatesEnv(env);
  problems.push(...rates.problems);
  return { networks, rates: rates.options };
}

/** A network's variables once checked: a good value, its default when unset, or undefined (unset, or refused). */
type ReadVariables = (suffix: string) => string | undefined;

// Runs the family's checks on each of `network`'s variables; the refused ones of other families are problems too.
function readVariables(
  family: ProductionFamily,
  network: string,
  value: (name: string) => string | undefined,
  problems: string[],
): ReadVariables {
  const good = new Map<string, string>();
  const chainOf = (): AddressChain => {
    const chain = value(`${network}_CHAIN`);
    return chain === 'test' || chain === 'regtest' ? chain : 'main';
  };
  const context = {
    network,
    sibling: (suffix: string) => value(`${network}_${suffix}`),
    addressProblem: (address: string) => {
      const check = validateAddress(network, address, family.family === 'bitcoin' ? chainOf() : 'main');
      return check.ok ? undefined : check.reason;
    },
  };
  for (const variable of family.variables) {
    const name = `${network}_${variable.suffix}`;
    const found = value(name);
    if (found === undefined) {
      if (variable.required) problems.push(`${name} is required: ${variable.meaning.replaceAll('{NET}', network)}`);
      const fallback = typeof variable.default === 'function' ? variable.default(network) : variable.default;
      if (fallback !== undefined) good.set(variable.suffix, fallback);
      continue;
    }
    const problem = variable.check(found, name, context);
    if (problem === undefined) good.set(variable.suffix, found);
    else problems.push(problem);
  }
  for (const refused of family.refused ?? []) {
    if (value(`${network}_${refused.suffix}`) !== undefined) problems.push(refused.reason(network));
  }
  return (suffix) => good.get(suffix);
}

// The typed configuration of one network from its checked variables, with the files they name read to refuse a
// bad one at start (the wiring reads them again).
function buildNetworkConfig(
  family: FamilyName,
  network: string,
  read: ReadVariables,
  value: (name: string) => string | undefined,
  problems: string[],
): NetworkConfig {
  const count = (suffix: string) => (read(suffix) === undefined ? undefined : Number(read(suffix)));
  const common = {
    network,
    rpcUrl: read('RPC_URL') ?? '',
    confirmations: count('CONFIRMATIONS'),
    maxTipAgeSeconds: count('MAX_TIP_AGE_SECONDS'),
    scanSeconds: count('SCAN_SECONDS'),
    coldAddress: read('COLD_ADDRESS'),
  };
  switch (family) {
    case 'zano':
      return { family, ...common, signerRpcUrl: read('SIGNER_RPC_URL') ?? '', fusdAssetId: read('FUSD_ASSET_ID') };
    case 'monero':
      return { family, ...common, signerRpcUrl: read('SIGNER_RPC_URL') ?? '', holdUnminedSeconds: count('HOLD_UNMINED_SECONDS') };
    case 'bitcoin':
      return {
        family,
        ...common,
        chain: (read('CHAIN') ?? 'main') as BitcoinNetworkConfig['chain'],
        signerRpcUrl: read('SIGNER_RPC_URL') ?? '',
        xpub: read('XPUB') ?? '',
        fallbackFeeRate: read('FALLBACK_FEE_RATE')!,
        replaceAfterSeconds: count('REPLACE_AFTER_SECONDS')!,
        maxFeeRate: read('MAX_FEE_RATE')!,
        payoutBatchSeconds: count('PAYOUT_BATCH_SECONDS') ?? 0,
        payoutBatchMax: count('PAYOUT_BATCH_MAX') ?? DEFAULT_PAYOUT_BATCH_MAX,
      };
    case 'ethereum': {
      const xpub = read('XPUB') ?? '';
      const hotWalletKeyFile = read('HOT_WALLET_KEY_FILE') ?? '';
      if (hotWalletKeyFile !== '') {
        try {
          readHotWalletKey(hotWalletKeyFile);
        } catch (err) {
          problems.push(`${network}_HOT_WALLET_KEY_FILE (${hotWalletKeyFile}): ${(err as Error).message}`);
        }
      }
      const depositKeyFile = read('DEPOSIT_KEY_FILE');
      if (depositKeyFile !== undefined && xpub !== '') {
        // Kept nowhere: the wiring reads the key again.
        try {
          readDepositKey(depositKeyFile, xpub, `${network}_XPUB`);
        } catch (err) {
          problems.push(`${network}_DEPOSIT_KEY_FILE (${depositKeyFile}): ${(err as Error).message}`);
        }
      }
      return {
        family,
        ...common,
        chainId: Number(read('CHAIN_ID') ?? DEFAULT_CHAIN_IDS[network]),
        xpub,
        hotWalletKeyFile,
        depositKeyFile,
        tokens: parseTokens(read('TOKENS') ?? ''),
        replaceAfterSeconds: count('REPLACE_AFTER_SECONDS')!,
        maxFeeGwei: read('MAX_FEE_GWEI')!,
        testNativeGas: testNativeGas(value, problems),
      };
    }
  }
}

// A test hook, not a network variable: the gas limit of native EVM payouts instead of an estimate.
function testNativeGas(value: (name: string) => string | undefined, problems: string[]): bigint | undefined {
  const found = value('PSS_TEST_EVM_NATIVE_GAS');
  if (found === undefined) return undefined;
  if (!/^\d{5,7}$/.test(found)) problems.push(`PSS_TEST_EVM_NATIVE_GAS=${JSON.stringify(found)} must be a gas limit, e.g. 21000`);
  return BigInt(/^\d{5,7}$/.test(found) ? found : '21000');
}

/**
 * The hot wallet's private key from `file` (64 hex digits, with or without 0x), as 0x-prefixed hex. Throws with
 * a message that names the problem and never the key; a file other users may read, or another user owns, is
 * refused before it is read (secrets-key.ts privateFileProblem).
 */
export function readHotWalletKey(file: string): `0x${string}` {
  requirePrivate(file, 'spend the hot wallet');
  let key: string;
  try {
    key = readFileSync(file, 'utf8').trim();
  } catch (err) {
    throw new Error(`cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  if (!/^(0x)?[0-9a-fA-F]{64}$/.test(key)) throw new Error('must hold a private key: 64 hex digits, with or without 0x');
  return key.startsWith('0x') ? (key as `0x${string}`) : `0x${key}`;
}

/**
 * The deposit account's extended private key from `file`, checked against the account's `xpub` (the variable
 * `xpubName`, for messages). Throws with a
 * message that names the problem and never the key: the file is not private (as readHotWalletKey), cannot be read,
 * holds no extended private key, or holds the key of another account (whose addresses are not the deposit addresses).
 */
export function readDepositKey(file: string, xpub: string, xpubName: string): string {
  requirePrivate(file, 'spend every deposit');
  let xprv: string;
  try {
    xprv = readFileSync(file, 'utf8').trim();
  } catch (err) {
    throw new Error(`cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  let matches: boolean;
  try {
    matches = isAccountKeyOf(xprv, xpub);
  } catch (err) {
    throw new Error(`must hold the deposit account's extended private key (xprv of m/44'/60'/0'): ${(err as Error).message}`);
  }
  if (!matches) {
    throw new Error(
      `holds an extended private key that does not match ${xpubName}: its addresses are not the deposit addresses (it must be the xprv of the account ${xpubName} is the public key of, m/44'/60'/0')`,
    );
  }
  return xprv;
}

// Throws when `file` is not private to this user: whoever else can read it can `what`.
function requirePrivate(file: string, what: string): void {
  const found = privateFileProblem(file);
  if (found) throw new Error(`${found.problem}: anyone who can read it can ${what}. ${found.fix}, and start again`);
}

/**
 * The catalogue production serves: only the configured networks (with their confirmation overrides), and on
 * each only its native asset and the tokens configured for it. Throws when a configured token is not in the
 * catalogue (its precision and limits would be unknown).
 */
export function servedCatalog(catalog: Catalog, production: ProductionConfig): Catalog {
  const networks: Catalog['networks'] = {};
  const assets: CatalogAsset[] = [];
  for (const served of production.networks) {
    const network = catalog.networks[served.network];
    if (!network) throw new Error(`The catalogue has no network ${served.network}`);
    networks[served.network] = { ...network, confirmations: served.confirmations ?? network.confirmations };
    // A network serves its coin, its family's fixed assets (Zano: fUSD) and, on EVM, the configured tokens.
    const facts = requireNetwork(served.network);
    const fixed = (facts.production.kind === 'family' ? (facts.production.family.servedAssets ?? []) : []).map((t) => t.toUpperCase());
    const tokens = [...fixed, ...(served.family === 'ethereum' ? Object.keys(served.tokens).map((t) => t.toUpperCase()) : [])];
    for (const token of tokens) {
      if (!catalog.assets.some((a) => a.network === served.network && a.symbol.toUpperCase() === token)) {
        throw new Error(`${served.network}_TOKENS names ${token}, which the catalogue does not list on ${served.network}`);
      }
    }
    const chain = served.family === 'bitcoin' && served.chain !== 'main' ? served.chain : undefined;
    assets.push(
      ...catalog.assets
        .filter((a) => a.network === served.network && (a.symbol === facts.nativeCoin || tokens.includes(a.symbol.toUpperCase())))
        .map((a) => (chain ? { ...a, chain } : a)),
    );
  }
  return { ...catalog, networks, assets };
}

/** How old `network`'s tip may be before it is unhealthy: its override, else ten of the catalogue's block times. */
export function maxTipAgeSeconds(production: ProductionConfig, catalog: Catalog, network: string): number {
  const served = production.networks.find((n) => n.network === network);
  return served?.maxTipAgeSeconds ?? 10 * (catalog.networks[network]?.blockSeconds ?? 60);
}

/** Whether `spendable` of `asset` is below what a minimum quote pays out (at the catalogue's reference price). */
export function isBelowMinimumPayout(catalog: Catalog, asset: CatalogAsset, spendable: string | undefined): boolean {
  if (spendable === undefined) return true;
  return new Money(spendable).times(asset.priceUsd).lessThan(catalog.limitsUsd.minimum);
}
