/**
 * Schedules the polls of permanent routes' reusable addresses (docs/architecture.md#routes-and-the-wallet-proof); a poll itself is the route
 * service's (services/routes.ts). Each route is polled on its own schedule, kept in
 * `permanent_routes.next_poll_at` (domain/route-poll.ts nextPollAt): every ROUTE_POLL_SECONDS, doubled after
 * each ROUTE_IDLE_SECONDS the route has been idle (no deposit, no expect-deposit call) up to
 * ROUTE_POLL_MAX_SECONDS; every ROUTE_EXPECT_POLL_SECONDS while an expect-deposit window is open; and at the
 * next block while one of its deposits is confirming. A sweeper on every instance (createRoutePolling) polls
 * the routes that are due, those inside an expect-deposit window first; the schedule lives in the route row,
 * so no job can be lost between a commit and the next poll, and a failing poll is simply due again later.
 */
import type { Logger } from 'pino';
import type { OrderCallback, RouteService } from '../services/routes.js';
import type { JobStore } from '../store/job-store.js';
import type { EnginePart } from './queue.js';

// How many due routes one sweep takes, and the bounds of its sleep between sweeps.
const SWEEP_BATCH = 16;
const MIN_SLEEP_MS = 10;
const MAX_SLEEP_MS = 1_000;
// The least time from one sweep's start to the next (unless a full batch left routes due): expect-deposit
// calls arriving together, or a partner calling it in a loop, make one poll of their route per gap, not one
// each, on this instance and (through the due time) on the others.
const SWEEP_GAP_MS = 50;

/**
 * The sweeper: polls every due route, one transaction each, then sleeps until the next route is due (at
 * most a second, so a window opened on another instance is noticed). `schedule()` sweeps at once (a window
 * opened here), or SWEEP_GAP_MS after the last sweep started if that is later. `afterCommit` runs for each
 * poll's new orders once the poll committed.
 */
export function createRoutePolling(deps: {
  store: Pick<JobStore, 'dueRoutes' | 'nextDuePoll'>;
  routes: Pick<RouteService, 'poll' | 'postpone'>;
  now: () => Date;
  logger: Logger;
  onOrder: OrderCallback;
  afterCommit: (orderIds: string[]) => Promise<unknown>;
}): EnginePart<() => void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let again = false;
  // When the current (or last) sweep started, and when the sleeping timer fires (performance.now()).
  let sweptAt = -Infinity;
  let wakesAt = Infinity;
  const sleepFor = (ms: number) => {
    wakesAt = performance.now() + ms;
    timer = setTimeout(tick, ms);
  };

  const sweep = async () => {
    again = false;
    let due: string[] = [];
    try {
      due = await deps.store.dueRoutes(deps.now(), SWEEP_BATCH);
      for (const routeId of due) {
        if (stopped) return;
        try {
          const { orderIds } = await deps.routes.poll(routeId, { onOrder: deps.onOrder });
          if (orderIds.length > 0)
            await deps.afterCommit(orderIds).catch((err) => deps.logger.warn({ err }, 'route order step failed; its job carries it on'));
        } catch (err) {
          deps.logger.warn({ err, routeId }, 'route poll failed; retried at its next regular poll');
          await deps.routes.postpone(routeId).catch(() => undefined);
        }
      }
    } catch (err) {
      deps.logger.warn({ err }, 'route sweep failed; will retry');
    }
    if (stopped) return;
    let sleep = 0;
    if (due.length < SWEEP_BATCH) {
      const next = again ? undefined : await deps.store.nextDuePoll().catch(() => undefined);
      const untilDue = next ? next.getTime() - deps.now().getTime() : MAX_SLEEP_MS;
      sleep = Math.min(MAX_SLEEP_MS, Math.max(MIN_SLEEP_MS, untilDue, untilGap()));
      // Woken during the sweep (or while the next due time was read): sweep again once the gap has passed.
      if (again) sleep = Math.min(sleep, untilGap());
    }
    if (!stopped) sleepFor(sleep);
  };
  const untilGap = () => Math.max(0, sweptAt + SWEEP_GAP_MS - performance.now());
  const tick = () => {
    timer = undefined;
    wakesAt = Infinity;
    sweptAt = performance.now();
    running = sweep();
  };

  return {
    async start() {
      tick();
    },
    /** Sweeps as soon as the current sweep ends (a route was made due here), SWEEP_GAP_MS after the last start at the earliest. */
    schedule(): void {
      if (stopped) return;
      if (timer) {
        // Sleeping: sweep once the gap has passed, unless the timer fires sooner anyway.
        const wait = untilGap();
        if (performance.now() + wait < wakesAt) {
          clearTimeout(timer);
          if (wait === 0) tick();
          else sleepFor(wait);
        }
      } else {
        // Sweeping: sweep again once this one ends and the gap has passed.
        again = true;
      }
    },
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
