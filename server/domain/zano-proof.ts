/**
 * Zano wallet proofs (docs/architecture.md#routes-and-the-wallet-proof): the CryptoNote signature a Zano wallet's `sign_message` makes with
 * its spend key, checked the way Zano's daemon checks it (hyle-team/zano `crypto.cpp` check_signature,
 * `core_rpc_server.cpp` validate_signature), plus the matching signer for tests, the SDK and the docs.
 *
 * A signature is `c || r`, two 32-byte little-endian scalars below the group order l. Over a 32-byte hash h it
 * is valid for public key P when `keccak256(h || P || (r*G + c*P)) mod l == c`. Wallets since Zano 2.2.0.486
 * sign `h = keccak256(HDS || keccak256(message))` ("v2"); older ones sign `h = keccak256(message)` ("legacy").
 * Both are accepted, v2 tried first. keccak256 is the original Keccak-256, not SHA3-256.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToHex, concatBytes, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import sodium from 'sodium-native';
import { keccak256 } from './keccak.js';
import { decodeZanoAddress } from './zano-address.js';

/** Which hash a wallet signed: `v2` (domain-separated, Zano 2.2.0.486 and later) or `legacy` (older wallets). */
export type ZanoProofFormat = 'v2' | 'legacy';

/** A wallet proof as a route request carries it: all hex is accepted in upper or lower case. */
export interface ZanoProof {
  /** The Zano address the proof is for (any type but gateway). */
  address: string;
  /** The exact text the wallet signed (the challenge text). */
  message: string;
  /** The wallet's spend public key, 64 hex characters (`pkey` of `sign_message`). */
  publicKey: string;
  /** `c || r`, 128 hex characters (`sig` of `sign_message`). */
  signature: string;
}

/** The verdict on a proof: which format verified, or in words what is wrong. */
export type ZanoProofResult = { ok: true; format: ZanoProofFormat } | { ok: false; reason: string };

/** Zano's CRYPTO_HDS_WALLET_GENERIC_SIGN_WITH_SPK, NUL-padded to 32 bytes: the v2 hash prefix. */
export const ZANO_SIGN_HDS: Uint8Array = (() => {
  const hds = new Uint8Array(32);
  hds.set(utf8ToBytes('ZANO_HDS_WALLET_GENERIC_SIGN_SP'));
  return hds;
})();

const Point = ed25519.Point;
/** The order l of Ed25519's prime-order subgroup. */
const L = Point.Fn.ORDER;
const SCALAR_BYTES = 32;
/** An encoded Ed25519 point (a public key, a commitment). */
const POINT_BYTES = 32;
const PUBLIC_KEY_HEX_CHARS = 2 * POINT_BYTES;
const SIGNATURE_HEX_CHARS = 4 * SCALAR_BYTES;

/** Options of verifyZanoProof. */
export interface ZanoProofOptions {
  /** The formats accepted, tried in this order; default both, v2 first, as Zano's daemon does. */
  formats?: readonly ZanoProofFormat[];
}

/** Checks a wallet proof for an address (docs/architecture.md#routes-and-the-wallet-proof); never throws, a refusal says what is wrong. */
export function verifyZanoProof(proof: ZanoProof, { formats = ['v2', 'legacy'] }: ZanoProofOptions = {}): ZanoProofResult {
  const { address, message, publicKey, signature } = (proof ?? {}) as Partial<ZanoProof>;
  for (const [name, value] of Object.entries({ address, message, publicKey, signature })) {
    if (typeof value !== 'string') return refuse(`${name} must be a string`);
  }
  const text = message as string;

  let spendKey: Uint8Array;
  try {
    spendKey = decodeZanoAddress(address as string).spendPublicKey;
  } catch (error) {
    return refuse(`the address is not usable: ${error instanceof Error ? error.message : String(error)}`);
  }

  const pub = parseHex(publicKey as string, PUBLIC_KEY_HEX_CHARS);
  if (!pub) return refuse(`publicKey is malformed: expected ${PUBLIC_KEY_HEX_CHARS} hex characters`);
  if (!bytesEqual(pub, spendKey)) {
    return refuse("publicKey is not the address's spend public key: the message was signed by another wallet or account");
  }

  const sig = parseHex(signature as string, SIGNATURE_HEX_CHARS);
  if (!sig) return refuse(`signature is malformed: expected ${SIGNATURE_HEX_CHARS} hex characters (c || r)`);
  const c = scalarFromBytes(sig.subarray(0, SCALAR_BYTES));
  const r = scalarFromBytes(sig.subarray(SCALAR_BYTES));
  if (c >= L) return refuse('signature is not canonical: its scalar c is not below the group order l');
  if (r >= L) return refuse('signature is not canonical: its scalar r is not below the group order l');

  const R = commitment(r, c, pub);
  if (!R) return refuse('publicKey is not a canonical encoding of an Ed25519 point');
  for (const format of formats) {
    if (challengeScalar(zanoSignedHash(text, format), pub, R) === c) return { ok: true, format };
  }
  return refuse(`signature does not verify for this message and public key (as a ${formats.join(' or ')} Zano signature)`);
}

/** Signs a message as a Zano wallet does, with the nonce k handed in (32 bytes); for tests, the SDK and the docs. */
export function signZanoMessage(
  secretKey: Uint8Array,
  message: string,
  k: Uint8Array,
  format: ZanoProofFormat,
): { publicKey: string; signature: string } {
  const secret = secretScalar(secretKey, 'secretKey');
  const nonce = secretScalar(k, 'k');
  if (format !== 'v2' && format !== 'legacy') throw new TypeError(`format must be 'v2' or 'legacy', not ${String(format)}`);
  const pub = Point.BASE.multiply(secret).toBytes();
  const comm = Point.BASE.multiply(nonce).toBytes();
  const c = challengeScalar(zanoSignedHash(message, format), pub, comm);
  const r = mod(nonce - c * secret);
  return { publicKey: bytesToHex(pub), signature: bytesToHex(concatBytes(scalarToBytes(c), scalarToBytes(r))) };
}

/** A Zano public key as lowercase hex: secret * G, the secret a 32-byte little-endian scalar (no seed hashing). */
export function zanoPublicKey(secretKey: Uint8Array): string {
  return bytesToHex(Point.BASE.multiply(secretScalar(secretKey, 'secretKey')).toBytes());
}

/** The 32-byte hash a wallet signs for a message in a format. */
export function zanoSignedHash(message: string, format: ZanoProofFormat): Uint8Array {
  // TextEncoder never throws: a lone surrogate becomes U+FFFD, which can only fail verification.
  const dh = keccak256(new TextEncoder().encode(message));
  return format === 'v2' ? keccak256(ZANO_SIGN_HDS, dh) : dh;
}

/**
 * r*G + c*P, encoded: the commitment a signature (c, r) implies for the public key encoded as `pub`, or
 * undefined when `pub` is not a canonical encoding of a point (strict RFC 8032 decoding, as Zano's check_key:
 * no non-canonical y, no "negative zero" x).
 *
 * libsodium (native, through sodium-native) computes it in about a tenth of the time @noble/curves'
 * JavaScript takes (whose variable-base multiplication was most of a route request's CPU) and in about half
 * the time of libsodium's WebAssembly build, but only in the form libsodium allows: P in the prime-order
 * subgroup, neither scalar zero, c*P not the identity. It refuses anything else, which no wallet's key or
 * signature is but Zano's check_signature takes (it only decodes P); @noble/curves then computes the same
 * sum, so the proofs accepted are exactly Zano's either way. Public values only, so variable time is fine.
 */
function commitment(r: bigint, c: bigint, pub: Uint8Array): Uint8Array | undefined {
  try {
    const rG = new Uint8Array(POINT_BYTES);
    const cP = new Uint8Array(POINT_BYTES);
    const sum = new Uint8Array(POINT_BYTES);
    sodium.crypto_scalarmult_ed25519_base_noclamp(rG, scalarToBytes(r));
    sodium.crypto_scalarmult_ed25519_noclamp(cP, scalarToBytes(c), pub);
    sodium.crypto_core_ed25519_add(sum, rG, cP);
    return sum;
  } catch {
    let P: InstanceType<typeof Point>;
    try {
      P = Point.fromBytes(pub, false);
    } catch {
      return undefined;
    }
    return Point.BASE.multiplyUnsafe(r).add(P.multiplyUnsafe(c)).toBytes();
  }
}

// Zano's hash_to_scalar: Keccak-256 of h || pub || comm, read little-endian and reduced mod l (sc_reduce32).
function challengeScalar(h: Uint8Array, pub: Uint8Array, comm: Uint8Array): bigint {
  return mod(scalarFromBytes(keccak256(h, pub, comm)));
}

function secretScalar(bytes: Uint8Array, name: string): bigint {
  if (!(bytes instanceof Uint8Array) || bytes.length !== SCALAR_BYTES) throw new TypeError(`${name} must be ${SCALAR_BYTES} bytes`);
  const value = scalarFromBytes(bytes);
  if (value === 0n || value >= L) throw new RangeError(`${name} must be a little-endian scalar in [1, l)`);
  return value;
}

function parseHex(text: string, chars: number): Uint8Array | undefined {
  if (text.length !== chars || !/^[0-9a-fA-F]*$/.test(text)) return undefined;
  return hexToBytes(text.toLowerCase());
}

function scalarFromBytes(bytes: Uint8Array): bigint {
  let value = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[i]);
  return value;
}

function scalarToBytes(value: bigint): Uint8Array {
  const out = new Uint8Array(SCALAR_BYTES);
  let rest = value;
  for (let i = 0; i < SCALAR_BYTES; i++) {
    out[i] = Number(rest & 0xffn);
    rest >>= 8n;
  }
  return out;
}

function mod(value: bigint): bigint {
  const m = value % L;
  return m < 0n ? m + L : m;
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

function refuse(reason: string): ZanoProofResult {
  return { ok: false, reason };
}
