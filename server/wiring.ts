/**
 * The chain adapters of a configuration: the one place besides main.ts that knows which mode the service
 * runs in. The sandbox gets the simulated chain on every catalogue network; production gets the adapters of
 * the networks it is configured for (none yet: config.ts refuses to start it).
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
}

/** Builds the adapters of `config` (for a server or the operator CLI). */
export function createChainAdapters(deps: {
  config: Pick<Config, 'serviceMode' | 'sandboxBlockSeconds'>;
  knex: Knex;
  catalog: Catalog;
  now: () => Date;
}): ChainAdapters {
  // Production has no real adapters yet, and the configuration refuses to start it (tests force it, to try
  // what does not touch a chain).
  if (deps.config.serviceMode !== 'sandbox') return { registry: createAdapterRegistry({}), exchange: createInventoryExchange() };
  const sandbox = createSimulatedChain({
    knex: deps.knex,
    catalog: deps.catalog,
    blockSeconds: deps.config.sandboxBlockSeconds,
    now: deps.now,
  });
  return { registry: sandbox.registry, exchange: createSimulatedExchange({ knex: deps.knex }), sandbox };
}
