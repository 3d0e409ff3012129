/**
 * The sweep of unstarted work. New swaps and routes are started on their instance just after the statement
 * that stores them commits (swap-steps.ts startSwaps, route-addresses.ts), without a job; one left unstarted
 * (that failed, or the process stopped or died in between) gets a job here. So do swaps still waiting (or
 * overdue) past their deadline whose job for it was never queued.
 */
import type { Logger } from 'pino';
import type { JobStore } from '../store/job-store.js';
import { derivedJobId } from './webhook-delivery.js';
import { every, ROUTE_ADDRESSES_QUEUE, SWAP_ADVANCE_QUEUE, type EnginePart, type JobQueue } from './queue.js';

/** How often the sweep runs, and how old a swap or route must be for it. */
export const START_SWEEP_MS = 60_000;

/**
 * The sweep on `queue`, every `periodMs` (default START_SWEEP_MS) for work at least that old: each swap or
 * route found gets one job per period, whichever instance queues it first. At start it sweeps at once for
 * everything committed before it (every unfinished swap is also queued by the swap steps' start).
 */
export function createUnstartedSweep(deps: {
  store: Pick<JobStore, 'unstartedSwapIds' | 'unallocatedRoutes'>;
  queue: JobQueue;
  now: () => Date;
  logger: Logger;
  periodMs?: number;
}): EnginePart<undefined> {
  const periodMs = deps.periodMs ?? START_SWEEP_MS;
  const sweep = async (createdBefore: Date) => {
    const period = Math.floor(deps.now().getTime() / periodMs);
    const [swapIds, routes] = await Promise.all([deps.store.unstartedSwapIds(createdBefore), deps.store.unallocatedRoutes(createdBefore)]);
    if (swapIds.length === 0 && routes.length === 0) return;
    deps.logger.warn({ swaps: swapIds.length, routes: routes.length }, 'starting swaps and routes that were left without their first job');
    await deps.queue.boss.insert([
      ...swapIds.map((swapId) => ({ name: SWAP_ADVANCE_QUEUE, data: { swapId }, id: derivedJobId(`swap-start:${swapId}@${period}`) })),
      ...routes.map((route) => ({ name: ROUTE_ADDRESSES_QUEUE, data: route, id: derivedJobId(`route-start:${route.routeId}@${period}`) })),
    ]);
    deps.queue.wake(SWAP_ADVANCE_QUEUE).now();
    deps.queue.wake(ROUTE_ADDRESSES_QUEUE).now();
  };
  let timer: { stop(): Promise<void> } | undefined;
  return {
    async start() {
      await sweep(deps.now());
      timer = every(
        periodMs,
        () => sweep(new Date(deps.now().getTime() - periodMs)),
        (err) => deps.logger.warn({ err }, 'sweep of unstarted work failed; will retry'),
      );
    },
    schedule: undefined,
    async stop() {
      await timer?.stop();
    },
  };
}
