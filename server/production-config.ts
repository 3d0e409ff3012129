/**
 * Production's networks and prices (docs/architecture.md#production): which networks run, how to reach their nodes, and where
 * prices come from. Each network is off unless NETWORKS names it, and a network NETWORKS names must have
 * every variable its family needs: the start is refused with one line per missing or malformed variable.
 *
 * Families: `bitcoin` (Bitcoin Core JSON-RPC: LTC, BTC), `ethereum` (EVM JSON-RPC: ETH, BSC) and `zano`
 * (the Zano wallet JSON-RPC: ZANO and the fUSD asset).
 */
import { readFileSync } from 'node:fs';
import { parseBitcoinParams } from './adapters/bitcoin/index.js';
import { isAccountKeyOf } from './adapters/ethereum/addresses.js';
import { parseTokens, type TokenConfig } from './adapters/ethereum/tokens.js';
import { parseMarketRatesEnv, type MarketRatesEnvOptions } from './adapters/market/config.js';
import { validateAddress, type AddressChain } from './domain/addresses.js';
import { NATIVE_ASSET, type Catalog, type CatalogAsset } from './domain/catalog.js';
import { Money } from './domain/money.js';
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

/** Payouts one batch pays when `<NET>_PAYOUT_BATCH_MAX` is not set. */
export const DEFAULT_PAYOUT_BATCH_MAX = 50;
/**
 * The most `<NET>_PAYOUT_BATCH_MAX` may be: a transaction of this many P2WPKH outputs is about 16,000 vbytes,
 * far below the 100,000 a node relays.
 */
export const MAX_PAYOUT_BATCH_MAX = 500;

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

export type NetworkConfig = BitcoinNetworkConfig | EthereumNetworkConfig | ZanoNetworkConfig;

/** Production's configuration of networks and prices. */
export interface ProductionConfig {
  readonly networks: readonly NetworkConfig[];
  /** Where prices come from (adapters/market: RATES_SOURCES, the provider URLs, RATES_MAX_*). */
  readonly rates: MarketRatesEnvOptions;
}

/**
 * Each EVM network's chain id when `<NET>_CHAIN_ID` is unset: its main network (Ethereum 1, BNB Smart Chain 56).
 * A test chain (anvil: 31337) must be named.
 */
export const DEFAULT_CHAIN_IDS: Readonly<Record<string, number>> = { ETH: 1, BSC: 56 };

// DOGE is not here: Dogecoin Core lacks the PSBT, descriptor and getbalances calls the Bitcoin-family adapter
// uses, so it is served in the sandbox only (docs/production.md), and NETWORKS=DOGE is refused as SOL is.
const FAMILIES: Record<string, NetworkConfig['family']> = {
  BTC: 'bitcoin',
  LTC: 'bitcoin',
  ETH: 'ethereum',
  BSC: 'ethereum',
  ZANO: 'zano',
};

type Env = Record<string, string | undefined>;

/**
 * Reads production's networks and prices from `env`; every problem is pushed onto `problems` (one line each,
 * naming the variable), and what could be read is returned.
 */
export function readProductionConfig(env: Env, problems: string[]): ProductionConfig {
  const value = (name: string) => {
    const raw = env[name]?.trim();
    return raw === undefined || raw === '' ? undefined : raw;
  };
  const required = (name: string, why: string): string => {
    const found = value(name);
    if (found === undefined) problems.push(`${name} is required: ${why}`);
    return found ?? '';
  };
  const url = (name: string, why: string): string => {
    const found = required(name, why);
    if (found !== '' && !/^https?:\/\/[^\s]+$/.test(found)) problems.push(`${name}=${JSON.stringify(found)} must be an http(s) URL`);
    return found;
  };
  const count = (name: string, what: string): number | undefined => {
    const found = value(name);
    if (found === undefined) return undefined;
    if (!/^\d{1,7}$/.test(found) || Number(found) < 1) {
      problems.push(`${name}=${JSON.stringify(found)} must be a whole number of ${what} of at least 1`);
      return undefined;
    }
    return Number(found);
  };
  const confirmations = (name: string) => count(name, 'confirmations');
  const maxTipAge = (network: string) => count(`${network}_MAX_TIP_AGE_SECONDS`, 'seconds');
  const scanSeconds = (network: string) => count(`${network}_SCAN_SECONDS`, 'seconds');
  // docs/architecture.md#money-that-ends-well: an unmined payout is replaced after <NET>_REPLACE_AFTER_SECONDS, never above the fee cap.
  const replaceAfter = (network: string, fallback: number) => count(`${network}_REPLACE_AFTER_SECONDS`, 'seconds') ?? fallback;
  const decimalSetting = (name: string, fallback: string, shape: RegExp, what: string) => {
    const found = value(name) ?? fallback;
    if (!shape.test(found) || new Money(found).isZero()) problems.push(`${name}=${JSON.stringify(found)} must be ${what}`);
    return found;
  };

  // Batched payouts (Bitcoin family only): <NET>_PAYOUT_BATCH_SECONDS (0, the default: off) and <NET>_PAYOUT_BATCH_MAX.
  const batchSeconds = (network: string): number => {
    const name = `${network}_PAYOUT_BATCH_SECONDS`;
    const found = value(name);
    if (found === undefined) return 0;
    if (!/^\d{1,5}$/.test(found)) {
      problems.push(
        `${name}=${JSON.stringify(found)} must be a whole number of seconds (0, the default, sends each payout alone), e.g. 60`,
      );
      return 0;
    }
    return Number(found);
  };
  const batchMax = (network: string): number => {
    const name = `${network}_PAYOUT_BATCH_MAX`;
    const found = value(name);
    if (found === undefined) return DEFAULT_PAYOUT_BATCH_MAX;
    if (!/^\d{1,7}$/.test(found) || Number(found) < 1 || Number(found) > MAX_PAYOUT_BATCH_MAX) {
      problems.push(
        `${name}=${JSON.stringify(found)} must be a whole number of payouts per transaction from 1 to ${MAX_PAYOUT_BATCH_MAX}, e.g. ${DEFAULT_PAYOUT_BATCH_MAX}`,
      );
      return DEFAULT_PAYOUT_BATCH_MAX;
    }
    return Number(found);
  };
  // EVM and Zano pay one destination per transaction (an EVM transfer has one recipient; a batch would need a
  // contract): the variables are refused there rather than silently ignored.
  const noBatching = (network: string, family: string) => {
    for (const name of [`${network}_PAYOUT_BATCH_SECONDS`, `${network}_PAYOUT_BATCH_MAX`]) {
      if (value(name) !== undefined) {
        problems.push(
          `${name} is for Bitcoin-family networks (LTC, BTC): ${network} (${family}) sends each payout in a transaction of its own; unset it`,
        );
      }
    }
  };

  // Hot-wallet rules: the surplus above HOT_WALLET_MAX goes to <NET>_COLD_ADDRESS, checked as a payout address is.
  const coldAddress = (network: string, chain: AddressChain = 'main'): string | undefined => {
    const name = `${network}_COLD_ADDRESS`;
    const found = value(name);
    if (found === undefined) return undefined;
    const check = validateAddress(network, found, chain);
    if (!check.ok) problems.push(`${name}=${JSON.stringify(found)}: ${check.reason}`);
    return check.ok ? check.value : undefined;
  };

  const testNativeGas = () => {
    const found = value('PSS_TEST_EVM_NATIVE_GAS');
    if (found === undefined) return undefined;
    if (!/^\d{5,7}$/.test(found)) problems.push(`PSS_TEST_EVM_NATIVE_GAS=${JSON.stringify(found)} must be a gas limit, e.g. 21000`);
    return BigInt(/^\d{5,7}$/.test(found) ? found : '21000');
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
    const family = FAMILIES[network];
    if (!family) {
      problems.push(`NETWORKS names ${network}, which has no production adapter; the ones there are: ${Object.keys(FAMILIES).join(', ')}`);
      continue;
    }
    if (family !== 'bitcoin') noBatching(network, family);
    if (family === 'zano') {
      const fusdAssetId = value(`${network}_FUSD_ASSET_ID`);
      if (fusdAssetId !== undefined && !/^[0-9a-f]{64}$/.test(fusdAssetId)) {
        problems.push(`${network}_FUSD_ASSET_ID=${JSON.stringify(fusdAssetId)} must be an asset id: 64 lowercase hex digits`);
      }
      networks.push({
        family,
        network,
        rpcUrl: url(`${network}_RPC_URL`, `the RPC URL of the ${network} watch-only wallet, e.g. http://127.0.0.1:11212/json_rpc`),
        signerRpcUrl: url(`${network}_SIGNER_RPC_URL`, `the RPC URL of the ${network} wallet that signs payouts`),
        fusdAssetId,
        confirmations: confirmations(`${network}_CONFIRMATIONS`),
        maxTipAgeSeconds: maxTipAge(network),
        scanSeconds: scanSeconds(network),
        coldAddress: coldAddress(network),
      });
      continue;
    }
    if (family === 'bitcoin') {
      const chain = value(`${network}_CHAIN`) ?? 'main';
      if (chain !== 'main' && chain !== 'test' && chain !== 'regtest') {
        problems.push(`${network}_CHAIN=${JSON.stringify(chain)} must be one of main, test, regtest`);
      } else {
        // The adapter's own table of chains decides whether it has this one (e.g. no BTC test parameters).
        try {
          parseBitcoinParams(network, chain);
        } catch (err) {
          problems.push(`${network}_CHAIN=${chain}: ${(err as Error).message}`);
        }
      }
      const fallbackFeeRate = value(`${network}_FALLBACK_FEE_RATE`) ?? '0.0001';
      if (!/^\d{1,3}(\.\d{1,8})?$/.test(fallbackFeeRate)) {
        problems.push(`${network}_FALLBACK_FEE_RATE=${JSON.stringify(fallbackFeeRate)} must be a fee rate in coin per kvB, e.g. 0.0001`);
      }
      networks.push({
        family,
        network,
        chain: chain as BitcoinNetworkConfig['chain'],
        rpcUrl: url(
          `${network}_RPC_URL`,
          `the ${network} node's RPC URL with the watch-only wallet, e.g. http://user:pass@127.0.0.1:9332/wallet/watch`,
        ),
        signerRpcUrl: url(`${network}_SIGNER_RPC_URL`, `the RPC URL of the ${network} signer wallet that signs payouts`),
        xpub: required(`${network}_XPUB`, `the ${network} account extended public key deposit addresses derive from`),
        confirmations: confirmations(`${network}_CONFIRMATIONS`),
        maxTipAgeSeconds: maxTipAge(network),
        fallbackFeeRate,
        scanSeconds: scanSeconds(network),
        // About three blocks (LTC 2.5 min, BTC 10 min): a payout priced before a fee spike is bumped soon after.
        replaceAfterSeconds: replaceAfter(network, network === 'BTC' ? 1800 : 600),
        maxFeeRate: decimalSetting(
          `${network}_MAX_FEE_RATE`,
          '0.01',
          /^\d{1,3}(\.\d{1,8})?$/,
          'a fee rate in coin per kvB above 0, e.g. 0.01',
        ),
        payoutBatchSeconds: batchSeconds(network),
        payoutBatchMax: batchMax(network),
        coldAddress: coldAddress(network, chain === 'test' || chain === 'regtest' ? chain : 'main'),
      });
    } else {
      let tokens: Record<string, TokenConfig> = {};
      try {
        tokens = parseTokens(value(`${network}_TOKENS`) ?? '');
      } catch (err) {
        problems.push(`${network}_TOKENS: ${(err as Error).message}`);
      }
      const xpub = required(`${network}_XPUB`, `the ${network} account extended public key deposit addresses derive from`);
      const hotWalletKeyFile = required(`${network}_HOT_WALLET_KEY_FILE`, `the file holding the ${network} hot wallet's private key`);
      if (hotWalletKeyFile !== '') {
        // Read here only to refuse an unreadable or malformed key at start; the wiring reads it again.
        try {
          readHotWalletKey(hotWalletKeyFile);
        } catch (err) {
          problems.push(`${network}_HOT_WALLET_KEY_FILE (${hotWalletKeyFile}): ${(err as Error).message}`);
        }
      }
      const chainIdName = `${network}_CHAIN_ID`;
      const chainIdText = value(chainIdName) ?? String(DEFAULT_CHAIN_IDS[network]);
      if (!/^[1-9]\d{0,14}$/.test(chainIdText)) {
        problems.push(
          `${chainIdName}=${JSON.stringify(chainIdText)} must be the chain id the ${network} node reports (eth_chainId), a whole number of at least 1, e.g. ${DEFAULT_CHAIN_IDS[network]} (unset: ${DEFAULT_CHAIN_IDS[network]}; anvil: 31337)`,
        );
      }
      const depositKeyFile = value(`${network}_DEPOSIT_KEY_FILE`);
      if (depositKeyFile !== undefined && xpub !== '') {
        // Read here only to refuse a wrong key at start; the wiring reads it again and keeps it nowhere else.
        try {
          readDepositKey(depositKeyFile, xpub, `${network}_XPUB`);
        } catch (err) {
          problems.push(`${network}_DEPOSIT_KEY_FILE (${depositKeyFile}): ${(err as Error).message}`);
        }
      }
      networks.push({
        family,
        network,
        rpcUrl: url(`${network}_RPC_URL`, `the ${network} node's JSON-RPC URL`),
        chainId: Number(chainIdText),
        xpub,
        hotWalletKeyFile,
        depositKeyFile,
        tokens,
        confirmations: confirmations(`${network}_CONFIRMATIONS`),
        maxTipAgeSeconds: maxTipAge(network),
        scanSeconds: scanSeconds(network),
        // About fifteen Ethereum blocks (BSC: sixty).
        replaceAfterSeconds: replaceAfter(network, 180),
        maxFeeGwei: decimalSetting(`${network}_MAX_FEE_GWEI`, '500', /^\d{1,6}(\.\d{1,9})?$/, 'a fee in gwei per gas above 0, e.g. 500'),
        testNativeGas: testNativeGas(),
        coldAddress: coldAddress(network),
      });
    }
  }

  const rates = parseMarketRatesEnv(env);
  problems.push(...rates.problems);
  return { networks, rates: rates.options };
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
    // Zano serves its coin and the fUSD asset; an EVM network its coin and configured tokens.
    const tokens =
      served.family === 'ethereum' ? Object.keys(served.tokens).map((t) => t.toUpperCase()) : served.family === 'zano' ? ['FUSD'] : [];
    for (const token of tokens) {
      if (!catalog.assets.some((a) => a.network === served.network && a.symbol.toUpperCase() === token)) {
        throw new Error(`${served.network}_TOKENS names ${token}, which the catalogue does not list on ${served.network}`);
      }
    }
    const chain = served.family === 'bitcoin' && served.chain !== 'main' ? served.chain : undefined;
    assets.push(
      ...catalog.assets
        .filter(
          (a) => a.network === served.network && (a.symbol === NATIVE_ASSET[served.network] || tokens.includes(a.symbol.toUpperCase())),
        )
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
