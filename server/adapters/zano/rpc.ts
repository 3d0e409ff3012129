/**
 * A small JSON-RPC 2.0 client for Zano's wallet RPC server (`simplewallet --rpc-bind-port`, POST /json_rpc).
 *
 * Answers are parsed losslessly: every JSON integer comes back as a bigint (the wallet prints uint64 values
 * above 2^53: amounts, supplies, intrinsic payment ids), anything else as a number. Params go out through
 * lossless-json too, so bigint amounts are written as exact JSON integers (the wallet refuses amounts given as
 * strings).
 *
 * Two errors, as in the Bitcoin client: ZanoRpcError when the wallet answered with an error (its code from
 * wallet_rpc_server_error_codes.h and message), ZanoRpcTransportError when no usable answer came (none, too
 * large, malformed). Each carries the `publicReason` the public may see (adapters/boundary.ts).
 */
import { isInteger, parse, stringify } from 'lossless-json';
import { DEFAULT_PUBLIC_REASON, type PublicReason } from '../boundary.js';
import { createJsonRpcCaller, type UnansweredDetails } from '../json-rpc.js';

/** Waits this long for an answer by default. */
export const ZANO_RPC_TIMEOUT_MS = 30_000;

/** wallet_rpc_server_error_codes.h: the codes the adapter acts on. */
export const ZanoErrorCode = {
  DAEMON_IS_BUSY: -3,
  GENERIC_TRANSFER_ERROR: -4,
  WRONG_ARGUMENT: -6,
  NOT_ENOUGH_MONEY: -7,
  KEY_IMAGE_ALREADY_SPENT: -10,
} as const;

/** The wallet answered `method` with an error. */
export class ZanoRpcError extends Error {
  /** What the public may be told (adapters/boundary.ts): the wallet's own message goes to logs only. */
  readonly publicReason: PublicReason = 'node error';
  constructor(
    readonly method: string,
    readonly code: number,
    readonly rpcMessage: string,
  ) {
    super(`${method}: wallet RPC error ${code}: ${rpcMessage}`);
    this.name = 'ZanoRpcError';
  }
}

/** No usable answer to `method` came (none, or one too large or malformed): its outcome is unknown (unless `refused`). */
export class ZanoRpcTransportError extends Error {
  /** What the public may be told (adapters/boundary.ts). */
  readonly publicReason: PublicReason;
  constructor(
    readonly method: string,
    message: string,
    readonly details: Omit<UnansweredDetails, 'publicReason'> & Partial<Pick<UnansweredDetails, 'publicReason'>>,
    options?: { cause?: unknown },
  ) {
    super(`${method}: ${message}`, options);
    this.name = 'ZanoRpcTransportError';
    this.publicReason = details.publicReason ?? DEFAULT_PUBLIC_REASON;
  }
}

/** Calls one wallet RPC server. */
export interface ZanoRpcClient {
  call<T = unknown>(method: string, params?: Record<string, unknown>): Promise<T>;
  /** The URL for logs, without credentials and path secrets. */
  readonly endpoint: string;
}

export interface ZanoRpcClientOptions {
  /** http(s)://host:port/json_rpc (a bare http://host:port gets /json_rpc). */
  url: string;
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
}

/** The range of the wallet's integers: int64 below zero (codes, offsets), uint64 above (amounts). */
const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

/**
 * Parses a wallet answer without losing a digit: integers as bigint, within int64/uint64; other numbers as
 * finite numbers. Throws on anything else (`1e400`, an integer of 30 digits): the answer is malformed.
 */
export function parseZanoBody(text: string): unknown {
  return parse(text, null, (value) => {
    if (isInteger(value)) {
      const integer = BigInt(value);
      if (integer < INT64_MIN || integer > UINT64_MAX)
        throw new RangeError(`the integer ${value.slice(0, 40)} is out of the wallet's range`);
      return integer;
    }
    const number = Number(value);
    if (!Number.isFinite(number)) throw new RangeError(`the number ${value.slice(0, 40)} is not finite`);
    return number;
  });
}

export function createZanoRpcClient(options: ZanoRpcClientOptions): ZanoRpcClient {
  const url = new URL(options.url);
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/json_rpc';
  const caller = createJsonRpcCaller<Record<string, unknown>>({
    url: url.toString(),
    timeoutMs: options.timeoutMs ?? ZANO_RPC_TIMEOUT_MS,
    fetch: options.fetch ?? globalThis.fetch,
    version: '2.0',
    // lossless-json writes bigint amounts as exact JSON integers.
    stringify: (request) => stringify(request) ?? '',
    parse: parseZanoBody,
    answered: (method, code, message) => new ZanoRpcError(method, code, message),
    unanswered: (method, message, details, errorOptions) => new ZanoRpcTransportError(method, message, details, errorOptions),
  });
  return { call: (method, params = {}) => caller.call(method, params), endpoint: caller.endpoint };
}
