/**
 * JSON-RPC over HTTP POST, as the node families' clients share it (adapters/bitcoin/rpc.ts, adapters/zano/rpc.ts):
 * credentials moved from the URL into a Basic Authorization header (fetch refuses URLs that carry them), a time
 * limit per call (the body included), the answer read as text of at most MAX_ANSWER_BYTES (adapters/boundary.ts)
 * and parsed by the family's own lossless rules. A family names its JSON-RPC version and its two errors: one for
 * an error the server answered, one for no usable answer, which carries the public reason (`node unreachable`,
 * `malformed answer`, `answer too large`). Messages name the endpoint only as redactUrl shows it.
 */
import { AnswerTooLargeError, MAX_ANSWER_BYTES, readBoundedText, redactUrl, type PublicReason } from './boundary.js';

/** Why no usable answer came, as the family's `unanswered` error is told. */
export interface UnansweredDetails {
  /** No answer within the timeout. */
  timedOut: boolean;
  /** The connection was refused: the request never reached the server. */
  refused: boolean;
  /** What the public may be told of it. */
  publicReason: Extract<PublicReason, 'node unreachable' | 'malformed answer' | 'answer too large'>;
}

/** What a family's client needs to speak JSON-RPC to one endpoint. */
export interface JsonRpcOptions<P> {
  /** http(s)://[user:password@]host:port/path. */
  url: string;
  timeoutMs: number;
  fetch: typeof globalThis.fetch;
  /** '1.0' (Bitcoin Core) or '2.0'. */
  version: '1.0' | '2.0';
  /** Writes the request body (the family's number rules). */
  stringify(request: { jsonrpc: string; id: number; method: string; params: P }): string;
  /** Reads an answer without losing a digit (throws on text that is not JSON). */
  parse(text: string): unknown;
  /** The error for an error the server answered. */
  answered(method: string, code: number, message: string): Error;
  /** The error for no usable answer (`refused`: the request never reached the server). */
  unanswered(method: string, message: string, details: UnansweredDetails, options?: { cause?: unknown }): Error;
  /** Added to the message of a non-JSON-RPC answer with this HTTP status (e.g. a hint for 401). */
  statusHint?(status: number): string;
  /** The most bytes an answer to `method` may have (default MAX_ANSWER_BYTES for every method). */
  maxAnswerBytes?(method: string): number;
}

/** A caller of one endpoint. */
export interface JsonRpcCaller<P> {
  call<T = unknown>(method: string, params: P): Promise<T>;
  /** The URL for logs: without its credentials and path secrets (redactUrl). */
  readonly endpoint: string;
}

/** A JSON-RPC caller of `options.url`. */
export function createJsonRpcCaller<P>(options: JsonRpcOptions<P>): JsonRpcCaller<P> {
  const url = new URL(options.url);
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  url.username = '';
  url.password = '';
  const endpoint = url.toString();
  const shown = redactUrl(endpoint);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (user || password) headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  let nextId = 1;

  async function call<T>(method: string, params: P): Promise<T> {
    const id = nextId++;
    const limitBytes = options.maxAnswerBytes?.(method) ?? MAX_ANSWER_BYTES;
    let status: number;
    let text: string;
    try {
      const response = await options.fetch(endpoint, {
        method: 'POST',
        headers,
        body: options.stringify({ jsonrpc: options.version, id, method, params }),
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      status = response.status;
      text = await readBoundedText(response, limitBytes);
    } catch (err) {
      if (err instanceof AnswerTooLargeError) {
        throw options.unanswered(
          method,
          `an answer larger than ${limitBytes} bytes from ${shown}`,
          { timedOut: false, refused: false, publicReason: 'answer too large' },
          { cause: err },
        );
      }
      const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
      const refused = causeCode(err) === 'ECONNREFUSED';
      const what = timedOut ? `no answer within ${options.timeoutMs} ms` : `request failed (${causeCode(err) ?? (err as Error).message})`;
      throw options.unanswered(method, `${what} from ${shown}`, { timedOut, refused, publicReason: 'node unreachable' }, { cause: err });
    }
    // Servers answer errors with HTTP 500 (Bitcoin Core: 404 for an unknown method or wallet) and a JSON-RPC body.
    let body: { result?: unknown; error?: { code: unknown; message: unknown } | null } | undefined;
    try {
      body = options.parse(text) as typeof body;
    } catch {
      body = undefined;
    }
    const error = body && typeof body === 'object' ? body.error : undefined;
    const wellFormedError =
      !!error &&
      typeof error === 'object' &&
      (typeof error.code === 'number' || typeof error.code === 'bigint') &&
      typeof error.message === 'string';
    if (error && wellFormedError) throw options.answered(method, Number(error.code), error.message as string);
    if (status !== 200 || !body || typeof body !== 'object' || Array.isArray(body) || !('result' in body) || error) {
      // An HTTP 200 whose body is no JSON-RPC answer is a malformed answer; another status without one (a proxy's
      // 502, a 401) is a node out of reach.
      throw options.unanswered(method, `HTTP ${status} without a JSON-RPC answer from ${shown}${options.statusHint?.(status) ?? ''}`, {
        timedOut: false,
        refused: false,
        publicReason: status === 200 ? 'malformed answer' : 'node unreachable',
      });
    }
    return body.result as T;
  }

  return { call, endpoint: shown };
}

/** The system error code behind a failed fetch (undici puts it on `cause`). */
function causeCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
