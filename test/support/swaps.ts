/** Helpers for tests that quote, create and drive swaps through the real HTTP surface. */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { readJson, type JsonResponse } from './http.js';
import { signedFetch, signHeaders, type SignerOptions } from './signer.js';
import type { components } from '../../generated/api.js';

/** The spec's Swap, SwapEvent and Quote bodies. */
export type Swap = components['schemas']['Swap'];
export type SwapEvent = components['schemas']['SwapEvent'];
export type Quote = components['schemas']['Quote'];

/** An EVM address from the EIP-55 examples. */
export const ETH_ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

/** A BTC to USDT (ERC-20) quote request of `sourceAmount`. */
export const btcToUsdt = (sourceAmount = '0.015', extra: Record<string, unknown> = {}) => ({
  sourceAsset: 'BTC',
  sourceNetwork: 'BTC',
  destinationAsset: 'USDT',
  destinationNetwork: 'ETH',
  sourceAmount,
  refundMode: 'sender',
  ...extra,
});

/** A partner's view of one test server. */
export function swapClient(origin: string, signer: SignerOptions) {
  const send = <T = unknown>(method: string, path: string, body?: unknown) => readJson<T>(signedFetch(origin, signer, method, path, body));
  const client = {
    send,
    async quote(body: Record<string, unknown>): Promise<Quote> {
      const res = await send<{ quote: Quote }>('POST', '/api/v1/quotes', body);
      expect(res.status, res.text).to.equal(200);
      return res.body.quote;
    },
    /** POST /swaps with an Idempotency-Key (a new one unless given). */
    async createRaw(body: unknown, key: string | null = randomUUID()): Promise<JsonResponse<{ order: Swap; accessToken: string }>> {
      const text = JSON.stringify(body);
      const headers: Record<string, string> = { ...signHeaders(signer, 'POST', '/api/v1/swaps', text), 'content-type': 'application/json' };
      if (key !== null) headers['idempotency-key'] = key;
      return readJson(fetch(`${origin}/api/v1/swaps`, { method: 'POST', headers, body: text }));
    },
    /** Quotes `request` and creates the swap from it; returns the order and its token. */
    async create(request = btcToUsdt(), extra: Record<string, unknown> = {}): Promise<{ order: Swap; accessToken: string; quote: Quote }> {
      const quote = await client.quote(request);
      const res = await client.createRaw(swapBody(quote, request, extra));
      expect(res.status, res.text).to.equal(202);
      return { ...res.body, quote };
    },
    async get(id: string): Promise<{ order: Swap; events: SwapEvent[] }> {
      const res = await send<{ order: Swap; events: SwapEvent[] }>('GET', `/api/v1/swaps/${id}`);
      expect(res.status, res.text).to.equal(200);
      return res.body;
    },
    /** Polls the swap until `done` holds (or fails after `timeoutMs`). */
    async waitFor(id: string, done: (order: Swap, events: SwapEvent[]) => boolean, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const detail = await client.get(id);
        if (done(detail.order, detail.events)) return detail;
        if (Date.now() > deadline) throw new Error(`swap ${id} did not get there; it is ${JSON.stringify(detail.order.status)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    /** Waits for the deposit address and pays `amount` (default: the deposit amount) to it. */
    async pay(order: Swap, amount?: string) {
      const ready = await client.waitFor(order.id, (o) => o.depositAddress !== null && o.depositAddress !== undefined);
      const res = await send('POST', '/api/v1/sandbox/deposits', {
        address: ready.order.depositAddress,
        asset: order.sourceAsset,
        network: order.sourceNetwork,
        amount: amount ?? order.depositAmount ?? order.sourceAmount,
        ...(ready.order.depositMemo ? { memo: ready.order.depositMemo } : {}),
      });
      expect(res.status, res.text).to.equal(202);
      return res;
    },
  };
  return client;
}

/** The POST /swaps body that repeats `request` and adds the quote id, rate type and destination. */
export function swapBody(quote: Quote, request: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const { rateType: _requested, ...rest } = request;
  void _requested;
  return { ...rest, quoteId: quote.id, rateType: quote.rateType, destinationAddress: ETH_ADDRESS, ...extra };
}
