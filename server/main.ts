/**
 * Process entry: configuration -> database -> migrations -> the service (assembly.ts) -> HTTP listener, and a
 * graceful shutdown that stops accepting connections, lets in-flight requests finish and closes the database.
 */
import { ConfigError, loadConfig } from './config.js';
import { setGroupCommit } from './store/group-commit.js';
import { createLogger } from './logger.js';
import { loadApiDocument } from './spec.js';
import { migrate, openDatabase } from './store/database.js';
import { API_BASE_PATH } from './http/app.js';
import { createHttpServer } from './http/http-server.js';
import { assembleService, servedCatalogOf } from './assembly.js';
import { DOCS_PATH } from './http/docs.js';
import { listenForMetrics } from './http/metrics-server.js';
import { createMetrics } from './metrics.js';
import { startHousekeeping } from './jobs/housekeeping.js';
import { DemoSecretUnreadableError, ensureDemoPartner, findUnreadablePartnerSecrets, type IssuedCredentials } from './partners.js';
import { resolveSecretsKey, secretsKeyFileWarning } from './secrets-key.js';
import { resolveSigningKeys } from './signing-keys.js';
import { createSecretBox } from './store/secret-box.js';

const SHUTDOWN_GRACE_MS = 10_000;

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
  // A configuration the catalogue cannot serve is refused before the database is opened (and migrated).
  let catalog;
  try {
    catalog = servedCatalogOf(config);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(78); // EX_CONFIG
  }

  // Checked before the embedded database opens DATA_DIR, which takes group and world access off its files.
  const keyFileWarning = secretsKeyFileWarning(config);
  if (keyFileWarning) logger.warn(keyFileWarning);
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const secretsKey = resolveSecretsKey(config);
  const signingKeys = resolveSigningKeys(config);
  logger.info({ kid: signingKeys.signer.kid, keys: signingKeys.keySet.keys.length }, 'signing deposit instructions');
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
  const metrics = config.metricsPort === undefined ? undefined : createMetrics();
  // Simulated chains and prices in sandbox mode; market prices and real nodes in production (assembly.ts).
  let service;
  try {
    service = await assembleService({
      config,
      database: db,
      secretsKey,
      signingKeys,
      logger,
      apiDocument: document,
      apiVersion: version,
      metrics,
      catalog,
    });
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
  const { app } = service;
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
    server.closeIdleConnections();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Open streams end now (clients resume elsewhere with Last-Event-ID); then in-flight requests finish.
    await service.engine.hub.close();
    await closed;
    await metricsListener?.close();
    await service.stop();
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
