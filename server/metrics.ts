/**
 * Prometheus metrics (prom-client) for one server instance: one Registry per instance, never prom-client's
 * global one, so several servers in one process (tests) keep their series apart. Counters are incremented
 * where things happen; gauges of state that lives elsewhere (queue depth, the database pool, open streams)
 * are sampled when Prometheus scrapes. They are served on a listener of their own
 * (server/http/metrics-server.ts), never on the API port.
 */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Knex } from 'knex';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { TreasuryState } from './services/liquidity.js';
import { readColdTransferGauges, type ColdTransferGauges } from './store/cold-transfers.js';
import { countHeldOutputs } from './store/held-outputs.js';
import { readPayoutGauges, type PayoutGauges } from './store/payouts.js';
import { AppError } from './domain/errors.js';
import { STREAM_LIMIT_SCOPES } from './domain/stream-limits.js';
import { afterCommit } from './store/after-commit.js';

/** Longest a scrape waits for the job queue depths before it reports none. */
export const QUEUE_SAMPLE_TIMEOUT_MS = 2_000;

/** The `operation_id` of requests that reached no operation (unknown paths, wrong methods). */
export const UNKNOWN_OPERATION = 'unknown';

/** How one webhook delivery attempt ended, as counted by `pss_webhook_deliveries_total`. */
export type WebhookOutcome = 'succeeded' | 'http_error' | 'timeout' | 'network_error';

/** The series of one instance and the hooks that feed them. */
export interface Metrics {
  readonly registry: Registry;
  /** Middleware: observes every request's duration by operation and status class when its response finishes. */
  observeRequests(): RequestHandler;
  /** Error middleware: counts 429 refusals (rate limits by class, swap streams by limit) and passes the error on. */
  countRateLimitRefusals(): ErrorRequestHandler;
  /** Counts one webhook delivery attempt by how it ended. */
  countWebhookAttempt(outcome: { succeeded: boolean; statusCode: number | null; error: string | null }): void;
  /** Counts webhook delivery jobs put back in the queue because their partner's slots were taken. */
  countWebhookPutBacks(jobs: number): void;
  /** Counts jobs of `queue` that pg-boss records as failed (and retries). */
  countJobFailures(queue: string, jobs: number): void;
  /** Counts swap transitions committed through `knex` and samples its connection pool. */
  watchDatabase(knex: Knex): void;
  /** Samples the number of open swap streams from `streams` on every scrape. */
  watchStreams(streams: { size(): number }): void;
  /** Samples the depth of `queues` with `sizeOf` on every scrape; returns the function that stops it. */
  watchQueues(queues: readonly string[], sizeOf: (queue: string) => Promise<number>): () => void;
  /**
   * Samples the payout outbox through `knex` on every scrape: payouts held for an operator, payouts waiting at
   * the fee cap, the oldest unmined payout per network (on `evmNetworks`, the oldest unmined hot-wallet nonce)
   * and the open chain alerts (deploy/prometheus/alerts.yml names each).
   */
  watchPayouts(knex: Knex, evmNetworks: readonly string[]): void;
  /**
   * Samples the hot wallets with `read` on every scrape: each asset's spendable balance, reservations, what can
   * still be promised, whether it is below HOT_WALLET_MIN and its surplus above HOT_WALLET_MAX (docs/treasury.md).
   */
  watchTreasury(read: () => Promise<TreasuryState[]>): void;
}

// The transitions counter of the metrics watching a database, keyed by the knex configuration object, which
// a transaction shares with the knex it came from (as swap-notifications.ts does for its buses).
const transitionCounters = new WeakMap<object, Counter<'status'>>();

/**
 * Counts a swap's move into `status` once `trx` commits (a rolled-back transition is not counted); does
 * nothing when no metrics watch the database.
 */
export function countSwapTransition(trx: Knex.Transaction, status: string): void {
  const counter = transitionCounters.get(trx.client.config);
  if (!counter) return;
  afterCommit(trx, () => counter.inc({ status }));
}

/** Creates a fresh registry with every series of the service and Node's default process metrics. */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const requestDuration = new Histogram({
    name: 'pss_http_request_duration_seconds',
    help: 'Time from receiving an API request to the end of its response, by spec operation and status class.',
    labelNames: ['operation_id', 'status_class'] as const,
    registers,
  });
  const transitions = new Counter({
    name: 'pss_swap_transitions_total',
    help: 'Committed swap status transitions, by the status moved into.',
    labelNames: ['status'] as const,
    registers,
  });
  let queueSources: Array<{ queues: readonly string[]; sizeOf: (queue: string) => Promise<number> }> = [];
  new Gauge({
    name: 'pss_job_queue_depth',
    help: 'Jobs waiting in each pg-boss queue (created or retry, including jobs deferred to a later time).',
    labelNames: ['queue'] as const,
    registers,
    async collect() {
      this.reset();
      for (const source of queueSources) {
        const sizes = await withTimeout(Promise.all(source.queues.map((queue) => source.sizeOf(queue))), QUEUE_SAMPLE_TIMEOUT_MS).catch(
          () => undefined,
        );
        // An unreadable depth is left out (the series goes absent) rather than reported stale.
        sizes?.forEach((size, i) => this.set({ queue: source.queues[i] }, size));
      }
    },
  });
  const jobFailures = new Counter({
    name: 'pss_job_failures_total',
    help: 'Jobs pg-boss recorded as failed, by queue (a batch whose handler threw fails each of its jobs; pg-boss retries them).',
    labelNames: ['queue'] as const,
    registers,
  });
  const webhookDeliveries = new Counter({
    name: 'pss_webhook_deliveries_total',
    help: 'Webhook delivery attempts, by outcome: succeeded (2xx), http_error (another status), timeout, network_error (no answer).',
    labelNames: ['outcome'] as const,
    registers,
  });
  const webhookPutBacks = new Counter({
    name: 'pss_webhook_put_backs_total',
    help: 'Webhook delivery jobs put back in the queue, not attempted, because their partner had every sending slot taken.',
    registers,
  });
  const streamSources: Array<{ size(): number }> = [];
  new Gauge({
    name: 'pss_sse_streams_open',
    help: 'Open swap event streams (GET /swaps/{id}/stream) on this instance.',
    registers,
    collect() {
      this.set(streamSources.reduce((sum, source) => sum + source.size(), 0));
    },
  });
  const refusedStreams = new Counter({
    name: 'pss_sse_streams_refused_total',
    help: 'Swap streams refused with 429 too_many_streams, by the limit reached (token, ip, partner, instance).',
    labelNames: ['reason'] as const,
    registers,
  });
  // Every reason is reported from the start (at 0), so an alert on its rate has a series before the first refusal.
  for (const reason of STREAM_LIMIT_SCOPES) refusedStreams.inc({ reason }, 0);
  const refusals = new Counter({
    name: 'pss_rate_limit_refusals_total',
    help: 'Requests refused with 429 rate_limited, by limit class (public, signed, quotes, swaps).',
    labelNames: ['class'] as const,
    registers,
  });
  const pools: Array<{ numUsed(): number; numPendingAcquires(): number }> = [];
  new Gauge({
    name: 'pss_db_pool_in_use',
    help: 'Database connections of the pool currently lent out.',
    registers,
    collect() {
      this.set(pools.reduce((sum, pool) => sum + pool.numUsed(), 0));
    },
  });
  new Gauge({
    name: 'pss_db_pool_waiting',
    help: 'Requests for a database connection waiting for the pool.',
    registers,
    collect() {
      this.set(pools.reduce((sum, pool) => sum + pool.numPendingAcquires(), 0));
    },
  });

  const payoutSources: Array<{ knex: Knex; evmNetworks: readonly string[] }> = [];
  // One read per scrape for the four payout gauges (each gauge's collect awaits the same sample).
  let payoutSample:
    Promise<Array<PayoutGauges & { cold: ColdTransferGauges; heldOutputs: Array<{ network: string; count: number }> }>> | undefined;
  const samplePayouts = () => {
    payoutSample ??= withTimeout(
      Promise.all(
        payoutSources.map(async (source) => {
          const [payouts, cold, heldOutputs] = await Promise.all([
            readPayoutGauges(source.knex),
            readColdTransferGauges(source.knex),
            countHeldOutputs(source.knex),
          ]);
          return { ...payouts, cold, heldOutputs };
        }),
      ),
      QUEUE_SAMPLE_TIMEOUT_MS,
    )
      .catch(() => [])
      .finally(() => setTimeout(() => (payoutSample = undefined), 100).unref());
    return payoutSample;
  };
  new Gauge({
    name: 'pss_payouts_held',
    help: 'Payouts and refunds held for an operator, by network and status (failed: never taken; review: ambiguous broadcast; reverted; cancelled).',
    labelNames: ['network', 'status'] as const,
    registers,
    async collect() {
      this.reset();
      for (const sample of await samplePayouts())
        for (const row of sample.held) this.set({ network: row.network, status: row.status }, row.count);
    },
  });
  new Gauge({
    name: 'pss_payouts_at_fee_cap',
    help: "Payouts in no block whose newest version offers the network's fee cap (<NET>_MAX_FEE_RATE, <NET>_MAX_FEE_GWEI): they wait.",
    labelNames: ['network'] as const,
    registers,
    async collect() {
      this.reset();
      for (const sample of await samplePayouts()) for (const row of sample.atCap) this.set({ network: row.network }, row.count);
    },
  });
  new Gauge({
    name: 'pss_payout_oldest_unmined_seconds',
    help: 'Age of the oldest payout broadcast (or held after an ambiguous broadcast) that no block holds, by network; 0 when none.',
    labelNames: ['network'] as const,
    registers,
    async collect() {
      this.reset();
      for (const sample of await samplePayouts()) for (const row of sample.oldest) this.set({ network: row.network }, row.seconds);
    },
  });
  new Gauge({
    name: 'pss_evm_oldest_unmined_nonce_seconds',
    help: 'Age of the oldest hot-wallet nonce a payout holds that no block has mined, by EVM network; 0 when none.',
    labelNames: ['network'] as const,
    registers,
    async collect() {
      this.reset();
      const samples = await samplePayouts();
      payoutSources.forEach((source, i) => {
        for (const network of source.evmNetworks) {
          this.set({ network }, samples[i]?.oldest.find((row) => row.network === network)?.seconds ?? 0);
        }
      });
    },
  });
  // Cold transfers (jobs/cold-transfers.ts): on their way, held for an operator, and what reached cold storage.
  const coldGauge = (
    name: string,
    help: string,
    rows: (cold: ColdTransferGauges) => Array<{ network: string; asset: string; value: number }>,
  ) =>
    new Gauge({
      name,
      help,
      labelNames: ['network', 'asset'] as const,
      registers,
      async collect() {
        this.reset();
        for (const sample of await samplePayouts())
          for (const row of rows(sample.cold)) this.set({ network: row.network, asset: row.asset }, row.value);
      },
    });
  coldGauge(
    'pss_cold_transfers_open',
    'Cold transfers (surplus above HOT_WALLET_MAX to <NET>_COLD_ADDRESS) committed and not yet final.',
    (c) => c.open.map((r) => ({ ...r, value: r.count })),
  );
  coldGauge(
    'pss_cold_transfers_held',
    'Cold transfers held for an operator and not released (ops cold list; they stop the next one).',
    (c) => c.held.map((r) => ({ ...r, value: r.count })),
  );
  coldGauge('pss_cold_transferred', 'What confirmed cold transfers moved to <NET>_COLD_ADDRESS, in units of the asset (all time).', (c) =>
    c.confirmed.map((r) => ({ network: r.network, asset: r.asset, value: Number(r.amount) })),
  );
  new Gauge({
    name: 'pss_outputs_held',
    help: 'Outputs to watched addresses recorded and credited by nothing (an unknown asset, a time lock, unexplained native value), not yet resolved by an operator (ops outputs held).',
    labelNames: ['network'] as const,
    registers,
    async collect() {
      this.reset();
      for (const sample of await samplePayouts()) for (const row of sample.heldOutputs) this.set({ network: row.network }, row.count);
    },
  });
  new Gauge({
    name: 'pss_chain_alerts_open',
    help: 'What a reorganisation took back after its swap ended (a confirmed payout, a credited deposit), not yet resolved by an operator.',
    labelNames: ['network', 'kind'] as const,
    registers,
    async collect() {
      this.reset();
      for (const sample of await samplePayouts())
        for (const row of sample.alerts) this.set({ network: row.network, kind: row.kind }, row.count);
    },
  });

  let treasuryRead: (() => Promise<TreasuryState[]>) | undefined;
  let treasurySample: Promise<TreasuryState[] | undefined> | undefined;
  // One read per scrape for the hot-wallet gauges; an unreadable one leaves them absent, not stale.
  const sampleTreasury = () => {
    treasurySample ??= (treasuryRead ? withTimeout(treasuryRead(), QUEUE_SAMPLE_TIMEOUT_MS) : Promise.resolve([]))
      .catch(() => undefined)
      .finally(() => setTimeout(() => (treasurySample = undefined), 100).unref());
    return treasurySample;
  };
  // Amounts are decimal strings everywhere else; a gauge is a float by nature, read by people and alerts only.
  const treasuryGauge = (name: string, help: string, value: (state: TreasuryState) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['network', 'asset'] as const,
      registers,
      async collect() {
        this.reset();
        for (const state of (await sampleTreasury()) ?? []) this.set({ network: state.network, asset: state.asset }, value(state));
      },
    });
  treasuryGauge('pss_hot_wallet_spendable', "The hot wallet's spendable balance of each asset, as the network board last read it.", (s) =>
    Number(s.spendable),
  );
  treasuryGauge('pss_hot_wallet_reserved', 'What live quotes and swaps reserve of each asset.', (s) => Number(s.reserved));
  treasuryGauge(
    'pss_hot_wallet_available',
    'What can still be promised of each asset (balance less payouts under way, reservations, fee reserve).',
    (s) => Number(s.available),
  );
  treasuryGauge('pss_hot_wallet_below_minimum', '1 when the hot wallet holds less of the asset than HOT_WALLET_MIN, else 0.', (s) =>
    s.rule === 'below_minimum' ? 1 : 0,
  );
  treasuryGauge(
    'pss_hot_wallet_surplus',
    'What the hot wallet holds above HOT_WALLET_MAX, down to halfway to HOT_WALLET_MIN: for cold storage.',
    (s) => Number(s.surplus),
  );

  return {
    registry,
    watchTreasury(read) {
      treasuryRead = read;
    },
    watchPayouts(knex, evmNetworks) {
      payoutSources.push({ knex, evmNetworks });
    },
    observeRequests() {
      return (req, res, next) => {
        const end = requestDuration.startTimer();
        res.once('finish', () =>
          end({ operation_id: req.operation?.operationId ?? UNKNOWN_OPERATION, status_class: `${Math.floor(res.statusCode / 100)}xx` }),
        );
        next();
      };
    },
    countRateLimitRefusals() {
      return (err, _req, _res, next) => {
        if (err instanceof AppError && err.code === 'rate_limited') refusals.inc({ class: String(err.details?.scope ?? 'unknown') });
        if (err instanceof AppError && err.code === 'too_many_streams')
          refusedStreams.inc({ reason: String(err.details?.scope ?? 'unknown') });
        next(err);
      };
    },
    countWebhookAttempt(outcome) {
      webhookDeliveries.inc({ outcome: webhookOutcome(outcome) });
    },
    countWebhookPutBacks(jobs) {
      webhookPutBacks.inc(jobs);
    },
    countJobFailures(queue, jobs) {
      jobFailures.inc({ queue }, jobs);
    },
    watchDatabase(knex) {
      transitionCounters.set(knex.client.config, transitions);
      const pool = (knex.client as { pool?: { numUsed(): number; numPendingAcquires(): number } }).pool;
      if (pool) pools.push(pool);
    },
    watchStreams(streams) {
      streamSources.push(streams);
    },
    watchQueues(queues, sizeOf) {
      const source = { queues, sizeOf };
      queueSources.push(source);
      return () => {
        queueSources = queueSources.filter((s) => s !== source);
      };
    },
  };
}

/** Classifies a delivery attempt for `pss_webhook_deliveries_total`. */
export function webhookOutcome(outcome: { succeeded: boolean; statusCode: number | null; error: string | null }): WebhookOutcome {
  if (outcome.succeeded) return 'succeeded';
  if (outcome.statusCode !== null) return 'http_error';
  // postWebhook (jobs/webhook-delivery.ts) words its time limit this way.
  if (outcome.error?.startsWith('timed out')) return 'timeout';
  return 'network_error';
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
