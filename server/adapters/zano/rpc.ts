/**
 * A small JSON-RPC 2.0 client for Zano's wallet RPC server (`simplewallet --rpc-bind-port`, POST /json_rpc).
 *
 * Answers are parsed losslessly: every JSON integer comes back as a bigint (the wallet prints uint64 values
 * above 2^53: amounts, supplies, intrinsic payment ids), anything else as a number. Params go out through
 * lossless-json too, so bigint amounts are written as exact JSON integers (the wallet refuses amounts given as
 * strings).
 *
 * Two errors, as in the Bitcoin client: ZanoRpcError when the wallet answered with an error (its code from
 * wallet_rpc_server_error_codes.h and message), ZanoRpcTransportError when no answer came.
 */
import { isInteger, parse, stringify } from 'lossless-json';
import { createJsonRpcCaller } from '../json-rpc.js';

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
  constructor(
    readonly method: string,
    readonly code: number,
    readonly rpcMessage: string,
  ) {
    super(`${method}: wallet RPC error ${code}: ${rpcMessage}`);
    this.name = 'ZanoRpcError';
  }
}

/** No answer to `method` came: its outcome is unknown (unless `refused`). */
export class ZanoRpcTransportError extends Error {
  constructor(
    readonly method: string,
    message: string,
    readonly details: { timedOut: boolean; refused: boolean },
    options?: { cause?: unknown },
  ) {
    super(`${method}: ${message}`, options);
    this.name = 'ZanoRpcTransportError';
  }
}

/** Calls one wallet RPC server. */
export interface ZanoRpcClient {
  call<T = unknown>(method: string, params?: Record<string, unknown>): Promise<T>;
  /** The URL without credentials, for logs. */
  readonly endpoint: string;
}

export interface ZanoRpcClientOptions {
  /** http(s)://host:port/json_rpc (a bare http://host:port gets /json_rpc). */
  url: string;
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
}

/** Parses a wallet answer without losing a digit: integers as bigint. */
export function parseZanoBody(text: string): unknown {
  return parse(text, null, (value) => (isInteger(value) ? BigInt(value) : Number(value)));
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
