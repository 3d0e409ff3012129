/**
 * TON: the user-friendly form, base64 or base64url of flags + workchain + 32-byte hash + CRC16-XMODEM, or the
 * raw `wc:hex`; a comment tells the accounts of a shared address apart. Served by the sandbox only.
 */
import { concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { base64, base64url, hex } from '@scure/base';
import { MISTYPED } from './address-text.js';
import type { AddressFormat, MemoRule, NetworkFacts } from './network.js';

const MAX_TON_COMMENT_BYTES = 120;
const CONTROL_OR_LONE_SURROGATE = /[\p{Cc}\p{Cs}]/u;

const TON_BOUNCEABLE = 0x11;
const TON_NON_BOUNCEABLE = 0x51;
const TON_TEST_ONLY = 0x80;
const TON_FRIENDLY_CHARS = 48;

const ton: AddressFormat = {
  label: 'TON',
  format: 'TON',
  check(address) {
    if (address.includes(':')) {
      return /^(0|-1):[0-9a-fA-F]{64}$/.test(address) ? undefined : 'a raw address is 0: or -1: followed by 64 hex digits';
    }
    if (address.length !== TON_FRIENDLY_CHARS) return `it is ${address.length} characters long; a TON address has ${TON_FRIENDLY_CHARS}`;
    if (!/^[A-Za-z0-9+/_-]+$/.test(address)) return 'it contains a character that is not base64';
    if (/[+/]/.test(address) && /[_-]/.test(address)) return 'it mixes the base64 and base64url alphabets';
    let bytes: Uint8Array;
    try {
      bytes = (/[_-]/.test(address) ? base64url : base64).decode(address);
    } catch {
      return 'it is not valid base64';
    }
    if (crc16Xmodem(bytes.subarray(0, 34)) !== ((bytes[34] << 8) | bytes[35])) return MISTYPED;
    if (bytes[0] & TON_TEST_ONLY) return 'it is a testnet-only address; only mainnet addresses are accepted';
    if (bytes[0] !== TON_BOUNCEABLE && bytes[0] !== TON_NON_BOUNCEABLE) return 'its flags byte is not a TON address tag';
    if (bytes[1] !== 0x00 && bytes[1] !== 0xff) return `its workchain ${bytes[1]} does not exist (0 or -1)`;
    return undefined;
  },
  // Non-bounceable (UQ...): the form TON wallets show for receiving.
  sandboxAddress(seed) {
    const body = concatBytes(Uint8Array.of(TON_NON_BOUNCEABLE, 0x00), seed);
    const crc = crc16Xmodem(body);
    return base64url.encode(concatBytes(body, Uint8Array.of(crc >> 8, crc & 0xff)));
  },
  sandboxTxHash: (seed) => hex.encode(seed),
};

/** CRC-16/XMODEM (polynomial 0x1021, initial value 0), as TEP-2 specifies for user-friendly addresses. */
function crc16Xmodem(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** The comment of a TON transfer. */
const comment: MemoRule = {
  name: 'Comment',
  check: (memo: string) => {
    if (CONTROL_OR_LONE_SURROGATE.test(memo)) return 'must not contain control characters';
    const bytes = utf8ToBytes(memo).length;
    return bytes <= MAX_TON_COMMENT_BYTES ? undefined : `must be at most ${MAX_TON_COMMENT_BYTES} bytes of UTF-8, not ${bytes}`;
  },
  sandbox: (seed: Uint8Array) => `sandbox-${hex.encode(seed.subarray(0, 8))}`,
};

/** TON. */
export const TON: NetworkFacts = {
  id: 'TON',
  code: 'TON',
  name: 'TON',
  nativeCoin: 'TON',
  address: ton,
  memo: comment,
  senderKnown: true,
  confirmations: 1,
  blockSeconds: 5,
  chains: { main: { name: 'TON main' } },
  markets: { kraken: 'TONUSD', binance: 'TONUSDT' },
  production: {
    kind: 'sandbox-only',
    why: 'no TON adapter exists yet (a toncenter or lite-server client, jettons, comments)',
  },
};
