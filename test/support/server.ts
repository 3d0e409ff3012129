/**
 * Starts the real application (server/assembly.ts, as main.ts does) on its own database for one test suite:
 * a fresh in-memory PGlite, or, when DATABASE_URL is set, a fresh schema in that PostgreSQL (dropped on
 * close). Listens on a free port.
 */
import { createSandboxChainAdapters, type ChainAdapters } from '../../server/wiring.js';
import { createPrivateKey, randomBytes, type KeyObject } from 'node:crypto';
import type { AddressInfo, LookupFunction } from 'node:net';
import knexFactory, { type Knex } from 'knex';
import { loadConfig, modeCapabilities, type Config } from '../../server/config.js';
import { createLogger } from '../../server/logger.js';
import { loadApiDocument } from '../../server/spec.js';
import { migrate, openDatabase, type Database } from '../../server/store/database.js';
import type { AppDeps } from '../../server/http/app.js';
import { assembleService } from '../../server/assembly.js';
import type { SwapEngine } from '../../server/swap-engine.js';
import { createHttpServer } from '../../server/http/http-server.js';
import { listenForMetrics } from '../../server/http/metrics-server.js';
import { createMetrics } from '../../server/metrics.js';
import { provisionPartner, type IssuedCredentials } from '../../server/partners.js';
import { createSecretBox, type SecretBox } from '../../server/store/secret-box.js';
import { generateSigningKeyPem, resolveSigningKeys, signingKeysOf } from '../../server/signing-keys.js';
import type { Liquidity } from '../../server/services/liquidity.js';
import type { SignerOptions } from './signer.js';

/** A running test server. */
export interface TestServer {
  /** e.g. http://127.0.0.1:41234 (no /api/v1). */
  origin: string;
  /** origin + /api/v1 */
  baseUrl: string;
  config: Config;
  knex: Knex;
  database: Database;
  secretBox: SecretBox;
  /** The swap machinery this server runs (lifecycle, workers, tokens). */
  engine: SwapEngine;
  /** pg-boss's schema on a shared PostgreSQL (undefined: the default, on a database of its own). */
  jobSchema: string | undefined;
  /** The metrics listener's GET /metrics URL (with `metrics: true`). */
  metricsUrl: string | undefined;
  /** Provisions a partner directly (what the CLI does) and returns its credentials. */
  createPartner(name?: string): Promise<IssuedCredentials>;
  /** Provisions a partner and returns what a signer needs for this server (its audience included). */
  createSigner(name?: string): Promise<SignerOptions>;
  close(): Promise<void>;
}

/** Options for startTestServer. */
export interface TestServerOptions {
  /** Environment overrides, as the process would read them. */
  env?: Record<string, string>;
  /** Run a second instance on this server's database (cross-instance tests); closing it leaves the database. */
  sameDatabaseAs?: TestServer;
  /**
   * Fields to force after the environment is parsed (e.g. a mode loadConfig would refuse to start in; a
   * forced mode brings the capabilities it decides, config.ts modeCapabilities).
   */
  configOverrides?: Partial<Config>;
  /** Replace handlers or the clock. */
  deps?: Partial<Pick<AppDeps, 'handlers' | 'now' | 'rates'>>;
  /** Measure this server with a registry of its own, served on a metrics listener on a free port. */
  metrics?: boolean;
  /** Resolve webhook hosts with this instead of DNS (names of the test's own; the answers are still checked). */
  webhookLookup?: LookupFunction;
  /** Wraps the chain adapters the server runs on (a sender that fails as a node may). */
  wrapChains?: (chains: ChainAdapters) => ChainAdapters;
  /** The period of the engine's sweep of unstarted swaps and routes (default jobs/unstarted-sweep.ts START_SWEEP_MS). */
  startSweepMs?: number;
  /** How long a broadcast payout stays in no block before it is broadcast again (default jobs/payout-sender.ts PAYOUT_REBROADCAST_MS). */
  payoutRebroadcastMs?: number;
  /** Bounds quotes and payouts by this liquidity (production's, on balances the test gives) instead of the sandbox's none. */
  liquidity?: Liquidity;
}

// The signing key of test servers without SIGNING_KEY_FILE: one per test process, generated in memory (a
// sandbox process generates its own into DATA_DIR; tests leave DATA_DIR alone).
let testSigningKey: KeyObject | undefined;

/** The environment tests run with unless they override it. */
export const TEST_ENV: Record<string, string> = {
  LOG_LEVEL: 'silent',
  PRINT_BANNER: 'false',
  VALIDATE_RESPONSES: 'true',
  SANDBOX_BLOCK_SECONDS: '0.05',
};

/** Starts the app on a fresh database; close() tears everything down. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const overrides = options.configOverrides ?? {};
  const config: Config = {
    ...loadConfig({
      ...TEST_ENV,
      SECRETS_KEY: options.sameDatabaseAs?.config.secretsKey ?? randomBytes(32).toString('hex'),
      DATABASE_URL: process.env.DATABASE_URL,
      ...options.env,
    }),
    ...(overrides.serviceMode && modeCapabilities(overrides.serviceMode)),
    ...overrides,
  };
  const secretBox = createSecretBox(Buffer.from(config.secretsKey!, 'hex'));
  const shared = options.sameDatabaseAs;
  const schema = config.databaseUrl && !shared ? `test_${randomBytes(6).toString('hex')}` : undefined;
  // A second instance gets a pool of its own on the same database, as another process would.
  const database = shared ? sharePool(shared.database) : await openDatabase({ databaseUrl: config.databaseUrl, schema, poolSize: 5 });
  if (!shared) await migrate(database.knex, { secretBox });
  const { document, version } = loadApiDocument();
  const logger = createLogger(config.logLevel);
  const now = options.deps?.now ?? (() => new Date());
  const jobSchema = shared ? shared.jobSchema : schema ? `${schema}_jobs` : undefined;
  const metrics = options.metrics ? createMetrics() : undefined;
  // The service as main.ts builds it, on the simulated chain, also under a configuration forced to production
  // mode (configOverrides): such tests try what does not depend on real nodes (webhook rules) on swaps that move.
  const signingKeys = config.signingKeyFile
    ? resolveSigningKeys(config)
    : signingKeysOf((testSigningKey ??= createPrivateKey(generateSigningKeyPem())));
  const service = await assembleService({
    config,
    database,
    secretsKey: Buffer.from(config.secretsKey!, 'hex'),
    signingKeys,
    logger,
    apiDocument: document,
    apiVersion: version,
    now,
    metrics,
    rates: options.deps?.rates,
    chains: (catalog) => {
      const simulated = createSandboxChainAdapters({ config, knex: database.knex, catalog, now });
      return options.wrapChains ? options.wrapChains(simulated) : simulated;
    },
    liquidity: options.liquidity,
    handlers: options.deps?.handlers,
    jobSchema,
    webhookLookup: options.webhookLookup,
    startSweepMs: options.startSweepMs,
    payoutRebroadcastMs: options.payoutRebroadcastMs,
  });
  const { app, engine } = service;
  const server = createHttpServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const metricsListener = metrics && (await listenForMetrics(metrics.registry, 0, '127.0.0.1'));
  return {
    origin,
    baseUrl: `${origin}/api/v1`,
    config,
    knex: database.knex,
    database,
    secretBox,
    engine,
    jobSchema,
    metricsUrl: metricsListener?.url,
    createPartner: (name = 'Test partner') => provisionPartner(database.knex, secretBox, { name, mode: 'sandbox' }),
    async createSigner(name = 'Test partner') {
      const { keyId, secret } = await provisionPartner(database.knex, secretBox, { name, mode: 'sandbox' });
      return { keyId, secret, audience: config.publicOrigin };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await metricsListener?.close();
      await service.stop();
      if (shared) return database.close();
      await database.close().catch(() => undefined);
      // A separate short-lived connection drops the schema, so a test that broke its own pool leaves nothing.
      if (schema) {
        const dropper = await openDatabase({ databaseUrl: config.databaseUrl, poolSize: 1 });
        await dropper.knex.raw('drop schema if exists ?? cascade', [schema]);
        await dropper.knex.raw('drop schema if exists ?? cascade', [`${schema}_jobs`]);
        await dropper.close();
      }
    },
  };
}

function sharePool(database: Database): Database {
  const knex = knexFactory(database.knex.client.config);
  return { knex, kind: database.kind, close: () => knex.destroy() };
}
