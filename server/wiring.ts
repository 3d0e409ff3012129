/**
 * The chain adapters a server or the operator CLI runs on. The entry point chooses which by the service mode
 * (server/main.ts, scripts/ops.ts); this file only builds what it is asked for. The sandbox gets the
 * simulated chain on every catalogue network; production gets the adapters of the networks it is configured
 * for (server/production-config.ts).
 */
import type { Knex } from 'knex';
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { createAdapterRegistry, type AdapterRegistry, type NetworkAdapters } from './adapters/chain.js';
import { createBitcoinAdapters, parseBitcoinParams } from './adapters/bitcoin/index.js';
import { createEthereumAdapters } from './adapters/ethereum/index.js';
import { createInventoryExchange, type ExchangeVenue } from './adapters/exchange.js';
import { createSimulatedChain, type SimulatedChain } from './adapters/sandbox/chain.js';
import { createSimulatedExchange } from './adapters/sandbox/exchange.js';
import type { Config } from './config.js';
import type { Catalog } from './domain/catalog.js';
import { NATIVE_ASSET } from './domain/catalog.js';
import type { NetworkConfig, ProductionConfig } from './production-config.js';
import { createEvmNonceAllocator } from './store/evm-nonces.js';

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
 * Production's adapters: each configured network's family (adapters/bitcoin, adapters/ethereum) on its node,
 * scanned by one instance at a time. Conversions come from the service's own inventory.
 */
export async function createProductionChainAdapters(deps: {
  production: ProductionConfig;
  knex: Knex;
  catalog: Catalog;
  logger: Logger;
}): Promise<ChainAdapters> {
  const adapters: Record<string, NetworkAdapters> = {};
  for (const network of deps.production.networks) {
    adapters[network.network] = await createNetworkAdapters(network, deps);
  }
  return { registry: createAdapterRegistry(adapters), exchange: createInventoryExchange(), watchOnOneInstance: true };
}

async function createNetworkAdapters(
  network: NetworkConfig,
  deps: { knex: Knex; catalog: Catalog; logger: Logger },
): Promise<NetworkAdapters> {
  const { confirmations, blockSeconds } = deps.catalog.networks[network.network];
  if (network.family === 'bitcoin') {
    return createBitcoinAdapters({
      network: network.network,
      rpcUrl: network.rpcUrl,
      signerRpcUrl: network.signerRpcUrl,
      xpub: network.xpub,
      params: parseBitcoinParams(network.network, network.chain),
      // A payout is final, for its swap, as deep as a deposit on its network must be.
      payoutConfirmations: confirmations,
      fallbackFeeRate: network.fallbackFeeRate,
      blockSeconds,
      scanMs: network.scanSeconds === undefined ? undefined : network.scanSeconds * 1000,
    });
  }
  // The hot wallet's key is read once, here; it is never logged or stored.
  const hotWalletKey = (await readFile(network.hotWalletKeyFile, 'utf8')).trim();
  if (!/^(0x)?[0-9a-fA-F]{64}$/.test(hotWalletKey)) {
    throw new Error(`${network.network}_HOT_WALLET_KEY_FILE (${network.hotWalletKeyFile}) must hold a private key: 64 hex digits`);
  }
  return createEthereumAdapters({
    network: network.network,
    rpcUrl: network.rpcUrl,
    nativeSymbol: NATIVE_ASSET[network.network],
    xpub: network.xpub,
    hotWalletKey: hotWalletKey.startsWith('0x') ? hotWalletKey : `0x${hotWalletKey}`,
    tokens: { ...network.tokens },
    nonces: createEvmNonceAllocator(deps.knex, network.network),
    payoutConfirmations: confirmations,
    blockSeconds,
    scanMs: network.scanSeconds === undefined ? undefined : network.scanSeconds * 1000,
  });
}
