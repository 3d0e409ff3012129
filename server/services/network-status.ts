/**
 * What production knows of each network's node (DESIGN 10): a probe every few seconds asks the watcher for
 * the tip and the sender for the hot wallet's spendable balances and fee estimate, outside any transaction,
 * and keeps the answers in memory. Requests read the board and never call a node:
 *
 * - a quote on a network whose node failed its last probe, or whose tip is older than the network's limit,
 *   is answered 503 with Retry-After (swaps already running wait for the node);
 * - liquidity (services/liquidity.ts) reads the spendable balances;
 * - /health shows each network's height, tip age and balance state.
 *
 * The sandbox has no board: its simulated chain is always healthy and its hot wallet pays anything.
 */
import type { Logger } from 'pino';
import type { AdapterRegistry } from '../adapters/chain.js';
import type { Catalog, CatalogAsset } from '../domain/catalog.js';
import { AppError } from '../domain/errors.js';
import { Money } from '../domain/money.js';

/** How often each network is probed. */
export const PROBE_INTERVAL_MS = 5_000;
/** What a 503 for an unhealthy network tells the client to wait. */
const RETRY_AFTER_SECONDS = 30;

/** One network, as its last probe found it. */
export interface NetworkState {
  network: string;
  status: 'ok' | 'fail';
  height?: number;
  tipAgeSeconds?: number;
  balance: 'ok' | 'low' | 'unknown';
  reason?: string;
  checkedAt: Date;
  /** Spendable balance per asset symbol (decimal strings), as last read. */
  spendable: Record<string, string>;
  /**
   * The tip height read just before `spendable` (the balances show at least every block up to it): a payout
   * mined above it may not show in them yet (services/liquidity.ts).
   */
  spendableHeight?: number;
  /** The dearest payout's fee on the network (of any of its assets), in its native asset, as last estimated. */
  feeEstimate?: string;
}

/** The board requests read. */
export interface NetworkStatus {
  /** Throws 503 service_unavailable (with Retry-After) when `network`'s node is not healthy. */
  requireHealthy(network: string): void;
  /** The spendable balance of `asset` as last read, or undefined when unknown. */
  spendable(asset: CatalogAsset): string | undefined;
  /** The spendable balance of `asset` as last read with the tip height read before it; undefined when unknown. */
  balance(asset: CatalogAsset): { spendable: string; height: number } | undefined;
  /** The last fee estimate of `network`, in its native asset. */
  feeEstimate(network: string): string | undefined;
  /** Every network's state, for /health. */
  states(): NetworkState[];
  /** Probes every network now (start-up, tests). */
  probeAll(): Promise<void>;
  stop(): void;
}

/** Starts probing every network of `adapters`; `maxTipAgeSeconds` gives each network's limit. */
export function startNetworkStatus(deps: {
  adapters: AdapterRegistry;
  catalog: Catalog;
  maxTipAgeSeconds: (network: string) => number;
  /** Whether `asset`'s spendable balance is too small to pay a minimum quote (balance `low`). */
  isLow: (asset: CatalogAsset, spendable: string) => boolean;
  now: () => Date;
  logger: Logger;
  intervalMs?: number;
}): NetworkStatus {
  const states = new Map<string, NetworkState>(
    deps.adapters.networks.map((network) => [
      network,
      { network, status: 'fail', balance: 'unknown', reason: 'not probed yet', checkedAt: deps.now(), spendable: {} },
    ]),
  );

  async function probe(network: string): Promise<void> {
    const { watcher, sender } = deps.adapters.of(network);
    const assets = deps.catalog.assets.filter((a) => a.network === network);
    const previous = states.get(network)!;
    const checkedAt = deps.now();
    let next: NetworkState;
    let height: number | undefined;
    try {
      const tip = await watcher.tip();
      height = tip.height;
      const tipAgeSeconds = Math.max(0, Math.floor((checkedAt.getTime() - tip.time.getTime()) / 1000));
      const limit = deps.maxTipAgeSeconds(network);
      const stale = tipAgeSeconds > limit;
      next = {
        network,
        status: stale ? 'fail' : 'ok',
        height: tip.height,
        tipAgeSeconds,
        balance: previous.balance,
        ...(stale ? { reason: `the node's tip is ${tipAgeSeconds} s old (the limit is ${limit} s)` } : {}),
        checkedAt,
        spendable: previous.spendable,
        spendableHeight: previous.spendableHeight,
        feeEstimate: previous.feeEstimate,
      };
    } catch (err) {
      next = { ...previous, status: 'fail', reason: `the node did not answer: ${messageOf(err)}`, checkedAt };
    }
    try {
      // Balances without the height before them could hide a payout mined meanwhile: kept as they were.
      if (height === undefined) throw new Error('the tip could not be read first');
      const read = await Promise.all(
        assets.map(async (asset) => ({
          symbol: asset.symbol,
          spendable: await sender.spendable(asset),
          fee: await sender.feeEstimate(asset),
        })),
      );
      next.spendable = Object.fromEntries(read.map((r) => [r.symbol, r.spendable]));
      next.spendableHeight = height;
      // Every payout's fee is paid in the native asset, a token's (gas for a contract call) as much as the
      // coin's: the dearest is what the reserve counts.
      next.feeEstimate = read.reduce<string | undefined>(
        (most, r) => (most === undefined || new Money(r.fee).greaterThan(most) ? r.fee : most),
        undefined,
      );
      next.balance = assets.some((asset) => deps.isLow(asset, next.spendable[asset.symbol])) ? 'low' : 'ok';
    } catch (err) {
      next.balance = 'unknown';
      deps.logger.warn({ err, network }, 'hot wallet balance could not be read');
    }
    if (next.status !== previous.status) {
      const log = next.status === 'ok' ? deps.logger.info.bind(deps.logger) : deps.logger.warn.bind(deps.logger);
      log({ network, reason: next.reason, height: next.height }, `network ${network} is ${next.status === 'ok' ? 'healthy' : 'unhealthy'}`);
    }
    states.set(network, next);
  }

  const probeAll = async () => {
    await Promise.all(deps.adapters.networks.map((network) => probe(network)));
  };
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    running ??= probeAll().finally(() => (running = undefined));
  }, deps.intervalMs ?? PROBE_INTERVAL_MS);
  timer.unref();

  return {
    requireHealthy(network) {
      const state = states.get(network);
      if (state && state.status === 'ok') return;
      throw new AppError(
        503,
        'service_unavailable',
        `The ${network} network is unavailable for new quotes: ${state?.reason ?? 'it is not served'}. Swaps already running on it wait; try again later.`,
        undefined,
        { headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } },
      );
    },
    spendable: (asset) => states.get(asset.network)?.spendable[asset.symbol],
    balance(asset) {
      const state = states.get(asset.network);
      const spendable = state?.spendable[asset.symbol];
      return spendable === undefined || state?.spendableHeight === undefined ? undefined : { spendable, height: state.spendableHeight };
    },
    feeEstimate: (network) => states.get(network)?.feeEstimate,
    states: () => [...states.values()],
    probeAll,
    stop: () => clearInterval(timer),
  };
}

function messageOf(err: unknown): string {
  // One line (the spec's NetworkHealth.reason has no control characters).
  // eslint-disable-next-line no-control-regex
  return (err instanceof Error ? err.message : String(err)).replace(/[\u0000-\u001f\u007f]+/g, ' ').slice(0, 300);
}
