/**
 * What differs between the chains of the Bitcoin Core family: the bech32 prefix of their addresses, which
 * extended-key versions belong to the network, how often a block comes, and how a waiting payout is bumped.
 */

/** The parameters of one chain. */
export interface BitcoinParams {
  /** A name for messages: `LTC regtest`. */
  name: string;
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
 * `signet`). Throws with the known choices otherwise. Dogecoin is not here: it has no segwit, so no BIP84.
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
