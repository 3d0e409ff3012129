/**
 * The swap-advance queue's worker: a job names a swap, the worker advances it as far as it can go (the swap
 * service) and queues the next job for when the clock will move it again (a deadline, the next block). Jobs
 * are retried by pg-boss when they fail; at start every unfinished swap gets a job, so a crash between a
 * commit and its follow-up job costs a restart, never a stuck swap.
 *
 * "Advance, then queue the next run" is `advance` below, and only there: the worker, new swaps' first steps,
 * a route poll's new orders and the sandbox's actions all go through it.
 */
import type { Logger } from 'pino';
import type { Metrics } from '../metrics.js';
import type { AdvanceResult, SwapService } from '../services/swaps.js';
import type { JobStore } from '../store/job-store.js';
import { startQueueWorker, stepAt, SWAP_ADVANCE_QUEUE, type EnginePart, type JobQueue } from './queue.js';

/** Swap steps one fetch takes (they run concurrently, so no more than the embedded database's pool of 8 connections). */
export const ADVANCE_BATCH_SIZE = 8;

/** What the swap steps offer the rest of the engine and the handlers. */
export interface SwapSteps {
  /**
   * Advances `swapIds` together, then queues each one's next look (merged with any other for its swap and
   * moment), in one insert: every one runs even when another fails, and the first failure is then thrown.
   * Resolves with each swap's outcome, in order.
   */
  advance(swapIds: string[]): Promise<AdvanceResult[]>;
  /**
   * Runs the first steps of new swaps `swapIds` (committed) on this instance, soon; resolves at once and never
   * throws. A swap whose first step does not run here (it failed, or the process stopped or died) is started
   * by the sweep of unstarted work (jobs/unstarted-sweep.ts).
   */
  startSwaps(swapIds: string[]): Promise<void>;
}

/** The swap-advance worker on `queue`. */
export function createSwapSteps(deps: {
  store: Pick<JobStore, 'activeSwapIds'>;
  queue: JobQueue;
  lifecycle: Pick<SwapService, 'advance'>;
  now: () => Date;
  logger: Logger;
  metrics?: Metrics;
}): EnginePart<SwapSteps> {
  const { boss } = deps.queue;

  const advance = async (swapIds: string[]): Promise<AdvanceResult[]> => {
    // ADVANCE_BATCH_SIZE at a time: a route poll may bring many new orders, and each step holds a connection.
    const outcomes: Array<PromiseSettledResult<AdvanceResult>> = [];
    for (let start = 0; start < swapIds.length; start += ADVANCE_BATCH_SIZE) {
      const batch = swapIds.slice(start, start + ADVANCE_BATCH_SIZE);
      outcomes.push(...(await Promise.allSettled(batch.map((swapId) => deps.lifecycle.advance(swapId)))));
    }
    const wakeUps = outcomes.flatMap((o, i) =>
      o.status === 'fulfilled' && o.value.nextRunAt ? [{ swapId: swapIds[i]!, at: o.value.nextRunAt }] : [],
    );
    if (wakeUps.length > 0) {
      await boss.insert(
        wakeUps.map(({ swapId, at }) => ({
          name: SWAP_ADVANCE_QUEUE,
          data: { swapId },
          ...stepAt(swapId, at),
        })),
      );
      if (wakeUps.some(({ at }) => at.getTime() <= deps.now().getTime())) deps.queue.wake(SWAP_ADVANCE_QUEUE).soon();
    }
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failed) throw failed.reason;
    return outcomes.map((o) => (o as PromiseFulfilledResult<AdvanceResult>).value);
  };

  // New swaps' first steps (their deposit addresses) run here, on the instance that stored them, as soon as
  // the statement that stored them has committed: ADVANCE_BATCH_SIZE at a time, in the order they came. No job
  // is queued for them, so a create costs no job insert, fetch or completion (about a fifth of the database's
  // work per POST /swaps on PGlite). A swap this instance does not get to (a failed step, a stop or a crash)
  // is started by the sweep of unstarted work, or by the next start's queuing of every unfinished swap.
  const starting: string[] = [];
  let startRun: Promise<void> | undefined;
  let stopping = false;
  const drainStarts = async () => {
    while (starting.length > 0) {
      const batch = starting.splice(0, ADVANCE_BATCH_SIZE);
      await advance(batch).catch((err) =>
        deps.logger.warn({ err, swaps: batch.length }, 'a first step failed; the sweep of unstarted work starts the swap again'),
      );
    }
    startRun = undefined;
  };

  return {
    async start() {
      await startQueueWorker<{ swapId: string }>(
        deps.queue,
        SWAP_ADVANCE_QUEUE,
        { batchSize: ADVANCE_BATCH_SIZE, metrics: deps.metrics },
        // A failed batch is retried as a whole (steps are idempotent).
        async (jobs) => void (await advance(jobs.map((job) => job.data.swapId))),
      );
      for (const swapId of await deps.store.activeSwapIds()) await deps.queue.scheduleAdvance(swapId);
    },
    schedule: {
      advance,
      async startSwaps(swapIds) {
        // Once stopping, new swaps are left to the sweep (or the next start): the database is about to close.
        if (stopping || swapIds.length === 0) return;
        starting.push(...swapIds);
        startRun ??= drainStarts();
      },
    },
    async stop() {
      stopping = true;
      starting.length = 0; // left to the sweep, or to the next start
      await startRun;
    },
  };
}
