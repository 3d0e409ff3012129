/**
 * The XRP Ledger (XRP): classic addresses, base58check in the XRP alphabet of 0x00 + a 20-byte account id; a
 * destination tag tells the accounts of a shared address apart. Served by the sandbox only.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes } from '@noble/hashes/utils.js';
import { base58xrp, hex } from '@scure/base';
import { bytesEqual, MISTYPED } from './address-text.js';
import type { AddressFormat, MemoRule, NetworkFacts } from './network.js';

const XRP_ALPHABET = 'rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz';
const MAX_DESTINATION_TAG = 4294967295;

const XRP_ACCOUNT_VERSION = 0x00;

const xrp: AddressFormat = {
  label: 'XRP Ledger',
  format: 'XRP',
  check(address) {
    if (/^[XT]/.test(address) && address.length === 47) {
      return 'X-addresses are not accepted; give the classic address (starting with r) and put the destination tag in the memo';
    }
    const stray = [...address].find((ch) => !XRP_ALPHABET.includes(ch));
    if (stray !== undefined) return `it contains ${JSON.stringify(stray)}, which the XRP alphabet does not use`;
    if (!address.startsWith('r')) return 'a classic XRP Ledger address starts with r';
    const raw = base58xrp.decode(address);
    if (raw.length !== 25) return `it decodes to ${raw.length} bytes; an XRP Ledger address has 25`;
    const payload = raw.subarray(0, 21);
    if (!bytesEqual(doubleSha256Checksum(payload), raw.subarray(21))) return MISTYPED;
    return payload[0] === XRP_ACCOUNT_VERSION ? undefined : 'it is not an account address';
  },
  sandboxAddress(seed) {
    const payload = concatBytes(Uint8Array.of(XRP_ACCOUNT_VERSION), seed.subarray(0, 20));
    return base58xrp.encode(concatBytes(payload, doubleSha256Checksum(payload)));
  },
  sandboxTxHash: (seed) => hex.encode(seed).toUpperCase(),
};

function doubleSha256Checksum(payload: Uint8Array): Uint8Array {
  return sha256(sha256(payload)).subarray(0, 4);
}

/** The destination tag: the ledger stores a UInt32. */
const destinationTag: MemoRule = {
  name: 'Destination tag',
  // Leading zeros or a sign would be read differently by different wallets.
  check: (memo: string) =>
    /^(0|[1-9]\d{0,9})$/.test(memo) && Number(memo) <= MAX_DESTINATION_TAG
      ? undefined
      : `must be a whole number from 0 to ${MAX_DESTINATION_TAG}, without sign, spaces or leading zeros`,
  sandbox: (seed: Uint8Array) => String(new DataView(seed.buffer, seed.byteOffset, 4).getUint32(0)),
};

/** The XRP Ledger. */
export const XRP: NetworkFacts = {
  id: 'XRP',
  code: 'XRP',
  name: 'XRP Ledger',
  nativeCoin: 'XRP',
  address: xrp,
  memo: destinationTag,
  senderKnown: true,
  confirmations: 1,
  blockSeconds: 4,
  chains: { main: { name: 'XRP main' } },
  markets: { kraken: 'XXRPZUSD', binance: 'XRPUSDT', coinbase: 'XRP-USD' },
  production: {
    kind: 'sandbox-only',
    why: 'no XRP Ledger adapter exists yet (a rippled client, destination tags)',
  },
};
