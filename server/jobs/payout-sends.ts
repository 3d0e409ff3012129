/**
 * The payout-send queue's worker and its two timers: the outbox's sends (one job per payout, run by the sender
 * of jobs/payout-sender.ts), the sweep of payouts left unsent or unmined, and the sending of due batches.
 */
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Metrics } from '../metrics.js';
import type { JobStore } from '../store/job-store.js';
import type { PayoutBatching, PayoutSender } from './payout-sender.js';
import { derivedJobId } from './webhook-delivery.js';
import { every, PAYOUT_SEND_QUEUE, startQueueWorker, type EnginePart, type JobQueue } from './queue.js';

/** Payout sends one fetch takes (each runs on its own; a send is a few node calls). */
export const PAYOUT_SEND_BATCH_SIZE = 4;
/** How long an unsent payout stays unchanged before the sweep gives it a job again. */
export const PAYOUT_SWEEP_MS = 60_000;

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

/** The payout sends on `queue`; they are queued through the queue's sendPayouts, in the transaction that commits them. */
export function createPayoutSends(deps: {
  store: Pick<JobStore, 'openPayoutIds'>;
  queue: JobQueue;
  sender: PayoutSender;
  config: Pick<Config, 'production'>;
  now: () => Date;
  logger: Logger;
  metrics?: Metrics;
}): EnginePart<JobQueue['sendPayouts']> {
  const { boss } = deps.queue;
  const wake = () => deps.queue.wake(PAYOUT_SEND_QUEUE).now();

  // Every PAYOUT_SWEEP_MS, the payouts left unsent that long (a job that used up its retries while a node was
  // down) get a job again: one per payout and sweep period, whichever instance queues it first. So do the
  // payouts broadcast long enough ago and in no block yet (the sender replaces or broadcasts them again).
  // The sweep also keeps each EVM hot wallet's nonces moving (payout-sender.ts keepNonces).
  const sweep = async () => {
    const now = deps.now().getTime();
    const period = Math.floor(now / deps.sender.sweepMs);
    const [unsent, unmined] = await Promise.all([deps.store.openPayoutIds(new Date(now - PAYOUT_SWEEP_MS)), deps.sender.dueUnmined()]);
    const stale = [...unsent, ...unmined];
    if (stale.length > 0) {
      await boss.insert(
        stale.map((payoutId) => ({ name: PAYOUT_SEND_QUEUE, data: { payoutId }, id: derivedJobId(`payout-sweep:${payoutId}@${period}`) })),
      );
      wake();
    }
    for (const network of deps.sender.nonceNetworks()) {
      await deps.sender
        .keepNonces(network)
        .catch((err: unknown) => deps.logger.warn({ err, network }, 'keeping nonces failed; will retry'));
    }
  };

  // Batched payouts (Bitcoin family, <NET>_PAYOUT_BATCH_SECONDS > 0; payout-sender.ts sendBatches): a timer
  // looks for the batches due on each batching network, about ten times per window (0.25 to 1 s apart).
  const sendBatches = async (networks: string[]) => {
    await Promise.all(
      networks.map((network) =>
        deps.sender
          .sendBatches(network)
          .catch((err: unknown) => deps.logger.warn({ err, network }, 'sending payout batches failed; will retry')),
      ),
    );
  };

  const timers: Array<{ stop(): Promise<void> }> = [];
  return {
    async start() {
      // Which networks batch their payouts, told to the sender before any of its jobs runs.
      deps.sender.setBatching(payoutBatchingOf(deps.config));
      await startQueueWorker<{ payoutId: string }>(
        deps.queue,
        PAYOUT_SEND_QUEUE,
        { batchSize: PAYOUT_SEND_BATCH_SIZE, metrics: deps.metrics },
        async (jobs) => {
          const outcomes = await Promise.allSettled(jobs.map((job) => deps.sender.send(job.data.payoutId)));
          const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
          if (failed) throw failed.reason;
        },
      );
      // Every payout still open at start gets a job: a crash between a commit and its broadcast costs a
      // restart, never a payout.
      const open = await deps.store.openPayoutIds();
      if (open.length > 0) {
        await boss.insert(open.map((payoutId) => ({ name: PAYOUT_SEND_QUEUE, data: { payoutId } })));
        wake();
      }
      timers.push(every(deps.sender.sweepMs, sweep, (err) => deps.logger.warn({ err }, 'payout sweep failed; will retry')));
      const batching = deps.sender.batching();
      if (batching.length > 0) {
        const ms = Math.min(1_000, Math.max(250, Math.min(...batching.map(([, b]) => b.windowMs)) / 10));
        timers.push(
          every(
            ms,
            () => sendBatches(batching.map(([network]) => network)),
            () => undefined,
          ),
        );
      }
    },
    schedule: (payoutIds, trx) => deps.queue.sendPayouts(payoutIds, trx),
    async stop() {
      await Promise.all(timers.map((timer) => timer.stop()));
    },
  };
}
