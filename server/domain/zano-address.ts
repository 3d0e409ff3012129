/**
 * Zano addresses (docs/architecture.md#routes-and-the-wallet-proof): the CryptoNote block-base58 text `varint(tag) || body || keccak256(...)[0..4]`
 * decoded into its tag, keys, payment id and flags, with the same checks Zano's daemon makes
 * (hyle-team/zano `currency_format_utils.cpp` get_account_address_and_payment_id_from_str), so a partner
 * hears about a mistyped or unusable address before a payout is sent to it.
 */
import { concatBytes } from '@noble/hashes/utils.js';
import { base58xmr } from '@scure/base';
import { keccak256 } from './keccak.js';

/** Address tags (varint prefixes) from Zano's `currency_config.h`; each comment names the form's first characters. */
export const ZANO_ADDRESS_TAGS = {
  /** `Zx...`: keys, optionally followed by a flags byte. */
  standard: 0xc5,
  /** `iZ...`: keys without flags, then the payment id. */
  integrated: 0x3678,
  /** `iZ...`: keys and flags, then the payment id. */
  integratedV2: 0x36f8,
  /** `aZx...`: keys and flags. */
  auditable: 0x98c8,
  /** `aiZX...`: keys and flags, then the payment id. */
  auditableIntegrated: 0x8a49,
  /** `gwZ...`: a gateway id, no spend key. */
  gateway: 0x656e,
  /** `gwiZ...`: a gateway id with a payment id, no spend key. */
  integratedGateway: 0x14276e,
} as const;

/** What a Zano address carries. */
export interface ZanoAddress {
  tag: number;
  kind: 'standard' | 'integrated' | 'auditable' | 'auditable_integrated';
  /** The key a wallet proof (docs/architecture.md#routes-and-the-wallet-proof) must be signed with. */
  spendPublicKey: Uint8Array;
  viewPublicKey: Uint8Array;
  /** Only integrated addresses carry one: the bytes after the keys (and flags). */
  paymentId?: Uint8Array;
  /** Only the newer layouts carry it; bit 0x01 marks an auditable account. */
  flags?: number;
}

/** A text that is not a usable Zano address; the message says what is wrong in words a partner can act on. */
export class ZanoAddressError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ZanoAddressError';
  }
}

const KEY_BYTES = 32;
const KEYS_BYTES = 2 * KEY_BYTES;
const FLAGS_BYTES = 1;
const CHECKSUM_BYTES = 4;
/** Zano's BC_PAYMENT_ID_SERVICE_SIZE_MAX. */
const MAX_PAYMENT_ID_BYTES = 128;
/** varint(3 bytes) + keys + flags + the longest payment id + checksum is 200 bytes: 25 blocks of 11 characters. */
const MAX_ADDRESS_CHARS = 275;
const BASE58_CHARACTER = /^[1-9A-HJ-NP-Za-km-z]$/;

/** Decodes a Zano mainnet address; throws ZanoAddressError naming the problem when it is not one a wallet can receive on. */
export function decodeZanoAddress(address: string): ZanoAddress {
  if (typeof address !== 'string' || address.length === 0) throw new ZanoAddressError('the address is empty');
  if (address.length > MAX_ADDRESS_CHARS) {
    throw new ZanoAddressError(`the address is ${address.length} characters long; no Zano address is longer than ${MAX_ADDRESS_CHARS}`);
  }
  const stray = [...address].find((ch) => !BASE58_CHARACTER.test(ch));
  if (stray !== undefined) throw new ZanoAddressError(`it contains ${JSON.stringify(stray)}, which is not a base58 character`);

  let bytes: Uint8Array;
  try {
    bytes = base58xmr.decode(address);
  } catch {
    // Block base58 fixes which lengths and block values exist: a copy with characters lost, added or changed.
    throw new ZanoAddressError(
      'it is not valid CryptoNote base58 (a block has an impossible length or value): characters are probably missing, added or mistyped',
    );
  }
  if (bytes.length <= CHECKSUM_BYTES + 1) throw new ZanoAddressError('it is too short to be a Zano address');

  const signed = bytes.subarray(0, bytes.length - CHECKSUM_BYTES);
  const expected = keccak256(signed).subarray(0, CHECKSUM_BYTES);
  if (!bytesEqual(expected, bytes.subarray(bytes.length - CHECKSUM_BYTES))) {
    throw new ZanoAddressError('the checksum does not match: a character is probably mistyped');
  }

  const { value: tag, length: tagLength } = readVarint(signed);
  const body = signed.subarray(tagLength);
  switch (tag) {
    case ZANO_ADDRESS_TAGS.gateway:
    case ZANO_ADDRESS_TAGS.integratedGateway:
      throw new ZanoAddressError(
        'it is a gateway address (gwZ...), which has no spend key and cannot prove ownership; give a regular Zano wallet address',
      );
    case ZANO_ADDRESS_TAGS.standard:
      if (body.length === KEYS_BYTES) return withKeys(tag, 'standard', body);
      if (body.length === KEYS_BYTES + FLAGS_BYTES) return withKeys(tag, 'standard', body, body[KEYS_BYTES]);
      throw new ZanoAddressError(`a standard address carries ${KEYS_BYTES} or ${KEYS_BYTES + FLAGS_BYTES} bytes, this one ${body.length}`);
    case ZANO_ADDRESS_TAGS.auditable:
      if (body.length === KEYS_BYTES + FLAGS_BYTES) return withKeys(tag, 'auditable', body, body[KEYS_BYTES]);
      throw new ZanoAddressError(`an auditable address carries ${KEYS_BYTES + FLAGS_BYTES} bytes, this one ${body.length}`);
    case ZANO_ADDRESS_TAGS.integrated:
      return withKeys(tag, 'integrated', body, undefined, paymentIdOf(body.subarray(KEYS_BYTES)));
    case ZANO_ADDRESS_TAGS.integratedV2:
    case ZANO_ADDRESS_TAGS.auditableIntegrated: {
      const kind = tag === ZANO_ADDRESS_TAGS.integratedV2 ? 'integrated' : 'auditable_integrated';
      if (body.length < KEYS_BYTES + FLAGS_BYTES) throw new ZanoAddressError(`an integrated address is too short for its keys`);
      return withKeys(tag, kind, body, body[KEYS_BYTES], paymentIdOf(body.subarray(KEYS_BYTES + FLAGS_BYTES)));
    }
    default:
      throw new ZanoAddressError(`its tag 0x${tag.toString(16)} is not a Zano mainnet address type`);
  }
}

/** Builds the address text for a tag and body; the inverse of decodeZanoAddress, used for sandbox addresses and test vectors. */
export function encodeZanoAddress(tag: number, body: Uint8Array): string {
  const signed = concatBytes(writeVarint(tag), body);
  return base58xmr.encode(concatBytes(signed, keccak256(signed).subarray(0, CHECKSUM_BYTES)));
}

/** Whether 32 bytes are a public key Zano's `check_key` accepts: a canonical encoding of a point on Ed25519. */
export function isZanoPublicKey(key: Uint8Array): boolean {
  if (key.length !== KEY_BYTES) return false;
  const sign = key[31] >> 7;
  let y = 0n;
  for (let i = KEY_BYTES - 1; i >= 0; i--) y = (y << 8n) | BigInt(i === 31 ? key[i] & 0x7f : key[i]);
  if (y >= FIELD_PRIME) return false;
  const y2 = (y * y) % FIELD_PRIME;
  const u = (y2 - 1n + FIELD_PRIME) % FIELD_PRIME;
  const v = (CURVE_D * y2 + 1n) % FIELD_PRIME;
  // x = 0 (y = ±1) has no negative form, so Zano refuses it with the sign bit set.
  if (u === 0n) return sign === 0;
  // x^2 = u / v must be a square. v is never 0 (-1/d is not a square), and u / v = u * v * (1 / v)^2 is a
  // square exactly when u * v is, so the Legendre symbol of u * v decides it, with no inversion.
  return legendre((u * v) % FIELD_PRIME) === 1;
}

// Ed25519's field and curve constant; only membership is checked here, so no curve library is needed.
const FIELD_PRIME = 2n ** 255n - 19n;
const CURVE_D = 37095705934669439343138083508754565189542113879843219016388785533085940283555n;

/**
 * The Legendre symbol (a / p) for the field prime p: 1 when a is a non-zero square, -1 when it is not, 0 for
 * a = 0. Computed as the Jacobi symbol (equal to it for a prime modulus) by quadratic reciprocity: shifts and
 * remainders of shrinking numbers, several times faster in bigints than Euler's criterion a^((p-1)/2), which
 * takes some 500 multiplications of 255-bit numbers.
 */
function legendre(value: bigint): 1 | -1 | 0 {
  let a = value % FIELD_PRIME;
  let n = FIELD_PRIME;
  let sign: 1 | -1 = 1;
  while (a !== 0n) {
    // (2 / n) = -1 exactly when n is 3 or 5 mod 8.
    while ((a & 1n) === 0n) {
      a >>= 1n;
      const r = n & 7n;
      if (r === 3n || r === 5n) sign = sign === 1 ? -1 : 1;
    }
    // Reciprocity for odd a, n: (a / n) = (n / a), negated when both are 3 mod 4.
    [a, n] = [n, a];
    if ((a & 3n) === 3n && (n & 3n) === 3n) sign = sign === 1 ? -1 : 1;
    a %= n;
  }
  return n === 1n ? sign : 0;
}

function withKeys(tag: number, kind: ZanoAddress['kind'], body: Uint8Array, flags?: number, paymentId?: Uint8Array): ZanoAddress {
  const spendPublicKey = body.slice(0, KEY_BYTES);
  const viewPublicKey = body.slice(KEY_BYTES, KEYS_BYTES);
  if (!isZanoPublicKey(spendPublicKey)) throw new ZanoAddressError('its spend public key is not a valid Ed25519 point');
  if (!isZanoPublicKey(viewPublicKey)) throw new ZanoAddressError('its view public key is not a valid Ed25519 point');
  return {
    tag,
    kind,
    spendPublicKey,
    viewPublicKey,
    ...(paymentId === undefined ? {} : { paymentId }),
    ...(flags === undefined ? {} : { flags }),
  };
}

// Zano's daemon would take an empty payment id, but no wallet writes one: an integrated address without it is damaged.
function paymentIdOf(bytes: Uint8Array): Uint8Array {
  if (bytes.length === 0) throw new ZanoAddressError('it is an integrated address without a payment id');
  if (bytes.length > MAX_PAYMENT_ID_BYTES) {
    throw new ZanoAddressError(`its payment id is ${bytes.length} bytes; Zano allows at most ${MAX_PAYMENT_ID_BYTES}`);
  }
  return bytes.slice();
}

// Tags are at most 3 varint bytes; a longer or non-minimal varint is no tag Zano writes.
function readVarint(bytes: Uint8Array): { value: number; length: number } {
  let value = 0;
  for (let i = 0; i < Math.min(bytes.length, 4); i++) {
    value += (bytes[i] & 0x7f) * 2 ** (7 * i);
    if ((bytes[i] & 0x80) === 0) {
      if (i > 0 && bytes[i] === 0) break;
      return { value, length: i + 1 };
    }
  }
  throw new ZanoAddressError('its address tag is malformed');
}

function writeVarint(value: number): Uint8Array {
  const out: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    out.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
  return Uint8Array.from(out);
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
