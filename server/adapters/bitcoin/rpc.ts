/**
 * A small JSON-RPC client for Bitcoin Core and the nodes that speak its RPC (Litecoin Core, Dogecoin Core).
 *
 * Answers are parsed losslessly: a JSON number with a fraction or an exponent (an amount, a fee rate) comes
 * back as its decimal text, a string; integers (heights, confirmations, times) as numbers. Amounts sent to
 * the node go as strings, which the node reads exactly (AmountFromValue takes either).
 *
 * Two errors: RpcError when the node answered with an error (it carries the RPC code and message), and
 * RpcTransportError when no usable answer came (refused, reset, timed out, not JSON-RPC at all, larger than
 * adapters/boundary.ts's MAX_ANSWER_BYTES). Each carries the `publicReason` the public may see; their messages
 * are for logs.
 */
import { parse } from 'lossless-json';
import { DEFAULT_PUBLIC_REASON, MAX_ANSWER_BYTES, MAX_BULK_ANSWER_BYTES, type PublicReason } from '../boundary.js';
import { createJsonRpcCaller, type UnansweredDetails } from '../json-rpc.js';

/** Waits this long for an answer by default. */
export const RPC_TIMEOUT_MS = 30_000;

/** The calls whose answers list a batch (a scan's wallet transactions, the hot wallet's coins): MAX_BULK_ANSWER_BYTES. */
const BULK_METHODS: ReadonlySet<string> = new Set(['listsinceblock', 'listunspent']);

/** Bitcoin Core RPC error codes the adapter acts on (src/rpc/protocol.h). */
export const RpcCode = {
  /** The node is still starting (loading blocks, the wallet). */
  IN_WARMUP: -28,
  /** Invalid address or key; also "no such wallet transaction" for gettransaction. */
  INVALID_ADDRESS_OR_KEY: -5,
  /** The wallet has too little to pay. */
  WALLET_INSUFFICIENT_FUNDS: -6,
  /** The raw transaction does not decode. */
  DESERIALIZATION_ERROR: -22,
  /** General transaction error: missing or spent inputs, fee above the maximum, a mempool failure. */
  VERIFY_ERROR: -25,
  /** The mempool refused the transaction (policy or consensus). */
  VERIFY_REJECTED: -26,
  /** An output of the transaction is already in the UTXO set: it is in the chain. */
  VERIFY_ALREADY_IN_CHAIN: -27,
} as const;

/** The node answered `method` with an error. */
export class RpcError extends Error {
  /** What the public may be told (adapters/boundary.ts): the node's own message goes to logs only. */
  readonly publicReason: PublicReason = 'node error';
  constructor(
    readonly method: string,
    readonly code: number,
    readonly rpcMessage: string,
  ) {
    super(`${method}: RPC error ${code}: ${rpcMessage}`);
    this.name = 'RpcError';
  }
}

/**
 * No usable answer to `method` came (none, or one too large or malformed): the outcome of the call is unknown
 * (unless `refused`).
 */
export class RpcTransportError extends Error {
  /** What the public may be told (adapters/boundary.ts). */
  readonly publicReason: PublicReason;
  constructor(
    readonly method: string,
    message: string,
    readonly details: Omit<UnansweredDetails, 'publicReason'> & Partial<Pick<UnansweredDetails, 'publicReason'>>,
    options?: { cause?: unknown },
  ) {
    super(`${method}: ${message}`, options);
    this.name = 'RpcTransportError';
    this.publicReason = details.publicReason ?? DEFAULT_PUBLIC_REASON;
  }
}

/** Calls one node (and wallet: the URL's /wallet/<name> path). */
export interface RpcClient {
  call<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** The URL for logs, without its credentials and path secrets. */
  readonly endpoint: string;
}

/** Options of createRpcClient. */
export interface RpcClientOptions {
  /** http(s)://user:password@host:port[/wallet/<name>]. */
  url: string;
  /** How long to wait for an answer (default RPC_TIMEOUT_MS). */
  timeoutMs?: number;
  /** The fetch to use (tests inject one). */
  fetch?: typeof globalThis.fetch;
}

/**
 * Integers stay numbers; anything with a fraction or an exponent (amounts, fee rates), or an integer past
 * 2^53, keeps its exact text.
 */
function parseNumber(text: string): number | string {
  if (/^-?\d+$/.test(text)) {
    const value = Number(text);
    if (Number.isSafeInteger(value)) return value;
  }
  return text;
}

/** Parses a JSON-RPC body without losing a digit of any number in it. */
export function parseRpcBody(text: string): unknown {
  return parse(text, null, parseNumber);
}

/** A client for `options.url`. */
export function createRpcClient(options: RpcClientOptions): RpcClient {
  const caller = createJsonRpcCaller<unknown[]>({
    url: options.url,
    timeoutMs: options.timeoutMs ?? RPC_TIMEOUT_MS,
    fetch: options.fetch ?? globalThis.fetch,
    version: '1.0',
    stringify: (request) => JSON.stringify(request),
    parse: parseRpcBody,
    answered: (method, code, message) => new RpcError(method, code, message),
    unanswered: (method, message, details, errorOptions) => new RpcTransportError(method, message, details, errorOptions),
    statusHint: (status) => (status === 401 ? ' (wrong RPC user or password?)' : ''),
    maxAnswerBytes: (method) => (BULK_METHODS.has(method) ? MAX_BULK_ANSWER_BYTES : MAX_ANSWER_BYTES),
  });
  return { call: (method, params = []) => caller.call(method, params), endpoint: caller.endpoint };
}
