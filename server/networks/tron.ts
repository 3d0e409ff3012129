/** Tron (TRX): base58check of 0x41 + a 20-byte account id. Served by the sandbox only. */
import { concatBytes } from '@noble/hashes/utils.js';
import { base58, hex } from '@scure/base';
import { base58check, base58Problem, MISTYPED } from './address-text.js';
import type { AddressFormat, NetworkFacts } from './network.js';

const TRON_VERSION = 0x41;

const tron: AddressFormat = {
  label: 'Tron',
  format: 'TRX',
  check(address) {
    if (/^41[0-9a-fA-F]{40}$/.test(address)) return 'it is the hex form; give the base58 form that starts with T';
    const alphabet = base58Problem(address);
    if (alphabet) return alphabet;
    const raw = base58.decode(address);
    if (raw.length !== 25) return `it decodes to ${raw.length} bytes; a Tron address has 25`;
    let payload: Uint8Array;
    try {
      payload = base58check.decode(address);
    } catch {
      return MISTYPED;
    }
    return payload[0] === TRON_VERSION ? undefined : 'its version byte is not 0x41 (Tron addresses start with T)';
  },
  sandboxAddress: (seed) => base58check.encode(concatBytes(Uint8Array.of(TRON_VERSION), seed.subarray(0, 20))),
  sandboxTxHash: (seed) => hex.encode(seed),
};

/** Tron. */
export const TRX: NetworkFacts = {
  id: 'TRX',
  code: 'TRC20',
  name: 'Tron',
  nativeCoin: 'TRX',
  address: tron,
  senderKnown: true,
  confirmations: 19,
  blockSeconds: 3,
  chains: { main: { name: 'TRX main' } },
  markets: { kraken: 'TRXUSD', binance: 'TRXUSDT' },
  production: {
    kind: 'sandbox-only',
    why: 'no Tron adapter exists yet (a TronGrid or java-tron client, TRC-20 transfers and energy)',
  },
};
