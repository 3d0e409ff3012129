/**
 * The webhook-delivery queue: each queued job is one delivery attempt (queue.ts deliveryInsert). A dispatcher
 * loop turns outbox rows into delivery jobs (webhook-delivery.ts dispatch), and the delivery pump
 * (delivery-pump.ts) sends each on its own, each partner in its own line, and queues its retries.
 */
import { randomUUID } from 'node:crypto';
import type PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Metrics } from '../metrics.js';
import { startDeliveryPump, type PumpJob } from './delivery-pump.js';
import { deliveryInsert, POLLING_INTERVAL_SECONDS, WEBHOOK_DELIVERY_QUEUE, type EnginePart, type JobQueue } from './queue.js';
import { derivedJobId, DISPATCH_BATCH_SIZE, type WebhookDelivery } from './webhook-delivery.js';

/** How often the dispatcher looks for outbox rows without a delivery job. */
export const WEBHOOK_DISPATCH_INTERVAL_MS = 200;

/** What webhook delivery offers the handlers: the test send, the check of a URL's addresses, and the dispatcher for callers that want outbox rows queued now. */
export type WebhookJobs = Pick<WebhookDelivery, 'sendTest' | 'checkTarget' | 'dispatch'>;

// A job put back by the pump: the same attempt, due at `startAfter` (this instance's clock; the pump's
// reservation). Its id is derived from the job it replaces, so that one job is never put back as two.
function putBackInsert(job: PumpJob, startAfter: Date, timeoutSeconds: number): PgBoss.JobInsert {
  return {
    ...deliveryInsert({ ...job.data, startAfter }, timeoutSeconds, derivedJobId(`webhook-delivery-put-back:${job.id}`)),
    data: { messageId: job.data.messageId, attempt: job.data.attempt, putBacks: (job.data.putBacks ?? 0) + 1 },
  } as PgBoss.JobInsert;
}

/**
 * The delivery pump and the dispatcher loop of `delivery` (webhook-delivery.ts) on `queue`, within the
 * configuration's limits (WEBHOOK_MAX_CONCURRENT_PER_PARTNER, WEBHOOK_MAX_IN_FLIGHT, WEBHOOK_TIMEOUT_SECONDS).
 */
export function createWebhookJobs(deps: {
  queue: JobQueue;
  delivery: WebhookDelivery;
  config: Pick<Config, 'webhookMaxConcurrentPerPartner' | 'webhookMaxInFlight' | 'webhookTimeoutSeconds'>;
  logger: Logger;
  metrics?: Metrics;
}): EnginePart<WebhookJobs> {
  const { config, delivery } = deps;
  const { boss } = deps.queue;

  // pg-boss's public job operations; a job is completed, failed or put back on its own, as soon as it is done.
  const startPump = () =>
    startDeliveryPump({
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
        await deps.queue.transaction(async (db) => {
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

  // Set by start(); the engine hands `schedule` to the handlers only once every part has started.
  let pump!: ReturnType<typeof startDeliveryPump>;
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

  return {
    async start() {
      pump = startPump();
      tick();
    },
    schedule: {
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
      await pump?.stop();
    },
  };
}
