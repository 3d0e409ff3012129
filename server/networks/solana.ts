/** Solana (SOL): base58 of a 32-byte public key, with no checksum. Served by the sandbox only. */
import { sha512 } from '@noble/hashes/sha2.js';
import { base58 } from '@scure/base';
import { base58Problem } from './address-text.js';
import type { AddressFormat, NetworkFacts } from './network.js';

// There is no checksum, so a mistyped character cannot be detected.
const solana: AddressFormat = {
  label: 'Solana',
  format: 'SOL',
  check(address) {
    const alphabet = base58Problem(address);
    if (alphabet) return alphabet;
    if (address.length > 44) return `it is ${address.length} characters long; a Solana address has at most 44`;
    const bytes = base58.decode(address);
    return bytes.length === 32 ? undefined : `it decodes to ${bytes.length} bytes; a Solana address has 32`;
  },
  sandboxAddress: (seed) => base58.encode(seed),
  // A transaction is named by its first signature: 64 bytes.
  sandboxTxHash: (seed) => base58.encode(sha512(seed)),
};

/** Solana. */
export const SOL: NetworkFacts = {
  id: 'SOL',
  code: 'SPL',
  name: 'Solana',
  nativeCoin: 'SOL',
  address: solana,
  senderKnown: true,
  confirmations: 32,
  blockSeconds: 1,
  chains: { main: { name: 'SOL main' } },
  markets: { kraken: 'SOLUSD', binance: 'SOLUSDT', coinbase: 'SOL-USD' },
  production: {
    kind: 'sandbox-only',
    why: 'no Solana adapter exists yet (an RPC client, SPL token accounts)',
  },
};
