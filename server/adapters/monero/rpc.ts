/**
 * monero-wallet-rpc's JSON-RPC 2.0 (`/json_rpc`), as the Zano wallet's: amounts are uint64 atomic units
 * (piconero, 12 decimals) read losslessly as bigint. The wallet must answer without a login: its `--rpc-login`
 * is HTTP Digest, which this client does not speak, so run it with `--disable-rpc-login` on loopback or a
 * private network (docs/production.md#monero).
 */
import { stringify } from 'lossless-json';
import { DEFAULT_PUBLIC_REASON, type PublicReason } from '../boundary.js';
import { createJsonRpcCaller, type UnansweredDetails } from '../json-rpc.js';
import { parseZanoBody } from '../zano/rpc.js';

/** Waits this long for an answer by default. */
export const MONERO_RPC_TIMEOUT_MS = 30_000;

/** wallet_errors.h codes the adapter acts on. */
/** The codes of monero-wallet-rpc's errors the adapter acts on (src/wallet/wallet_rpc_server_error_codes.h). */
export const MoneroErrorCode = {
  /** WALLET_RPC_ERROR_CODE_NOT_ENOUGH_MONEY / NOT_ENOUGH_UNLOCKED_MONEY. */
  NOT_ENOUGH_MONEY: -17,
  NOT_ENOUGH_UNLOCKED_MONEY: -37,
  /** WALLET_RPC_ERROR_CODE_TX_NOT_POSSIBLE: the funds and fee do not add up now. */
  TX_NOT_POSSIBLE: -16,
  /** WALLET_RPC_ERROR_CODE_TX_TOO_LARGE: the inputs it needs make a transaction above the size limit. */
  TX_TOO_LARGE: -18,
  /** WALLET_RPC_ERROR_CODE_NOT_ENOUGH_OUTS_TO_MIX: the chain has too few outputs to pick a ring's decoys from. */
  NOT_ENOUGH_OUTS_TO_MIX: -19,
  WRONG_ADDRESS: -2,
  /** Failed to submit signed tx: the daemon refused it. */
  SIGNED_SUBMISSION: -41,
  /** get_transfer_by_txid: no such transfer. */
  WRONG_TXID: -8,
} as const;

/** The wallet answered `method` with an error. */
export class MoneroRpcError extends Error {
  /** What the public may be told (adapters/boundary.ts): the wallet's own message goes to logs only. */
  readonly publicReason: PublicReason = 'node error';
  constructor(
    readonly method: string,
    readonly code: number,
    readonly rpcMessage: string,
  ) {
    super(`${method}: wallet RPC error ${code}: ${rpcMessage}`);
    this.name = 'MoneroRpcError';
  }
}

/** No usable answer to `method` came: its outcome is unknown (unless `refused`). */
export class MoneroRpcTransportError extends Error {
  readonly publicReason: PublicReason;
  constructor(
    readonly method: string,
    message: string,
    readonly details: Omit<UnansweredDetails, 'publicReason'> & Partial<Pick<UnansweredDetails, 'publicReason'>>,
    options?: { cause?: unknown },
  ) {
    super(`${method}: ${message}`, options);
    this.name = 'MoneroRpcTransportError';
    this.publicReason = details.publicReason ?? DEFAULT_PUBLIC_REASON;
  }
}

/** Calls one wallet RPC server. */
export interface MoneroRpcClient {
  call<T = unknown>(method: string, params?: Record<string, unknown>): Promise<T>;
  readonly endpoint: string;
}

/** A client of the wallet at `url` (http://host:port gets /json_rpc). */
export function createMoneroRpcClient(options: { url: string; timeoutMs?: number; fetch?: typeof globalThis.fetch }): MoneroRpcClient {
  const url = new URL(options.url);
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/json_rpc';
  const caller = createJsonRpcCaller<Record<string, unknown>>({
    url: url.toString(),
    timeoutMs: options.timeoutMs ?? MONERO_RPC_TIMEOUT_MS,
    fetch: options.fetch ?? globalThis.fetch,
    version: '2.0',
    stringify: (request) => stringify(request) ?? '',
    // The wallet's integers are int64/uint64, as Zano's: the same lossless reading.
    parse: parseZanoBody,
    answered: (method, code, message) => new MoneroRpcError(method, code, message),
    unanswered: (method, message, details, errorOptions) => new MoneroRpcTransportError(method, message, details, errorOptions),
    statusHint: (status) => (status === 401 ? ' (the wallet wants a login: run it with --disable-rpc-login behind a private network)' : ''),
  });
  return { call: (method, params = {}) => caller.call(method, params), endpoint: caller.endpoint };
}

/** Piconero per XMR. */
const ATOMIC = 10n ** 12n;

/** Atomic units (piconero) as an XMR decimal string. */
export function formatPiconero(atomic: bigint): string {
  const whole = atomic / ATOMIC;
  const fraction = (atomic % ATOMIC).toString().padStart(12, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole.toString();
}

/** An XMR decimal string as atomic units; throws for more than 12 decimals or a malformed amount. */
export function parsePiconero(amount: string): bigint {
  const match = /^(0|[1-9][0-9]*)(?:\.([0-9]{1,12}))?$/.exec(amount);
  if (!match) throw new RangeError(`${amount} is not an XMR amount of at most 12 decimals`);
  return BigInt(match[1]) * ATOMIC + BigInt((match[2] ?? '').padEnd(12, '0'));
}
