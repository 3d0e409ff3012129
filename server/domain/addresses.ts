/**
 * Payout and refund addresses and memos for every network of the catalogue, checked with each network's real
 * checksum so a mistyped address is refused before funds leave; and the sandbox's deposit addresses, memos and
 * transaction hashes in the same formats. Pure: the sandbox's randomness arrives as a seed.
 */
import { sha256, sha512 } from '@noble/hashes/sha2.js';
import { concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { base58, base58xrp, base64, base64url, bech32, bech32m, createBase58check, hex } from '@scure/base';
import sodium from 'sodium-native';
import type { CatalogAsset } from './catalog.js';
import { keccak256 } from './keccak.js';
import { decodeZanoAddress, encodeZanoAddress, ZANO_ADDRESS_TAGS, ZanoAddressError } from './zano-address.js';

/** Result of a check: ok, or a human-readable reason that tells a partner what is wrong. */
export type Check<T = void> = { ok: true; value: T } | { ok: false; reason: string };

/** Bytes of randomness each sandbox function expects, as a caller draws them (e.g. crypto.randomBytes). */
export const SANDBOX_SEED_BYTES = 32;

/**
 * The chain a network's addresses belong to: mainnet, unless production serves a Bitcoin-family network on its
 * test chain or regtest (`<NET>_CHAIN`), whose addresses carry other prefixes.
 */
export type AddressChain = 'main' | 'test' | 'regtest';

/** Validates a payout or refund address for a catalogue network; never throws, whatever the input. */
export function validateAddress(network: string, address: string, chain: AddressChain = 'main'): Check<string> {
  const format = chain === 'main' ? NETWORKS.get(network) : TEST_CHAIN_NETWORKS.get(`${network}:${chain}`);
  if (!format) {
    return NETWORKS.has(network)
      ? refuse(`${network} has no ${chain} chain here.`)
      : refuse(`Unknown network ${JSON.stringify(network)}; expected one of ${[...NETWORKS.keys()].join(', ')}.`);
  }
  const reason = firstProblem(format, address);
  if (reason === undefined) return { ok: true, value: address };
  // Naming the network the address does belong to turns "invalid" into an actionable mix-up.
  const elsewhere = [...(chain === 'main' ? NETWORKS : [])]
    .filter(([, other]) => other.format !== format.format && firstProblem(other, address) === undefined)
    .map(([id]) => id);
  const hint = elsewhere.length > 0 ? ` It is a valid ${elsewhere.join('/')} address: check the network.` : '';
  return refuse(`Not a valid ${format.label} address: ${reason}.${hint}`);
}

/** Validates the memo sent with a payout or refund of `asset`; empty, null and undefined all mean "no memo". */
export function validateMemo(asset: CatalogAsset, memo: string | undefined | null): Check<string | null> {
  if (memo === undefined || memo === null || memo === '') return { ok: true, value: null };
  if (typeof memo !== 'string') return refuse('A memo must be text.');
  if (!asset.memoNeeded) return refuse(`${asset.symbol} on ${asset.network} has no memo; leave the memo empty.`);
  const reason = memoRuleOf(asset).check(memo);
  return reason === undefined ? { ok: true, value: memo } : refuse(`${asset.memoName ?? 'Memo'} ${reason}.`);
}

/** A deposit address in the network's real format, derived from `seed` (same seed, same address); throws for an unknown network. */
export function sandboxAddress(network: string, seed: Uint8Array): string {
  return networkOf(network).sandboxAddress(checkedSeed(seed));
}

/** A memo in the network's form when `asset` needs one to tell deposits apart, else null. */
export function sandboxMemo(asset: CatalogAsset, seed: Uint8Array): string | null {
  return asset.memoNeeded ? memoRuleOf(asset).sandbox(checkedSeed(seed)) : null;
}

/** A transaction hash in the network's native notation (always [A-Za-z0-9], at most 128 characters); throws for an unknown network. */
export function sandboxTxHash(network: string, seed: Uint8Array): string {
  return networkOf(network).sandboxTxHash(checkedSeed(seed));
}

/** What the module knows about one network's addresses. */
interface NetworkFormat {
  /** The network's name in reasons. */
  label: string;
  /** Networks sharing a format accept each other's addresses (ETH and BSC), so neither is "the other network". */
  format: string;
  /** Why the address is refused, or undefined when it is accepted. */
  check(address: string): string | undefined;
  sandboxAddress(seed: Uint8Array): string;
  sandboxTxHash(seed: Uint8Array): string;
}

/** Longer than any address of these networks (a Zano integrated address with the longest payment id is 275). */
const MAX_ADDRESS_CHARS = 300;
const BASE58_CHARACTER = /^[1-9A-HJ-NP-Za-km-z]$/;
const XRP_ALPHABET = 'rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz';
const BECH32_DATA = /^[qpzry9x8gf2tvdw0s3jn54khce6mua7l]+$/;
const MISTYPED = 'the checksum does not match, so a character is probably mistyped';
const base58check = createBase58check(sha256);

function refuse(reason: string): { ok: false; reason: string } {
  return { ok: false, reason };
}

function firstProblem(format: NetworkFormat, address: string): string | undefined {
  if (typeof address !== 'string') return 'the address must be text';
  if (address.length === 0) return 'the address is empty';
  if (address.length > MAX_ADDRESS_CHARS) return `it is ${address.length} characters long, longer than any address`;
  if (/\s/.test(address)) return 'it contains spaces or line breaks (copy the address alone)';
  return format.check(address);
}

function networkOf(network: string): NetworkFormat {
  const format = NETWORKS.get(network);
  if (!format) throw new RangeError(`Unknown network ${JSON.stringify(network)}`);
  return format;
}

function checkedSeed(seed: Uint8Array): Uint8Array {
  if (!(seed instanceof Uint8Array) || seed.length !== SANDBOX_SEED_BYTES) {
    throw new RangeError(`A sandbox seed is ${SANDBOX_SEED_BYTES} bytes`);
  }
  return seed;
}

// ---------------------------------------------------------------------------------------------------------------
// Bitcoin family: base58check with a version byte, and (BTC, LTC) segwit in bech32 / bech32m (BIP-173, BIP-350).

interface UtxoRules {
  label: string;
  /** Mainnet base58check version bytes and what each address leads with; the first is the sandbox's. */
  versions: ReadonlyArray<readonly [version: number, leads: string]>;
  testnetVersions: number[];
  /** Segwit human-readable part, when the network has segwit. */
  hrp?: string;
  testnetHrps: string[];
  /** The segwit prefixes of the test chain and regtest, where the network has them. */
  testChainHrps?: { test: string; regtest: string };
}

/**
 * The rules of `rules`' test chain or regtest: the testnet version bytes and that chain's segwit prefix are
 * accepted, and mainnet addresses refused as addresses of another chain.
 */
function testChainNetwork(rules: UtxoRules, chain: 'test' | 'regtest'): NetworkFormat {
  const hrp = rules.testChainHrps?.[chain];
  return utxoNetwork({
    label: `${rules.label} ${chain === 'test' ? 'testnet' : 'regtest'}`,
    versions: rules.testnetVersions.map((version) => [version, `version 0x${version.toString(16)}`] as const),
    testnetVersions: rules.versions.map(([version]) => version),
    hrp,
    testnetHrps: [rules.hrp, ...rules.testnetHrps].filter((other): other is string => other !== undefined && other !== hrp),
    wrongChain: `it is an address of another chain; this service runs on ${chain}`,
  });
}

function utxoNetwork(rules: UtxoRules & { wrongChain?: string }): NetworkFormat {
  const [[version]] = rules.versions;
  return {
    label: rules.label,
    format: rules.label,
    check: (address) => checkUtxo(rules, address),
    // Segwit (P2WPKH) where the network has it: what a current wallet hands out.
    sandboxAddress: (seed) =>
      rules.hrp !== undefined
        ? bech32.encode(rules.hrp, [0, ...bech32.toWords(seed.subarray(0, 20))])
        : base58check.encode(concatBytes(Uint8Array.of(version), seed.subarray(0, 20))),
    sandboxTxHash: (seed) => hex.encode(seed),
  };
}

function checkUtxo(rules: UtxoRules & { wrongChain?: string }, address: string): string | undefined {
  const lower = address.toLowerCase();
  const prefix = lower.slice(0, Math.max(lower.lastIndexOf('1'), 0));
  if (rules.testnetHrps.includes(prefix)) return rules.wrongChain ?? 'it is a testnet address; only mainnet addresses are accepted';
  // A bech32 string with another network's prefix deserves the segwit reason, not "not base58".
  const looksSegwit =
    rules.hrp !== undefined && (prefix === rules.hrp || Boolean(bech32.decodeUnsafe(address) ?? bech32m.decodeUnsafe(address)));
  const segwit = rules.hrp !== undefined ? checkSegwit(rules.hrp, address) : 'no segwit';
  if (segwit === undefined) return undefined;
  const legacy = checkVersioned(rules, address);
  if (legacy === undefined) return undefined;
  return looksSegwit ? segwit : legacy;
}

function checkSegwit(hrp: string, address: string): string | undefined {
  const lower = address.toLowerCase();
  if (address !== lower && address !== address.toUpperCase()) return 'it mixes upper and lower case, which bech32 does not allow';
  const data = lower.slice(lower.lastIndexOf('1') + 1);
  if (!BECH32_DATA.test(data)) return 'it contains a character that bech32 does not use (b, i, o or 1 after the prefix)';
  const classic = bech32.decodeUnsafe(address);
  const modern = classic ? undefined : bech32m.decodeUnsafe(address);
  const decoded = classic ?? modern;
  if (!decoded) return address.length > 90 ? 'it is longer than the 90 characters bech32 allows' : MISTYPED;
  if (decoded.prefix !== hrp) return `its prefix ${decoded.prefix}1 is not ${hrp}1`;
  const [version, ...words] = decoded.words;
  if (version === undefined) return 'it carries no witness program';
  if (version > 16) return `witness version ${version} does not exist`;
  const program = bech32.fromWordsUnsafe(words);
  if (!program) return 'its witness program has invalid padding';
  if (version === 0) {
    if (!classic) return 'a version 0 address must use the bech32 checksum, not bech32m';
    if (program.length !== 20 && program.length !== 32) return `a version 0 witness program is 20 or 32 bytes, not ${program.length}`;
    return undefined;
  }
  if (classic) return `a version ${version} address must use the bech32m checksum (BIP-350), not bech32`;
  if (program.length < 2 || program.length > 40) return `a witness program is 2 to 40 bytes, not ${program.length}`;
  return undefined;
}

function checkVersioned(rules: UtxoRules & { wrongChain?: string }, address: string): string | undefined {
  const alphabet = base58Problem(address);
  if (alphabet) return alphabet;
  const raw = base58.decode(address);
  if (raw.length !== 25) return `it decodes to ${raw.length} bytes; a ${rules.label} address has 25`;
  let payload: Uint8Array;
  try {
    payload = base58check.decode(address);
  } catch {
    return MISTYPED;
  }
  if (rules.versions.some(([version]) => version === payload[0])) return undefined;
  if (rules.testnetVersions.includes(payload[0])) return rules.wrongChain ?? 'it is a testnet address; only mainnet addresses are accepted';
  const expected = rules.versions.map(([, leads]) => leads).join(', ');
  return `its version byte 0x${hex.encode(payload.subarray(0, 1))} is not a ${rules.label} mainnet address (they start with ${expected})`;
}

function base58Problem(address: string): string | undefined {
  const stray = [...address].find((ch) => !BASE58_CHARACTER.test(ch));
  return stray === undefined ? undefined : `it contains ${JSON.stringify(stray)}, which is not a base58 character`;
}

// ---------------------------------------------------------------------------------------------------------------
// EVM (ETH, BSC): 0x + 40 hex digits; mixed case carries the EIP-55 checksum.

function evmNetwork(label: string): NetworkFormat {
  return {
    label,
    format: 'EVM',
    check: checkEvm,
    sandboxAddress: (seed) => `0x${eip55(hex.encode(seed.subarray(0, 20)))}`,
    sandboxTxHash: (seed) => `0x${hex.encode(seed)}`,
  };
}

function checkEvm(address: string): string | undefined {
  if (/^[0-9a-fA-F]{40}$/.test(address)) return 'it lacks the 0x prefix';
  if (!address.startsWith('0x')) return 'it must start with 0x';
  const digits = address.slice(2);
  if (!/^[0-9a-fA-F]*$/.test(digits)) return 'after 0x it may contain only hex digits (0-9, a-f)';
  if (digits.length !== 40) return `it has ${digits.length} hex digits after 0x; an address has 40`;
  // One case throughout carries no checksum (EIP-55 keeps those valid); mixed case must match it.
  if (digits === digits.toLowerCase() || digits === digits.toUpperCase()) return undefined;
  return digits === eip55(digits.toLowerCase())
    ? undefined
    : 'its mixed-case checksum (EIP-55) does not match, so a character is probably mistyped';
}

function eip55(lowerHex: string): string {
  const hash = hex.encode(keccak256(utf8ToBytes(lowerHex)));
  return [...lowerHex].map((ch, i) => (parseInt(hash[i], 16) >= 8 ? ch.toUpperCase() : ch)).join('');
}

// ---------------------------------------------------------------------------------------------------------------
// Tron: base58check of 0x41 + 20-byte account id.

const TRON_VERSION = 0x41;

const tron: NetworkFormat = {
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

// ---------------------------------------------------------------------------------------------------------------
// Solana: base58 of a 32-byte public key. There is no checksum, so a mistyped character cannot be detected.

const solana: NetworkFormat = {
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

// ---------------------------------------------------------------------------------------------------------------
// XRP Ledger: classic address, base58check in the XRP alphabet of 0x00 + 20-byte account id.

const XRP_ACCOUNT_VERSION = 0x00;

const xrp: NetworkFormat = {
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

// ---------------------------------------------------------------------------------------------------------------
// TON: user-friendly form, base64 or base64url of flags + workchain + 32-byte hash + CRC16-XMODEM; or raw wc:hex.

const TON_BOUNCEABLE = 0x11;
const TON_NON_BOUNCEABLE = 0x51;
const TON_TEST_ONLY = 0x80;
const TON_FRIENDLY_CHARS = 48;

const ton: NetworkFormat = {
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

// ---------------------------------------------------------------------------------------------------------------
// Zano: see zano-address.ts.

const zano: NetworkFormat = {
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

// ---------------------------------------------------------------------------------------------------------------

const BITCOIN: UtxoRules = {
  label: 'Bitcoin',
  versions: [
    [0x00, '1 (P2PKH)'],
    [0x05, '3 (P2SH)'],
  ],
  testnetVersions: [0x6f, 0xc4],
  hrp: 'bc',
  testnetHrps: ['tb', 'bcrt'],
  testChainHrps: { test: 'tb', regtest: 'bcrt' },
};

const LITECOIN: UtxoRules = {
  label: 'Litecoin',
  versions: [
    [0x30, 'L (P2PKH)'],
    [0x32, 'M (P2SH)'],
    [0x05, '3 (legacy P2SH)'],
  ],
  testnetVersions: [0x6f, 0x3a, 0xc4],
  hrp: 'ltc',
  testnetHrps: ['tltc', 'rltc'],
  testChainHrps: { test: 'tltc', regtest: 'rltc' },
};

const DOGECOIN: UtxoRules = {
  label: 'Dogecoin',
  versions: [
    [0x1e, 'D (P2PKH)'],
    [0x16, '9 or A (P2SH)'],
  ],
  testnetVersions: [0x71, 0xc4],
  testnetHrps: [],
};

const NETWORKS: ReadonlyMap<string, NetworkFormat> = new Map([
  ['BTC', utxoNetwork(BITCOIN)],
  ['ETH', evmNetwork('Ethereum')],
  ['BSC', evmNetwork('BNB Smart Chain')],
  ['TRX', tron],
  ['SOL', solana],
  ['XRP', xrp],
  ['TON', ton],
  ['LTC', utxoNetwork(LITECOIN)],
  ['DOGE', utxoNetwork(DOGECOIN)],
  ['ZANO', zano],
]);

/** The Bitcoin-family networks on their test chains and regtest, by `<network>:<chain>`. */
const TEST_CHAIN_NETWORKS: ReadonlyMap<string, NetworkFormat> = new Map(
  Object.entries({ BTC: BITCOIN, LTC: LITECOIN, DOGE: DOGECOIN }).flatMap(([network, rules]) =>
    (['test', 'regtest'] as const).map((chain) => [`${network}:${chain}`, testChainNetwork(rules, chain)] as const),
  ),
);

// ---------------------------------------------------------------------------------------------------------------
// Memos: which rule applies follows from the asset's memoNeeded and its network.

interface MemoRule {
  /** Why the memo is refused (completing "<memoName> ..."), or undefined when it is accepted. */
  check(memo: string): string | undefined;
  sandbox(seed: Uint8Array): string;
}

const MAX_DESTINATION_TAG = 4294967295;
const MAX_TON_COMMENT_BYTES = 120;
const MAX_GENERIC_MEMO_CHARS = 128;
const CONTROL_OR_LONE_SURROGATE = /[\p{Cc}\p{Cs}]/u;

const MEMO_RULES: ReadonlyMap<string, MemoRule> = new Map([
  [
    'XRP',
    {
      // The ledger stores a UInt32; leading zeros or a sign would be read differently by different wallets.
      check: (memo: string) =>
        /^(0|[1-9]\d{0,9})$/.test(memo) && Number(memo) <= MAX_DESTINATION_TAG
          ? undefined
          : `must be a whole number from 0 to ${MAX_DESTINATION_TAG}, without sign, spaces or leading zeros`,
      sandbox: (seed: Uint8Array) => String(new DataView(seed.buffer, seed.byteOffset, 4).getUint32(0)),
    },
  ],
  [
    'TON',
    {
      check: (memo: string) => {
        if (CONTROL_OR_LONE_SURROGATE.test(memo)) return 'must not contain control characters';
        const bytes = utf8ToBytes(memo).length;
        return bytes <= MAX_TON_COMMENT_BYTES ? undefined : `must be at most ${MAX_TON_COMMENT_BYTES} bytes of UTF-8, not ${bytes}`;
      },
      sandbox: (seed: Uint8Array) => `sandbox-${hex.encode(seed.subarray(0, 8))}`,
    },
  ],
]);

// For a catalogue entry that needs a memo on a network without its own rule yet: plain text.
const GENERIC_MEMO_RULE: MemoRule = {
  check: (memo) =>
    CONTROL_OR_LONE_SURROGATE.test(memo)
      ? 'must not contain control characters'
      : memo.length <= MAX_GENERIC_MEMO_CHARS
        ? undefined
        : `must be at most ${MAX_GENERIC_MEMO_CHARS} characters`,
  sandbox: (seed) => hex.encode(seed.subarray(0, 8)),
};

function memoRuleOf(asset: CatalogAsset): MemoRule {
  return MEMO_RULES.get(asset.network) ?? GENERIC_MEMO_RULE;
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
