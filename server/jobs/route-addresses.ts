/**
 * Allocates a permanent route's reusable deposit addresses (the route-addresses queue's worker, and new
 * routes' allocation on the instance that stored them): one per network, shared by the assets of that
 * network (EVM tokens use their network's address). Each comes from a RouteAddressSource that gives the same
 * address for the same route and network, so running the job twice fills the same addresses; an address
 * already stored is kept.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AdapterRegistry } from '../adapters/chain.js';
import { seedOf } from '../adapters/sandbox/chain.js';
import type { CryptoThread } from '../crypto-thread.js';
import { assetNetwork, type Catalog } from '../domain/catalog.js';
import { nativeCoinOf } from '../networks/index.js';
import { ROUTE_ADDRESSES_TYPE, routeAddressesOf, type InstructionsSigner, type RouteToSign } from '../domain/signed-instructions.js';
import { depositIndexOf } from '../store/chain-ledger.js';
import type { Metrics } from '../metrics.js';
import type { JobStore } from '../store/job-store.js';
import type { RouteNetworkAddress } from '../store/routes.js';
import { ROUTE_ADDRESSES_QUEUE, startQueueWorker, type EnginePart, type JobQueue } from './queue.js';

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
    const coin = deps.catalog.assets.find((a) => a.network === network && a.symbol === nativeCoinOf(network));
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

/** What signs a route's addresses once they are all allocated: the signer and the clock of `signedAt`. */
export interface RouteSigning {
  signer: InstructionsSigner;
  now: () => Date;
}

/** The statements allocation runs. */
export type RouteAddressStore = Pick<JobStore, 'routeAssetKeys' | 'fillRouteAddresses'>;

/**
 * Stores every address of `routes` that is still being allocated (the routes of a batch of jobs), in one
 * statement per ROUTES_PER_FILL routes, and signs the addresses of each route that has all of them then
 * (`addresses_jws`, once, in the fill's transaction: a route signed already keeps its JWS). A route's
 * `networks`, when its job names them (the networks of its asset keys; none for a route whose addresses are
 * all stored but not signed), save reading its asset keys first. The addresses are asked of `addressOf`, outside any transaction.
 */
export async function allocateRouteAddresses(
  store: RouteAddressStore,
  addressOf: RouteAddressSource,
  signing: RouteSigning,
  routes: Array<{ routeId: string; networks?: string[] }>,
): Promise<void> {
  const unnamed = routes.filter((r) => !r.networks).map((r) => r.routeId);
  const keys = new Map((await store.routeAssetKeys(unnamed)).map((r) => [r.routeId, r.assetKeys]));
  const sign = (complete: RouteToSign[]) => {
    const at = signing.now();
    return complete.map((route) => ({
      routeId: route.routeId,
      jws: signing.signer.sign(ROUTE_ADDRESSES_TYPE, routeAddressesOf(route, at)),
    }));
  };
  for (let start = 0; start < routes.length; start += ROUTES_PER_FILL) {
    const chunk = routes.slice(start, start + ROUTES_PER_FILL);
    const pending: Array<Promise<RouteNetworkAddress>> = [];
    for (const { routeId, networks } of chunk) {
      for (const network of new Set(networks ?? (keys.get(routeId) ?? []).map(assetNetwork))) {
        pending.push(addressOf(routeId, network).then((address) => ({ routeId, network, address })));
      }
    }
    await store.fillRouteAddresses(
      chunk.map((r) => r.routeId),
      await Promise.all(pending),
      sign,
    );
  }
}

/**
 * Route-addresses jobs one fetch takes: all of a fetch are filled on one connection (in statements of
 * ROUTES_PER_FILL routes), so a larger batch costs no more connections, and under load it saves fetches (a
 * fetch of pg-boss's partitioned job table is planned anew each time: about a millisecond of PostgreSQL's CPU).
 */
export const ROUTE_ADDRESSES_BATCH_SIZE = 24;

/** A route to allocate, with the networks of its asset keys (older jobs may name none). */
export type RouteAddressWork = { routeId: string; networks?: string[] };
/**
 * A route-addresses job: one route the sweep of unstarted work found, or the routes of one create statement
 * (as jobs queued by earlier versions were).
 */
type RouteAddressesJob = { routes: RouteAddressWork[] } | RouteAddressWork;

/**
 * The route-addresses queue's worker, for the allocations the sweep of unstarted work queues, and the
 * allocation of new routes on the instance that stored them (`schedule`, without a job of their own).
 */
export function createRouteAddressing(deps: {
  store: RouteAddressStore;
  queue: JobQueue;
  addressOf: RouteAddressSource;
  signing: RouteSigning;
  logger: Logger;
  metrics?: Metrics;
}): EnginePart<(routes: Array<{ routeId: string; networks: string[] }>) => Promise<void>> {
  // New routes' addresses are allocated here once their create has committed, as new swaps' first steps are
  // (swap-steps.ts startSwaps): ROUTE_ADDRESSES_BATCH_SIZE routes at a time. A route left without them (a
  // failure, a stop) is found by the sweep of unstarted work.
  const allocating: RouteAddressWork[] = [];
  let allocationRun: Promise<void> | undefined;
  let stopping = false;
  const drainAllocations = async () => {
    while (allocating.length > 0) {
      const batch = allocating.splice(0, ROUTE_ADDRESSES_BATCH_SIZE);
      await allocateRouteAddresses(deps.store, deps.addressOf, deps.signing, batch).catch((err) =>
        deps.logger.warn(
          { err, routes: batch.length },
          "allocating new routes' addresses failed; the sweep of unstarted work allocates them",
        ),
      );
    }
    allocationRun = undefined;
  };
  return {
    async start() {
      await startQueueWorker<RouteAddressesJob>(
        deps.queue,
        ROUTE_ADDRESSES_QUEUE,
        { batchSize: ROUTE_ADDRESSES_BATCH_SIZE, metrics: deps.metrics },
        (jobs) =>
          allocateRouteAddresses(
            deps.store,
            deps.addressOf,
            deps.signing,
            jobs.flatMap(({ data }) => ('routes' in data ? data.routes : [data])),
          ),
      );
    },
    // Never throws: called after the create committed.
    async schedule(routes) {
      if (stopping || routes.length === 0) return;
      allocating.push(...routes.map(({ routeId, networks }) => ({ routeId, networks: [...new Set(networks)] })));
      allocationRun ??= drainAllocations();
    },
    async stop() {
      stopping = true;
      allocating.length = 0; // left to the sweep, or to the next start
      await allocationRun;
    },
  };
}
