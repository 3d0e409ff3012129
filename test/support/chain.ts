/**
 * Helpers for tests that act on the sandbox's simulated chain through HTTP (payments, reorganisations), and
 * that make one network's broadcasts answer as a real node may (startTestServer's `wrapChains`).
 */
import {
  createAdapterRegistry,
  type BroadcastOutcome,
  type NetworkAdapters,
  type PayoutOrder,
  type SignedPayout,
} from '../../server/adapters/chain.js';
import type { ChainAdapters } from '../../server/wiring.js';
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

/**
 * A `wrapChains` for startTestServer: `network`'s broadcasts go through `broadcast`, which gets the simulated
 * chain's own broadcast as `pass` (signing is unchanged); every other network is as it was.
 */
export function wrapBroadcast(
  network: string,
  broadcast: (order: PayoutOrder, signed: SignedPayout, pass: () => Promise<BroadcastOutcome>) => Promise<BroadcastOutcome>,
): (chains: ChainAdapters) => ChainAdapters {
  return (chains) => {
    const wrapped: Record<string, NetworkAdapters> = {};
    for (const name of chains.registry.networks) {
      const adapters = chains.registry.of(name);
      wrapped[name] =
        name !== network
          ? adapters
          : {
              ...adapters,
              sender: {
                ...adapters.sender,
                broadcast: (order, signed) => broadcast(order, signed, () => adapters.sender.broadcast(order, signed)),
              },
            };
    }
    return { ...chains, registry: createAdapterRegistry(wrapped) };
  };
}
