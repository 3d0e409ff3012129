/**
 * The ordered list of migrations. Imported statically (not read from a directory) so the same list runs
 * under tsx, compiled output and tests alike. Forward only: never edit a migration that has shipped.
 */
import type { Knex } from 'knex';

interface Migration {
  up(knex: Knex): Promise<void>;
  down?(knex: Knex): Promise<void>;
}

const migrations: Array<[name: string, migration: Migration]> = [];

/** knex migration source over the static list above. */
export const migrationSource: Knex.MigrationSource<[string, Migration]> = {
  getMigrations: async () => migrations,
  getMigrationName: ([name]) => name,
  getMigration: async ([, migration]) => ({
    up: migration.up,
    down: migration.down ?? (async () => {
      throw new Error('Migrations are forward only');
    }),
  }),
};
