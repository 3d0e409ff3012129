/**
 * Allocates a permanent route's reusable deposit addresses: one per network, shared by the assets of that
 * network (EVM tokens use their network's address). Each comes from a RouteAddressSource that gives the same
 * address for the same route and network, so running the job twice fills the same addresses; an address
 * already stored is kept.
 */
import type { Knex } from 'knex';
import type { AdapterRegistry } from '../adapters/chain.js';
import { seedOf } from '../adapters/sandbox/chain.js';
import type { CryptoThread } from '../crypto-thread.js';
import { assetNetwork, NATIVE_ASSET, type Catalog } from '../domain/catalog.js';
import { depositIndexOf } from '../store/chain-ledger.js';
import { fillRouteAddresses, listRouteAssetKeys, type RouteNetworkAddress } from '../store/routes.js';

/** The deposit address of route `routeId` on `network`: the same for the same route and network. */
export type RouteAddressSource = (routeId: string, network: string) => Promise<string>;

/**
 * The simulated chain's route addresses: derived from the route id and the network in the sandbox's formats,
 * on the crypto thread (a Zano address costs curve arithmetic; the requests' own work stays on the main one).
 */
export function sandboxRouteAddresses(crypto: Pick<CryptoThread, 'sandboxAddress'>): RouteAddressSource {
  return (routeId, network) => crypto.sandboxAddress(network, seedOf(`route-address:${routeId}:${network}`));
}

/**
 * Route addresses from each network's address source (real nodes): the address of the network's coin for
 * the key `route:<routeId>:<network>`, at a derivation index allocated once for that key. A watch-only
 * wallet is told of the address before it is stored, as for a swap's.
 */
export function adapterRouteAddresses(deps: { knex: Knex; catalog: Catalog; adapters: AdapterRegistry }): RouteAddressSource {
  return async (routeId, network) => {
    const coin = deps.catalog.assets.find((a) => a.network === network && a.symbol === NATIVE_ASSET[network]);
    if (!coin) throw new Error(`route ${routeId}: network ${network} has no coin in the served catalogue`);
    const key = `route:${routeId}:${network}`;
    const { address } = await deps.adapters.of(network).addresses.depositAddress(coin, {
      key,
      index: () => depositIndexOf(deps.knex, network, key),
    });
    return address;
  };
}

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
 * asset keys), save reading its asset keys first. The addresses are asked of `addressOf`, outside any
 * transaction.
 */
export async function allocateRouteAddresses(
  knex: Knex,
  addressOf: RouteAddressSource,
  routes: Array<{ routeId: string; networks?: string[] }>,
): Promise<void> {
  const unnamed = routes.filter((r) => !r.networks).map((r) => r.routeId);
  const keys = new Map((await listRouteAssetKeys(knex, unnamed)).map((r) => [r.routeId, r.assetKeys]));
  for (let start = 0; start < routes.length; start += ROUTES_PER_FILL) {
    const pending: Array<Promise<RouteNetworkAddress>> = [];
    for (const { routeId, networks } of routes.slice(start, start + ROUTES_PER_FILL)) {
      for (const network of new Set(networks ?? (keys.get(routeId) ?? []).map(assetNetwork))) {
        pending.push(addressOf(routeId, network).then((address) => ({ routeId, network, address })));
      }
    }
    await fillRouteAddresses(knex, await Promise.all(pending));
  }
}
