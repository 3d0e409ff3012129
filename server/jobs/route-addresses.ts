/**
 * Allocates a permanent route's reusable deposit addresses: one per network, shared by the assets of that
 * network (EVM tokens use their network's address). Sandbox addresses are derived from the route id and the
 * network, so running the job twice fills the same addresses; an address already stored is kept.
 */
import type { Knex } from 'knex';
import type { CryptoThread } from '../crypto-thread.js';
import { seedOf } from '../adapters/sandbox/chain.js';
import { assetNetwork } from '../domain/catalog.js';
import { fillRouteAddresses, listRouteAssetKeys, type RouteNetworkAddress } from '../store/routes.js';

/**
 * Most routes whose addresses one statement stores (and whose addresses go to the crypto thread together).
 * The embedded database runs one statement at a time and the crypto thread one batch at a time, so the
 * requests' own statements and wallet proofs wait behind each fill. At 24 routes (about 240 rows) route
 * creates at 50 connections ran at about 1,400 a second on PGlite and 1,500 on PostgreSQL; at 6, about
 * 1,630 and 1,720, for about 5 % more CPU per create. Below 6 the throughput gained no more.
 */
export const ROUTES_PER_FILL = 6;

/**
 * Stores every address of `routes` that is still being allocated (the routes of a batch of jobs), in one
 * statement per ROUTES_PER_FILL routes. A route's `networks`, when its job names them (the networks of its
 * asset keys), save reading its asset keys first. The addresses are derived on `crypto`'s thread.
 */
export async function allocateRouteAddresses(
  knex: Knex,
  crypto: Pick<CryptoThread, 'sandboxAddress'>,
  routes: Array<{ routeId: string; networks?: string[] }>,
): Promise<void> {
  const unnamed = routes.filter((r) => !r.networks).map((r) => r.routeId);
  const keys = new Map((await listRouteAssetKeys(knex, unnamed)).map((r) => [r.routeId, r.assetKeys]));
  for (let start = 0; start < routes.length; start += ROUTES_PER_FILL) {
    const pending: Array<Promise<RouteNetworkAddress>> = [];
    for (const { routeId, networks } of routes.slice(start, start + ROUTES_PER_FILL)) {
      for (const network of new Set(networks ?? (keys.get(routeId) ?? []).map(assetNetwork))) {
        const address = crypto.sandboxAddress(network, seedOf(`route-address:${routeId}:${network}`));
        pending.push(address.then((a) => ({ routeId, network, address: a })));
      }
    }
    await fillRouteAddresses(knex, await Promise.all(pending));
  }
}
