/** `make migrate`: applies pending migrations to the configured database (DATABASE_URL or DATA_DIR) and exits. */
import { loadConfig } from '../server/config.js';
import { resolveSecretsKey } from '../server/secrets-key.js';
import { migrate, openDatabase } from '../server/store/database.js';
import { createSecretBox } from '../server/store/secret-box.js';

const config = loadConfig();
const secretBox = createSecretBox(resolveSecretsKey(config));
const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
try {
  const applied = await migrate(db.knex, { secretBox });
  process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
} finally {
  await db.close();
}
