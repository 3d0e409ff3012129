/**
 * A JSON-RPC forwarding proxy between the server and a node (anvil, or a Litecoin Core wallet's RPC): it
 * passes every call through and records it, holds the calls of a method while asked to, and, when armed for a method, runs an action (a test kills the
 * server's process group) at the exact moment that call arrives: before it is forwarded (the node never sees
 * it), or after the node answered and before the answer goes back (the node acted; the caller never learns it).
 * Either way the caller gets no answer: its connection is cut. It fires once, then passes everything again.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One JSON-RPC call that went through. */
export interface RpcCall {
  method: string;
  params: unknown[];
}

/** When the armed action runs: before the call is forwarded, or after the node answered it. */
export type InterceptPoint = 'before' | 'after';

/** A running proxy. */
export interface RpcProxy {
  /** The target's URL with the proxy's host and port (credentials and path kept): give it to the server. */
  url: string;
  /** Every call seen, in order. */
  calls: RpcCall[];
  /**
   * Arms the proxy: the next call of `method` runs `action` at `point`, and its caller's connection is cut.
   * Resolves with that call once the action is done.
   */
  arm(method: string, point: InterceptPoint, action: (call: RpcCall) => Promise<unknown>): Promise<RpcCall>;
  /** Holds every call of `method` (not forwarded, not answered) until the returned function is called. */
  hold(method: string): () => void;
  /**
   * Answers the next `times` calls of `method` with the JSON-RPC error `error`, without forwarding them (the
   * node never sees them): a node's refusal, as a test needs it. Resolves once they were all answered.
   */
  refuse(method: string, error: { code: number; message: string }, times?: number): Promise<RpcCall[]>;
  /**
   * Cuts the connection of the next `times` calls of `method` without forwarding them (the node never sees
   * them, and the caller hears nothing: its client's own retries are cut too). Resolves once they were cut.
   */
  drop(method: string, times: number): Promise<RpcCall[]>;
  /**
   * Answers every call of `method` (not forwarded) with HTTP 200 and the text `answer(id)` makes from the call's
   * JSON-RPC id, until the returned function is called: a node that answers nonsense (`"NaN"`, `1e400`, 10 MB).
   * An answer of null cuts the connection instead (a node out of reach).
   */
  answerWith(method: string, answer: (id: unknown) => string | null): () => void;
  close(): Promise<void>;
}

interface Armed {
  method: string;
  point: InterceptPoint;
  action: (call: RpcCall) => Promise<unknown>;
  resolve: (call: RpcCall) => void;
  reject: (err: unknown) => void;
}

const readBody = (req: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

/**
 * Starts a proxy to the node at `targetUrl` (credentials in it are the caller's to send, as the server does).
 * With `servePath`, the proxy's URL has that path instead of the target's (a provider's `/v3/<key>`), and calls to
 * it go to the target's own path.
 */
export async function startRpcProxy(targetUrl: string, options: { servePath?: string } = {}): Promise<RpcProxy> {
  const target = new URL(targetUrl);
  const calls: RpcCall[] = [];
  const answering = new Map<string, (id: unknown) => string | null>();
  let armed: Armed | undefined;
  const held = new Map<string, Promise<void>>();
  let refusing:
    | { method: string; error: { code: number; message: string } | null; left: number; seen: RpcCall[]; done: (calls: RpcCall[]) => void }
    | undefined;

  async function forward(req: IncomingMessage, body: Buffer): Promise<{ status: number; type: string; body: Buffer }> {
    const headers: Record<string, string> = { 'content-type': req.headers['content-type'] ?? 'application/json' };
    if (req.headers.authorization) headers.authorization = req.headers.authorization;
    const path = options.servePath && req.url?.startsWith(options.servePath) ? `${target.pathname}${target.search}` : (req.url ?? '/');
    const response = await fetch(new URL(path, target.origin), { method: req.method, headers, body });
    return {
      status: response.status,
      type: response.headers.get('content-type') ?? 'application/json',
      body: Buffer.from(await response.arrayBuffer()),
    };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      parsed = undefined;
    }
    const seen = (Array.isArray(parsed) ? parsed : [parsed])
      .filter((c): c is { method: string; params?: unknown[] } => typeof c === 'object' && c !== null && 'method' in c)
      .map((c) => ({ method: c.method, params: c.params ?? [] }));
    calls.push(...seen);
    for (const call of seen) await held.get(call.method);
    const answer = !Array.isArray(parsed) && seen[0] ? answering.get(seen[0].method) : undefined;
    if (answer) {
      const text = answer((parsed as { id?: unknown }).id ?? null);
      if (text === null) res.destroy();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(text);
      return;
    }
    const refused = refusing && !Array.isArray(parsed) ? seen.find((c) => c.method === refusing!.method) : undefined;
    if (refusing && refused) {
      const current = refusing;
      current.seen.push(refused);
      if (--current.left === 0) {
        refusing = undefined;
        current.done(current.seen);
      }
      if (current.error === null) {
        res.destroy();
        return;
      }
      const id = (parsed as { id?: unknown }).id ?? null;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, error: current.error }));
      return;
    }
    const hit = armed && seen.find((c) => c.method === armed!.method);
    const intercept = hit ? armed : undefined;
    if (intercept) armed = undefined;
    try {
      if (intercept?.point === 'before') {
        await intercept.action(hit!);
        intercept.resolve(hit!);
        res.destroy();
        return;
      }
      const answer = await forward(req, body);
      if (intercept) {
        await intercept.action(hit!);
        intercept.resolve(hit!);
        res.destroy();
        return;
      }
      res.writeHead(answer.status, { 'content-type': answer.type }).end(answer.body);
    } catch (err) {
      intercept?.reject(err);
      res.destroy();
    }
  }

  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(targetUrl);
  url.host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  if (options.servePath) {
    url.pathname = options.servePath;
    url.search = '';
  }
  return {
    url: targetUrl.endsWith('/') ? url.toString() : url.toString().replace(/\/$/, ''),
    calls,
    arm(method, point, action) {
      return new Promise<RpcCall>((resolve, reject) => {
        armed = { method, point, action, resolve, reject };
      });
    },
    refuse(method, error, times = 1) {
      return new Promise<RpcCall[]>((done) => {
        refusing = { method, error, left: times, seen: [], done };
      });
    },
    drop(method, times) {
      return new Promise<RpcCall[]>((done) => {
        refusing = { method, error: null, left: times, seen: [], done };
      });
    },
    answerWith(method, answer) {
      answering.set(method, answer);
      return () => answering.delete(method);
    },
    hold(method) {
      let release!: () => void;
      held.set(method, new Promise<void>((resolve) => (release = resolve)));
      return () => {
        held.delete(method);
        release();
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
