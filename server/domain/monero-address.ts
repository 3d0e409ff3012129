/**
 * Monero addresses: the CryptoNote block-base58 text `varint(tag) || spend key || view key [|| payment id] ||
 * keccak256(...)[0..4]`, decoded into its kind, keys and payment id with the checks Monero's wallet makes
 * (monero-project/monero `cryptonote_basic_impl.cpp` get_account_address_from_str), so a partner hears about a
 * mistyped address before a payout is sent to it. Mainnet tags only: `monerod --regtest` and its wallets use
 * them too (a testnet or stagenet address is refused by name).
 */
import { concatBytes } from '@noble/hashes/utils.js';
import { base58xmr } from '@scure/base';
import { keccak256 } from './keccak.js';
import { isZanoPublicKey } from './zano-address.js';

/** Mainnet tags (cryptonote_config.h): `4...` standard and integrated, `8...` subaddress. */
export const MONERO_ADDRESS_TAGS = { standard: 18, integrated: 19, subaddress: 42 } as const;
// Other networks' tags, refused by name: testnet (53, 54, 63) and stagenet (24, 25, 36).
const OTHER_NETWORKS: Record<number, string> = {
  53: 'testnet',
  54: 'testnet',
  63: 'testnet',
  24: 'stagenet',
  25: 'stagenet',
  36: 'stagenet',
};

/** What a Monero address carries. */
export interface MoneroAddress {
  kind: 'standard' | 'integrated' | 'subaddress';
  spendPublicKey: Uint8Array;
  viewPublicKey: Uint8Array;
  /** Integrated addresses only: the 8-byte payment id. */
  paymentId?: Uint8Array;
}

/** A text that is not a usable Monero address; the message says what is wrong in words a partner can act on. */
export class MoneroAddressError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MoneroAddressError';
  }
}

const KEYS_BYTES = 64;
const PAYMENT_ID_BYTES = 8;
const CHECKSUM_BYTES = 4;
/** Standard and subaddress: 95 characters; integrated: 106. */
const LENGTHS = new Set([95, 106]);
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]+$/;

/** Decodes a Monero mainnet address; throws MoneroAddressError naming the problem. */
export function decodeMoneroAddress(address: string): MoneroAddress {
  if (typeof address !== 'string' || address.length === 0) throw new MoneroAddressError('the address is empty');
  if (!BASE58.test(address)) throw new MoneroAddressError('it contains a character that is not base58');
  if (!LENGTHS.has(address.length)) {
    throw new MoneroAddressError(`it is ${address.length} characters long; a Monero address has 95 (106 integrated)`);
  }
  let bytes: Uint8Array;
  try {
    bytes = base58xmr.decode(address);
  } catch {
    throw new MoneroAddressError('it is not valid CryptoNote base58: characters are probably missing, added or mistyped');
  }
  const signed = bytes.subarray(0, bytes.length - CHECKSUM_BYTES);
  const checksum = keccak256(signed).subarray(0, CHECKSUM_BYTES);
  if (!checksum.every((byte, i) => byte === bytes[bytes.length - CHECKSUM_BYTES + i])) {
    throw new MoneroAddressError('the checksum does not match: a character is probably mistyped');
  }
  // Every tag Monero uses fits one varint byte.
  const tag = signed[0];
  if (tag >= 0x80) throw new MoneroAddressError('its address tag is not a Monero one');
  const body = signed.subarray(1);
  if (OTHER_NETWORKS[tag]) throw new MoneroAddressError(`it is a Monero ${OTHER_NETWORKS[tag]} address; give a mainnet one`);
  const kind =
    tag === MONERO_ADDRESS_TAGS.standard
      ? 'standard'
      : tag === MONERO_ADDRESS_TAGS.integrated
        ? 'integrated'
        : tag === MONERO_ADDRESS_TAGS.subaddress
          ? 'subaddress'
          : undefined;
  if (!kind) throw new MoneroAddressError(`its tag ${tag} is not a Monero mainnet address type`);
  const expected = kind === 'integrated' ? KEYS_BYTES + PAYMENT_ID_BYTES : KEYS_BYTES;
  if (body.length !== expected) throw new MoneroAddressError(`a ${kind} address carries ${expected} bytes, this one ${body.length}`);
  const spendPublicKey = body.slice(0, 32);
  const viewPublicKey = body.slice(32, KEYS_BYTES);
  if (!isZanoPublicKey(spendPublicKey)) throw new MoneroAddressError('its spend public key is not a valid Ed25519 point');
  if (!isZanoPublicKey(viewPublicKey)) throw new MoneroAddressError('its view public key is not a valid Ed25519 point');
  return { kind, spendPublicKey, viewPublicKey, ...(kind === 'integrated' ? { paymentId: body.slice(KEYS_BYTES) } : {}) };
}

/** The integrated address of standard address `address` with the 8-byte payment id `paymentId` (hex), as the wallet builds it. */
export function moneroIntegratedAddress(address: string, paymentId: string): string {
  const decoded = decodeMoneroAddress(address);
  if (decoded.kind !== 'standard')
    throw new MoneroAddressError(`an integrated address is built on a standard address, not a ${decoded.kind} one`);
  const pid = Buffer.from(paymentId, 'hex');
  if (pid.length !== PAYMENT_ID_BYTES) throw new MoneroAddressError(`a payment id is ${PAYMENT_ID_BYTES} bytes`);
  const signed = concatBytes(Uint8Array.of(MONERO_ADDRESS_TAGS.integrated), decoded.spendPublicKey, decoded.viewPublicKey, pid);
  return base58xmr.encode(concatBytes(signed, keccak256(signed).subarray(0, CHECKSUM_BYTES)));
}
