/**
 * Address screening (docs/screening.md), the pure part: what a verdict is, the denylist file
 * (SCREENING_DENYLIST_FILE) and the screening provider's answer (SCREENING_URL), each parsed strictly, and
 * how addresses compare. The provider's HTTP call is adapters/screening.ts; recording verdicts and holding
 * swaps is services/screening.ts and swap-decision.ts.
 */
import { validateAddress } from './addresses.js';
import { senderKnownOn } from '../networks/index.js';

/** What an address is screened as: where a payout goes, where a refund goes, or who paid a deposit. */
export type ScreeningRole = 'destination' | 'refund' | 'sender';

/** A provider's decision: `review` means a person must look before money moves to or from the address. */
export type ScreeningDecision = 'allow' | 'deny' | 'review';

/** The screening decisions, as the provider's answer names them. */
export const SCREENING_DECISIONS: readonly ScreeningDecision[] = ['allow', 'deny', 'review'];

/** Who gave a verdict: the denylist file, the provider at SCREENING_URL, or nobody (screening is off). */
export type ScreeningProvider = 'denylist' | 'provider' | 'none';

/** One address screened. */
export interface ScreeningSubject {
  network: string;
  address: string;
  role: ScreeningRole;
}

/** The verdict on one address. */
export interface ScreeningVerdict {
  decision: ScreeningDecision;
  /** The provider's reason (or the denylist's), for operators; null when none was given. */
  reason: string | null;
  provider: ScreeningProvider;
  /**
   * Set when the provider failed (unreachable, timed out, malformed answer): what went wrong. The decision is
   * then SCREENING_FAIL_MODE's: `review` (closed) or `allow` (open).
   */
  failure?: string;
}

/** The most bytes a provider's answer may have; a longer one is the provider's failure. */
export const MAX_SCREENING_ANSWER_BYTES = 16 * 1024;

/** The longest reason a provider may give; a longer one makes the answer malformed. */
export const MAX_SCREENING_REASON_CHARS = 1000;

/**
 * Whether a deposit on `network` names a sender that screening can judge: not where the transactions do not
 * name a sender the service could believe (Zano, Monero: `senderKnown` in the table of networks); their
 * deposits' senders are not screened (and `refundMode: sender` is refused there, handlers/request-rules.ts).
 */
export const namesSender = (network: string): boolean => senderKnownOn(network);

// Bitcoin-family bech32 (and bech32m) addresses, which may be written in either case but not mixed.
const BECH32_ADDRESS = /^(bc|tb|bcrt|ltc|tltc|rltc)1[02-9ac-hj-np-z]+$/i;

/**
 * The form two addresses are compared in: EVM hex (`0x` + 40 hex digits, whose mixed case is only a checksum)
 * and Bitcoin-family bech32 addresses are case-insensitive, so lower-cased; every other address (base58,
 * Zano, XRP, TON) is case-sensitive and compared exactly.
 */
export function screeningKeyOf(address: string): string {
  if (/^0x[0-9a-f]{40}$/i.test(address)) return address.toLowerCase();
  if (BECH32_ADDRESS.test(address) && (address === address.toLowerCase() || address === address.toUpperCase())) {
    return address.toLowerCase();
  }
  return address;
}

/** A denylist file that cannot be used: the message names the file, the line and what is wrong with it. */
export class DenylistError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DenylistError';
  }
}

/** A parsed denylist: addresses denied on every network, and those denied on one network only. */
export interface Denylist {
  /** Screening keys (screeningKeyOf) denied on every network. */
  readonly everywhere: ReadonlySet<string>;
  /** `NETWORK:key` of addresses denied on one network. */
  readonly onNetwork: ReadonlySet<string>;
  /** How many entries the file has. */
  readonly size: number;
}

/**
 * Parses a denylist: one address a line, optionally `NETWORK:address` (denied on that network only); blank
 * lines and lines starting with `#` are skipped. A `NETWORK:` entry must name one of `networks` and be a
 * valid address of it; an entry without one must be a valid address of at least one of them. Throws
 * DenylistError naming `source`, the line number and the problem.
 */
export function parseDenylist(text: string, source: string, networks: readonly string[]): Denylist {
  const everywhere = new Set<string>();
  const onNetwork = new Set<string>();
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const bad = (why: string) => new DenylistError(`${source} line ${i + 1} (${JSON.stringify(line.slice(0, 80))}): ${why}`);
    if (/\s/.test(line)) throw bad('an entry is one address, optionally NETWORK:address, with no spaces');
    const prefixed = /^([A-Z0-9]{2,10}):(.+)$/.exec(line);
    if (prefixed) {
      const [, network, address] = prefixed as unknown as [string, string, string];
      if (!networks.includes(network)) throw bad(`${network} is not a network of this service (${networks.join(', ')})`);
      const checked = validateAddress(network, address);
      if (!checked.ok) throw bad(checked.reason);
      onNetwork.add(`${network}:${screeningKeyOf(address)}`);
      return;
    }
    if (line.includes(':')) throw bad('the prefix before ":" must be a network code in capitals, e.g. ETH:0x...');
    if (!networks.some((network) => validateAddress(network, line).ok)) {
      throw bad(`not a valid address of any network of this service (${networks.join(', ')})`);
    }
    everywhere.add(screeningKeyOf(line));
  });
  return { everywhere, onNetwork, size: everywhere.size + onNetwork.size };
}

/** Whether `denylist` denies `address` on `network`. */
export function isDenylisted(denylist: Denylist, network: string, address: string): boolean {
  const key = screeningKeyOf(address);
  return denylist.everywhere.has(key) || denylist.onNetwork.has(`${network}:${key}`);
}

/** A provider's answer that is not `{decision: "allow" | "deny" | "review", reason?}`: the message says why. */
export class MalformedScreeningAnswerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedScreeningAnswerError';
  }
}

/**
 * Reads a provider's answer body strictly: a JSON object with `decision` one of allow, deny, review and
 * `reason` a string of at most MAX_SCREENING_REASON_CHARS characters, null or absent. Anything else throws
 * MalformedScreeningAnswerError (the caller treats it as the provider's failure).
 */
export function parseScreeningAnswer(text: string): { decision: ScreeningDecision; reason: string | null } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new MalformedScreeningAnswerError(`answered a body that is not JSON (${JSON.stringify(text.slice(0, 80))})`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new MalformedScreeningAnswerError(`answered ${Array.isArray(body) ? 'an array' : JSON.stringify(body)}, not a JSON object`);
  }
  const { decision, reason } = body as { decision?: unknown; reason?: unknown };
  if (typeof decision !== 'string' || !(SCREENING_DECISIONS as readonly string[]).includes(decision)) {
    throw new MalformedScreeningAnswerError(
      `answered decision ${JSON.stringify(decision)?.slice(0, 80) ?? 'undefined'}, not one of ${SCREENING_DECISIONS.join(', ')}`,
    );
  }
  if (reason !== undefined && reason !== null && typeof reason !== 'string') {
    throw new MalformedScreeningAnswerError(`answered reason ${JSON.stringify(reason).slice(0, 80)}, not a string`);
  }
  if (typeof reason === 'string' && reason.length > MAX_SCREENING_REASON_CHARS) {
    throw new MalformedScreeningAnswerError(`answered a reason of ${reason.length} characters, more than ${MAX_SCREENING_REASON_CHARS}`);
  }
  // Control characters would break the CLI's one-line display; the reason is for people, not machines.
  const text_ = typeof reason === 'string' ? reason.replace(/[\p{Cc}]+/gu, ' ').trim() : '';
  return { decision: decision as ScreeningDecision, reason: text_ === '' ? null : text_ };
}
