/**
 * Monero (XMR): CryptoNote addresses (domain/monero-address.ts: standard, subaddress and integrated, mainnet
 * tags, which `monerod --regtest` wallets use too); a payment's sender is not shown; production over
 * monero-wallet-rpc, a view-only wallet and an offline signer (adapters/monero/, docs/production.md#monero).
 */
import { concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { base58xmr, hex } from '@scure/base';
import sodium from 'sodium-native';
import { keccak256 } from '../domain/keccak.js';
import { decodeMoneroAddress, MONERO_ADDRESS_TAGS, MoneroAddressError } from '../domain/monero-address.js';
import type { AddressFormat, ChainParams, NetworkFacts, ProductionFamily } from './network.js';
import {
  COLD_ADDRESS,
  CONFIRMATIONS,
  HOLD_UNMINED_SECONDS,
  MAX_TIP_AGE_SECONDS,
  noBatching,
  SCAN_SECONDS,
  urlVariable,
} from './variables.js';

/** A Monero chain: the nettype its addresses carry (regtest uses mainnet's). */
export interface MoneroChainParams extends ChainParams {
  addressNettype: 'mainnet';
}

const monero: AddressFormat = {
  label: 'Monero',
  format: 'XMR',
  check(address) {
    try {
      decodeMoneroAddress(address);
      return undefined;
    } catch (err) {
      if (err instanceof MoneroAddressError) return err.message;
      throw err;
    }
  },
  sandboxAddress(seed) {
    const signed = concatBytes(Uint8Array.of(MONERO_ADDRESS_TAGS.standard), moneroPublicKey(seed, 'spend'), moneroPublicKey(seed, 'view'));
    return base58xmr.encode(concatBytes(signed, keccak256(signed).subarray(0, 4)));
  },
  sandboxTxHash: (seed) => hex.encode(seed),
};

// As Zano's sandbox keys (networks/zano.ts): a point of the prime-order subgroup, as real keys are.
function moneroPublicKey(seed: Uint8Array, role: string): Uint8Array {
  const key = new Uint8Array(32);
  sodium.crypto_core_ed25519_from_uniform(key, keccak256(utf8ToBytes(`monero-sandbox-${role}`), seed));
  return key;
}

/** The variables of a Monero network (docs/production.md#monero). */
export const MONERO_FAMILY: ProductionFamily = {
  family: 'monero',
  software: 'monero-wallet-rpc: a view-only wallet and an offline signer',
  variables: [
    urlVariable('RPC_URL', 'the RPC URL of the {NET} view-only wallet (monero-wallet-rpc), e.g. http://127.0.0.1:18088/json_rpc'),
    urlVariable('SIGNER_RPC_URL', 'the RPC URL of the {NET} signer wallet (holds the spend key, only signs; may run --offline)'),
    CONFIRMATIONS,
    MAX_TIP_AGE_SECONDS,
    SCAN_SECONDS,
    COLD_ADDRESS,
    HOLD_UNMINED_SECONDS,
  ],
  refused: noBatching('monero'),
};

/** Monero. */
export const XMR: NetworkFacts = {
  id: 'XMR',
  code: 'XMR',
  name: 'Monero',
  nativeCoin: 'XMR',
  address: monero,
  senderKnown: false,
  // Received outputs lock for 10 blocks anyway: a deposit is credited when it could be spent.
  confirmations: 10,
  blockSeconds: 120,
  chains: {
    main: { name: 'XMR mainnet', addressNettype: 'mainnet' } as MoneroChainParams,
    regtest: { name: 'XMR regtest', addressNettype: 'mainnet' } as MoneroChainParams,
  },
  // Binance and Coinbase list no XMR market: Bitfinex is the second source.
  markets: { kraken: 'XXMRZUSD', bitfinex: 'tXMRUSD' },
  production: { kind: 'family', family: MONERO_FAMILY },
};
