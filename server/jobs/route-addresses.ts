/**
 * Allocates a permanent route's reusable deposit addresses: one per network, shared by the assets of that
 * network (EVM tokens use their network's address). Sandbox addresses are derived from the route id and the
 * network, so running the job twice fills the same addresses; only empty rows are written.
 */
import type { Knex } from 'knex';
import { seedOf } from '../adapters/sandbox/chain.js';
import { sandboxAddress } from '../domain/addresses.js';
import { fillRouteAddresses, listRouteAddresses } from '../store/routes.js';

/**
 * Fills every address of `routeId` that is still being allocated. `networks`, when the job names them (the
 * networks of the rows its route was created with), saves reading the rows first.
 */
export async function allocateRouteAddresses(knex: Knex, routeId: string, networks?: string[]): Promise<void> {
  const pending = networks ?? (await listRouteAddresses(knex, [routeId])).filter((a) => a.address === '').map((a) => a.network);
  const addresses = new Map<string, string>();
  for (const network of pending) {
    if (!addresses.has(network)) addresses.set(network, sandboxAddress(network, seedOf(`route-address:${routeId}:${network}`)));
  }
  await fillRouteAddresses(knex, routeId, addresses);
}
