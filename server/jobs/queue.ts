/**
 * The job queue: pg-boss 10 on the service's own database (its pool, so the same code runs on PostgreSQL and
 * on the embedded PGlite), opened before anything that queues work. The swap service, the payout sender, the
 * chain watchers, the operator CLI and the engine's own workers (jobs/engine.ts) all queue through the one
 * JobQueue here; a job queued in a caller's transaction exists exactly when the write that needs it commits.
 *
 * A worker that runs on this instance registers its waker here (`registerWaker`): a job due now that this
 * instance queued wakes it once the write is committed. Until one is registered (the operator CLI runs none;
 * a server registers them as its workers start) a job simply waits for a worker's next poll.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics.js';
import { afterCommit, transaction } from '../store/after-commit.js';
import { retryStartupRace } from '../store/database.js';
import { queryInTransaction, queryOnPool } from '../store/raw-sql.js';
import { derivedJobId, deliveryJobId, type DeliveryJob } from './webhook-delivery.js';

/** The queue of swap steps: a job names a swap. */
export const SWAP_ADVANCE_QUEUE = 'swap-advance';
/** The queue of payout sends (the outbox's sender, jobs/payout-sender.ts): a job names a payout. */
export const PAYOUT_SEND_QUEUE = 'payout-send';
/** The queue that allocates permanent routes' deposit addresses. */
export const ROUTE_ADDRESSES_QUEUE = 'route-addresses';
/** The queue of webhook delivery attempts. */
export const WEBHOOK_DELIVERY_QUEUE = 'webhook-delivery';
/** Every queue, created when the queue opens. */
export const QUEUES = [SWAP_ADVANCE_QUEUE, WEBHOOK_DELIVERY_QUEUE, ROUTE_ADDRESSES_QUEUE, PAYOUT_SEND_QUEUE] as const;
export type QueueName = (typeof QUEUES)[number];

/** A job still active after this long (its worker died) is retried. */
export const JOB_EXPIRY_SECONDS = 60;
/** How often idle workers look for due jobs (pg-boss's minimum is 0.5 s). */
export const POLLING_INTERVAL_SECONDS = 0.5;
/**
 * Under load, a worker is woken for new jobs at most once per this many milliseconds (registerWaker): the jobs
 * queued meanwhile are then fetched together instead of one small batch per request.
 */
export const WAKE_GATHER_MS = 100;

// Expiry and retries of every job queued without options of its own, by a server or the operator CLI.
const JOB_DEFAULTS = { expireInSeconds: JOB_EXPIRY_SECONDS, retryLimit: 10, retryDelay: 1, retryBackoff: true } as const;

/** Wakes one worker of this instance: `soon` gathers wakes (WAKE_GATHER_MS), `now` fetches at once. */
export interface Waker {
  soon(): void;
  now(): void;
}

/** Queues work for the workers of every running server. */
export interface JobQueue {
  /**
   * Queues a step for `swapId`, due at `at` (now when absent). With `trx` the job is inserted in that
   * transaction. A step due at a moment has an id derived from the swap and that moment: every chain of jobs
   * for one swap (after a sandbox action, a deposit, a restart) computes the same next moment, so they merge
   * into one job instead of multiplying.
   */
  scheduleAdvance(swapId: string, at?: Date, trx?: Knex.Transaction): Promise<void>;
  /** Queues a step, due now, for each of `swapIds` in `trx`. */
  scheduleAdvances(swapIds: string[], trx: Knex.Transaction): Promise<void>;
  /** Queues the send of each payout of `payoutIds` in `trx` (the outbox's sender takes it from there). */
  sendPayouts(payoutIds: string[], trx: Knex.Transaction): Promise<void>;
  /**
   * Queues attempt `attempt` of outbox message `messageId`, due now, in `trx`. Its job id is new, so it is
   * never merged with a retry already queued for that attempt (which then finds the attempt recorded).
   */
  redeliver(messageId: string, attempt: number, trx: Knex.Transaction): Promise<void>;
  /** Queues delivery attempts `jobs` in `trx` (the dispatcher's, webhook-delivery.ts), each once (deliveryInsert). */
  queueDeliveries(jobs: Array<DeliveryJob & { startAfter?: Date }>, trx: Knex.Transaction): Promise<void>;
  /** Runs `work` with pg-boss's statements in one transaction of the queue's database. */
  transaction<T>(work: (db: PgBoss.Db) => Promise<T>): Promise<T>;
  /** pg-boss itself, for the engine's workers on this queue (jobs/engine.ts). */
  readonly boss: PgBoss;
  /** Registers this instance's worker of `queue` (its waker); jobs this instance queues wake it after commit. */
  registerWaker(queue: QueueName, wake: Waker): void;
  /** The waker of `queue` on this instance (a no-op until its worker registered one). */
  wake(queue: QueueName): Waker;
  /**
   * Stops pg-boss: with `workers`, fetching stops and running jobs get up to a few seconds. After it, a
   * statement of a job that outlived that grace is never run (see createBossDb). The database stays open.
   */
  close(): Promise<void>;
}

/** Options of openJobQueue. */
export interface JobQueueOptions {
  /** Schema of pg-boss's tables (default `pgboss`); tests give each database schema its own. */
  schema?: string;
  /** The webhook request time limit (WEBHOOK_TIMEOUT_SECONDS): a delivery job outlives it before it expires. */
  webhookTimeoutSeconds: number;
  /** A server: pg-boss's maintenance and supervision run here. Without it (the operator CLI), only queuing. */
  workers?: boolean;
  logger?: Logger;
}

/**
 * Opens pg-boss on `knex`, creating its tables and queues when no one has yet (instances starting together on
 * a fresh database race to do so, and the loser's retry finds them made).
 */
export async function openJobQueue(knex: Knex, options: JobQueueOptions): Promise<JobQueue> {
  // Set once pg-boss's stop returned: a job still running past its grace (it is not waited for) must not reach
  // a pool the caller is about to close (see createBossDb).
  const stopped = { value: false };
  const boss = new PgBoss({
    db: createBossDb(knex, stopped),
    schema: options.schema ?? 'pgboss',
    ...JOB_DEFAULTS,
    ...(options.workers ? {} : { supervise: false, schedule: false }),
  });
  boss.on('error', (err) => options.logger?.warn({ err }, 'job engine error; it keeps running'));
  await retryStartupRace(async () => {
    await boss.start();
    for (const queue of QUEUES) await boss.createQueue(queue);
  });

  const wakers = new Map<QueueName, Waker>();
  const idle: Waker = { soon: () => undefined, now: () => undefined };
  const wake = (queue: QueueName) => wakers.get(queue) ?? idle;
  // Wakes `queue`'s worker here once `trx` (none: what was just written) is committed, if one runs here
  // then (a job queued while the workers start wakes the one that registered meanwhile). Only a server's
  // queue: the CLI runs no worker, and its transactions need not come from store/after-commit.ts.
  const wakeAfterCommit = (queue: QueueName, trx?: Knex.Transaction) => {
    if (options.workers) afterCommit(trx ?? knex, () => wakers.get(queue)?.soon());
  };

  return {
    boss,
    async scheduleAdvance(swapId, at, trx) {
      const job = at ? stepAt(swapId, at) : {};
      await boss.send(SWAP_ADVANCE_QUEUE, { swapId }, { ...job, ...(trx ? { db: transactionDb(trx) } : {}) });
      if (!at) wakeAfterCommit(SWAP_ADVANCE_QUEUE, trx);
    },
    async scheduleAdvances(swapIds, trx) {
      if (swapIds.length === 0) return;
      await boss.insert(
        swapIds.map((swapId) => ({ name: SWAP_ADVANCE_QUEUE, data: { swapId } })),
        { db: transactionDb(trx) },
      );
      wakeAfterCommit(SWAP_ADVANCE_QUEUE, trx);
    },
    async sendPayouts(payoutIds, trx) {
      if (payoutIds.length === 0) return;
      await boss.insert(
        payoutIds.map((payoutId) => ({ name: PAYOUT_SEND_QUEUE, data: { payoutId } })),
        { db: transactionDb(trx) },
      );
      wakeAfterCommit(PAYOUT_SEND_QUEUE, trx);
    },
    async redeliver(messageId, attempt, trx) {
      await boss.insert([deliveryInsert({ messageId, attempt }, options.webhookTimeoutSeconds, randomUUID())], {
        db: transactionDb(trx),
      });
    },
    async queueDeliveries(jobs, trx) {
      await boss.insert(
        jobs.map((job) => deliveryInsert(job, options.webhookTimeoutSeconds)),
        { db: transactionDb(trx) },
      );
    },
    transaction: (work) => transaction(knex, (trx) => work(transactionDb(trx))),
    registerWaker(queue, waker) {
      wakers.set(queue, waker);
    },
    wake,
    async close() {
      wakers.clear();
      await boss.stop(options.workers ? { graceful: true, wait: true, timeout: 5_000, close: false } : { graceful: false, close: false });
      stopped.value = true;
    },
  };
}

/**
 * The job options of swap `swapId`'s step due at `at`: its id is derived from the swap and that moment, so
 * every chain of jobs for one swap that computes the same next moment merges into one job.
 */
export function stepAt(swapId: string, at: Date): { id: string; startAfter: string } {
  return { id: derivedJobId(`swap-advance:${swapId}@${at.toISOString()}`), startAfter: at.toISOString() };
}

/**
 * One delivery attempt as a pg-boss job. Its id is derived from the message and attempt number unless given,
 * so queuing an attempt twice queues it once. A job outlives its request's time limit (and a wait in its
 * partner's line, delivery-pump.ts LINE_WAIT_MS) by a margin before pg-boss counts its worker as dead and
 * runs it again.
 */
export function deliveryInsert(
  job: DeliveryJob & { startAfter?: Date },
  timeoutSeconds: number,
  id = deliveryJobId(job),
): PgBoss.JobInsert {
  return {
    id,
    name: WEBHOOK_DELIVERY_QUEUE,
    data: { messageId: job.messageId, attempt: job.attempt },
    ...(job.startAfter ? { startAfter: job.startAfter.toISOString() } : {}),
    expireInSeconds: Math.ceil(timeoutSeconds) + 30,
  } as PgBoss.JobInsert;
}

// pg-boss runs its SQL on the knex pool, or inside a caller's transaction so a job commits with the writes
// that need it.
// After the queue closed (`stopped`), a statement of a job that outlived the stop's grace (its completion or
// failure) is never run and never answers: the pool is closing, and pg-boss leaves a rejection (or an answer
// it cannot read) unhandled. The job stays active in the table until its expiry, when pg-boss hands it out
// again (every job is safe to run twice). Nothing waits on the unanswered promise but that stopped worker.
function createBossDb(knex: Knex, stopped: { value: boolean }): PgBoss.Db {
  return {
    executeSql: (text, values) =>
      stopped.value ? new Promise<never>(() => undefined) : (queryOnPool(knex, text, values) as Promise<{ rows: never[] }>),
  };
}

/** pg-boss's statements inside `trx`. */
export function transactionDb(trx: Knex.Transaction): PgBoss.Db {
  return { executeSql: (text, values) => queryInTransaction(trx, text, values) as Promise<{ rows: never[] }> };
}

/**
 * pg-boss's worker fetches a batch, then waits out its polling interval unless notified: without a nudge one
 * worker moved at most a batch per interval (16 steps a second), and a new swap waited up to half a second for
 * its address. So a job due now that this instance queued wakes the worker once it is committed, and a full
 * batch fetches the next at once (`now`).
 *
 * `soon` wakes at once when the last wake was WAKE_GATHER_MS ago or longer, and otherwise when that time is
 * up, once for all the wakes asked for meanwhile. When every request woke the worker at once, under load each
 * fetch took a job or two (300 fetches for 2,300 new swaps), and pg-boss's fetch is the most expensive
 * statement of a job; gathering cut the CPU per POST /swaps by about 15 % (PGlite). A lone request still
 * wakes the worker at once.
 */
export function workerWaker(boss: PgBoss, workerId: string): Waker {
  const now = () => boss.notifyWorker(workerId);
  return { soon: gatheredWake(now, WAKE_GATHER_MS), now };
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

/**
 * One queue or loop of the engine (jobs/engine.ts composes them): `start` starts its worker or timer and
 * queues what was left from before, `schedule` puts work in, `stop` stops taking work and waits for what runs.
 */
export interface EnginePart<Schedule> {
  start(): Promise<void>;
  schedule: Schedule;
  stop(): Promise<void>;
}

/**
 * Starts this instance's worker of `name`, `batchSize` jobs a fetch, and registers its waker: a full batch
 * fetches the next at once. A handler that throws fails (and pg-boss retries) the whole batch, counted in
 * `metrics`.
 */
export async function startQueueWorker<T>(
  queue: JobQueue,
  name: QueueName,
  options: { batchSize: number; metrics?: Metrics },
  handler: (jobs: Array<PgBoss.Job<T>>) => Promise<void>,
): Promise<Waker> {
  // The worker's first batch may come before `work` answers with its id: until then there is none to wake.
  const id = await queue.boss.work<T>(
    name,
    { pollingIntervalSeconds: POLLING_INTERVAL_SECONDS, batchSize: options.batchSize },
    async (jobs) => {
      if (jobs.length === options.batchSize) queue.wake(name).now();
      try {
        await handler(jobs);
      } catch (err) {
        options.metrics?.countJobFailures(name, jobs.length);
        throw err;
      }
    },
  );
  const waker = workerWaker(queue.boss, id);
  queue.registerWaker(name, waker);
  return waker;
}

/**
 * Runs `task` every `ms` (never two at once: a tick while one runs is skipped), reporting a failure to
 * `onFailure` and trying again at the next tick. The timer does not keep the process alive.
 */
export function every(ms: number, task: () => Promise<void>, onFailure: (err: unknown) => void): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    running ??= task()
      .catch(onFailure)
      .finally(() => (running = undefined));
  }, ms);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
