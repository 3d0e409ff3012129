/**
 * Process entry: configuration -> database -> migrations -> HTTP listener, and a graceful shutdown that
 * stops accepting connections, lets in-flight requests finish and closes the database.
 */
import http from 'node:http';
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { loadApiDocument } from './spec.js';
import { loadSandboxCatalog } from './adapters/sandbox/catalog.js';
import { createSandboxRates } from './adapters/sandbox/rates.js';
import { migrate, openDatabase } from './store/database.js';
import { createApp, API_BASE_PATH } from './http/app.js';
import { startHousekeeping } from './jobs/housekeeping.js';
import { DemoSecretUnreadableError, ensureDemoPartner, type IssuedCredentials } from './partners.js';
import { resolveSecretsKey } from './secrets-key.js';
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
  const { document, version } = loadApiDocument();
  const catalog = loadSandboxCatalog();

  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const applied = await migrate(db.knex);
  logger.info({ database: db.kind, applied }, 'database ready');
  const secretBox = createSecretBox(resolveSecretsKey(config));
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
  const stopHousekeeping = startHousekeeping(db.knex, logger);

  const app = createApp({
    config,
    logger,
    secretBox,
    knex: db.knex,
    catalog,
    rates: createSandboxRates(catalog),
    apiDocument: document,
    apiVersion: version,
    now: () => new Date(),
  });
  const server = http.createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}${API_BASE_PATH}`;
  logger.info({ url, mode: config.serviceMode, database: db.kind, version }, 'listening');
  if (config.printBanner) {
    process.stdout.write(`\nPartner Swap Service ${version} (${config.serviceMode}, ${db.kind}) at ${url}\n  health: ${url}/health\n`);
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
    stopHousekeeping();
    server.closeIdleConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
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
