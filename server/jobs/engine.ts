/**
 * The job engine: pg-boss 10 on the service's own database (its pool, so the same code runs on PostgreSQL and
 * on the embedded PGlite). One queue moves swaps: a job names a swap, the worker advances it as far as it can
 * go and schedules the next job for when the clock will move it again (a deadline, the next block).
 * Jobs are retried by pg-boss when they fail; at start every unfinished swap gets a job, so a crash between a
 * commit and its follow-up job costs a restart, never a stuck swap.
 * A second queue delivers webhooks (jobs/webhook-delivery.ts): a dispatcher loop turns outbox rows into
 * delivery jobs, and a delivery pump (jobs/delivery-pump.ts) sends each on its own and queues its retries.
 */
import { randomUUID } from 'node:crypto';
import type { LookupFunction } from 'node:net';
import type { Knex } from 'knex';
import PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Metrics } from '../metrics.js';
import { afterCommit, transaction } from '../store/after-commit.js';
import { createSecretBox } from '../store/secret-box.js';
import { queryInTransaction, queryOnPool } from '../store/raw-sql.js';
import { retryStartupRace } from '../store/database.js';
import { listOpenPayoutIds } from '../store/payouts.js';
import { listUnallocatedRoutes } from '../store/routes.js';
import { listActiveSwapIds, listUnstartedSwapIds } from '../store/swaps.js';
import { allocateRouteAddresses, type RouteAddressSource } from './route-addresses.js';
import { startRoutePolling } from './route-deposits.js';
import type { RouteService } from '../services/routes.js';
import type { SwapService } from '../services/swaps.js';
import type { PayoutBatching, PayoutSender } from './payout-sender.js';
import { startDeliveryPump, type PumpJob } from './delivery-pump.js';
import {
  createWebhookDelivery,
  derivedJobId,
  DISPATCH_BATCH_SIZE,
  deliveryJobId,
  type DeliveryJob,
  type WebhookDelivery,
} from './webhook-delivery.js';

/** The queue of swap steps. */
export const SWAP_ADVANCE_QUEUE = 'swap-advance';
/** Swap steps one fetch takes (they run concurrently, so no more than the embedded database's pool of 8 connections). */
export const ADVANCE_BATCH_SIZE = 8;
/**
 * Under load, a worker is woken for new jobs at most once per this many milliseconds (waker below): the jobs
 * queued meanwhile are then fetched together instead of one small batch per request.
 */
export const WAKE_GATHER_MS = 100;
/** How often idle workers look for due jobs (pg-boss's minimum is 0.5 s). */
export const POLLING_INTERVAL_SECONDS = 0.5;
/** A job still active after this long (its worker died) is retried. */
export const JOB_EXPIRY_SECONDS = 60;
/** The queue of payout sends (the outbox's sender, jobs/payout-sender.ts): a job names a payout. */
export const PAYOUT_SEND_QUEUE = 'payout-send';
/** Payout sends one fetch takes (each runs on its own; a send is a few node calls). */
export const PAYOUT_SEND_BATCH_SIZE = 4;
/** How often unsent payouts are looked for, and how long one stays unchanged before it gets a job again. */
export const PAYOUT_SWEEP_MS = 60_000;
/**
 * How often the sweep of unstarted work runs, and how old a swap or route must be for it: new swaps and
 * routes are started on their instance just after the statement that stores them commits (startSwaps,
 * startRoutes), so one left unstarted (that failed, or the process stopped or died in between) gets a job
 * from the next sweep after this age.
 */
export const START_SWEEP_MS = 60_000;
/** The queue that allocates permanent routes' deposit addresses. */
export const ROUTE_ADDRESSES_QUEUE = 'route-addresses';
/**
 * A route-addresses job: one route the sweep of unstarted work found, or the routes of one create statement
 * (as jobs queued by earlier versions were); each route with the networks of its asset keys (older jobs may
 * name none).
 */
type RouteAddressWork = { routeId: string; networks?: string[] };
type RouteAddressesJob = { routes: RouteAddressWork[] } | RouteAddressWork;
/**
 * Route-addresses jobs one fetch takes: all of a fetch are filled on one connection (in statements of
 * jobs/route-addresses.ts ROUTES_PER_FILL routes), so a larger batch costs no more connections, and under load
 * it saves fetches (a fetch of pg-boss's partitioned job table is planned anew each time: about a millisecond
 * of PostgreSQL's CPU).
 */
export const ROUTE_ADDRESSES_BATCH_SIZE = 24;
/** The queue of webhook delivery attempts. */
export const WEBHOOK_DELIVERY_QUEUE = 'webhook-delivery';
/** How often the dispatcher looks for outbox rows without a delivery job. */
export const WEBHOOK_DISPATCH_INTERVAL_MS = 200;

/** Running job workers. */
export interface JobEngine {
  /**
   * Queues a step for `swapId`, due at `at` (now when absent). With `trx` the job is inserted in that
   * transaction, so it exists exactly when the write that needs it commits.
   */
  scheduleAdvance(swapId: string, at?: Date, trx?: Knex.Transaction): Promise<void>;
  /** Queues a step, due now, for each of `swapIds` in `trx`. */
  scheduleAdvances(swapIds: string[], trx: Knex.Transaction): Promise<void>;
  /** Queues the send of each payout of `payoutIds` in `trx` (the outbox's sender takes it from there). */
  sendPayouts(payoutIds: string[], trx: Knex.Transaction): Promise<void>;
  /**
   * Runs the first steps of new swaps `swapIds` (committed) on this instance, soon; resolves at once and never
   * throws. A swap whose first step does not run here (it failed, or the process stopped or died) is started
   * by the sweep of unstarted work after START_SWEEP_MS.
   */
  startSwaps(swapIds: string[]): Promise<void>;
  /** Tells this instance's swap worker that a step is due now. */
  wakeAdvance(): void;
  /**
   * Queues the allocation of new routes' deposit addresses (committed; each on `networks`, those of its asset
   * keys) as one job, and wakes this instance's route-address worker. Never throws, as startSwaps.
   */
  startRoutes(routes: Array<{ routeId: string; networks: string[] }>): Promise<void>;
  /** Tells this instance's route-address worker that a job is due (one the sweep of unstarted work queued). */
  wakeRouteAddresses(): void;
  /** Sweeps due permanent routes soon (a route was made due on this instance: an expect-deposit window); see startRoutePolling. */
  wakeRoutePolling(): void;
  /** Webhook delivery: the test send, the check of a URL's addresses, and the dispatcher for callers that want outbox rows queued now. */
  webhooks: Pick<WebhookDelivery, 'sendTest' | 'checkTarget' | 'dispatch'>;
  /** Stops fetching, waits for running jobs (up to a few seconds) and releases the engine. */
  stop(): Promise<void>;
}

/** What the engine needs. */
export interface JobEngineDeps {
  knex: Knex;
  lifecycle: SwapService;
  /** Sends the outbox's payouts. */
  payoutSender: PayoutSender;
  /** Polls permanent routes for deposits. */
  routes: RouteService;
  logger: Logger;
  /** Where new routes' deposit addresses come from (jobs/route-addresses.ts). */
  routeAddresses: RouteAddressSource;
  /** Schema of pg-boss's tables (default `pgboss`); tests give each database schema its own. */
  schema?: string;
  /**
   * What webhook delivery needs: the configuration (mode, retry schedule, timeout, limits), the secrets key,
   * the clock, and name resolution (default dns.lookup; tests resolve names of their own).
   */
  webhooks: { config: Config; secretsKey: Buffer; now: () => Date; lookup?: LookupFunction };
  /** Counts job failures and webhook attempts, and samples queue depths (none: not measured). */
  metrics?: Metrics;
  /** The period and age of the sweep of unstarted work (default START_SWEEP_MS; tests shorten it). */
  startSweepMs?: number;
  /** How long a broadcast payout stays in no block before it is swept to be broadcast again (default payout-sender.ts PAYOUT_REBROADCAST_MS). */
  payoutRebroadcastMs?: number;
}

// Expiry and retries of every job queued without options of its own, by a server or the operator CLI.
const JOB_DEFAULTS = { expireInSeconds: JOB_EXPIRY_SECONDS, retryLimit: 10, retryDelay: 1, retryBackoff: true } as const;

/** Starts pg-boss and the swap worker; resolves once jobs for unfinished swaps are queued. */
export async function startJobEngine(deps: JobEngineDeps): Promise<JobEngine> {
  // Set once pg-boss's stop returned: a job still running past its grace (it is not waited for) must not reach
  // a pool the caller is about to close (see createBossDb).
  const stopped = { value: false };
  const boss = new PgBoss({ db: createBossDb(deps.knex, stopped), schema: deps.schema ?? 'pgboss', ...JOB_DEFAULTS });
  boss.on('error', (err) => deps.logger.warn({ err }, 'job engine error; it keeps running'));
  // Instances starting together on a fresh database race to create pg-boss's schema and queues.
  await retryStartupRace(async () => {
    await boss.start();
    await boss.createQueue(SWAP_ADVANCE_QUEUE);
    await boss.createQueue(WEBHOOK_DELIVERY_QUEUE);
    await boss.createQueue(ROUTE_ADDRESSES_QUEUE);
    await boss.createQueue(PAYOUT_SEND_QUEUE);
  });
  // Which networks batch their payouts, told to the sender before any of its jobs runs.
  deps.payoutSender.setBatching(payoutBatchingOf(deps.webhooks.config));
  const work = countingFailures(boss, deps.metrics);
  const unwatchQueues = deps.metrics?.watchQueues(
    [SWAP_ADVANCE_QUEUE, WEBHOOK_DELIVERY_QUEUE, ROUTE_ADDRESSES_QUEUE, PAYOUT_SEND_QUEUE],
    (queue) => boss.getQueueSize(queue),
  );

  // pg-boss's worker fetches a batch, then waits out its polling interval unless notified: without a nudge
  // one worker moved at most a batch per interval (16 steps a second), and a new swap waited up to half a
  // second for its address. A job due now that this instance queued wakes the worker once it is committed,
  // and a full batch fetches the next at once (`now`).
  //
  // A wake comes at once when the last was WAKE_GATHER_MS ago or longer, and otherwise when that time is up,
  // once for all the wakes asked for meanwhile. When every request woke the worker at once, under load each
  // fetch took a job or two (300 fetches for 2,300 new swaps), and pg-boss's fetch is the most expensive
  // statement of a job; gathering cut the CPU per POST /swaps by about 15 % (PGlite). A lone request still
  // wakes the worker at once.
  // Wakes the worker whose id `worker` holds once it is started (until then there is none to wake).
  const waker = (worker: { id?: string }) => {
    const now = () => {
      if (worker.id) boss.notifyWorker(worker.id);
    };
    return Object.assign(gatheredWake(now, WAKE_GATHER_MS), { now });
  };
  const advanceWorker: { id?: string } = {};
  const wakeAdvance = waker(advanceWorker);

  // A step due at a moment has an id derived from the swap and that moment: every chain of jobs for one swap
  // (after a sandbox action, a deposit, a restart) computes the same next moment, so they merge into one job
  // instead of multiplying.
  const advanceJob = (swapId: string, at: Date | undefined) =>
    at ? { startAfter: at, id: derivedJobId(`swap-advance:${swapId}@${at.toISOString()}`) } : {};

  const scheduleAdvance = async (swapId: string, at?: Date, trx?: Knex.Transaction) => {
    await boss.send(SWAP_ADVANCE_QUEUE, { swapId }, { ...advanceJob(swapId, at), ...(trx ? { db: transactionDb(trx) } : {}) });
    if (!at) afterCommit(trx ?? deps.knex, wakeAdvance);
  };

  const scheduleAdvances = async (swapIds: string[], trx: Knex.Transaction) => {
    if (swapIds.length === 0) return;
    await boss.insert(
      swapIds.map((swapId) => ({ name: SWAP_ADVANCE_QUEUE, data: { swapId } })),
      { db: transactionDb(trx) },
    );
    afterCommit(trx, wakeAdvance);
  };

  // The outbox's sends: one job per payout; every payout still open at start gets one (a crash between a
  // commit and its broadcast costs a restart, never a payout).
  const payoutWorker: { id?: string } = {};
  const wakePayouts = waker(payoutWorker);
  const sendPayouts = async (payoutIds: string[], trx: Knex.Transaction) => {
    if (payoutIds.length === 0) return;
    await boss.insert(
      payoutIds.map((payoutId) => ({ name: PAYOUT_SEND_QUEUE, data: { payoutId } })),
      { db: transactionDb(trx) },
    );
    afterCommit(trx, wakePayouts);
  };
  payoutWorker.id = await work<{ payoutId: string }>(
    PAYOUT_SEND_QUEUE,
    { pollingIntervalSeconds: POLLING_INTERVAL_SECONDS, batchSize: PAYOUT_SEND_BATCH_SIZE },
    async (jobs) => {
      if (jobs.length === PAYOUT_SEND_BATCH_SIZE) wakePayouts.now();
      const outcomes = await Promise.allSettled(jobs.map((job) => deps.payoutSender.send(job.data.payoutId)));
      const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
      if (failed) throw failed.reason;
    },
  );
  const openPayouts = await listOpenPayoutIds(deps.knex);
  if (openPayouts.length > 0) {
    await boss.insert(openPayouts.map((payoutId) => ({ name: PAYOUT_SEND_QUEUE, data: { payoutId } })));
    wakePayouts.now();
  }
  // And every PAYOUT_SWEEP_MS, the payouts left unsent that long (a job that used up its retries while a node
  // was down) get a job again: one per payout and sweep period, whichever instance queues it first.
  // So do the payouts broadcast at least `payoutRebroadcastMs` ago and in no block yet (the sender broadcasts
  // them again).
  // The sweep also keeps each EVM hot wallet's nonces moving (payout-sender.ts keepNonces).
  const payoutSweepMs = deps.payoutSender.sweepMs;
  const sweepPayouts = async () => {
    const period = Math.floor(Date.now() / payoutSweepMs);
    const [unsent, unmined] = await Promise.all([
      listOpenPayoutIds(deps.knex, new Date(Date.now() - PAYOUT_SWEEP_MS)),
      deps.payoutSender.dueUnmined(),
    ]);
    const stale = [...unsent, ...unmined];
    if (stale.length > 0) {
      await boss.insert(
        stale.map((payoutId) => ({ name: PAYOUT_SEND_QUEUE, data: { payoutId }, id: derivedJobId(`payout-sweep:${payoutId}@${period}`) })),
      );
      wakePayouts.now();
    }
    for (const network of deps.payoutSender.nonceNetworks()) {
      await deps.payoutSender
        .keepNonces(network)
        .catch((err: unknown) => deps.logger.warn({ err, network }, 'keeping nonces failed; will retry'));
    }
  };
  // Batched payouts (Bitcoin family, <NET>_PAYOUT_BATCH_SECONDS > 0; payout-sender.ts sendBatches): a timer
  // looks for the batches due on each batching network, about ten times per window (0.25 to 1 s apart).
  const batchNetworks = deps.payoutSender.batching();
  let sendingBatches = false;
  const batchTimer =
    batchNetworks.length === 0
      ? undefined
      : setInterval(
          () => {
            if (sendingBatches) return;
            sendingBatches = true;
            Promise.all(
              batchNetworks.map(([network]) =>
                deps.payoutSender
                  .sendBatches(network)
                  .catch((err: unknown) => deps.logger.warn({ err, network }, 'sending payout batches failed; will retry')),
              ),
            ).finally(() => (sendingBatches = false));
          },
          Math.min(1_000, Math.max(250, Math.min(...batchNetworks.map(([, b]) => b.windowMs)) / 10)),
        );
  batchTimer?.unref();

  let sweepingPayouts = false;
  const payoutSweep = setInterval(() => {
    if (sweepingPayouts) return;
    sweepingPayouts = true;
    sweepPayouts()
      .catch((err) => deps.logger.warn({ err }, 'payout sweep failed; will retry'))
      .finally(() => (sweepingPayouts = false));
  }, payoutSweepMs);
  payoutSweep.unref();

  // Advances `swapIds` together: every one runs even when another fails (the first failure is then thrown),
  // and their next looks are queued in one insert (each merged with any other for its swap and moment).
  const advanceBatch = async (swapIds: string[]) => {
    const outcomes = await Promise.allSettled(
      swapIds.map(async (swapId) => ({ swapId, at: (await deps.lifecycle.advance(swapId)).nextRunAt })),
    );
    const wakeUps = outcomes.flatMap((o) => (o.status === 'fulfilled' && o.value.at ? [{ swapId: o.value.swapId, at: o.value.at }] : []));
    if (wakeUps.length > 0) {
      await boss.insert(
        wakeUps.map(({ swapId, at }) => ({
          name: SWAP_ADVANCE_QUEUE,
          data: { swapId },
          ...advanceJob(swapId, at),
          startAfter: at.toISOString(),
        })),
      );
      if (wakeUps.some(({ at }) => at.getTime() <= Date.now())) wakeAdvance();
    }
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failed) throw failed.reason;
  };

  advanceWorker.id = await work<{ swapId: string }>(
    SWAP_ADVANCE_QUEUE,
    { pollingIntervalSeconds: POLLING_INTERVAL_SECONDS, batchSize: ADVANCE_BATCH_SIZE },
    async (jobs) => {
      if (jobs.length === ADVANCE_BATCH_SIZE) wakeAdvance.now();
      // A failed batch is retried as a whole (steps are idempotent).
      await advanceBatch(jobs.map((job) => job.data.swapId));
    },
  );

  // New swaps' first steps (their deposit addresses) run here, on the instance that stored them, as soon as
  // the statement that stored them has committed: ADVANCE_BATCH_SIZE at a time, in the order they came. No job
  // is queued for them, so a create costs no job insert, fetch or completion (about a fifth of the database's
  // work per POST /swaps on PGlite). A swap this instance does not get to (a failed step, a stop or a crash)
  // is started by the sweep of unstarted work below, or by the next start's queuing of every unfinished swap.
  const starting: string[] = [];
  let startRun: Promise<void> | undefined;
  const drainStarts = async () => {
    while (starting.length > 0) {
      const batch = starting.splice(0, ADVANCE_BATCH_SIZE);
      await advanceBatch(batch).catch((err) =>
        deps.logger.warn({ err, swaps: batch.length }, 'a first step failed; the sweep of unstarted work starts the swap again'),
      );
    }
    startRun = undefined;
  };
  let stopping = false;
  const startSwaps = async (swapIds: string[]) => {
    // Once stopping, new swaps are left to the sweep (or the next start): the database is about to close.
    if (stopping || swapIds.length === 0) return;
    starting.push(...swapIds);
    startRun ??= drainStarts();
  };

  for (const swapId of await listActiveSwapIds(deps.knex)) await scheduleAdvance(swapId);

  // The allocations the sweep of unstarted work queues (new routes are allocated without a job: startRoutes).
  const routeAddressesWorker: { id?: string } = {};
  const wakeRouteAddresses = waker(routeAddressesWorker);
  routeAddressesWorker.id = await work<RouteAddressesJob>(
    ROUTE_ADDRESSES_QUEUE,
    { pollingIntervalSeconds: POLLING_INTERVAL_SECONDS, batchSize: ROUTE_ADDRESSES_BATCH_SIZE },
    async (jobs) => {
      if (jobs.length === ROUTE_ADDRESSES_BATCH_SIZE) wakeRouteAddresses.now();
      await allocateRouteAddresses(
        deps.knex,
        deps.routeAddresses,
        jobs.flatMap(({ data }) => ('routes' in data ? data.routes : [data])),
      );
    },
  );

  // New routes' addresses are allocated here, on the instance that stored them, once that has committed, as
  // new swaps' first steps are (startSwaps): ROUTE_ADDRESSES_BATCH_SIZE routes at a time, no job of their own.
  const allocating: RouteAddressWork[] = [];
  let allocationRun: Promise<void> | undefined;
  const drainAllocations = async () => {
    while (allocating.length > 0) {
      const batch = allocating.splice(0, ROUTE_ADDRESSES_BATCH_SIZE);
      await allocateRouteAddresses(deps.knex, deps.routeAddresses, batch).catch((err) =>
        deps.logger.warn(
          { err, routes: batch.length },
          "allocating new routes' addresses failed; the sweep of unstarted work allocates them",
        ),
      );
    }
    allocationRun = undefined;
  };
  const startRoutes = async (routes: Array<{ routeId: string; networks: string[] }>) => {
    if (stopping || routes.length === 0) return;
    allocating.push(...routes.map(({ routeId, networks }) => ({ routeId, networks: [...new Set(networks)] })));
    allocationRun ??= drainAllocations();
  };

  // The sweep of unstarted work: swaps and routes committed at least `startSweepMs` ago whose first step
  // never ran, and swaps still waiting (or overdue) `startSweepMs` past their deadline (the job for it was
  // never queued), get a job (one per swap or route and period, whichever instance queues it first). At
  // start, every unfinished swap is queued above; the routes are swept at once.
  const startSweepMs = deps.startSweepMs ?? START_SWEEP_MS;
  const sweepUnstarted = async (createdBefore: Date) => {
    const period = Math.floor(Date.now() / startSweepMs);
    const [swapIds, routes] = await Promise.all([
      listUnstartedSwapIds(deps.knex, createdBefore),
      listUnallocatedRoutes(deps.knex, createdBefore),
    ]);
    if (swapIds.length === 0 && routes.length === 0) return;
    deps.logger.warn({ swaps: swapIds.length, routes: routes.length }, 'starting swaps and routes that were left without their first job');
    await boss.insert([
      ...swapIds.map((swapId) => ({ name: SWAP_ADVANCE_QUEUE, data: { swapId }, id: derivedJobId(`swap-start:${swapId}@${period}`) })),
      ...routes.map((route) => ({
        name: ROUTE_ADDRESSES_QUEUE,
        data: route,
        id: derivedJobId(`route-start:${route.routeId}@${period}`),
      })),
    ]);
    wakeAdvance.now();
    wakeRouteAddresses.now();
  };
  await sweepUnstarted(new Date());
  const startSweep = setInterval(() => {
    sweepUnstarted(new Date(Date.now() - startSweepMs)).catch((err) =>
      deps.logger.warn({ err }, 'sweep of unstarted work failed; will retry'),
    );
  }, startSweepMs);
  startSweep.unref();

  // Permanent routes are polled by a sweeper over their `next_poll_at`; the orders a poll creates are queued
  // in its transaction and moved on at once after it commits.
  const routePolling = startRoutePolling({
    knex: deps.knex,
    routes: deps.routes,
    now: deps.webhooks.now,
    logger: deps.logger,
    onOrder: (orderId, trx) => scheduleAdvance(orderId, undefined, trx),
    async afterCommit(orderIds) {
      for (const orderId of orderIds) {
        const { nextRunAt } = await deps.lifecycle.advance(orderId);
        if (nextRunAt) await scheduleAdvance(orderId, nextRunAt);
      }
    },
  });

  const webhooks = await startWebhookDelivery(boss, deps);

  return {
    scheduleAdvance,
    scheduleAdvances,
    sendPayouts,
    wakeAdvance,
    startSwaps,
    startRoutes,
    wakeRouteAddresses,
    wakeRoutePolling: routePolling.wake,
    webhooks: webhooks.delivery,
    async stop() {
      clearInterval(payoutSweep);
      clearInterval(batchTimer);
      clearInterval(startSweep);
      stopping = true;
      starting.length = 0; // left to the sweep, or to the next start
      allocating.length = 0;
      await Promise.all([startRun, allocationRun]);
      unwatchQueues?.();
      await routePolling.stop();
      await webhooks.stop();
      await boss.stop({ graceful: true, wait: true, timeout: 5_000, close: false });
      stopped.value = true;
    },
  };
}

/**
 * The batching of each Bitcoin-family network of production's configuration whose `<NET>_PAYOUT_BATCH_SECONDS`
 * is above 0 (none in the sandbox): payouts due within that window go out in one transaction of at most
 * `<NET>_PAYOUT_BATCH_MAX` outputs.
 */
export function payoutBatchingOf(config: Pick<Config, 'production'>): Record<string, PayoutBatching> {
  const batching: Record<string, PayoutBatching> = {};
  for (const network of config.production?.networks ?? []) {
    if (network.family === 'bitcoin' && network.payoutBatchSeconds > 0) {
      batching[network.network] = { windowMs: network.payoutBatchSeconds * 1000, max: network.payoutBatchMax };
    }
  }
  return batching;
}

// One delivery attempt as a pg-boss job. Its id is derived from the message and attempt number unless given,
// so queuing an attempt twice queues it once. A job outlives its request's time limit (and a wait in its
// partner's line, delivery-pump.ts LINE_WAIT_MS) by a margin before pg-boss counts its worker as dead and
// runs it again.
function deliveryInsert(job: DeliveryJob & { startAfter?: Date }, timeoutSeconds: number, id = deliveryJobId(job)): PgBoss.JobInsert {
  return {
    id,
    name: WEBHOOK_DELIVERY_QUEUE,
    data: { messageId: job.messageId, attempt: job.attempt },
    ...(job.startAfter ? { startAfter: job.startAfter.toISOString() } : {}),
    expireInSeconds: Math.ceil(timeoutSeconds) + 30,
  } as PgBoss.JobInsert;
}

// A job put back by the pump: the same attempt, due at `startAfter` (this instance's clock; the pump's
// reservation). Its id is derived from the job it replaces, so that one job is never put back as two.
function putBackInsert(job: PumpJob, startAfter: Date, timeoutSeconds: number): PgBoss.JobInsert {
  return {
    ...deliveryInsert({ ...job.data, startAfter }, timeoutSeconds, derivedJobId(`webhook-delivery-put-back:${job.id}`)),
    data: { messageId: job.data.messageId, attempt: job.data.attempt, putBacks: (job.data.putBacks ?? 0) + 1 },
  } as PgBoss.JobInsert;
}

// The delivery pump and the dispatcher loop. Each queued job is one attempt (deliveryInsert).
async function startWebhookDelivery(boss: PgBoss, deps: JobEngineDeps) {
  const { config, secretsKey, now, lookup } = deps.webhooks;
  const delivery = createWebhookDelivery({
    knex: deps.knex,
    config,
    secretBox: createSecretBox(secretsKey),
    logger: deps.logger,
    now,
    metrics: deps.metrics,
    lookup,
    async enqueue(jobs, trx) {
      await boss.insert(
        jobs.map((job) => deliveryInsert(job, config.webhookTimeoutSeconds)),
        { db: transactionDb(trx) },
      );
    },
  });

  // pg-boss's public job operations; a job is completed, failed or put back on its own, as soon as it is done.
  const pump = startDeliveryPump({
    // With its metadata: retryCount tells this fetch of a job from a later one (put-back below).
    fetch: async (count) =>
      (await boss.fetch<PumpJob['data']>(WEBHOOK_DELIVERY_QUEUE, { batchSize: count, includeMetadata: true })).map((job) => ({
        id: job.id,
        data: job.data,
        retryCount: job.retryCount,
      })),
    async complete(ids) {
      await boss.complete(WEBHOOK_DELIVERY_QUEUE, ids);
    },
    // A job that throws (a database failure) is retried by pg-boss.
    async fail(job, err) {
      await boss.fail(WEBHOOK_DELIVERY_QUEUE, job.id, { message: err instanceof Error ? err.message : String(err) });
    },
    // Each job is completed (pg-boss completes only an active job, and the update locks it until commit) with
    // a mark of this put-back, then read back: only when the mark is ours and its retryCount the one our fetch
    // saw is it still the job we hold, and not one another instance fetched again after it expired (deleting
    // or replacing that one would run the attempt twice at once). Otherwise nothing of the batch is changed:
    // its jobs run again when they expire. Public operations only (complete, getJobById, insert, all in our
    // transaction); the completed job is archived by pg-boss's maintenance like any other.
    async putBack(items) {
      await transaction(deps.knex, async (trx) => {
        const db = transactionDb(trx);
        const mark = randomUUID();
        for (const { job } of items) {
          await boss.complete(WEBHOOK_DELIVERY_QUEUE, job.id, { putBack: mark }, { db });
          const now = await boss.getJobById<PumpJob['data']>(WEBHOOK_DELIVERY_QUEUE, job.id, { db, includeArchive: false });
          const output = now?.output as { putBack?: string } | null | undefined;
          if (output?.putBack !== mark || now?.retryCount !== job.retryCount) {
            throw new Error(`webhook job ${job.id} is no longer the one this instance fetched`);
          }
        }
        await boss.insert(
          items.map(({ job, startAfter }) => putBackInsert(job, startAfter, config.webhookTimeoutSeconds)),
          { db },
        );
      });
    },
    deliver: (job, takeSlot, signal) => delivery.deliver(job, takeSlot, signal),
    maxPerPartner: config.webhookMaxConcurrentPerPartner,
    maxInFlight: config.webhookMaxInFlight,
    attemptTimeoutMs: config.webhookTimeoutSeconds * 1000,
    pollIntervalMs: POLLING_INTERVAL_SECONDS * 1000,
    logger: deps.logger,
    onJobFailure: () => deps.metrics?.countJobFailures(WEBHOOK_DELIVERY_QUEUE, 1),
    onPutBack: (jobs) => deps.metrics?.countWebhookPutBacks(jobs),
  });

  // The loop reports failures and keeps going; a full batch means more rows wait, so it goes again at once.
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const dispatch = async () => {
    let claimed = 0;
    try {
      const result = await delivery.dispatch(pump.dispatchAllowance());
      claimed = result.claimed;
      if (result.queued > 0) pump.wake();
    } catch (err) {
      deps.logger.warn({ err }, 'webhook dispatch failed; will retry');
    }
    if (!stopped) timer = setTimeout(tick, claimed >= DISPATCH_BATCH_SIZE ? 0 : WEBHOOK_DISPATCH_INTERVAL_MS);
  };
  const tick = () => {
    running = dispatch();
  };
  tick();

  return {
    delivery: {
      // A test send takes one of the partner's slots, as a delivery does, or is refused ('busy').
      sendTest: (partnerId: string) => delivery.sendTest(partnerId, pump.takeSlot),
      checkTarget: delivery.checkTarget,
      async dispatch() {
        const result = await delivery.dispatch(pump.dispatchAllowance());
        if (result.queued > 0) pump.wake();
        return result;
      },
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      await pump.stop();
    },
  };
}

/** Queues jobs for the workers of the running servers, from a process that runs none (the operator CLI). */
export interface JobQueue {
  /** Queues a step for `swapId`, due now, in `trx`: whichever server's worker takes it carries the swap on. */
  scheduleAdvance(swapId: string, trx: Knex.Transaction): Promise<void>;
  /** Queues the send of each payout of `payoutIds` in `trx` (a decision committed them). */
  sendPayouts(payoutIds: string[], trx: Knex.Transaction): Promise<void>;
  /**
   * Queues attempt `attempt` of outbox message `messageId`, due now, in `trx`. Its job id is new, so it is
   * never merged with a retry already queued for that attempt (which then finds the attempt recorded).
   */
  redeliver(messageId: string, attempt: number, trx: Knex.Transaction): Promise<void>;
  /** Releases pg-boss (the database handle stays open). */
  close(): Promise<void>;
}

/**
 * Opens pg-boss on `knex` without workers, maintenance or schedules, creating its tables and queues when no
 * server has yet (the jobs then wait for one). `schema` is the servers' (default `pgboss`).
 */
export async function openJobQueue(knex: Knex, options: { schema?: string; webhookTimeoutSeconds: number }): Promise<JobQueue> {
  const boss = new PgBoss({
    db: createBossDb(knex),
    schema: options.schema ?? 'pgboss',
    ...JOB_DEFAULTS,
    supervise: false,
    schedule: false,
  });
  await retryStartupRace(async () => {
    await boss.start();
    await boss.createQueue(SWAP_ADVANCE_QUEUE);
    await boss.createQueue(WEBHOOK_DELIVERY_QUEUE);
    await boss.createQueue(PAYOUT_SEND_QUEUE);
  });
  return {
    async scheduleAdvance(swapId, trx) {
      await boss.send(SWAP_ADVANCE_QUEUE, { swapId }, { db: transactionDb(trx) });
    },
    async sendPayouts(payoutIds, trx) {
      if (payoutIds.length === 0) return;
      await boss.insert(
        payoutIds.map((payoutId) => ({ name: PAYOUT_SEND_QUEUE, data: { payoutId } })),
        { db: transactionDb(trx) },
      );
    },
    async redeliver(messageId, attempt, trx) {
      await boss.insert([deliveryInsert({ messageId, attempt }, options.webhookTimeoutSeconds, randomUUID())], { db: transactionDb(trx) });
    },
    async close() {
      await boss.stop({ graceful: false, close: false });
    },
  };
}

// boss.work, counting the jobs of each batch whose handler threw: pg-boss fails (and retries) all of them.
function countingFailures(boss: PgBoss, metrics: Metrics | undefined) {
  return <T>(queue: string, options: PgBoss.WorkOptions, handler: PgBoss.WorkHandler<T>) =>
    boss.work<T>(queue, options, async (jobs) => {
      try {
        return await handler(jobs);
      } catch (err) {
        metrics?.countJobFailures(queue, jobs.length);
        throw err;
      }
    });
}

// pg-boss runs its SQL on the knex pool, or inside a caller's transaction so a job commits with the writes
// that need it.
// After the engine stopped (`stopped`), a statement of a job that outlived the stop's grace (its completion or
// failure) is never run and never answers: the pool is closing, and pg-boss leaves a rejection (or an answer
// it cannot read) unhandled. The job stays active in the table until its expiry, when pg-boss hands it out
// again (every job is safe to run twice). Nothing waits on the unanswered promise but that stopped worker.
function createBossDb(knex: Knex, stopped: { value: boolean } = { value: false }): PgBoss.Db {
  return {
    executeSql: (text, values) =>
      stopped.value ? new Promise<never>(() => undefined) : (queryOnPool(knex, text, values) as Promise<{ rows: never[] }>),
  };
}

function transactionDb(trx: Knex.Transaction): PgBoss.Db {
  return { executeSql: (text, values) => queryInTransaction(trx, text, values) as Promise<{ rows: never[] }> };
}

/**
 * `wake`, called at once when the last call was `ms` ago or longer, and otherwise once when `ms` have passed
 * since the last, however many calls were asked for meanwhile. `clock` and `later` are injectable for tests.
 */
export function gatheredWake(
  wake: () => void,
  ms: number,
  clock: () => number = () => performance.now(),
  later: (run: () => void, delayMs: number) => void = (run, delayMs) => setTimeout(run, delayMs).unref(),
): () => void {
  let last = -Infinity;
  let pending = false;
  const fire = () => {
    last = clock();
    wake();
  };
  return () => {
    if (pending) return;
    const wait = last + ms - clock();
    if (wait <= 0) return fire();
    pending = true;
    later(() => {
      pending = false;
      fire();
    }, wait);
  };
}
