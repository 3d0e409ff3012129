/**
 * What the job engine's parts read and write, bound to one database: the engine (jobs/engine.ts) is given
 * this port instead of the knex handle, so its parts hold no database handle and every statement they need
 * is here, in store/, next to the others.
 */
import type { Knex } from 'knex';
import { listOpenPayoutIds } from './payouts.js';
import {
  fillRouteAddresses,
  listDueRoutes,
  listRouteAssetKeys,
  listUnallocatedRoutes,
  nextDuePoll,
  type RouteAddressSigner,
  type RouteNetworkAddress,
} from './routes.js';
import { listActiveSwapIds, listUnstartedSwapIds } from './swaps.js';

/** The engine's statements. */
export interface JobStore {
  /** Every swap not yet in a terminal status (each gets a job at start). */
  activeSwapIds(): Promise<string[]>;
  /** Payouts pending or signed (one per batch), oldest first; with `unchangedSince`, only those unchanged since then or due for a retry. */
  openPayoutIds(unchangedSince?: Date): Promise<string[]>;
  /** Swaps whose first step never ran, or still waiting (or overdue) past their deadline, as of `before`. */
  unstartedSwapIds(before: Date): Promise<string[]>;
  /**
   * Routes created before `createdBefore` with a network still without its address (those networks), or with
   * every address but no `addresses_jws` yet (no network: only the signature is missing).
   */
  unallocatedRoutes(createdBefore: Date): Promise<Array<{ routeId: string; networks: string[] }>>;
  /** The asset keys of `routeIds`. */
  routeAssetKeys(routeIds: string[]): Promise<Array<{ routeId: string; assetKeys: string[] }>>;
  /**
   * Stores route addresses not stored yet (an address already stored is kept) and, in the same transaction, the
   * `addresses_jws` `sign` makes for each of `routeIds` that has every address now and none yet.
   */
  fillRouteAddresses(routeIds: string[], fills: RouteNetworkAddress[], sign: RouteAddressSigner): Promise<number>;
  /** Up to `limit` active routes due for a poll at `at`, those inside an expect-deposit window first. */
  dueRoutes(at: Date, limit: number): Promise<string[]>;
  /** When the next active route is due for a poll. */
  nextDuePoll(): Promise<Date | undefined>;
}

/** The engine's statements on `db`. */
export function createJobStore(db: Knex): JobStore {
  return {
    activeSwapIds: () => listActiveSwapIds(db),
    openPayoutIds: (unchangedSince) => listOpenPayoutIds(db, unchangedSince),
    unstartedSwapIds: (before) => listUnstartedSwapIds(db, before),
    unallocatedRoutes: (createdBefore) => listUnallocatedRoutes(db, createdBefore),
    routeAssetKeys: (routeIds) => listRouteAssetKeys(db, routeIds),
    fillRouteAddresses: (routeIds, fills, sign) => fillRouteAddresses(db, routeIds, fills, sign),
    dueRoutes: (at, limit) => listDueRoutes(db, at, limit),
    nextDuePoll: () => nextDuePoll(db),
  };
}
