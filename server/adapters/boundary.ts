/**
 * The chain boundary (docs/architecture.md#money-that-ends-well): what the service takes from nodes and price servers, and what it says of them.
 *
 * - **Bounded.** Every answer is read through readBoundedText: at most MAX_ANSWER_BYTES (MAX_BULK_ANSWER_BYTES for
 *   the few methods that list a batch of blocks' contents), within the caller's time limit (the fetch signal
 *   covers the body too). A longer answer is refused (AnswerTooLargeError).
 * - **Strict.** Amounts are read by parseNodeAmount, the rule requests follow (domain/money.ts toAmount: a plain
 *   decimal, no exponent, no NaN or Infinity) with the coin's decimal places and a sign; anything else is a
 *   MalformedAnswerError, so no NaN or Infinity ever reaches a numeric column.
 * - **Said in our words.** An error thrown by any adapter with a string property `publicReason` (on it or on an
 *   error in its `cause` chain) is shown publicly with exactly that reason (publicReasonOf); anything else is
 *   shown as `node unreachable`. Messages, URLs, hosts, ports and wallet names go only to logs, through
 *   redactUrls, which removes credentials and path secrets.
 */
import { toAmount } from '../domain/money.js';
import type { ChainWatcher, NetworkAdapters } from './chain.js';

/** The most bytes one answer of a node or a price server may have. */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/**
 * The most bytes an answer that lists a batch of a chain's contents may have: EVM logs and call traces of a
 * scan's blocks, a wallet's transactions since a block, its unspent coins. A busy chain's batch is megabytes
 * (fifty Ethereum blocks of USDT transfers are about 5 MB), and a cap it cannot pass would stop the scans for good.
 */
export const MAX_BULK_ANSWER_BYTES = 32 * 1024 * 1024;

/** Integer digits an amount from a node may have (21 million BTC has 8; a uint64 of atomic units 20). */
const MAX_AMOUNT_INTEGER_DIGITS = 20;

/** What the public sees of a network that is not healthy. */
export type PublicReason =
  | 'node unreachable'
  | 'node error'
  | 'malformed answer'
  | 'answer too large'
  | 'tip too old'
  | 'chain id mismatch'
  | 'chain mismatch'
  | 'not probed yet';

/** The reason of an error that carries none. */
export const DEFAULT_PUBLIC_REASON: PublicReason = 'node unreachable';

/** An answer that breaks its documented shape or the amount rule: the node or server is not to be believed. */
export class MalformedAnswerError extends Error {
  readonly publicReason: PublicReason = 'malformed answer';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MalformedAnswerError';
  }
}

/** An answer longer than its limit; it was not read to its end. */
export class AnswerTooLargeError extends Error {
  readonly publicReason: PublicReason = 'answer too large';
  constructor(readonly limitBytes: number) {
    super(`the answer is larger than ${limitBytes} bytes; it was not read`);
    this.name = 'AnswerTooLargeError';
  }
}

/** An EVM node on another chain than `<NET>_CHAIN_ID`: nothing is watched or signed through it. */
export class ChainIdMismatchError extends Error {
  readonly publicReason: PublicReason = 'chain id mismatch';
  constructor(
    readonly network: string,
    readonly configured: number,
    readonly reported: number,
  ) {
    super(`${network}: the node reports chain id ${reported}, not ${configured} (${network}_CHAIN_ID)`);
    this.name = 'ChainIdMismatchError';
  }
}

/** A Bitcoin-family node on another chain than `<NET>_CHAIN` (a testnet node for a mainnet service). */
export class ChainMismatchError extends Error {
  readonly publicReason: PublicReason = 'chain mismatch';
  constructor(
    readonly network: string,
    readonly configured: string,
    readonly reported: string,
  ) {
    super(`${network}: the node is on chain ${reported}, not ${configured} (${network}_CHAIN)`);
    this.name = 'ChainMismatchError';
  }
}

/** The public reason of `err`: the first `publicReason` string on it or its causes, else DEFAULT_PUBLIC_REASON. */
export function publicReasonOf(err: unknown): string {
  let current: unknown = err;
  for (let depth = 0; depth < 8 && current !== null && typeof current === 'object'; depth++) {
    const reason = (current as { publicReason?: unknown }).publicReason;
    if (typeof reason === 'string') return reason;
    current = (current as { cause?: unknown }).cause;
  }
  return DEFAULT_PUBLIC_REASON;
}

/** Whether `err` says the answer itself was wrong (malformed or too large), rather than absent. */
export function isUntrustedAnswer(err: unknown): boolean {
  const reason = publicReasonOf(err);
  return reason === 'malformed answer' || reason === 'answer too large';
}

/**
 * The body of `response` as text, refused past `limitBytes` (by its Content-Length before a byte is read, else
 * as the bytes arrive). Throws AnswerTooLargeError; the stream is cancelled so the connection is not kept reading.
 */
export async function readBoundedText(response: Response, limitBytes = MAX_ANSWER_BYTES): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? '');
  if (Number.isFinite(declared) && declared > limitBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new AnswerTooLargeError(limitBytes);
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limitBytes) {
      await reader.cancel().catch(() => undefined);
      throw new AnswerTooLargeError(limitBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** How parseNodeAmount judges one amount. */
export interface AmountRule {
  /** The most decimal places (the coin's: 8 for the Bitcoin family). */
  decimals: number;
  /** `positive`: above 0 (an output); `nonNegative`: 0 or more (a balance); `any`: a sign allowed (a wallet's sends). */
  sign: 'positive' | 'nonNegative' | 'any';
}

/**
 * An amount a node answered (`what` names it for the message), as a plain decimal string without trailing zeros.
 * It must be a decimal string by the request rule (toAmount), or a JSON integer the parser kept exact (a safe
 * integer); at most `rule.decimals` places, at most MAX_AMOUNT_INTEGER_DIGITS integer digits, and of the rule's sign.
 * Throws MalformedAnswerError otherwise: NaN, Infinity, exponents, negative balances and wrong types never pass.
 */
export function parseNodeAmount(value: unknown, what: string, rule: AmountRule): string {
  const text = typeof value === 'string' ? value : typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : undefined;
  const refuse = (why: string): never => {
    throw new MalformedAnswerError(`${what} = ${shown(value)}: ${why}`);
  };
  if (text === undefined) return refuse('not a decimal amount');
  let amount;
  try {
    amount = toAmount(text);
  } catch {
    return refuse('not a decimal amount');
  }
  if (amount.decimalPlaces() > rule.decimals) refuse(`more than ${rule.decimals} decimal places`);
  if (amount.abs().truncated().toFixed().length > MAX_AMOUNT_INTEGER_DIGITS)
    refuse(`more than ${MAX_AMOUNT_INTEGER_DIGITS} integer digits`);
  if (amount.isZero()) {
    if (rule.sign === 'positive') refuse('not above 0');
    return '0';
  }
  if (amount.isNegative() && rule.sign !== 'any') refuse('negative');
  return amount.toFixed();
}

function shown(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'bigint' ? `${value}n` : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > 60 ? `${text.slice(0, 60)}...` : text;
}

/** A path segment kept in logs: a word (`wallet`, `json_rpc`), a version (`v3`), or the name after `/wallet/`. */
function keptSegment(segment: string, previous: string | undefined): boolean {
  return (
    segment === '' ||
    /^[A-Za-z_-]{1,24}$/.test(segment) ||
    /^v\d{1,3}$/.test(segment) ||
    (previous === 'wallet' && /^[\w.-]{1,64}$/.test(segment))
  );
}

/**
 * `raw` as logs may show it: scheme, host and port, with the credentials removed, every path segment that may
 * be a secret (an API key: `/v3/<key>`) replaced by `***`, and the query replaced by `?***`.
 */
export function redactUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return '[a URL]';
  }
  const segments = url.pathname.split('/');
  const path = segments.map((segment, i) => (keptSegment(segment, segments[i - 1]) ? segment : '***')).join('/');
  return `${url.protocol}//${url.host}${path === '/' ? '' : path}${url.search ? '?***' : ''}`;
}

const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>()`]+/gi;
/** A URL's credentials (`user:password@`), up to the last `@` before its host: a password may hold `(`, `'` or `)`. */
const CREDENTIALS_IN_TEXT = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#]*@/gi;

/**
 * `text` with every URL in it redacted by redactUrl (driver messages carry the request URL: viem's do). The
 * credentials go first, whatever they hold, so that a URL cut short where the text around it ends one (at a
 * quote or a bracket) never leaves a part of a password behind.
 */
export function redactUrls(text: string): string {
  if (!text.includes('://')) return text;
  return text.replace(CREDENTIALS_IN_TEXT, '$1').replace(URL_IN_TEXT, (found) => redactUrl(found));
}

/** Scans that found an untrusted answer, per network: the network is unhealthy until a scan succeeds. */
export interface AnswerFaults {
  /** The public reason and the log text of `network`'s last failed scan, when that scan got an untrusted answer. */
  current(network: string): { reason: string; detail: string } | undefined;
}

/**
 * `adapters` with a watcher whose scans report into the returned faults: a scan that fails on an untrusted
 * answer (malformed, too large) makes its network unhealthy on the board (services/network-status.ts) until a
 * later scan succeeds. Every call still goes to the adapter and every error still reaches its caller.
 */
export function createAnswerFaults(): AnswerFaults & { watch(network: string, adapters: NetworkAdapters): NetworkAdapters } {
  const faults = new Map<string, { reason: string; detail: string }>();
  return {
    current: (network) => faults.get(network),
    watch(network, adapters) {
      const inner = adapters.watcher;
      // Spread, so that whatever else a watcher offers passes through unchanged.
      const watcher: ChainWatcher = {
        ...inner,
        async scan(cursor, watched) {
          try {
            const scan = await inner.scan(cursor, watched);
            faults.delete(network);
            return scan;
          } catch (err) {
            if (isUntrustedAnswer(err)) faults.set(network, { reason: publicReasonOf(err), detail: redactUrls(messageOf(err)) });
            throw err;
          }
        },
      };
      return { ...adapters, watcher };
    },
  };
}

/** One line of `err`'s message (and its causes'), for logs. */
export function messageOf(err: unknown): string {
  const parts: string[] = [];
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth++) {
    parts.push(current instanceof Error ? current.message : String(current));
    current = current instanceof Error ? current.cause : undefined;
  }
  // eslint-disable-next-line no-control-regex
  const controls = /[\u0000-\u001f\u007f]+/g;
  return parts.join(': ').replace(controls, ' ').slice(0, 1000);
}
