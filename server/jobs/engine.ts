/**
 * The job engine: pg-boss 10 on the service's own database (its pool, so the same code runs on PostgreSQL and
 * on the embedded PGlite). One queue moves swaps: a job names a swap, the worker advances it as far as it can
 * go and schedules the next job for when the clock will move it again (a deadline, the next block).
 * Jobs are retried by pg-boss when they fail; at start every unfinished swap gets a job, so a crash between a
 * commit and its follow-up job costs a restart, never a stuck swap.
 */
import type { Knex } from 'knex';
import PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import { listActiveSwapIds } from '../store/swaps.js';
import type { SwapLifecycle } from './swap-lifecycle.js';

/** The queue of swap steps. */
export const SWAP_ADVANCE_QUEUE = 'swap-advance';
/** How often idle workers look for due jobs (pg-boss's minimum is 0.5 s). */
export const POLLING_INTERVAL_SECONDS = 0.5;
/** A job still active after this long (its worker died) is retried. */
export const JOB_EXPIRY_SECONDS = 60;

/** Running job workers. */
export interface JobEngine {
  /**
   * Queues a step for `swapId`, due at `at` (now when absent). With `trx` the job is inserted in that
   * transaction, so it exists exactly when the write that needs it commits.
   */
  scheduleAdvance(swapId: string, at?: Date, trx?: Knex.Transaction): Promise<void>;
  /** Stops fetching, waits for running jobs (up to a few seconds) and releases the engine. */
  stop(): Promise<void>;
}

/** What the engine needs. */
export interface JobEngineDeps {
  knex: Knex;
  lifecycle: SwapLifecycle;
  logger: Logger;
  /** Schema of pg-boss's tables (default `pgboss`); tests give each database schema its own. */
  schema?: string;
}

/** Starts pg-boss and the swap worker; resolves once jobs for unfinished swaps are queued. */
export async function startJobEngine(deps: JobEngineDeps): Promise<JobEngine> {
  const boss = new PgBoss({
    db: createBossDb(deps.knex),
    schema: deps.schema ?? 'pgboss',
    expireInSeconds: JOB_EXPIRY_SECONDS,
    retryLimit: 10,
    retryDelay: 1,
    retryBackoff: true,
  });
  boss.on('error', (err) => deps.logger.warn({ err }, 'job engine error; it keeps running'));
  await boss.start();
  await boss.createQueue(SWAP_ADVANCE_QUEUE);

  const scheduleAdvance = async (swapId: string, at?: Date, trx?: Knex.Transaction) => {
    await boss.send(SWAP_ADVANCE_QUEUE, { swapId }, { ...(at ? { startAfter: at } : {}), ...(trx ? { db: transactionDb(trx) } : {}) });
  };

  await boss.work<{ swapId: string }>(
    SWAP_ADVANCE_QUEUE,
    { pollingIntervalSeconds: POLLING_INTERVAL_SECONDS, batchSize: 8 },
    async (jobs) => {
      await Promise.all(
        jobs.map(async (job) => {
          const { nextRunAt } = await deps.lifecycle.advance(job.data.swapId);
          if (nextRunAt) await scheduleAdvance(job.data.swapId, nextRunAt);
        }),
      );
    },
  );

  for (const swapId of await listActiveSwapIds(deps.knex)) await scheduleAdvance(swapId);

  return {
    scheduleAdvance,
    async stop() {
      await boss.stop({ graceful: true, wait: true, timeout: 5_000, close: false });
    },
  };
}

// pg-boss runs its SQL through this adapter on the knex pool. Every query is sent unnamed: the embedded
// PGlite serves all socket connections from one session, where named prepared statements would collide.
function createBossDb(knex: Knex): PgBoss.Db {
  return {
    async executeSql(text, values) {
      const connection = await knex.client.acquireConnection();
      try {
        return await connection.query({ text, values });
      } finally {
        await knex.client.releaseConnection(connection);
      }
    },
  };
}

// pg-boss's SQL inside a knex transaction: its $n placeholders become knex bindings (a literal ? in its SQL
// is escaped), so the job row commits or rolls back with the caller's writes.
function transactionDb(trx: Knex.Transaction): PgBoss.Db {
  return {
    async executeSql(text, values = []) {
      const bindings: unknown[] = [];
      const sql = text.replace(/\?/g, '\\?').replace(/\$(\d+)/g, (_, n: string) => {
        bindings.push(values[Number(n) - 1] ?? null); // pg sends undefined as NULL; knex refuses it
        return '?';
      });
      const result = await trx.raw(sql, bindings as Knex.RawBinding[]);
      return { rows: result.rows };
    },
  };
}
