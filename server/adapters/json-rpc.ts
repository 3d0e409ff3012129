/**
 * JSON-RPC over HTTP POST, as the node families' clients share it (adapters/bitcoin/rpc.ts, adapters/zano/rpc.ts):
 * credentials moved from the URL into a Basic Authorization header (fetch refuses URLs that carry them), a time
 * limit per call, and the answer read as text and parsed by the family's own lossless rules. A family names its
 * JSON-RPC version and its two errors: one for an error the server answered, one for no answer.
 */

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
  /** The error for no answer (`refused`: the request never reached the server). */
  unanswered(method: string, message: string, details: { timedOut: boolean; refused: boolean }, options?: { cause?: unknown }): Error;
  /** Added to the message of a non-JSON-RPC answer with this HTTP status (e.g. a hint for 401). */
  statusHint?(status: number): string;
}

/** A caller of one endpoint. */
export interface JsonRpcCaller<P> {
  call<T = unknown>(method: string, params: P): Promise<T>;
  /** The URL without its credentials, for logs. */
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
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (user || password) headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  let nextId = 1;

  async function call<T>(method: string, params: P): Promise<T> {
    const id = nextId++;
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
      text = await response.text();
    } catch (err) {
      const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
      const refused = causeCode(err) === 'ECONNREFUSED';
      const what = timedOut ? `no answer within ${options.timeoutMs} ms` : `request failed (${causeCode(err) ?? (err as Error).message})`;
      throw options.unanswered(method, `${what} from ${endpoint}`, { timedOut, refused }, { cause: err });
    }
    // Servers answer errors with HTTP 500 (Bitcoin Core: 404 for an unknown method or wallet) and a JSON-RPC body.
    let body: { result?: unknown; error?: { code: bigint | number; message: string } | null } | undefined;
    try {
      body = options.parse(text) as typeof body;
    } catch {
      body = undefined;
    }
    if (body && typeof body === 'object' && body.error) throw options.answered(method, Number(body.error.code), String(body.error.message));
    if (status !== 200 || !body || typeof body !== 'object' || !('result' in body)) {
      throw options.unanswered(method, `HTTP ${status} without a JSON-RPC answer from ${endpoint}${options.statusHint?.(status) ?? ''}`, {
        timedOut: false,
        refused: false,
      });
    }
    return body.result as T;
  }

  return { call, endpoint };
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
