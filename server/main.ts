/**
 * Process entry: configuration -> database -> migrations -> HTTP listener, and a graceful shutdown that
 * stops accepting connections, lets in-flight requests finish and closes the database.
 */
import { ConfigError, loadConfig } from './config.js';
import { setGroupCommit } from './store/group-commit.js';
import { createLogger } from './logger.js';
import { loadApiDocument } from './spec.js';
import { loadSandboxCatalog } from './adapters/sandbox/catalog.js';
import { createSandboxRates } from './adapters/sandbox/rates.js';
import { migrate, openDatabase } from './store/database.js';
import { createApp, API_BASE_PATH } from './http/app.js';
import { createHttpServer } from './http/http-server.js';
import { DOCS_PATH } from './http/docs.js';
import { listenForMetrics } from './http/metrics-server.js';
import { createMetrics } from './metrics.js';
import { startHousekeeping } from './jobs/housekeeping.js';
import { DemoSecretUnreadableError, ensureDemoPartner, findUnreadablePartnerSecrets, type IssuedCredentials } from './partners.js';
import { resolveSecretsKey, secretsKeyFileWarning } from './secrets-key.js';
import { createSecretBox } from './store/secret-box.js';
import { startSwapEngine } from './swap-engine.js';
import { createProductionChainAdapters, createSandboxChainAdapters } from './wiring.js';
import { isBelowMinimumPayout, maxTipAgeSeconds, servedCatalog } from './production-config.js';
import { createHotWalletLiquidity } from './services/liquidity.js';
import { startNetworkStatus } from './services/network-status.js';
import { createMarketRates } from './adapters/market/index.js';

const SHUTDOWN_GRACE_MS = 10_000;
/** Why a production server without Zano creates no permanent routes: they settle to Zano. */
const ROUTES_UNAVAILABLE_WITHOUT_ZANO =
  'Permanent routes settle to Zano, and this server is not configured to pay out on Zano (NETWORKS has no ZANO). Use swaps meanwhile.';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
  const logger = createLogger(config.logLevel);
  setGroupCommit(config.groupCommit);
  const { document, version } = loadApiDocument();
  const production = config.production;
  let catalog = loadSandboxCatalog();
  if (production) {
    try {
      // Production serves only the networks it is configured for, and on each only its coin and configured tokens.
      catalog = servedCatalog(catalog, production);
    } catch (err) {
      process.stderr.write(`Invalid configuration:\n  - ${(err as Error).message}\n`);
      process.exit(78); // EX_CONFIG
    }
  }

  // Checked before the embedded database opens DATA_DIR, which takes group and world access off its files.
  const keyFileWarning = secretsKeyFileWarning(config);
  if (keyFileWarning) logger.warn(keyFileWarning);
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const secretsKey = resolveSecretsKey(config);
  const secretBox = createSecretBox(secretsKey);
  const applied = await migrate(db.knex, { secretBox });
  logger.info({ database: db.kind, applied }, 'database ready');
  const unreadable = await findUnreadablePartnerSecrets(db.knex, secretBox);
  if (unreadable.length > 0) {
    logger.warn(
      { keyIds: unreadable },
      `${unreadable.length} partner secret(s) do not open under the current SECRETS_KEY and their requests will be refused (401 invalid_signature): ${unreadable.join(', ')}. Restore the SECRETS_KEY they were sealed with, or issue new secrets: npm run partners -- rotate-secret --key-id ID`,
    );
  }
  let demo: IssuedCredentials | undefined;
  if (config.serviceMode === 'sandbox') {
    try {
      demo = await ensureDemoPartner(db.knex, secretBox);
    } catch (err) {
      // Not fatal: the service works; only the demo credentials cannot be shown.
      if (!(err instanceof DemoSecretUnreadableError)) throw err;
      logger.warn(err.message);
    }
  }
  const stopHousekeeping = startHousekeeping(db, logger);
  const now = () => new Date();
  const metrics = config.metricsPort === undefined ? undefined : createMetrics();
  // Prices and the chain adapters of every network served, built once: simulated in sandbox mode (the
  // simulated chain's controls, passed to the app below, serve the Sandbox operations); market prices and
  // real nodes in production, with a board of each node's health and hot-wallet balances (requests read it
  // and never call a node) and the liquidity it bounds quotes and payouts by.
  const rates = production ? createMarketRates({ ...production.rates, now, logger }) : createSandboxRates(catalog);
  const chains = production
    ? await createProductionChainAdapters({ production, knex: db.knex, catalog, logger, sweep: true })
    : createSandboxChainAdapters({ config, knex: db.knex, catalog, now });
  const networkStatus = production
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
  const liquidity = networkStatus
    ? createHotWalletLiquidity({
        catalog,
        status: networkStatus,
        partnerSharePercent: config.liquidityPartnerSharePercent,
        hotWalletMin: config.hotWalletMin,
        hotWalletMax: config.hotWalletMax,
      })
    : undefined;
  if (liquidity) {
    const paid = catalog.assets.filter((asset) => chains.registry.networks.includes(asset.network));
    const unknown = [...Object.keys(config.hotWalletMin), ...Object.keys(config.hotWalletMax)].filter(
      (key) => !paid.some((asset) => `${asset.symbol}/${asset.network}` === key),
    );
    if (unknown.length > 0) {
      process.stderr.write(`HOT_WALLET_MIN / HOT_WALLET_MAX name assets the service does not pay: ${unknown.join(', ')}\n`);
      process.exit(78); // EX_CONFIG
    }
    metrics?.watchTreasury(() => liquidity.snapshot(db.knex, paid, now()));
  }
  const engine = await startSwapEngine({
    config,
    knex: db.knex,
    catalog,
    rates,
    chains,
    liquidity,
    secretsKey,
    logger,
    now,
    metrics,
    payoutCrashAt: config.payoutCrashAt,
  });

  const app = createApp({
    config,
    logger,
    secretBox,
    knex: db.knex,
    catalog,
    rates,
    swapTokens: engine.swapTokens,
    crypto: engine.crypto,
    lifecycle: engine.lifecycle,
    watching: engine.watching,
    sandbox: chains.sandbox,
    networkStatus,
    liquidity,
    routesUnavailable: production && !production.networks.some((n) => n.family === 'zano') ? ROUTES_UNAVAILABLE_WITHOUT_ZANO : undefined,
    hub: engine.hub,
    jobs: engine.jobs,
    apiDocument: document,
    apiVersion: version,
    now,
    metrics,
  });
  const server = createHttpServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}${API_BASE_PATH}`;
  logger.info(
    {
      url,
      audience: config.publicOrigin,
      trustProxy: config.trustProxy,
      corsOrigins: config.corsOrigins,
      mode: config.serviceMode,
      database: db.kind,
      version,
    },
    'listening',
  );
  const metricsListener = metrics && (await listenForMetrics(metrics.registry, config.metricsPort!, config.metricsHost));
  if (metricsListener) logger.info({ url: metricsListener.url }, 'metrics listening');
  if (config.printBanner) {
    process.stdout.write(`\nPartner Swap Service ${version} (${config.serviceMode}, ${db.kind}) at ${url}\n  health: ${url}/health\n`);
    process.stdout.write(`  API reference: ${new URL(DOCS_PATH, url).href}\n`);
    if (metricsListener) process.stdout.write(`  metrics: ${metricsListener.url}\n`);
    if (demo) {
      process.stdout.write(
        `  demo partner (sandbox only): keyId=${demo.keyId} secret=${demo.secret} audience=${config.publicOrigin}\n` +
          `  more partners: npm run partners -- create --name "Acme" --json\n`,
      );
    }
    process.stdout.write('\n');
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const forced = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    forced.unref();
    const housekeepingStopped = stopHousekeeping();
    networkStatus?.stop();
    server.closeIdleConnections();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Open streams end now (clients resume elsewhere with Last-Event-ID); then in-flight requests finish.
    await engine.hub.close();
    await closed;
    await metricsListener?.close();
    await engine.stop();
    await housekeepingStopped;
    await db.close();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(`Partner Swap Service failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
