/** What handlers may use: the database, adapters, catalogue, configuration and the clock. */
import type { Knex } from 'knex';
import type { Config } from '../config.js';
import type { Catalog } from '../domain/catalog.js';
import type { RatesAdapter } from '../adapters/rates.js';

/** Dependencies shared by every handler module. */
export interface HandlerDeps {
  config: Config;
  knex: Knex;
  catalog: Catalog;
  rates: RatesAdapter;
  /** The bundled OpenAPI document the server validates against and serves. */
  apiDocument: Record<string, unknown>;
  /** The API version label, read from the spec's info.version. */
  apiVersion: string;
  /** Current time; injectable so tests can move it. */
  now: () => Date;
}
