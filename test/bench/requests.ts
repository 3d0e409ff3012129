/**
 * Requests of the benches, written once and sent to any target: the server (under /api/v1, signed with a
 * partner's key), the Prism mock (at its root, with a well-formed signature it checks for presence only) or
 * the bare-express baseline. Signed requests are signed afresh every time one is built.
 */
import { signHeaders, type SignerOptions } from '../support/signer.js';
import type { Outgoing } from './load.js';

/** How a request authenticates. */
export type Auth = 'public' | 'signed' | { bearer: string };

/** One request, independent of the target. */
export interface Call {
  method: Outgoing['method'];
  /** Path (ids filled in) and query, without /api/v1. */
  path: string;
  auth: Auth;
  /** The JSON body, produced per request (a pool hands out a fresh one each time). */
  body?: () => string;
  headers?: () => Record<string, string>;
}

/** Where a target is and how requests to it are built. */
export interface Target {
  name: string;
  origin: string;
  /** Put before every path: /api/v1 on the server, nothing on Prism. */
  prefix: string;
  signer: SignerOptions;
}

/** A signed call with a fixed JSON body (or none). */
export function signedCall(method: Outgoing['method'], path: string, body?: unknown): Call {
  return { method, path, auth: 'signed', ...(body === undefined ? {} : { body: () => JSON.stringify(body) }) };
}

/** Builds `call` for `target`, a new signature (timestamp, nonce) and body each time it is called. */
export function nextOf(call: Call, target: Target): () => Outgoing {
  return () => {
    const body = call.body?.() ?? '';
    const fullPath = target.prefix + call.path;
    const headers: Record<string, string> = { ...call.headers?.() };
    if (body) headers['content-type'] = 'application/json';
    if (call.auth === 'signed') Object.assign(headers, signHeaders(target.signer, call.method, fullPath, body));
    else if (typeof call.auth === 'object') headers.authorization = `Bearer ${call.auth.bearer}`;
    return { method: call.method, path: fullPath, headers, body: body || undefined };
  };
}

/** Sends one request with fetch; its status, text and time taken. */
export async function send(target: Target, request: Outgoing): Promise<{ status: number; text: string; ms: number }> {
  const started = performance.now();
  const res = await fetch(`${target.origin}${request.path}`, { method: request.method, headers: request.headers, body: request.body });
  const text = await res.text();
  return { status: res.status, text, ms: performance.now() - started };
}
