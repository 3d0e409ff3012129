/**
 * The chain adapters a server or the operator CLI runs on. The entry point chooses which by the service mode
 * (server/main.ts, scripts/ops.ts); this file only builds what it is asked for. The sandbox gets the
 * simulated chain on every catalogue network; production gets the adapters of the networks it is configured
 * for (none yet: config.ts refuses to start it).
 */
import type { Knex } from 'knex';
import { createAdapterRegistry, type AdapterRegistry } from './adapters/chain.js';
import { createInventoryExchange, type ExchangeVenue } from './adapters/exchange.js';
import { createSimulatedChain, type SimulatedChain } from './adapters/sandbox/chain.js';
import { createSimulatedExchange } from './adapters/sandbox/exchange.js';
import type { Config } from './config.js';
import type { Catalog } from './domain/catalog.js';

/** The adapters of every network served, and the simulated chain when it is the sandbox's. */
export interface ChainAdapters {
  registry: AdapterRegistry;
  /** Where credited deposits are converted: the service's inventory, or the sandbox's venue. */
  exchange: ExchangeVenue;
  /** The sandbox's chain, for the sandbox operations (pay, reorganise). */
  sandbox?: SimulatedChain;
  /** Each network is scanned by one instance at a time (real nodes; jobs/chain-watch.ts). */
  watchOnOneInstance?: boolean;
}

/** The sandbox's adapters: the simulated chain on every network of `catalog`, with its controls. */
export function createSandboxChainAdapters(deps: {
  config: Pick<Config, 'sandboxBlockSeconds'>;
  knex: Knex;
  catalog: Catalog;
  now: () => Date;
}): ChainAdapters {
  const sandbox = createSimulatedChain({
    knex: deps.knex,
    catalog: deps.catalog,
    blockSeconds: deps.config.sandboxBlockSeconds,
    now: deps.now,
  });
  return { registry: sandbox.registry, exchange: createSimulatedExchange({ knex: deps.knex }), sandbox };
}

/**
 * Production's adapters: none yet, and the configuration refuses to start production (tests that force it
 * run on the simulated chain, to try what does not depend on a real one).
 */
export function createProductionChainAdapters(): ChainAdapters {
  return { registry: createAdapterRegistry({}), exchange: createInventoryExchange() };
}
