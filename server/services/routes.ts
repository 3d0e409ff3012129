/**
 * The route service: polls a permanent route (docs/architecture.md#routes-and-the-wallet-proof). In one ordinary transaction on the locked route it
 * loads what the chain ledger shows paid to the route's addresses, records the new deposits, loads the route's
 * deposits without an order and its waiting buckets, decides (domain/route-poll.ts), and saves the decision:
 * the deposits' changes, the orders it creates with their jobs, the buckets, the `permanent_deposit.updated`
 * messages and the route's next poll. The sweeper (jobs/route-deposits.ts) calls it; the route lock makes
 * polls of one route run one at a time, so two workers never convert a deposit twice.
 *
 * Screening (docs/screening.md) asks about the senders of the route's new payments before the transaction
 * too (services/screening.ts); the poll stores the verdicts with the deposits, and a deposit from a sender
 * screening did not clear becomes an order held for an operator.
 *
 * No rates-adapter call runs inside the transaction: the prices a poll may need (the assets of the route's
 * deposits without an order, and its destination) are asked before it. A payment seen for the first time
 * already confirmed, in an asset the route held no deposit of, needs a price that was not asked: the poll then
 * rolls back, asks it, and runs again.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { RatesAdapter } from '../adapters/rates.js';
import type { Catalog } from '../domain/catalog.js';
import type { Amount } from '../domain/money.js';
import {
  decideRoutePoll,
  depositsToRecord,
  type PollSchedule,
  type RoutePollContext,
  type RoutePollStep,
  type RoutePrices,
} from '../domain/route-poll.js';
import type { RouteScreened, ScreeningGate } from './screening.js';
import { transaction } from '../store/after-commit.js';
import { listOutputsToAddresses } from '../store/chain-ledger.js';
import {
  deleteBucket,
  insertDepositMessages,
  insertNewDeposits,
  listBuckets,
  listOpenDeposits,
  listRecordedOutputs,
  saveBucket,
  updateDeposit,
} from '../store/route-deposits.js';
import { listRouteAddresses, lockDueRoute, readPollPricing, updateRoutePolling, type RouteRecord } from '../store/routes.js';
import { createRouteOrder, transitionSwap } from '../store/swap-transitions.js';

/** What the service needs. */
export interface RouteServiceDeps {
  knex: Knex;
  catalog: Catalog;
  rates: RatesAdapter;
  now: () => Date;
  /** When routes are polled (ROUTE_POLL_SECONDS and the others, and the networks' block times). */
  schedule: PollSchedule;
  /** ROUTE_DUST_FLOOR_FACTOR: multiplies every catalogue dust floor (decimal string). */
  dustFloorFactor: string;
  /** Screens the senders of the route's payments before a poll (none: no screening). */
  screening?: Pick<ScreeningGate, 'enabled' | 'screenRouteSenders' | 'recordRouteVerdicts'>;
  logger?: Logger;
}

/** The outcome of a poll: when to poll again, and the orders it created (the caller moves them on). */
export interface PollResult {
  nextPollAt: Date | undefined;
  orderIds: string[];
}

/** Called in a poll's transaction for each order it created. */
export type OrderCallback = (orderId: string, trx: Knex.Transaction) => Promise<void>;

// How many times one poll runs its transaction: a price found missing is asked and the poll runs again (a
// second miss needs a new asset's payment recorded by the watcher in between).
const MAX_ATTEMPTS = 3;

// Rolls a poll back that needs prices it was not given.
class UnpricedError extends Error {
  constructor(readonly assetKeys: string[]) {
    super(`a route poll needs the prices of ${assetKeys.join(', ')}, which were not asked`);
  }
}

/** Creates the service. */
export function createRouteService(deps: RouteServiceDeps) {
  // Asks the prices of `keys` not in `prices` yet, all at `at`; an unavailable one throws when it is used,
  // so it fails only a decision that needs it.
  async function askPrices(prices: Map<string, () => Amount>, keys: string[], at: Date): Promise<void> {
    const asked = await Promise.all(
      keys
        .filter((key) => !prices.has(key))
        .map(async (key): Promise<[string, () => Amount]> => {
          const [symbol, network] = key.split('/');
          try {
            const price = await deps.rates.priceUsd(symbol, network, at);
            return [key, () => price];
          } catch (err) {
            return [
              key,
              () => {
                throw err;
              },
            ];
          }
        }),
    );
    for (const [key, price] of asked) prices.set(key, price);
  }

  // One poll of the locked `route` in `trx`.
  async function pollLocked(
    trx: Knex.Transaction,
    route: RouteRecord,
    prices: RoutePrices,
    screened: RouteScreened,
    at: Date,
    onOrder: OrderCallback | undefined,
  ): Promise<PollResult> {
    const context: RoutePollContext = { catalog: deps.catalog, dustFloorFactor: deps.dustFloorFactor, schedule: deps.schedule, now: at };
    const addresses = await listRouteAddresses(trx, [route.id]);
    const outputs = await listOutputsToAddresses(trx, [...new Set(addresses.map((a) => a.address))]);
    const recorded = await listRecordedOutputs(
      trx,
      route.id,
      outputs.filter((o) => !o.removed).map((o) => o.txHash),
    );
    const fresh = depositsToRecord(route, addresses, outputs, recorded, context);
    for (const { txHash, error } of fresh.unrecordable) {
      deps.logger?.error({ err: error, routeId: route.id, txHash }, 'route deposit cannot be recorded; skipped');
    }
    // Every new row comes back, dust included (an output recorded meanwhile is skipped).
    const created = await insertNewDeposits(trx, fresh.deposits);
    const open = await listOpenDeposits(trx, route.id);
    const buckets = await listBuckets(trx, route.id);
    const screening = deps.screening?.enabled ? await deps.screening.recordRouteVerdicts(trx, route.id, open, screened) : undefined;

    const decision = decideRoutePoll({ route, outputs, created, open, buckets, prices, screening }, context);
    if (decision.kind === 'unpriced') throw new UnpricedError(decision.assetKeys);
    const orderIds: string[] = [];
    for (const step of decision.steps) {
      const orderId = await apply(trx, step, at);
      if (orderId === undefined) continue;
      // Queued with the order: if anything after the commit fails, a worker still carries it on.
      await onOrder?.(orderId, trx);
      orderIds.push(orderId);
    }
    await insertDepositMessages(trx, route.partnerId, route.id, decision.announce, null, decision.waiting);
    await updateRoutePolling(trx, route.id, decision.nextPollAt, decision.activeAt);
    return { nextPollAt: decision.nextPollAt, orderIds };
  }

  // Saves one step of a decision; the id of the order it created, if it did.
  async function apply(trx: Knex.Transaction, step: RoutePollStep, at: Date): Promise<string | undefined> {
    switch (step.kind) {
      case 'updateDeposit':
        await updateDeposit(trx, step.depositId, step.fields);
        return undefined;
      case 'convert': {
        const created = await createRouteOrder(trx, step.order, step.depositIds, at);
        const fields = step.failureCode ? { failureCode: step.failureCode } : {};
        await transitionSwap(trx, created.swap, step.review ? 'review' : 'exchanging', fields, at);
        return created.swap.id;
      }
      case 'saveBucket':
        await saveBucket(trx, step.bucket);
        return undefined;
      case 'deleteBucket':
        await deleteBucket(trx, step.bucket);
        return undefined;
    }
  }

  return {
    /**
     * Polls route `routeId` now if it is due (`next_poll_at` has come) and no other worker holds it; with
     * `force`, whenever it is free. `onOrder` runs in the poll's transaction for each order created.
     */
    async poll(routeId: string, options: { force?: boolean; onOrder?: OrderCallback } = {}): Promise<PollResult> {
      const at = deps.now();
      const dueAt = options.force ? undefined : at;
      const pricing = await readPollPricing(deps.knex, routeId, dueAt);
      if (!pricing) return { nextPollAt: undefined, orderIds: [] };
      const prices = new Map<string, () => Amount>();
      let wanted = pricing.depositKeys.length > 0 ? [...pricing.depositKeys, pricing.destinationKey] : [];
      const screened = deps.screening?.enabled ? await deps.screening.screenRouteSenders(routeId) : new Map();
      for (let attempt = 1; ; attempt++) {
        await askPrices(prices, wanted, at);
        try {
          return await transaction(deps.knex, async (trx) => {
            const route = await lockDueRoute(trx, routeId, dueAt);
            if (!route) return { nextPollAt: undefined, orderIds: [] };
            return pollLocked(trx, route, prices, screened, at, options.onOrder);
          });
        } catch (err) {
          if (!(err instanceof UnpricedError) || attempt >= MAX_ATTEMPTS) throw err;
          wanted = err.assetKeys;
        }
      }
    },

    /** Moves a route whose poll failed to its next regular poll, so it is retried without spinning. */
    async postpone(routeId: string): Promise<void> {
      const at = deps.now();
      await transaction(deps.knex, async (trx) => {
        await updateRoutePolling(trx, routeId, new Date(at.getTime() + deps.schedule.pollSeconds * 1000));
      });
    },
  };
}

/** The service's operations. */
export type RouteService = ReturnType<typeof createRouteService>;
