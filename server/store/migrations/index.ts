/**
 * The ordered list of migrations. Imported statically (not read from a directory) so the same list runs
 * under tsx, compiled output and tests alike. Forward only: never edit a migration that has shipped.
 */
import type { Knex } from 'knex';
import * as partners from './0001_partners.js';

interface Migration {
  up(knex: Knex): Promise<void>;
  down?(knex: Knex): Promise<void>;
}

const migrations: Array<[name: string, migration: Migration]> = [['0001_partners', partners]];

/** knex migration source over the static list above. */
export const migrationSource: Knex.MigrationSource<[string, Migration]> = {
  getMigrations: async () => migrations,
  getMigrationName: ([name]) => name,
  getMigration: async ([, migration]) => ({
    up: migration.up,
    down:
      migration.down ??
      (async () => {
        throw new Error('Migrations are forward only');
      }),
  }),
};
