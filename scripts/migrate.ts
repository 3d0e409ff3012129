/** `make migrate`: applies pending migrations to the configured database (DATABASE_URL or DATA_DIR) and exits. */
import { loadConfig } from '../server/config.js';
import { migrate, openDatabase } from '../server/store/database.js';

const config = loadConfig();
const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
try {
  const applied = await migrate(db.knex);
  process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
} finally {
  await db.close();
}
