/**
 * Payout and refund addresses and memos for every network of the catalogue, checked with each network's real
 * checksum so a mistyped address is refused before funds leave; and the sandbox's deposit addresses, memos and
 * transaction hashes in the same formats. Each network's format and memo rule is in the table of networks
 * (server/networks/); this module applies them. Pure: the sandbox's randomness arrives as a seed.
 */
import { hex } from '@scure/base';
import { NETWORKS, networkFacts, requireNetwork, type AddressFormat, type MemoRule } from '../networks/index.js';
import type { CatalogAsset } from './catalog.js';

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
  const facts = networkFacts(network);
  const format = chain === 'main' ? facts?.address : facts?.testChains?.[chain];
  if (!format) {
    return facts
      ? refuse(`${network} has no ${chain} chain here.`)
      : refuse(`Unknown network ${JSON.stringify(network)}; expected one of ${Object.keys(NETWORKS).join(', ')}.`);
  }
  const reason = firstProblem(format, address);
  if (reason === undefined) return { ok: true, value: address };
  // Naming the network the address does belong to turns "invalid" into an actionable mix-up.
  const elsewhere = (chain === 'main' ? Object.values(NETWORKS) : [])
    .filter((other) => other.address.format !== format.format && firstProblem(other.address, address) === undefined)
    .map((other) => other.id);
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
  return requireNetwork(network).address.sandboxAddress(checkedSeed(seed));
}

/** A memo in the network's form when `asset` needs one to tell deposits apart, else null. */
export function sandboxMemo(asset: CatalogAsset, seed: Uint8Array): string | null {
  return asset.memoNeeded ? memoRuleOf(asset).sandbox(checkedSeed(seed)) : null;
}

/** A transaction hash in the network's native notation (always [A-Za-z0-9], at most 128 characters); throws for an unknown network. */
export function sandboxTxHash(network: string, seed: Uint8Array): string {
  return requireNetwork(network).address.sandboxTxHash(checkedSeed(seed));
}

/** Longer than any address of these networks (a Zano integrated address with the longest payment id is 275). */
const MAX_ADDRESS_CHARS = 300;

function refuse(reason: string): { ok: false; reason: string } {
  return { ok: false, reason };
}

function firstProblem(format: AddressFormat, address: string): string | undefined {
  if (typeof address !== 'string') return 'the address must be text';
  if (address.length === 0) return 'the address is empty';
  if (address.length > MAX_ADDRESS_CHARS) return `it is ${address.length} characters long, longer than any address`;
  if (/\s/.test(address)) return 'it contains spaces or line breaks (copy the address alone)';
  return format.check(address);
}

function checkedSeed(seed: Uint8Array): Uint8Array {
  if (!(seed instanceof Uint8Array) || seed.length !== SANDBOX_SEED_BYTES) {
    throw new RangeError(`A sandbox seed is ${SANDBOX_SEED_BYTES} bytes`);
  }
  return seed;
}

// ---------------------------------------------------------------------------------------------------------------
// Memos: the network's rule (XRP destination tag, TON comment), or plain text for a catalogue entry that needs
// a memo on a network without its own rule yet.

const MAX_GENERIC_MEMO_CHARS = 128;
const CONTROL_OR_LONE_SURROGATE = /[\p{Cc}\p{Cs}]/u;

const GENERIC_MEMO_RULE: MemoRule = {
  name: 'Memo',
  check: (memo) =>
    CONTROL_OR_LONE_SURROGATE.test(memo)
      ? 'must not contain control characters'
      : memo.length <= MAX_GENERIC_MEMO_CHARS
        ? undefined
        : `must be at most ${MAX_GENERIC_MEMO_CHARS} characters`,
  sandbox: (seed) => hex.encode(seed.subarray(0, 8)),
};

function memoRuleOf(asset: CatalogAsset): MemoRule {
  return networkFacts(asset.network)?.memo ?? GENERIC_MEMO_RULE;
}
