/**
 * Zano: CryptoNote addresses (domain/zano-address.ts); a payment's sender is not shown (a wallet's
 * remote_addresses is only what the sender chose to show); production over the Zano wallet JSON-RPC, a
 * watch-only wallet and a signer wallet (adapters/zano/), serving ZANO and the fUSD asset.
 */
import { concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { hex } from '@scure/base';
import sodium from 'sodium-native';
import { keccak256 } from '../domain/keccak.js';
import { decodeZanoAddress, encodeZanoAddress, ZANO_ADDRESS_TAGS, ZanoAddressError } from '../domain/zano-address.js';
import type { AddressFormat, NetworkFacts, ProductionFamily } from './network.js';
import { COLD_ADDRESS, CONFIRMATIONS, MAX_TIP_AGE_SECONDS, noBatching, SCAN_SECONDS, urlVariable } from './variables.js';

const zano: AddressFormat = {
  label: 'Zano',
  format: 'ZANO',
  check(address) {
    try {
      decodeZanoAddress(address);
      return undefined;
    } catch (err) {
      if (err instanceof ZanoAddressError) return err.message;
      throw err;
    }
  },
  sandboxAddress: (seed) =>
    encodeZanoAddress(ZANO_ADDRESS_TAGS.standard, concatBytes(zanoPublicKey(seed, 'spend'), zanoPublicKey(seed, 'view'))),
  sandboxTxHash: (seed) => hex.encode(seed),
};

// libsodium maps a hash of the seed to a point of the prime-order subgroup (Elligator 2), as real keys are,
// in one step: searching hashes for a valid encoding took several square-root tests and most of an address.
function zanoPublicKey(seed: Uint8Array, role: string): Uint8Array {
  const key = new Uint8Array(32);
  sodium.crypto_core_ed25519_from_uniform(key, keccak256(utf8ToBytes(`zano-sandbox-${role}`), seed));
  return key;
}

/** The variables of a Zano network. */
export const ZANO_FAMILY: ProductionFamily = {
  family: 'zano',
  software: 'the Zano wallet JSON-RPC (simplewallet), watch-only and signer',
  variables: [
    urlVariable('RPC_URL', 'the RPC URL of the {NET} watch-only wallet, e.g. http://127.0.0.1:11212/json_rpc'),
    urlVariable('SIGNER_RPC_URL', 'the RPC URL of the {NET} wallet that signs payouts'),
    {
      suffix: 'FUSD_ASSET_ID',
      meaning: 'the fUSD asset id, when not the documented one',
      check: (value, name) =>
        /^[0-9a-f]{64}$/.test(value) ? undefined : `${name}=${JSON.stringify(value)} must be an asset id: 64 lowercase hex digits`,
    },
    CONFIRMATIONS,
    MAX_TIP_AGE_SECONDS,
    SCAN_SECONDS,
    COLD_ADDRESS,
  ],
  refused: noBatching('zano'),
  servedAssets: ['fUSD'],
};

/** Zano. */
export const ZANO: NetworkFacts = {
  id: 'ZANO',
  code: 'ZANO',
  name: 'Zano',
  nativeCoin: 'ZANO',
  address: zano,
  senderKnown: false,
  confirmations: 10,
  blockSeconds: 60,
  chains: { main: { name: 'ZANO main' } },
  // On none of the providers: production prices ZANO and fUSD by RATES_PEGGED or not at all.
  markets: {},
  production: { kind: 'family', family: ZANO_FAMILY },
};
