/**
 * Internal transfers from call traces (the chain boundary, docs/architecture.md#money-that-ends-well): native value a contract sends by a call
 * or a SELFDESTRUCT, which no transaction's `to` and `value` show. Two trace methods are read, whichever the node
 * serves: `trace_block` (parity style: Erigon, Nethermind, reth, anvil) first, then `debug_traceBlockByNumber`
 * with the `callTracer` (geth style: geth, anvil). A node that serves neither (a method-not-found answer) is
 * told once in the log and read without traces from then on: reconciliation before a sweep (jobs/evm-sweep.ts)
 * finds what they would have shown.
 *
 * Each internal transfer is numbered by its position among the value-moving internal frames of its transaction,
 * in the depth-first order both methods list them in (calls of type `call`, SELFDESTRUCTs and creations that
 * carry value; not delegate, static or code calls, which move none; the top-level frame, which is the
 * transaction itself, is not counted). Frames that reverted, or whose caller reverted, are numbered too (so the
 * numbers do not depend on which succeeded) but move nothing and are not reported.
 */
import { getAddress, hexToBigInt, numberToHex, type Hex, type PublicClient } from 'viem';
import type { Logger } from 'pino';

/** A trace method a node may serve. */
export type TraceMethod = 'trace_block' | 'debug_traceBlockByNumber';

/** Which trace method the watcher reads: the first the node serves (`auto`), one of them, or none. */
export type TraceChoice = 'auto' | TraceMethod | 'off';

/** Native value a contract sent to `to` inside transaction `txHash` (not the transaction's own value). */
export interface InternalTransfer {
  txHash: string;
  /** Its position among the value-moving internal frames of the transaction (from 0). */
  position: number;
  /** The contract that sent it (the caller; for a SELFDESTRUCT, the destroyed contract). */
  from: string;
  to: string;
  /** In wei. */
  value: bigint;
}

/** A parity-style trace (`trace_block`): one frame, its place in the call tree given by `traceAddress`. */
export interface ParityTrace {
  type: string;
  action: { callType?: string; from?: string; to?: string; value?: string; address?: string; refundAddress?: string; balance?: string };
  result?: { address?: string; [field: string]: unknown } | null;
  error?: string;
  traceAddress: number[];
  transactionHash: string | null;
  blockHash?: string;
}

/** A geth callTracer frame (`debug_traceBlockByNumber`), with its calls nested. */
export interface CallFrame {
  type: string;
  from: string;
  to?: string;
  value?: string;
  error?: string;
  calls?: CallFrame[];
}

// Node answers are not trusted: a value that is not a hex quantity throws (the block is then read without traces).
const weiOf = (value: string): bigint => {
  if (!/^0x[0-9a-f]{1,64}$/i.test(value))
    throw new Error(`a trace names the value ${JSON.stringify(value).slice(0, 80)}, not a hex quantity`);
  return hexToBigInt(value as Hex);
};
const moves = (value: string | undefined): value is string => value !== undefined && weiOf(value) > 0n;

/** What a block's traces say: its internal transfers that took effect, and the block they name (null: none). */
export interface TracedBlock {
  transfers: InternalTransfer[];
  blockHash: string | null;
}

/** The internal transfers of one block's `trace_block` answer that took effect, and the block it names. */
export function transfersOfParityTraces(traces: ParityTrace[]): TracedBlock {
  const transfers: InternalTransfer[] = [];
  const blockHash = traces.find((trace) => typeof trace.blockHash === 'string')?.blockHash ?? null;
  // Per transaction: the trace addresses of frames that failed, and the count of value frames so far.
  const failed = new Map<string, string[]>();
  const counted = new Map<string, number>();
  const key = (path: number[]) => path.join('.');
  for (const trace of traces) {
    const txHash = trace.transactionHash;
    if (!txHash) continue; // a block reward
    const path = key(trace.traceAddress);
    const failures = failed.get(txHash) ?? [];
    failed.set(txHash, failures);
    if (trace.error !== undefined) failures.push(path);
    if (trace.traceAddress.length === 0) continue; // the transaction itself: its own value is output 0
    let from: string | undefined;
    let to: string | undefined;
    let value: string | undefined;
    if (trace.type === 'call' && trace.action.callType === 'call') ({ from, to, value } = trace.action);
    else if (trace.type === 'suicide') [from, to, value] = [trace.action.address, trace.action.refundAddress, trace.action.balance];
    else if (trace.type === 'create') [from, to, value] = [trace.action.from, trace.result?.address, trace.action.value];
    if (!moves(value)) continue;
    const position = counted.get(txHash) ?? 0;
    counted.set(txHash, position + 1);
    // Frames are listed depth first, so a failed caller (a prefix of this path) came before this frame.
    const reverted = failures.some((f) => f === '' || f === path || path.startsWith(`${f}.`));
    if (reverted || !from || !to) continue;
    transfers.push({ txHash, position, from: getAddress(from), to: getAddress(to), value: weiOf(value) });
  }
  return { transfers, blockHash };
}

/** The internal transfers of one block's `debug_traceBlockByNumber` (callTracer) answer that took effect (it names no block). */
export function transfersOfCallFrames(results: Array<{ txHash?: string; result?: CallFrame }>): TracedBlock {
  const transfers: InternalTransfer[] = [];
  for (const { txHash, result } of results) {
    if (!txHash || !result) continue;
    let position = 0;
    const walk = (frame: CallFrame, reverted: boolean) => {
      const failed = reverted || frame.error !== undefined;
      for (const call of frame.calls ?? []) {
        const type = call.type.toUpperCase();
        const valued = (type === 'CALL' || type === 'SELFDESTRUCT' || type === 'CREATE' || type === 'CREATE2') && moves(call.value);
        if (valued) {
          const mine = position++;
          if (!failed && call.error === undefined && call.to) {
            transfers.push({
              txHash,
              position: mine,
              from: getAddress(call.from),
              to: getAddress(call.to),
              value: weiOf(call.value!),
            });
          }
        }
        walk(call, failed);
      }
    };
    walk(result, false);
  }
  return { transfers, blockHash: null };
}

/** Whether `err` is a node's answer that it does not serve the method (not a failure of the call). */
export function isMethodUnavailable(err: unknown): boolean {
  let found = false;
  const visit = (e: unknown): void => {
    if (!e || typeof e !== 'object' || found) return;
    const { code, message, details, cause } = e as { code?: unknown; message?: unknown; details?: unknown; cause?: unknown };
    // -32601: method not found (JSON-RPC); -32004: method not supported (EIP-1474).
    if (code === -32601 || code === -32004) found = true;
    const text = `${typeof message === 'string' ? message : ''} ${typeof details === 'string' ? details : ''}`;
    if (
      /\b(method|namespace)\b[^.]*\b(not found|does not exist|not available|not supported|unsupported|not enabled|disabled)\b/i.test(text)
    ) {
      found = true;
    }
    visit(cause);
  };
  visit(err);
  return found;
}

/** Whether `err` is a failure to reach the node (no answer), as opposed to an answer refusing the request. */
const isTransportFailure = (err: unknown): boolean => {
  for (let e = err as { name?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.name === 'HttpRequestError' || e.name === 'TimeoutError' || e.name === 'WebSocketRequestError') return true;
  }
  return false;
};

/** What the trace reader needs. */
export interface TraceReaderOptions {
  client: PublicClient;
  /** Which method to read (default `auto`: the first the node serves). */
  choice?: TraceChoice;
  /** Where the method chosen, and a node that serves none, is told once. */
  logger?: Pick<Logger, 'info' | 'warn'>;
  /** The network, for log lines. */
  network?: string;
}

/** Reads the internal transfers of blocks, with the trace method the node serves. */
export interface TraceReader {
  /**
   * The internal transfers of the block at `height` that took effect, with the block hash the traces name, or
   * null when no traces are read (the node serves none, or `off`, or it refused to trace this block or answered
   * something malformed: logged). Throws when the node does not answer (the scan is tried again).
   */
  transfersIn(height: number): Promise<TracedBlock | null>;
  /** The method read now: null before the first block, or when none is. */
  method(): TraceMethod | 'none' | null;
}

/** A trace reader over `options.client`. */
export function createTraceReader(options: TraceReaderOptions): TraceReader {
  const { client, logger, network } = options;
  const choice = options.choice ?? 'auto';
  // The methods still to try, in order; the first that answers is kept.
  let candidates: TraceMethod[] = choice === 'off' ? [] : choice === 'auto' ? ['trace_block', 'debug_traceBlockByNumber'] : [choice];
  let chosen: TraceMethod | undefined;
  let told = choice === 'off';

  const call = async (method: TraceMethod, height: number): Promise<TracedBlock> => {
    const block = numberToHex(height);
    if (method === 'trace_block') {
      const traces = await client.request({ method: 'trace_block', params: [block] } as never);
      return transfersOfParityTraces((traces ?? []) as ParityTrace[]);
    }
    const results = await client.request({ method: 'debug_traceBlockByNumber', params: [block, { tracer: 'callTracer' }] } as never);
    return transfersOfCallFrames((results ?? []) as Array<{ txHash?: string; result?: CallFrame }>);
  };

  async function transfersIn(height: number): Promise<TracedBlock | null> {
    while (!chosen && candidates.length > 0) {
      const method = candidates[0]!;
      try {
        const transfers = await call(method, height);
        chosen = method;
        logger?.info({ network, method }, 'internal transfers are read from call traces');
        return transfers;
      } catch (err) {
        if (!isMethodUnavailable(err)) return refused(method, height, err);
        candidates = candidates.slice(1);
      }
    }
    if (!chosen) {
      if (!told) {
        told = true;
        logger?.warn(
          { network },
          'the node serves no call traces (trace_block, debug_traceBlockByNumber): internal transfers are not attributed; ' +
            'native value no transaction explains is found when a deposit address is reconciled before its sweep, and held for an operator',
        );
      }
      return null;
    }
    try {
      return await call(chosen, height);
    } catch (err) {
      return refused(chosen, height, err);
    }
  }

  // A node that answers but will not trace this block (pruned history, a tracer limit): the block is read
  // without traces, and a sweep's reconciliation holds what they would have shown. No answer at all: thrown.
  function refused(method: TraceMethod, height: number, err: unknown): null {
    if (isTransportFailure(err)) throw err;
    logger?.warn({ network, method, height, err }, 'the node refused to trace a block: its internal transfers are left to reconciliation');
    return null;
  }

  return { transfersIn, method: () => chosen ?? (candidates.length === 0 ? 'none' : null) };
}
