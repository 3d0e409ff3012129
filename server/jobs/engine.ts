/**
 * The job engine: this instance's workers and loops on the job queue (queue.ts), one module each, every one a
 * `{ start, schedule, stop }` (queue.ts EnginePart) on the same injected clock:
 *
 * - swap-steps.ts: the swap-advance worker, and new swaps' first steps;
 * - payout-sends.ts: the payout-send worker, the sweep of payouts left unsent or unmined, due batches;
 * - route-addresses.ts: the route-addresses worker, and new routes' addresses;
 * - unstarted-sweep.ts: swaps and routes left without their first job;
 * - route-deposits.ts: the polling of permanent routes;
 * - webhook-jobs.ts: the webhook dispatcher and delivery pump.
 *
 * The queue is opened before the engine (and before the services that queue through it), so nothing here is
 * bound late. The parts hold no database handle: what they read and write is the store's port
 * (store/job-store.ts), and what they queue goes through the queue. The engine starts the parts in order and stops them in the reverse order.
 */
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Metrics } from '../metrics.js';
import type { RouteService } from '../services/routes.js';
import type { AdvanceResult, SwapService } from '../services/swaps.js';
import type { JobStore } from '../store/job-store.js';
import type { PayoutSender } from './payout-sender.js';
import { createPayoutSends } from './payout-sends.js';
import { QUEUES, type EnginePart, type JobQueue } from './queue.js';
import type { InstructionsSigner } from '../domain/signed-instructions.js';
import { createRouteAddressing, type RouteAddressSource } from './route-addresses.js';
import { createRoutePolling } from './route-deposits.js';
import { createSwapSteps } from './swap-steps.js';
import { createUnstartedSweep } from './unstarted-sweep.js';
import type { WebhookDelivery } from './webhook-delivery.js';
import { createWebhookJobs, type WebhookJobs } from './webhook-jobs.js';

/** Running job workers, and what they offer the handlers. */
export interface JobEngine {
  /** Queues a step for `swapId` (queue.ts JobQueue scheduleAdvance). */
  scheduleAdvance: JobQueue['scheduleAdvance'];
  /** Advances swaps now, then queues each one's next look (swap-steps.ts). */
  advance(swapIds: string[]): Promise<AdvanceResult[]>;
  /** Runs the first steps of new swaps (committed) on this instance, soon; never throws (swap-steps.ts). */
  startSwaps(swapIds: string[]): Promise<void>;
  /**
   * Allocates new routes' deposit addresses (committed; each on `networks`, those of its asset keys) on this
   * instance, soon; never throws (route-addresses.ts).
   */
  startRoutes(routes: Array<{ routeId: string; networks: string[] }>): Promise<void>;
  /** Sweeps due permanent routes soon (a route was made due on this instance: an expect-deposit window). */
  wakeRoutePolling(): void;
  /** Webhook delivery: the test send, the check of a URL's addresses, the dispatcher. */
  webhooks: WebhookJobs;
  /** Stops every part, waiting for what runs; the queue stays open (its opener closes it). */
  stop(): Promise<void>;
}

/** What the engine needs. */
export interface JobEngineDeps {
  /** The statements the parts run (store/job-store.ts): the engine holds no database handle. */
  store: JobStore;
  /** The queue the workers take their jobs from, opened with `workers`. */
  queue: JobQueue;
  lifecycle: Pick<SwapService, 'advance'>;
  /** Sends the outbox's payouts. */
  payoutSender: PayoutSender;
  /** Polls permanent routes for deposits. */
  routes: Pick<RouteService, 'poll' | 'postpone'>;
  /** Where new routes' deposit addresses come from (route-addresses.ts). */
  routeAddresses: RouteAddressSource;
  /** Signs a route's addresses once they are all allocated (`addresses_jws`). */
  signer: InstructionsSigner;
  /** Webhook delivery: what the dispatcher claims and the pump sends (webhook-delivery.ts). */
  delivery: WebhookDelivery;
  /** The configuration: webhook delivery's limits, production's payout batching. */
  config: Config;
  /** The one clock of every part. */
  now: () => Date;
  logger: Logger;
  /** Counts job failures and webhook attempts, and samples queue depths (none: not measured). */
  metrics?: Metrics;
  /** The period and age of the sweep of unstarted work (default unstarted-sweep.ts START_SWEEP_MS; tests shorten it). */
  startSweepMs?: number;
}

/** Starts every part on `deps.queue`; resolves once each has started (and queued the work left from before). */
export async function startJobEngine(deps: JobEngineDeps): Promise<JobEngine> {
  const { store, queue, now, logger, metrics } = deps;
  const steps = createSwapSteps({ store, queue, lifecycle: deps.lifecycle, now, logger, metrics });
  const payouts = createPayoutSends({ store, queue, sender: deps.payoutSender, config: deps.config, now, logger, metrics });
  const routeAddressing = createRouteAddressing({
    store,
    queue,
    addressOf: deps.routeAddresses,
    signing: { signer: deps.signer, now },
    logger,
    metrics,
  });
  const unstarted = createUnstartedSweep({ store, queue, now, logger, periodMs: deps.startSweepMs });
  // The orders a poll creates are queued in its transaction and moved on at once after it commits.
  const polling = createRoutePolling({
    store,
    routes: deps.routes,
    now,
    logger,
    onOrder: (orderId, trx) => queue.scheduleAdvance(orderId, undefined, trx),
    afterCommit: steps.schedule.advance,
  });
  const webhooks = createWebhookJobs({ queue, delivery: deps.delivery, config: deps.config, logger, metrics });

  const parts: Array<EnginePart<unknown>> = [payouts, steps, routeAddressing, unstarted, polling, webhooks];
  for (const part of parts) await part.start();
  const unwatchQueues = metrics?.watchQueues([...QUEUES], (name) => queue.boss.getQueueSize(name));

  return {
    scheduleAdvance: queue.scheduleAdvance,
    advance: steps.schedule.advance,
    startSwaps: steps.schedule.startSwaps,
    startRoutes: routeAddressing.schedule,
    wakeRoutePolling: polling.schedule,
    webhooks: webhooks.schedule,
    async stop() {
      unwatchQueues?.();
      for (const part of [...parts].reverse()) await part.stop();
    },
  };
}
