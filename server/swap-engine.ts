/**
 * Assembles what moves swaps, for the server process and the tests alike: the chain adapter (the sandbox
 * simulator), the lifecycle, the job engine with its workers, the stream hub and the access-token derivation.
 */
import type { LookupFunction } from 'node:net';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { ChainAdapter } from './adapters/chain.js';
import type { RatesAdapter } from './adapters/rates.js';
import { createSandboxChain } from './adapters/sandbox/chain.js';
import type { Config } from './config.js';
import { createCryptoThread, type CryptoThread } from './crypto-thread.js';
import { createSwapTokens, type SwapTokens } from './domain/access-tokens.js';
import type { Catalog } from './domain/catalog.js';
import { startJobEngine, type JobEngine } from './jobs/engine.js';
import { createRouteDeposits, type RouteDeposits } from './jobs/route-deposits.js';
import { createSwapLifecycle, type SwapLifecycle } from './jobs/swap-lifecycle.js';
import type { Metrics } from './metrics.js';
import { startSwapHub, type SwapHub } from './store/swap-hub.js';

/** The running swap machinery. */
export interface SwapEngine {
  lifecycle: SwapLifecycle;
  /** Polls permanent routes for deposits and converts them. */
  routeDeposits: RouteDeposits;
  hub: SwapHub;
  jobs: JobEngine;
  swapTokens: SwapTokens;
  /** The worker thread that checks wallet proofs and derives sandbox addresses (crypto-thread.ts). */
  crypto: CryptoThread;
  stop(): Promise<void>;
}

/** The chain adapter of this configuration: the sandbox simulator (the only one built yet), for servers and the operator CLI. */
export function createChainAdapter(config: Pick<Config, 'sandboxBlockSeconds'>): ChainAdapter {
  return createSandboxChain(config.sandboxBlockSeconds);
}

/** Starts the swap machinery on `knex`; `stop()` waits for running jobs. */
export async function startSwapEngine(deps: {
  config: Config;
  knex: Knex;
  catalog: Catalog;
  rates: RatesAdapter;
  secretsKey: Buffer;
  logger: Logger;
  now: () => Date;
  /** Schema for pg-boss's tables (tests on a shared PostgreSQL give each run its own). */
  jobSchema?: string;
  /** This instance's metrics: transitions, the pool, streams, jobs and webhooks are measured (none: not measured). */
  metrics?: Metrics;
  /** Name resolution of webhook hosts (default dns.lookup); tests resolve names of their own. */
  webhookLookup?: LookupFunction;
}): Promise<SwapEngine> {
  const chain = createChainAdapter(deps.config);
  const lifecycle = createSwapLifecycle({ knex: deps.knex, catalog: deps.catalog, rates: deps.rates, chain, now: deps.now });
  const routeDeposits = createRouteDeposits({
    knex: deps.knex,
    catalog: deps.catalog,
    rates: deps.rates,
    chain,
    now: deps.now,
    pollSeconds: deps.config.routePollSeconds,
    expectPollSeconds: deps.config.routeExpectPollSeconds,
    idleSeconds: deps.config.routeIdleSeconds,
    pollMaxSeconds: deps.config.routePollMaxSeconds,
    dustFloorFactor: deps.config.routeDustFloorFactor,
    logger: deps.logger,
  });
  const hub = await startSwapHub({ knex: deps.knex, databaseUrl: deps.config.databaseUrl, logger: deps.logger });
  deps.metrics?.watchDatabase(deps.knex);
  deps.metrics?.watchStreams(hub);
  const crypto = createCryptoThread();
  const jobs = await startJobEngine({
    knex: deps.knex,
    crypto,
    lifecycle,
    routeDeposits,
    logger: deps.logger,
    schema: deps.jobSchema,
    webhooks: { config: deps.config, secretsKey: deps.secretsKey, now: deps.now, lookup: deps.webhookLookup },
    metrics: deps.metrics,
  });
  return {
    lifecycle,
    routeDeposits,
    hub,
    jobs,
    swapTokens: createSwapTokens(deps.secretsKey),
    crypto,
    async stop() {
      await hub.close();
      await jobs.stop();
      await crypto.close();
    },
  };
}
