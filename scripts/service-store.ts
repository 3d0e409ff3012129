/**
 * How the command-line tools (partners, ops) reach the service's store: the same configuration as the server
 * (DATABASE_URL, or the embedded database in DATA_DIR, shared with a running server through its socket) and
 * the same SECRETS_KEY, with migrations applied first so a tool run before the first server start finds its
 * tables.
 */
import type { Config } from '../server/config.js';
import { resolveSecretsKey } from '../server/secrets-key.js';
import { migrate, openDatabase, type Database } from '../server/store/database.js';
import { createSecretBox, type SecretBox } from '../server/store/secret-box.js';

/** The migrated database of the configured service and its SecretBox; the caller closes `db`. */
export async function openServiceStore(config: Config): Promise<{ db: Database; secretBox: SecretBox }> {
  const secretBox = createSecretBox(resolveSecretsKey(config));
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
  try {
    await migrate(db.knex, { secretBox });
  } catch (err) {
    await db.close();
    throw err;
  }
  return { db, secretBox };
}
