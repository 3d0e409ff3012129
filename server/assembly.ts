/**
 * Builds the service on an open, migrated database: the catalogue served, prices, the chain adapters, the
 * network board and liquidity (production), the swap machinery with its workers (swap-engine.ts) and the
 * HTTP application. server/main.ts and the tests' server (test/support/server.ts) both start the service
 * through `assembleService`, so what a test runs is what the process runs; a test replaces a part (the
 * clock, prices, the chain adapters, handlers) only through the options here.
 */
import type { LookupFunction } from 'node:net';
import type { Express } from 'express';
import type { Logger } from 'pino';
import { loadSandboxCatalog } from './adapters/sandbox/catalog.js';
import { createSandboxRates } from './adapters/sandbox/rates.js';
import { createScreening } from './adapters/screening.js';
import { createScreeningGate } from './services/screening.js';
import { createMarketRates } from './adapters/market/index.js';
import type { RatesAdapter } from './adapters/rates.js';
import { ConfigError, type Config } from './config.js';
import type { Catalog } from './domain/catalog.js';
import { createApp, type AppDeps } from './http/app.js';
import type { CrashPoint } from './jobs/payout-sender.js';
import type { Metrics } from './metrics.js';
import { isBelowMinimumPayout, maxTipAgeSeconds, servedCatalog } from './production-config.js';
import { createHotWalletLiquidity, type Liquidity } from './services/liquidity.js';
import { startNetworkStatus, type NetworkStatus } from './services/network-status.js';
import type { Database } from './store/database.js';
import type { SigningKeys } from './signing-keys.js';
import { createSecretBox } from './store/secret-box.js';
import { startSwapEngine, type SwapEngine } from './swap-engine.js';
import { createProductionChainAdapters, createSandboxChainAdapters, type ChainAdapters } from './wiring.js';

/** Why a production server without Zano creates no permanent routes: they settle to Zano. */
const ROUTES_UNAVAILABLE_WITHOUT_ZANO =
  'Permanent routes settle to Zano, and this server is not configured to pay out on Zano (NETWORKS has no ZANO). Use swaps meanwhile.';

/** What the service is built from. */
export interface AssemblyOptions {
  config: Config;
  /** Open and migrated. */
  database: Database;
  secretsKey: Buffer;
  /** The keys that sign deposit instructions (signing-keys.ts resolveSigningKeys). */
  signingKeys: SigningKeys;
  logger: Logger;
  apiDocument: AppDeps['apiDocument'];
  apiVersion: string;
  /** The catalogue served (default servedCatalogOf(config); main.ts checks it before opening the database). */
  catalog?: Catalog;
  /** The clock of everything built (default the system's). */
  now?: () => Date;
  /** This instance's metrics (none: not measured). */
  metrics?: Metrics;
  /** Prices (default: the market's in production, the sandbox's table otherwise). */
  rates?: RatesAdapter;
  /**
   * The chain adapters, given the catalogue served (default: the configured nodes in production, the
   * simulated chain otherwise). Tests run the simulated chain, wrapped as they need, also under a
   * configuration forced to production mode.
   */
  chains?: (catalog: Catalog) => ChainAdapters | Promise<ChainAdapters>;
  /** What the hot wallets can still pay (default: production's, from the network board; none in the sandbox). */
  liquidity?: Liquidity;
  /** Replace handlers (tests). */
  handlers?: AppDeps['handlers'];
  /** Schema of pg-boss's tables (tests on a shared PostgreSQL give each run its own). */
  jobSchema?: string;
  /** Name resolution of webhook hosts (default dns.lookup). */
  webhookLookup?: LookupFunction;
  /** Kills the process at this point of a payout (crash tests; default config.payoutCrashAt). */
  payoutCrashAt?: CrashPoint;
  /** The period of the sweep of unstarted swaps and routes (tests shorten it). */
  startSweepMs?: number;
  /** How long a broadcast payout stays in no block before it is broadcast again (tests shorten it). */
  payoutRebroadcastMs?: number;
}

/** The service, built and running its workers; the caller listens on `app`. */
export interface Service {
  app: Express;
  catalog: Catalog;
  chains: ChainAdapters;
  engine: SwapEngine;
  /** Production's board of each node's health and hot-wallet balances. */
  networkStatus?: NetworkStatus;
  /** Stops the board and the swap machinery (waiting for running jobs); the database stays open. */
  stop(): Promise<void>;
}

/**
 * The catalogue `config` serves: production serves only the networks it is configured for, and on each only
 * its coin and configured tokens; the sandbox serves every network. Throws ConfigError when the
 * configuration names what the catalogue lacks.
 */
export function servedCatalogOf(config: Config): Catalog {
  const catalog = loadSandboxCatalog();
  if (config.serviceMode !== 'production' || !config.production) return catalog;
  try {
    return servedCatalog(catalog, config.production);
  } catch (err) {
    throw new ConfigError([(err as Error).message]);
  }
}

/**
 * Builds and starts the service on `options.database`. A configuration that cannot be served (a network the
 * catalogue lacks, HOT_WALLET_* naming an asset not paid) throws ConfigError.
 */
export async function assembleService(options: AssemblyOptions): Promise<Service> {
  const { config, logger } = options;
  const knex = options.database.knex;
  const now = options.now ?? (() => new Date());
  const production = config.serviceMode === 'production' ? config.production : undefined;
  const catalog = options.catalog ?? servedCatalogOf(config);
  const realChains = production !== undefined && options.chains === undefined;
  const rates =
    options.rates ?? (production && realChains ? createMarketRates({ ...production.rates, now, logger }) : createSandboxRates(catalog));
  const chains = options.chains
    ? await options.chains(catalog)
    : production
      ? await createProductionChainAdapters({ production, knex, catalog, logger, sweep: true })
      : createSandboxChainAdapters({ config, knex, catalog, now });

  // Real nodes get a board of each node's health and hot-wallet balances (requests read it and never call a
  // node), and the liquidity it bounds quotes and payouts by.
  const networkStatus =
    production && realChains
      ? startNetworkStatus({
          adapters: chains.registry,
          catalog,
          maxTipAgeSeconds: (network) => maxTipAgeSeconds(production, catalog, network),
          isLow: (asset, spendable) => isBelowMinimumPayout(catalog, asset, spendable),
          now,
          logger,
          faults: chains.faults,
          intervalMs: config.networkProbeSeconds * 1000,
        })
      : undefined;
  await networkStatus?.probeAll();
  for (const state of networkStatus?.states() ?? []) {
    logger.info(
      { network: state.network, status: state.status, height: state.height, balance: state.balance, reason: state.reason },
      'network',
    );
  }
  const liquidity =
    options.liquidity ??
    (networkStatus
      ? createHotWalletLiquidity({
          catalog,
          status: networkStatus,
          partnerSharePercent: config.liquidityPartnerSharePercent,
          hotWalletMin: config.hotWalletMin,
          hotWalletMax: config.hotWalletMax,
        })
      : undefined);
  if (liquidity && networkStatus) {
    const paid = catalog.assets.filter((asset) => chains.registry.networks.includes(asset.network));
    const unknown = [...Object.keys(config.hotWalletMin), ...Object.keys(config.hotWalletMax)].filter(
      (key) => !paid.some((asset) => `${asset.symbol}/${asset.network}` === key),
    );
    if (unknown.length > 0) {
      networkStatus.stop();
      throw new ConfigError([`HOT_WALLET_MIN / HOT_WALLET_MAX name assets the service does not pay: ${unknown.join(', ')}`]);
    }
    options.metrics?.watchTreasury(() => liquidity.snapshot(knex, paid, now()));
  }

  // Address screening (docs/screening.md): off unless SCREENING_DENYLIST_FILE or SCREENING_URL is set.
  const screening = createScreeningGate({ knex, screening: createScreening(config.screening), now, logger });
  const engine = await startSwapEngine({
    config,
    knex,
    catalog,
    rates,
    chains,
    liquidity,
    screening,
    secretsKey: options.secretsKey,
    signer: options.signingKeys.signer,
    logger,
    now,
    jobSchema: options.jobSchema,
    metrics: options.metrics,
    webhookLookup: options.webhookLookup,
    payoutCrashAt: options.payoutCrashAt ?? config.payoutCrashAt,
    startSweepMs: options.startSweepMs,
    payoutRebroadcastMs: options.payoutRebroadcastMs,
  });
  const app = createApp({
    config,
    logger,
    secretBox: createSecretBox(options.secretsKey),
    knex,
    catalog,
    rates,
    swapTokens: engine.swapTokens,
    crypto: engine.crypto,
    lifecycle: engine.lifecycle,
    watching: engine.watching,
    // The sandbox controls, and with them the Sandbox operations, in sandbox mode only.
    sandbox: config.serviceMode === 'sandbox' ? chains.sandbox : undefined,
    networkStatus,
    liquidity,
    screening,
    routesUnavailable: production && !production.networks.some((n) => n.family === 'zano') ? ROUTES_UNAVAILABLE_WITHOUT_ZANO : undefined,
    hub: engine.hub,
    jobs: engine.jobs,
    apiDocument: options.apiDocument,
    apiVersion: options.apiVersion,
    now,
    handlers: options.handlers,
    metrics: options.metrics,
    signingKeySet: options.signingKeys.keySet,
  });
  return {
    app,
    catalog,
    chains,
    engine,
    networkStatus,
    async stop() {
      networkStatus?.stop();
      await engine.stop();
    },
  };
}
