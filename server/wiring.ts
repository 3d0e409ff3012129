/**
 * The chain adapters a server or the operator CLI runs on. The entry point chooses which by the service mode
 * (server/main.ts, scripts/ops.ts); this file only builds what it is asked for. The sandbox gets the
 * simulated chain on every catalogue network; production gets the adapters of the networks it is configured
 * for (server/production-config.ts): Bitcoin Core, EVM, Zano wallet RPC or monero-wallet-rpc.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { createAnswerFaults, type AnswerFaults } from './adapters/boundary.js';
import { createAdapterRegistry, type AdapterRegistry, type NetworkAdapters } from './adapters/chain.js';
import { createBitcoinAdapters, parseBitcoinParams } from './adapters/bitcoin/index.js';
import { createEthereumAdapters, createEthereumSweeper, type EthereumAdapterOptions } from './adapters/ethereum/index.js';
import { createInventoryExchange, type ExchangeVenue } from './adapters/exchange.js';
import { createSimulatedChain, type SimulatedChain } from './adapters/sandbox/chain.js';
import { createSimulatedExchange } from './adapters/sandbox/exchange.js';
import { createMoneroAdapters } from './adapters/monero/index.js';
import { createZanoAdapters } from './adapters/zano/index.js';
import type { Config } from './config.js';
import type { Catalog } from './domain/catalog.js';
import { requireNetwork } from './networks/index.js';
import { SWEEP_INTERVAL_MS, type NetworkSweeping } from './jobs/evm-sweep.js';
import { readDepositKey, readHotWalletKey, type NetworkConfig, type ProductionConfig } from './production-config.js';
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
  /** The EVM networks whose deposits are swept to the hot wallet (jobs/evm-sweep.ts), by network. */
  sweeping?: Record<string, NetworkSweeping>;
  /** Real nodes: the networks whose last scan met an untrusted answer (services/network-status.ts reads it). */
  faults?: AnswerFaults;
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
 * Production's adapters: each configured network's family (adapters/bitcoin, ethereum, zano, monero) on its node,
 * scanned by one instance at a time. Conversions come from the service's own inventory. With `sweep` (the
 * server), each EVM network with a deposit key gets its sweeper, and one without is logged as not sweeping.
 */
export async function createProductionChainAdapters(deps: {
  production: ProductionConfig;
  knex: Knex;
  catalog: Catalog;
  logger: Logger;
  sweep?: boolean;
}): Promise<ChainAdapters> {
  const adapters: Record<string, NetworkAdapters> = {};
  const sweeping: Record<string, NetworkSweeping> = {};
  const faults = createAnswerFaults();
  for (const network of deps.production.networks) {
    const built = await createNetworkAdapters(network, deps);
    adapters[network.network] = faults.watch(network.network, built.adapters);
    if (built.sweeping) sweeping[network.network] = built.sweeping;
  }
  return { registry: createAdapterRegistry(adapters), exchange: createInventoryExchange(), watchOnOneInstance: true, sweeping, faults };
}

async function createNetworkAdapters(
  network: NetworkConfig,
  deps: { knex: Knex; catalog: Catalog; logger: Logger; sweep?: boolean },
): Promise<{ adapters: NetworkAdapters; sweeping?: NetworkSweeping }> {
  const { confirmations, blockSeconds } = deps.catalog.networks[network.network];
  const scanMs = network.scanSeconds === undefined ? undefined : network.scanSeconds * 1000;
  if (network.family === 'bitcoin') {
    const adapters = await createBitcoinAdapters({
      network: network.network,
      rpcUrl: network.rpcUrl,
      signerRpcUrl: network.signerRpcUrl,
      xpub: network.xpub,
      params: parseBitcoinParams(network.network, network.chain),
      // A payout is final, for its swap, as deep as a deposit on its network must be.
      payoutConfirmations: confirmations,
      fallbackFeeRate: network.fallbackFeeRate,
      blockSeconds,
      scanMs,
      replaceAfterSeconds: network.replaceAfterSeconds,
      maxFeeRate: network.maxFeeRate,
    });
    return { adapters };
  }
  if (network.family === 'zano') {
    const adapters = createZanoAdapters({
      network: network.network,
      rpcUrl: network.rpcUrl,
      signerRpcUrl: network.signerRpcUrl,
      fusdAssetId: network.fusdAssetId,
      payoutConfirmations: confirmations,
      blockSeconds,
      scanMs,
      logger: deps.logger,
    });
    return { adapters };
  }
  if (network.family === 'monero') {
    const adapters = createMoneroAdapters({
      network: network.network,
      rpcUrl: network.rpcUrl,
      signerRpcUrl: network.signerRpcUrl,
      payoutConfirmations: confirmations,
      blockSeconds,
      scanMs,
      holdUnminedSeconds: network.holdUnminedSeconds,
      logger: deps.logger,
    });
    return { adapters };
  }
  // The hot wallet's key is read here (the configuration only checked it); it is never logged or stored.
  const hotWalletKey = readHotWalletKey(network.hotWalletKeyFile);
  const options: EthereumAdapterOptions = {
    network: network.network,
    rpcUrl: network.rpcUrl,
    // Pinned: payouts are signed for this id, and a node reporting another is unhealthy (docs/architecture.md#production).
    chainId: network.chainId,
    nativeSymbol: requireNetwork(network.network).nativeCoin,
    xpub: network.xpub,
    hotWalletKey,
    tokens: { ...network.tokens },
    nonces: createEvmNonceAllocator(deps.knex, network.network),
    payoutConfirmations: confirmations,
    blockSeconds,
    scanMs,
    replaceAfterSeconds: network.replaceAfterSeconds,
    maxFeeGwei: network.maxFeeGwei,
    fixedNativeGas: network.testNativeGas,
    logger: deps.logger,
  };
  const adapters = await createEthereumAdapters(options);
  if (!deps.sweep) return { adapters };
  if (network.depositKeyFile === undefined) {
    deps.logger.warn(
      { network: network.network },
      `${network.network}_DEPOSIT_KEY_FILE is not set: ${network.network} deposits stay on their addresses (no sweeping to the hot wallet)`,
    );
    return { adapters };
  }
  // The deposit account's key, like the hot wallet's, is read once, here (checked against the xpub again: the
  // file may have changed since the configuration was read); it is never logged or stored.
  const xprv = readDepositKey(network.depositKeyFile, network.xpub, `${network.network}_XPUB`);
  const sweeper = await createEthereumSweeper({ ...options, xprv });
  return { adapters, sweeping: { sweeper, intervalMs: scanMs ?? SWEEP_INTERVAL_MS } };
}
