/**
 * An API that lives in an injected `fetch`, as openapi-fetch's own tests do it: each test says what the
 * service answers for a method and path, and reads back every request the SDK sent. A request no handler
 * expects is answered 404 in the spec's Error shape and recorded, so a wrong path fails the test that sent it.
 * Signed requests are checked with the server's own signing code (server/domain/signing.ts), not the SDK's,
 * and answered 401 invalid_signature as the service would when they do not verify.
 */
import { expect } from 'chai';
import { createPartnerClient, type PartnerClient, type PartnerClientOptions, type Swap, type SwapEvent } from '../../src/index.js';
import { computeSignature, parseSignedHeaders, signaturesMatch } from '../../../server/domain/signing.js';

/** The partner every fake client signs as. */
export const PARTNER = {
  baseUrl: 'https://swap.example.com/api/v1',
  audience: 'https://swap.example.com',
  keyId: 'pk_test_7Hq2Xv',
  secret: 'pss_sk_test-secret-0123456789abcdef',
  userId: 'customer-1',
} as const;

const BASE_PATH = new URL(PARTNER.baseUrl).pathname;

/** One request as the fake received it, readable after the fact. */
export interface SentRequest {
  method: string;
  /** The path below the base URL, e.g. /swaps/abc. */
  path: string;
  query: URLSearchParams;
  headers: Headers;
  /** The raw body text ('' without one). */
  body: string;
  /** Whether the five signed headers are present and verify with PARTNER.secret over exactly these bytes. */
  signed: boolean;
  /** The raw request (its signal shows whether the SDK aborted it). */
  request: Request;
}

/** Answers one request; `params` are the `{name}` segments of the registered path. */
export type Handler = (request: SentRequest, params: Record<string, string>) => Response | Promise<Response>;

/** A JSON response. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

/** An error response in the spec's Error shape, with the request id header the service sends. */
export function apiError(status: number, code: string, message: string, headers: Record<string, string> = {}): Response {
  return json(status, { error: { code, message } }, { 'x-request-id': `req_${code}`, ...headers });
}

/** A Server-Sent Events response whose body is `text`, ending when the text does. */
export function sse(text: string): Response {
  return new Response(text, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

/** A fake API behind an injected fetch. */
export interface FakeApi {
  /** Pass as PartnerClientOptions.fetch. */
  fetch: (request: Request) => Promise<Response>;
  /** Every request sent, in order. */
  sent: SentRequest[];
  /** Answers `method path` with the handlers in turn, repeating the last one. */
  on(method: string, path: string, ...handlers: Handler[]): FakeApi;
  /** A client of PARTNER over this fake, with `extra` options; sleeps return at once unless given. */
  client(extra?: Partial<PartnerClientOptions>): PartnerClient;
}

/** A fresh fake API with no handlers. */
export function fakeApi(): FakeApi {
  const routes: Array<{ method: string; pattern: RegExp; names: string[]; handlers: Handler[]; calls: number }> = [];
  const sent: SentRequest[] = [];

  const api: FakeApi = {
    sent,
    async fetch(request) {
      const url = new URL(request.url);
      expect(url.origin + url.pathname.slice(0, BASE_PATH.length)).to.equal(PARTNER.baseUrl, 'every request goes to the base URL');
      const bytes = new Uint8Array(await request.clone().arrayBuffer());
      const recorded: SentRequest = {
        method: request.method,
        path: url.pathname.slice(BASE_PATH.length),
        query: url.searchParams,
        headers: request.headers,
        body: new TextDecoder().decode(bytes),
        signed: verifies(request, url, bytes),
        request,
      };
      sent.push(recorded);
      if (request.headers.has('x-service-signature') && !recorded.signed)
        return apiError(401, 'invalid_signature', 'The request signature does not match.');
      for (const route of routes) {
        const match = route.method === request.method ? route.pattern.exec(recorded.path) : null;
        if (!match) continue;
        const handler = route.handlers[Math.min(route.calls++, route.handlers.length - 1)];
        return handler(recorded, Object.fromEntries(route.names.map((name, i) => [name, decodeURIComponent(match[i + 1])])));
      }
      return apiError(404, 'not_found', `The fake API has no handler for ${request.method} ${recorded.path}.`);
    },
    on(method, path, ...handlers) {
      const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const pattern = new RegExp(`^${path.replace(/\{\w+\}/g, '([^/]+)')}$`);
      routes.push({ method, pattern, names, handlers, calls: 0 });
      return api;
    },
    client(extra = {}) {
      return createPartnerClient({ ...PARTNER, fetch: api.fetch, sleep: async () => undefined, ...extra });
    },
  };
  return api;
}

// The service's check of a signed request, with the service's code: the SDK's signer is what is under test.
function verifies(request: Request, url: URL, body: Uint8Array): boolean {
  let headers;
  try {
    headers = parseSignedHeaders((name) => request.headers.get(name) ?? undefined);
  } catch {
    return false;
  }
  if (headers.keyId !== PARTNER.keyId) return false;
  const expected = computeSignature(PARTNER.secret, {
    audience: PARTNER.audience,
    method: request.method,
    pathAndQuery: url.pathname + url.search,
    timestamp: headers.timestamp,
    nonce: headers.nonce,
    keyId: headers.keyId,
    user: headers.user,
    body,
  });
  return signaturesMatch(expected, headers.signatureHex);
}

/** The requests sent to `method path` (path below the base URL, exact). */
export function sentTo(api: FakeApi, method: string, path: string): SentRequest[] {
  return api.sent.filter((r) => r.method === method && r.path === path);
}

/** A swap as the API describes it, waiting for its deposit; override any field. */
export function swapOf(overrides: Partial<Swap> = {}): Swap {
  return {
    id: '3f1c9a52-7d4e-4b8a-9c61-2e5f0a7b8d13',
    mode: 'sandbox',
    sourceAsset: 'BTC',
    sourceNetwork: 'BTC',
    destinationAsset: 'USDT',
    destinationNetwork: 'ETH',
    destination: '0x71C7656EC7ab88b098defB751B7401B5f6d8976F',
    refundMode: 'sender',
    rateType: 'floating',
    sourceAmount: '0.015',
    depositAmount: '0.015',
    depositAddress: 'bcrt1qexampledepositaddress0000000000000',
    status: 'waiting',
    terminal: false,
    actionRequired: 'customer',
    retryable: false,
    reasonCode: 'payment_required',
    termsVersion: '2026-01',
    createdAt: '2026-06-14T10:00:00.000Z',
    updatedAt: '2026-06-14T10:00:00.000Z',
    ...overrides,
  };
}

/** A timeline entry of the swap in swapOf; override any field. */
export function eventOf(id: string, status: SwapEvent['status'], overrides: Partial<SwapEvent> = {}): SwapEvent {
  const terminal = ['finished', 'refunded', 'expired', 'failed'].includes(status);
  return {
    id,
    orderId: swapOf().id,
    status,
    terminal,
    actionRequired: 'none',
    retryable: false,
    reasonCode: status,
    occurredAt: '2026-06-14T10:00:00.000Z',
    ...overrides,
  };
}
