/**
 * Assembles what moves swaps, for the server process and the tests alike, over the chain adapters it is
 * given: the swap service, the chain watchers, the payout sender, the sweeping of EVM deposits (where the
 * chains have it), the job engine with its workers, the stream hub and the access-token derivation.
 */
import { randomUUID } from 'node:crypto';
import type { LookupFunction } from 'node:net';
import { hostname } from 'node:os';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { RatesAdapter } from './adapters/rates.js';
import type { Config } from './config.js';
import { createCryptoThread, type CryptoThread } from './crypto-thread.js';
import { createSwapTokens, type SwapTokens } from './domain/access-tokens.js';
import type { Catalog } from './domain/catalog.js';
import { startJobEngine, type JobEngine } from './jobs/engine.js';
import { openJobQueue, type JobQueue } from './jobs/queue.js';
import { createWebhookDelivery } from './jobs/webhook-delivery.js';
import { createJobStore } from './store/job-store.js';
import { createSecretBox } from './store/secret-box.js';
import { startChainWatching, type ChainWatching } from './jobs/chain-watch.js';
import { adapterRouteAddresses, sandboxRouteAddresses } from './jobs/route-addresses.js';
import { startEvmSweeping, type EvmSweeping } from './jobs/evm-sweep.js';
import { coldRulesOf, startColdTransfers } from './jobs/cold-transfers.js';
import { createPayoutSender, type CrashPoint } from './jobs/payout-sender.js';
import type { Metrics } from './metrics.js';
import type { Liquidity } from './services/liquidity.js';
import type { ScreeningGate } from './services/screening.js';
import { createRouteService, type RouteService } from './services/routes.js';
import { createSwapService, type SwapService } from './services/swaps.js';
import { startSwapHub, type SwapHub } from './store/swap-hub.js';
import type { ChainAdapters } from './wiring.js';
import type { InstructionsSigner } from './domain/signed-instructions.js';

/** The running swap machinery. */
export interface SwapEngine {
  lifecycle: SwapService;
  /** The chain watchers (a sandbox payment wakes its network's). */
  watching: ChainWatching;
  /** Moves EVM deposits to the hot wallets (production, on networks with a deposit key; jobs/evm-sweep.ts). */
  sweeping?: EvmSweeping;
  /** Polls permanent routes for deposits and converts them (the sweeper of jobs/route-deposits.ts calls it). */
  routes: RouteService;
  hub: SwapHub;
  /** The job queue everything here queues through (jobs/queue.ts). */
  queue: JobQueue;
  jobs: JobEngine;
  swapTokens: SwapTokens;
  /** The worker thread that checks wallet proofs and derives sandbox addresses (crypto-thread.ts). */
  crypto: CryptoThread;
  stop(): Promise<void>;
}

/** Starts the swap machinery on `knex`; `stop()` waits for running jobs. */
export async function startSwapEngine(deps: {
  config: Config;
  knex: Knex;
  catalog: Catalog;
  rates: RatesAdapter;
  /** The chain adapters of every network served (wiring.ts). */
  chains: ChainAdapters;
  /** What the hot wallets can still pay (production); none: no limit. */
  liquidity?: Liquidity;
  /** Screens deposits' senders before a swap step decides (services/screening.ts); none: no screening. */
  screening?: ScreeningGate;
  secretsKey: Buffer;
  /** Signs new swaps' deposit instructions and routes' addresses (signing-keys.ts). */
  signer: InstructionsSigner;
  logger: Logger;
  now: () => Date;
  /** Schema for pg-boss's tables (tests on a shared PostgreSQL give each run its own). */
  jobSchema?: string;
  /** This instance's metrics: transitions, the pool, streams, jobs and webhooks are measured (none: not measured). */
  metrics?: Metrics;
  /** Name resolution of webhook hosts (default dns.lookup); tests resolve names of their own. */
  webhookLookup?: LookupFunction;
  /** Kills the process at this point of a payout (crash tests; PAYOUT_CRASH_AT). */
  payoutCrashAt?: CrashPoint;
  /** The period of the sweep of unstarted swaps and routes (jobs/unstarted-sweep.ts START_SWEEP_MS; tests shorten it). */
  startSweepMs?: number;
  /** How long a broadcast payout stays in no block before it is broadcast again (payout-sender.ts PAYOUT_REBROADCAST_MS; tests shorten it). */
  payoutRebroadcastMs?: number;
}): Promise<SwapEngine> {
  const adapters = deps.chains.registry;
  // The queue first: the service, the sender and the watchers queue through it, and the engine's workers
  // take their jobs from it once everything is built.
  const queue = await openJobQueue(deps.knex, {
    schema: deps.jobSchema,
    webhookTimeoutSeconds: deps.config.webhookTimeoutSeconds,
    workers: true,
    logger: deps.logger,
  });
  const lifecycle = createSwapService({
    knex: deps.knex,
    catalog: deps.catalog,
    rates: deps.rates,
    adapters,
    exchange: deps.chains.exchange,
    jobs: queue,
    now: deps.now,
    liquidity: deps.liquidity,
    signer: deps.signer,
    screening: deps.screening,
  });
  const watching = startChainWatching({
    knex: deps.knex,
    catalog: deps.catalog,
    adapters,
    now: deps.now,
    logger: deps.logger,
    wakeSwaps: (swapIds, trx) => queue.scheduleAdvances(swapIds, trx),
    exclusive: deps.chains.watchOnOneInstance ? { holder: `${hostname()}:${process.pid}:${randomUUID()}` } : undefined,
  });
  const payoutSender = createPayoutSender({
    knex: deps.knex,
    catalog: deps.catalog,
    adapters,
    now: deps.now,
    logger: deps.logger,
    wakeSwap: (swapId, trx) => queue.scheduleAdvances([swapId], trx),
    broadcasted: (network) => watching.wake(network),
    crashAt: deps.payoutCrashAt,
    rebroadcastAfterMs: deps.payoutRebroadcastMs,
  });
  const routes = createRouteService({
    knex: deps.knex,
    catalog: deps.catalog,
    rates: deps.rates,
    now: deps.now,
    schedule: {
      pollSeconds: deps.config.routePollSeconds,
      expectPollSeconds: deps.config.routeExpectPollSeconds,
      idleSeconds: deps.config.routeIdleSeconds,
      pollMaxSeconds: deps.config.routePollMaxSeconds,
      blockMs: (network) => adapters.of(network).watcher.busyScanMs,
    },
    dustFloorFactor: deps.config.routeDustFloorFactor,
    screening: deps.screening,
    logger: deps.logger,
  });
  // What started so far stops again when the rest fails to start (a test's server, a process that exits).
  const abandon = async (err: unknown, started: { hub?: SwapHub; crypto?: CryptoThread }) => {
    await started.hub?.close().catch(() => undefined);
    await watching.stop().catch(() => undefined);
    await queue.close().catch(() => undefined);
    await started.crypto?.close().catch(() => undefined);
    throw err;
  };
  const hub = await startSwapHub({ knex: deps.knex, databaseUrl: deps.config.databaseUrl, logger: deps.logger }).catch((err) =>
    abandon(err, {}),
  );
  deps.metrics?.watchDatabase(deps.knex);
  deps.metrics?.watchPayouts(
    deps.knex,
    adapters.networks.filter((network) => adapters.of(network).sender.nonces !== undefined),
  );
  deps.metrics?.watchStreams(hub);
  const crypto = createCryptoThread();
  const jobs = await startJobEngine({
    store: createJobStore(deps.knex),
    queue,
    // The simulated chain derives route addresses on the crypto thread; real networks ask their address sources.
    routeAddresses: deps.chains.sandbox
      ? sandboxRouteAddresses(crypto)
      : adapterRouteAddresses({ knex: deps.knex, catalog: deps.catalog, adapters }),
    signer: deps.signer,
    lifecycle,
    payoutSender,
    routes,
    // Webhook delivery: the configuration (mode, retry schedule, timeout, limits), the partners' secrets, the
    // clock and name resolution (default dns.lookup; tests resolve names of their own).
    delivery: createWebhookDelivery({
      knex: deps.knex,
      config: deps.config,
      secretBox: createSecretBox(deps.secretsKey),
      logger: deps.logger,
      now: deps.now,
      metrics: deps.metrics,
      lookup: deps.webhookLookup,
      enqueue: (deliveries, trx) => queue.queueDeliveries(deliveries, trx),
    }),
    config: deps.config,
    now: deps.now,
    logger: deps.logger,
    metrics: deps.metrics,
    startSweepMs: deps.startSweepMs,
  }).catch((err) => abandon(err, { hub, crypto }));
  const sweeping =
    deps.chains.sweeping && Object.keys(deps.chains.sweeping).length > 0
      ? startEvmSweeping({
          knex: deps.knex,
          catalog: deps.catalog,
          networks: deps.chains.sweeping,
          holder: `${hostname()}:${process.pid}:${randomUUID()}`,
          now: deps.now,
          logger: deps.logger,
        })
      : undefined;
  // Hot wallets above HOT_WALLET_MAX send their surplus to <NET>_COLD_ADDRESS, as often as payouts are swept.
  const cold = coldRulesOf(deps.config, deps.catalog);
  if (cold.withoutAddress.length > 0) {
    deps.logger.warn(
      { assets: cold.withoutAddress },
      'HOT_WALLET_MAX is set for assets whose network has no <NET>_COLD_ADDRESS: their surplus is only reported (pss_hot_wallet_surplus), never moved',
    );
  }
  const coldTransfers =
    deps.liquidity && cold.rules.length > 0
      ? startColdTransfers({
          knex: deps.knex,
          liquidity: deps.liquidity,
          rules: cold.rules,
          sendPayouts: (ids, trx) => queue.sendPayouts(ids, trx),
          confirmations: (network) => deps.catalog.networks[network]!.confirmations,
          intervalMs: payoutSender.sweepMs,
          now: deps.now,
          logger: deps.logger,
        })
      : undefined;
  return {
    lifecycle,
    watching,
    sweeping,
    routes,
    hub,
    queue,
    jobs,
    swapTokens: createSwapTokens(deps.secretsKey),
    crypto,
    async stop() {
      await hub.close();
      await coldTransfers?.stop();
      await sweeping?.stop();
      await watching.stop();
      await jobs.stop();
      await queue.close();
      await crypto.close();
    },
  };
}
