/**
 * The fetch an EVM node's viem transport reads its answers through (viem's public `fetchFn` option): each answer
 * is read to at most MAX_ANSWER_BYTES (MAX_BULK_ANSWER_BYTES for a scan's logs, full blocks and call traces) and
 * checked before viem sees it: valid JSON, a JSON-RPC answer, and for the methods whose result the adapters read
 * as a number, a hex quantity (no `1e400`, no `-0x1`, no wrong type). A failed check throws AnswerTooLargeError or
 * MalformedAnswerError, which viem wraps as the `cause` of its HttpRequestError: adapters/boundary.ts
 * publicReasonOf finds it there (`answer too large`, `malformed answer`).
 */
import { MalformedAnswerError, MAX_ANSWER_BYTES, MAX_BULK_ANSWER_BYTES, readBoundedText } from '../boundary.js';

/** The fetch viem's http transport takes. */
export type FetchFn = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Methods whose answers list a batch of blocks' contents: MAX_BULK_ANSWER_BYTES. */
const BULK_METHODS: ReadonlySet<string> = new Set([
  'eth_getLogs',
  'eth_getBlockByNumber',
  'eth_getBlockByHash',
  'eth_getBlockReceipts',
  'trace_block',
  'debug_traceBlockByNumber',
]);

/** Methods whose result is one hex quantity. */
const QUANTITY_METHODS: ReadonlySet<string> = new Set([
  'eth_blockNumber',
  'eth_chainId',
  'eth_getBalance',
  'eth_gasPrice',
  'eth_maxPriorityFeePerGas',
  'eth_getTransactionCount',
  'eth_estimateGas',
]);

/** A hex quantity as JSON-RPC writes it (at most 256 bits). */
const QUANTITY = /^0x[0-9a-fA-F]{1,64}$/;
/** Hex data (eth_call's result). */
const DATA = /^0x(?:[0-9a-fA-F]{2})*$/;
/** A 32-byte hash. */
const HASH = /^0x[0-9a-fA-F]{64}$/;

/** A fetch over `fetchImpl` whose answers are bounded and checked (see the module comment). */
export function createCheckedFetch(fetchImpl: FetchFn = globalThis.fetch): FetchFn {
  return async (input, init) => {
    const requests = requestsOf(init?.body);
    const limitBytes = requests.some((r) => BULK_METHODS.has(r.method)) ? MAX_BULK_ANSWER_BYTES : MAX_ANSWER_BYTES;
    const response = await fetchImpl(input, init);
    const text = await readBoundedText(response, limitBytes);
    // viem reads an error status's body itself (a JSON-RPC error, or an HTTP error with its text).
    if (response.ok) checkAnswer(requests, text);
    const type = response.headers.get('content-type');
    return new Response(text, { status: response.status, statusText: response.statusText, headers: type ? { 'content-type': type } : {} });
  };
}

/** One JSON-RPC request of a body. */
export interface RpcRequest {
  id: unknown;
  method: string;
}

function requestsOf(body: unknown): RpcRequest[] {
  if (typeof body !== 'string') return [];
  try {
    const parsed = JSON.parse(body) as unknown;
    return (Array.isArray(parsed) ? parsed : [parsed]).filter(
      (r): r is RpcRequest => typeof r === 'object' && r !== null && typeof (r as RpcRequest).method === 'string',
    );
  } catch {
    return [];
  }
}

/** Throws MalformedAnswerError when `text` is not a JSON-RPC answer to `requests` of the expected shape. */
export function checkAnswer(requests: readonly RpcRequest[], text: string): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new MalformedAnswerError(`the node's answer to ${requests.map((r) => r.method).join(', ') || 'a request'} is not JSON`);
  }
  const answers = Array.isArray(parsed) ? parsed : [parsed];
  for (const answer of answers) {
    if (typeof answer !== 'object' || answer === null || (!('result' in answer) && !('error' in answer))) {
      throw new MalformedAnswerError(`the node answered ${shown(answer)}, not a JSON-RPC answer`);
    }
    if (!('result' in answer)) continue;
    const id = (answer as { id?: unknown }).id;
    const request = requests.length === 1 ? requests[0] : requests.find((r) => r.id === id);
    if (request) checkResult(request.method, (answer as { result: unknown }).result);
  }
}

function checkResult(method: string, result: unknown): void {
  const refuse = (what: string): never => {
    throw new MalformedAnswerError(`the node answered ${method} with ${shown(result)}, not ${what}`);
  };
  const isQuantity = (value: unknown) => typeof value === 'string' && QUANTITY.test(value);
  if (QUANTITY_METHODS.has(method)) {
    if (!isQuantity(result)) refuse('a hex quantity');
  } else if (method === 'eth_call') {
    if (typeof result !== 'string' || !DATA.test(result)) refuse('hex data');
  } else if (method === 'eth_sendRawTransaction') {
    if (typeof result !== 'string' || !HASH.test(result)) refuse('a transaction hash');
  } else if (method === 'eth_getBlockByNumber' || method === 'eth_getBlockByHash') {
    if (result === null) return;
    const block = result as { number?: unknown; timestamp?: unknown; hash?: unknown; transactions?: unknown };
    if (typeof result !== 'object' || Array.isArray(result)) refuse('a block');
    if (!(block.number === null || isQuantity(block.number)) || !isQuantity(block.timestamp) || !Array.isArray(block.transactions)) {
      refuse('a block (number, timestamp, transactions)');
    }
  } else if (method === 'eth_getLogs') {
    if (!Array.isArray(result)) refuse('a list of logs');
  }
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 80)}...` : text;
}
