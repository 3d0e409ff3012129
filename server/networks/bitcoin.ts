/**
 * The Bitcoin family (Bitcoin Core and its forks: BTC, LTC, DOGE): addresses in base58check with a version byte
 * and, where the network has segwit, bech32 / bech32m (BIP-173, BIP-350); the parameters of each chain the
 * adapter (adapters/bitcoin/) runs on; and the production variables of a Bitcoin Core network.
 */
import { concatBytes } from '@noble/hashes/utils.js';
import { base58, bech32, bech32m, hex } from '@scure/base';
import { base58check, base58Problem, MISTYPED } from './address-text.js';
import type { AddressFormat, ChainParams, NetworkFacts, ProductionFamily } from './network.js';
import {
  COLD_ADDRESS,
  CONFIRMATIONS,
  decimalVariable,
  MAX_TIP_AGE_SECONDS,
  replaceAfterVariable,
  SCAN_SECONDS,
  urlVariable,
} from './variables.js';

const BECH32_DATA = /^[qpzry9x8gf2tvdw0s3jn54khce6mua7l]+$/;

// ---------------------------------------------------------------------------------------------------------------
// Addresses.

interface UtxoRules {
  label: string;
  /** Mainnet base58check version bytes and what each address leads with; the first is the sandbox's. */
  versions: ReadonlyArray<readonly [version: number, leads: string]>;
  testnetVersions: number[];
  /** Segwit human-readable part, when the network has segwit. */
  hrp?: string;
  testnetHrps: string[];
  /** The segwit prefixes of the test chain and regtest, where the network has them. */
  testChainHrps?: { test: string; regtest: string };
}

/**
 * The rules of `rules`' test chain or regtest: the testnet version bytes and that chain's segwit prefix are
 * accepted, and mainnet addresses refused as addresses of another chain.
 */
function testChainNetwork(rules: UtxoRules, chain: 'test' | 'regtest'): AddressFormat {
  const hrp = rules.testChainHrps?.[chain];
  return utxoNetwork({
    label: `${rules.label} ${chain === 'test' ? 'testnet' : 'regtest'}`,
    versions: rules.testnetVersions.map((version) => [version, `version 0x${version.toString(16)}`] as const),
    testnetVersions: rules.versions.map(([version]) => version),
    hrp,
    testnetHrps: [rules.hrp, ...rules.testnetHrps].filter((other): other is string => other !== undefined && other !== hrp),
    wrongChain: `it is an address of another chain; this service runs on ${chain}`,
  });
}

function utxoNetwork(rules: UtxoRules & { wrongChain?: string }): AddressFormat {
  const [[version]] = rules.versions;
  return {
    label: rules.label,
    format: rules.label,
    check: (address) => checkUtxo(rules, address),
    // Segwit (P2WPKH) where the network has it: what a current wallet hands out.
    sandboxAddress: (seed) =>
      rules.hrp !== undefined
        ? bech32.encode(rules.hrp, [0, ...bech32.toWords(seed.subarray(0, 20))])
        : base58check.encode(concatBytes(Uint8Array.of(version), seed.subarray(0, 20))),
    sandboxTxHash: (seed) => hex.encode(seed),
  };
}

function checkUtxo(rules: UtxoRules & { wrongChain?: string }, address: string): string | undefined {
  const lower = address.toLowerCase();
  const prefix = lower.slice(0, Math.max(lower.lastIndexOf('1'), 0));
  if (rules.testnetHrps.includes(prefix)) return rules.wrongChain ?? 'it is a testnet address; only mainnet addresses are accepted';
  // A bech32 string with another network's prefix deserves the segwit reason, not "not base58".
  const looksSegwit =
    rules.hrp !== undefined && (prefix === rules.hrp || Boolean(bech32.decodeUnsafe(address) ?? bech32m.decodeUnsafe(address)));
  const segwit = rules.hrp !== undefined ? checkSegwit(rules.hrp, address) : 'no segwit';
  if (segwit === undefined) return undefined;
  const legacy = checkVersioned(rules, address);
  if (legacy === undefined) return undefined;
  return looksSegwit ? segwit : legacy;
}

function checkSegwit(hrp: string, address: string): string | undefined {
  const lower = address.toLowerCase();
  if (address !== lower && address !== address.toUpperCase()) return 'it mixes upper and lower case, which bech32 does not allow';
  const data = lower.slice(lower.lastIndexOf('1') + 1);
  if (!BECH32_DATA.test(data)) return 'it contains a character that bech32 does not use (b, i, o or 1 after the prefix)';
  const classic = bech32.decodeUnsafe(address);
  const modern = classic ? undefined : bech32m.decodeUnsafe(address);
  const decoded = classic ?? modern;
  if (!decoded) return address.length > 90 ? 'it is longer than the 90 characters bech32 allows' : MISTYPED;
  if (decoded.prefix !== hrp) return `its prefix ${decoded.prefix}1 is not ${hrp}1`;
  const [version, ...words] = decoded.words;
  if (version === undefined) return 'it carries no witness program';
  if (version > 16) return `witness version ${version} does not exist`;
  const program = bech32.fromWordsUnsafe(words);
  if (!program) return 'its witness program has invalid padding';
  if (version === 0) {
    if (!classic) return 'a version 0 address must use the bech32 checksum, not bech32m';
    if (program.length !== 20 && program.length !== 32) return `a version 0 witness program is 20 or 32 bytes, not ${program.length}`;
    return undefined;
  }
  if (classic) return `a version ${version} address must use the bech32m checksum (BIP-350), not bech32`;
  if (program.length < 2 || program.length > 40) return `a witness program is 2 to 40 bytes, not ${program.length}`;
  return undefined;
}

function checkVersioned(rules: UtxoRules & { wrongChain?: string }, address: string): string | undefined {
  const alphabet = base58Problem(address);
  if (alphabet) return alphabet;
  const raw = base58.decode(address);
  if (raw.length !== 25) return `it decodes to ${raw.length} bytes; a ${rules.label} address has 25`;
  let payload: Uint8Array;
  try {
    payload = base58check.decode(address);
  } catch {
    return MISTYPED;
  }
  if (rules.versions.some(([version]) => version === payload[0])) return undefined;
  if (rules.testnetVersions.includes(payload[0])) return rules.wrongChain ?? 'it is a testnet address; only mainnet addresses are accepted';
  const expected = rules.versions.map(([, leads]) => leads).join(', ');
  return `its version byte 0x${hex.encode(payload.subarray(0, 1))} is not a ${rules.label} mainnet address (they start with ${expected})`;
}

const BITCOIN: UtxoRules = {
  label: 'Bitcoin',
  versions: [
    [0x00, '1 (P2PKH)'],
    [0x05, '3 (P2SH)'],
  ],
  testnetVersions: [0x6f, 0xc4],
  hrp: 'bc',
  testnetHrps: ['tb', 'bcrt'],
  testChainHrps: { test: 'tb', regtest: 'bcrt' },
};

const LITECOIN: UtxoRules = {
  label: 'Litecoin',
  versions: [
    [0x30, 'L (P2PKH)'],
    [0x32, 'M (P2SH)'],
    [0x05, '3 (legacy P2SH)'],
  ],
  testnetVersions: [0x6f, 0x3a, 0xc4],
  hrp: 'ltc',
  testnetHrps: ['tltc', 'rltc'],
  testChainHrps: { test: 'tltc', regtest: 'rltc' },
};

const DOGECOIN: UtxoRules = {
  label: 'Dogecoin',
  versions: [
    [0x1e, 'D (P2PKH)'],
    [0x16, '9 or A (P2SH)'],
  ],
  testnetVersions: [0x71, 0xc4],
  testnetHrps: [],
};

// ---------------------------------------------------------------------------------------------------------------
// Chains: what differs between the chains of the Bitcoin Core family, for the adapter.

/** The parameters of one chain. */
export interface BitcoinParams extends ChainParams {
  /** The bech32 human-readable part of P2WPKH addresses (`ltc`, `tltc`, `rltc`, `bc`, `tb`, `bcrt`). */
  hrp: string;
  /** The 4-byte versions of the extended public keys accepted for this chain (xpub, tpub, zpub, vpub, Ltub, ttub...). */
  publicKeyVersions: readonly number[];
  /** The chain's target time between blocks. */
  blockSeconds: number;
  /** Decimal places of the native coin. */
  decimals: number;
  /**
   * How a payout that waits is bumped: `bip125` (a replacement spending the same inputs: Bitcoin Core), or
   * `cpfp` (a child spending its change pays for both: Litecoin Core 0.21 accepts no replacement into its
   * mempool, measured on regtest: bumpfee's replacement is refused, the original stays).
   */
  bump: 'bip125' | 'cpfp';
  /** The chain as the node's `getblockchaininfo` names it (`main`, `test`, `signet`, `regtest`): a node on another is refused. */
  nodeChain: 'main' | 'test' | 'signet' | 'regtest';
}

/** Extended public key versions (BIP32 and SLIP-132). */
export const KEY_VERSIONS = {
  xpub: 0x0488b21e,
  zpub: 0x04b24746,
  tpub: 0x043587cf,
  vpub: 0x045f1cf6,
  /** Litecoin mainnet (Electrum-LTC, Ledger). */
  Ltub: 0x019da462,
  /** Litecoin testnet. */
  ttub: 0x0436f6e1,
} as const;

const MAINNET_BTC = [KEY_VERSIONS.xpub, KEY_VERSIONS.zpub];
const TESTNET_BTC = [KEY_VERSIONS.tpub, KEY_VERSIONS.vpub];

/** The chains this adapter knows, by `<network>:<chain>`. */
export const BITCOIN_PARAMS: Readonly<Record<string, BitcoinParams>> = Object.freeze({
  'LTC:main': {
    name: 'LTC main',
    hrp: 'ltc',
    publicKeyVersions: [...MAINNET_BTC, KEY_VERSIONS.Ltub],
    blockSeconds: 150,
    decimals: 8,
    nodeChain: 'main',
    bump: 'cpfp',
  },
  'LTC:testnet': {
    name: 'LTC testnet',
    hrp: 'tltc',
    publicKeyVersions: [...TESTNET_BTC, KEY_VERSIONS.ttub],
    blockSeconds: 150,
    decimals: 8,
    nodeChain: 'test',
    bump: 'cpfp',
  },
  'LTC:regtest': {
    name: 'LTC regtest',
    hrp: 'rltc',
    publicKeyVersions: [...TESTNET_BTC, KEY_VERSIONS.ttub],
    blockSeconds: 150,
    decimals: 8,
    nodeChain: 'regtest',
    bump: 'cpfp',
  },
  'BTC:main': {
    name: 'BTC main',
    hrp: 'bc',
    publicKeyVersions: MAINNET_BTC,
    blockSeconds: 600,
    decimals: 8,
    nodeChain: 'main',
    bump: 'bip125',
  },
  'BTC:testnet': {
    name: 'BTC testnet',
    hrp: 'tb',
    publicKeyVersions: TESTNET_BTC,
    blockSeconds: 600,
    decimals: 8,
    nodeChain: 'test',
    bump: 'bip125',
  },
  'BTC:signet': {
    name: 'BTC signet',
    hrp: 'tb',
    publicKeyVersions: TESTNET_BTC,
    blockSeconds: 600,
    decimals: 8,
    nodeChain: 'signet',
    bump: 'bip125',
  },
  'BTC:regtest': {
    name: 'BTC regtest',
    hrp: 'bcrt',
    publicKeyVersions: TESTNET_BTC,
    blockSeconds: 600,
    decimals: 8,
    nodeChain: 'regtest',
    bump: 'bip125',
  },
});

/**
 * The parameters of `network` on `chain` (`main` when omitted; also `mainnet`, `test`, `testnet`, `regtest`,
 * `signet`). Throws with the known choices otherwise. Dogecoin is not here: it has no segwit, so no BIP84, and
 * Dogecoin Core lacks the PSBT, descriptor and getbalances calls the adapter uses.
 */
export function parseBitcoinParams(network: string, chain = 'main'): BitcoinParams {
  const normalized = { mainnet: 'main', test: 'testnet' }[chain.toLowerCase()] ?? chain.toLowerCase();
  const params = BITCOIN_PARAMS[`${network.toUpperCase()}:${normalized}`];
  if (!params) {
    const known = Object.keys(BITCOIN_PARAMS).join(', ');
    throw new Error(`no Bitcoin-family parameters for ${network} on ${chain} (known: ${known})`);
  }
  return params;
}

// ---------------------------------------------------------------------------------------------------------------
// Production: a watch-only wallet for deposits and funding, a signer wallet for signing (adapters/bitcoin/).

/** Payouts one batch pays when `<NET>_PAYOUT_BATCH_MAX` is not set. */
export const DEFAULT_PAYOUT_BATCH_MAX = 50;
/**
 * The most `<NET>_PAYOUT_BATCH_MAX` may be: a transaction of this many P2WPKH outputs is about 16,000 vbytes,
 * far below the 100,000 a node relays.
 */
export const MAX_PAYOUT_BATCH_MAX = 500;

/** The chains `<NET>_CHAIN` names. */
export const BITCOIN_CHAIN_CHOICES = ['main', 'test', 'regtest'] as const;

/** The variables of a Bitcoin Core network. */
export const BITCOIN_FAMILY: ProductionFamily = {
  family: 'bitcoin',
  software: 'Bitcoin Core JSON-RPC (Litecoin Core, Bitcoin Core)',
  variables: [
    urlVariable('RPC_URL', "the {NET} node's RPC URL with the watch-only wallet, e.g. http://user:pass@127.0.0.1:9332/wallet/watch"),
    urlVariable('SIGNER_RPC_URL', 'the RPC URL of the {NET} signer wallet that signs payouts'),
    {
      suffix: 'XPUB',
      meaning: 'the {NET} account extended public key deposit addresses derive from',
      required: true,
      check: (value, name) =>
        base58Problem(value) === undefined ? undefined : `${name} must be an extended public key (base58: xpub..., zpub..., tpub...)`,
    },
    {
      suffix: 'CHAIN',
      meaning: 'the chain the node runs (main, test, regtest): it decides the address format',
      default: 'main',
      check: (value, name, context) => {
        if (!(BITCOIN_CHAIN_CHOICES as readonly string[]).includes(value))
          return `${name}=${JSON.stringify(value)} must be one of ${BITCOIN_CHAIN_CHOICES.join(', ')}`;
        // The adapter's own table of chains decides whether it has this one (e.g. no DOGE parameters).
        try {
          parseBitcoinParams(context.network, value);
          return undefined;
        } catch (err) {
          return `${name}=${value}: ${(err as Error).message}`;
        }
      },
    },
    CONFIRMATIONS,
    MAX_TIP_AGE_SECONDS,
    SCAN_SECONDS,
    {
      suffix: 'FALLBACK_FEE_RATE',
      meaning: 'the fee rate (coin per kvB) used while the node has no estimate',
      default: '0.0001',
      check: (value, name) =>
        /^\d{1,3}(\.\d{1,8})?$/.test(value)
          ? undefined
          : `${name}=${JSON.stringify(value)} must be a fee rate in coin per kvB, e.g. 0.0001`,
    },
    // About three blocks (LTC 2.5 min, BTC 10 min): a payout priced before a fee spike is bumped soon after.
    replaceAfterVariable((network) => (network === 'BTC' ? '1800' : '600')),
    decimalVariable(
      'MAX_FEE_RATE',
      "the most a payout's version may pay, in coin per kvB",
      '0.01',
      /^\d{1,3}(\.\d{1,8})?$/,
      'a fee rate in coin per kvB above 0, e.g. 0.01',
    ),
    {
      suffix: 'PAYOUT_BATCH_SECONDS',
      meaning: 'payouts due within this many seconds go out in one transaction (0: each alone)',
      default: '0',
      check: (value, name) =>
        /^\d{1,5}$/.test(value)
          ? undefined
          : `${name}=${JSON.stringify(value)} must be a whole number of seconds (0, the default, sends each payout alone), e.g. 60`,
    },
    {
      suffix: 'PAYOUT_BATCH_MAX',
      meaning: 'the most payouts one batch pays',
      default: String(DEFAULT_PAYOUT_BATCH_MAX),
      check: (value, name) =>
        /^\d{1,7}$/.test(value) && Number(value) >= 1 && Number(value) <= MAX_PAYOUT_BATCH_MAX
          ? undefined
          : `${name}=${JSON.stringify(value)} must be a whole number of payouts per transaction from 1 to ${MAX_PAYOUT_BATCH_MAX}, e.g. ${DEFAULT_PAYOUT_BATCH_MAX}`,
    },
    COLD_ADDRESS,
  ],
};

// ---------------------------------------------------------------------------------------------------------------
// The networks.

const chainsOf = (network: string) =>
  Object.fromEntries(
    Object.entries(BITCOIN_PARAMS)
      .filter(([key]) => key.startsWith(`${network}:`))
      .map(([key, params]) => [key.slice(network.length + 1), params]),
  );

const testChainsOf = (rules: UtxoRules) => ({ test: testChainNetwork(rules, 'test'), regtest: testChainNetwork(rules, 'regtest') });

/** Bitcoin: Bitcoin Core. */
export const BTC: NetworkFacts = {
  id: 'BTC',
  code: 'BTC',
  name: 'Bitcoin',
  nativeCoin: 'BTC',
  address: utxoNetwork(BITCOIN),
  testChains: testChainsOf(BITCOIN),
  senderKnown: true,
  confirmations: 2,
  blockSeconds: BITCOIN_PARAMS['BTC:main'].blockSeconds,
  chains: chainsOf('BTC'),
  markets: { kraken: 'XXBTZUSD', binance: 'BTCUSDT', coinbase: 'BTC-USD' },
  production: { kind: 'family', family: BITCOIN_FAMILY },
};

/** Litecoin: Litecoin Core (the family's tested node). */
export const LTC: NetworkFacts = {
  id: 'LTC',
  code: 'LTC',
  name: 'Litecoin',
  nativeCoin: 'LTC',
  address: utxoNetwork(LITECOIN),
  testChains: testChainsOf(LITECOIN),
  senderKnown: true,
  confirmations: 6,
  blockSeconds: BITCOIN_PARAMS['LTC:main'].blockSeconds,
  chains: chainsOf('LTC'),
  markets: { kraken: 'XLTCZUSD', binance: 'LTCUSDT', coinbase: 'LTC-USD' },
  production: { kind: 'family', family: BITCOIN_FAMILY },
};

/** Dogecoin: served by the sandbox only. */
export const DOGE: NetworkFacts = {
  id: 'DOGE',
  code: 'DOGE',
  name: 'Dogecoin',
  nativeCoin: 'DOGE',
  address: utxoNetwork(DOGECOIN),
  testChains: testChainsOf(DOGECOIN),
  senderKnown: true,
  confirmations: 6,
  blockSeconds: 60,
  chains: { main: { name: 'DOGE main' } },
  markets: { kraken: 'XDGUSD', binance: 'DOGEUSDT', coinbase: 'DOGE-USD' },
  production: {
    kind: 'sandbox-only',
    why: 'Dogecoin Core lacks the PSBT, descriptor and getbalances calls the Bitcoin-family adapter uses, and DOGE has no segwit (no BIP84 addresses)',
  },
};
