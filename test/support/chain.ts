/** Helpers for tests that act on the sandbox's simulated chain through HTTP (payments, reorganisations). */
import type { JsonResponse } from './http.js';
import type { components } from '../../generated/api.js';

/** The spec's answer to a sandbox payment, and to a reorganisation. */
export type SandboxPayment = components['schemas']['SandboxDeposit'];
export type SandboxReorganization = components['schemas']['SandboxReorganization'];

/** Anything that sends signed requests (a swapClient). */
interface Sender {
  send<T = unknown>(method: string, path: string, body?: unknown): Promise<JsonResponse<T>>;
}

/** POST /sandbox/networks/{network}/reorganizations with `blocks`. */
export const reorganize = (client: Sender, network: string, blocks: number) =>
  client.send<SandboxReorganization>('POST', `/api/v1/sandbox/networks/${network}/reorganizations`, { blocks });

/**
 * Enough blocks for a reorganisation to take out a payment made at `createdAt` (mined in the block after the
 * one current then), with two blocks to spare for the time the request takes; at most 100.
 */
export function blocksSince(createdAt: string, blockSeconds: number): number {
  return Math.min(100, Math.ceil((Date.now() - Date.parse(createdAt)) / (blockSeconds * 1000)) + 2);
}
