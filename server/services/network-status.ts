/**
 * What production knows of each network's node (docs/architecture.md#production): a probe every few seconds asks the watcher for
 * the tip and the sender for the hot wallet's spendable balances and fee estimate, outside any transaction,
 * and keeps the answers in memory. Requests read the board and never call a node:
 *
 * - a quote on a network whose node failed its last probe, or whose tip is older than the network's limit,
 *   is answered 503 with Retry-After (swaps already running wait for the node);
 * - liquidity (services/liquidity.ts) reads the spendable balances;
 * - /health shows each network's height, tip age and balance state.
 *
 * What the public sees of a failing node is a reason in our words (adapters/boundary.ts PublicReason: `node
 * unreachable`, `tip too old`, `chain id mismatch`, `malformed answer`, ...), never the error's text: that, with
 * URLs redacted, goes to the log each time a network's state or reason changes. An answer that breaks the amount
 * rule or its shape (a NaN height, a negative balance, an answer too large), in a probe or in the last scan,
 * makes the network unhealthy as a silent node does.
 *
 * The sandbox has no board: its simulated chain is always healthy and its hot wallet pays anything.
 */
import type { Logger } from 'pino';
import {
  isUntrustedAnswer,
  messageOf,
  MalformedAnswerError,
  parseNodeAmount,
  publicReasonOf,
  redactUrls,
  type AnswerFaults,
} from '../adapters/boundary.js';
import type { AdapterRegistry, ChainTip } from '../adapters/chain.js';
import type { Catalog, CatalogAsset } from '../domain/catalog.js';
import { AppError } from '../domain/errors.js';
import { Money } from '../domain/money.js';

/** How often each network is probed. */
export const PROBE_INTERVAL_MS = 5_000;
/** What a 503 for an unhealthy network tells the client to wait. */
const RETRY_AFTER_SECONDS = 30;
/** Decimal places a balance on the board may have: an EVM token's 18, with room. */
const BOARD_DECIMALS = 36;

/** One network, as its last probe found it. */
export interface NetworkState {
  network: string;
  status: 'ok' | 'fail';
  height?: number;
  tipAgeSeconds?: number;
  balance: 'ok' | 'low' | 'unknown';
  /** Why the status is `fail`, in our words (adapters/boundary.ts PublicReason): public. */
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
  /** Scans that met an untrusted answer (adapters/boundary.ts createAnswerFaults): their network is unhealthy. */
  faults?: AnswerFaults;
}): NetworkStatus {
  const states = new Map<string, NetworkState>(
    deps.adapters.networks.map((network) => [
      network,
      { network, status: 'fail', balance: 'unknown', reason: 'not probed yet', checkedAt: deps.now(), spendable: {} },
    ]),
  );
  // The full text behind each network's reason, for the log only.
  const details = new Map<string, string | undefined>();

  async function probe(network: string): Promise<void> {
    const { watcher, sender } = deps.adapters.of(network);
    const assets = deps.catalog.assets.filter((a) => a.network === network);
    const previous = states.get(network)!;
    const checkedAt = deps.now();
    let next: NetworkState;
    let detail: string | undefined;
    let height: number | undefined;
    try {
      const tip = checkedTip(await watcher.tip());
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
        ...(stale ? { reason: 'tip too old' } : {}),
        checkedAt,
        spendable: previous.spendable,
        spendableHeight: previous.spendableHeight,
        feeEstimate: previous.feeEstimate,
      };
      if (stale) detail = `the node's tip is ${tipAgeSeconds} s old (the limit is ${limit} s)`;
    } catch (err) {
      next = { ...previous, status: 'fail', reason: publicReasonOf(err), checkedAt };
      detail = redactUrls(messageOf(err));
    }
    try {
      // Balances without the height before them could hide a payout mined meanwhile: kept as they were.
      if (height === undefined) throw new Error('the tip could not be read first');
      const read = await Promise.all(
        assets.map(async (asset) => ({
          symbol: asset.symbol,
          spendable: boardAmount(await sender.spendable(asset), `${asset.symbol} spendable balance`),
          fee: boardAmount(await sender.feeEstimate(asset), `${asset.symbol} fee estimate`),
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
      // A node that answers its balances with nonsense is not to be believed on anything else either.
      if (next.status === 'ok' && isUntrustedAnswer(err)) {
        next.status = 'fail';
        next.reason = publicReasonOf(err);
        detail = redactUrls(messageOf(err));
      }
      deps.logger.warn({ err, network }, 'hot wallet balance could not be read');
    }
    const fault = deps.faults?.current(network);
    if (fault && next.status === 'ok') {
      next.status = 'fail';
      next.reason = fault.reason;
      detail = `the last scan failed: ${fault.detail}`;
    }
    if (next.status !== previous.status || next.reason !== previous.reason || detail !== details.get(network)) {
      const log = next.status === 'ok' ? deps.logger.info.bind(deps.logger) : deps.logger.warn.bind(deps.logger);
      log(
        { network, reason: next.reason, detail, height: next.height },
        `network ${network} is ${next.status === 'ok' ? 'healthy' : 'unhealthy'}`,
      );
    }
    details.set(network, detail);
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

/** `tip` when its height and time are what a chain can have; a MalformedAnswerError otherwise (never a NaN on /health). */
function checkedTip(tip: ChainTip): ChainTip {
  const time = tip.time instanceof Date ? tip.time.getTime() : NaN;
  if (!Number.isSafeInteger(tip.height) || tip.height < 0 || !Number.isFinite(time) || time <= 0) {
    throw new MalformedAnswerError(`the node's tip is height ${String(tip.height)} at ${String(tip.time)}: not a block`);
  }
  return tip;
}

/** A balance or fee the sender read, by the strict rule: a non-negative plain decimal. */
function boardAmount(value: unknown, what: string): string {
  return parseNodeAmount(value, what, { decimals: BOARD_DECIMALS, sign: 'nonNegative' });
}
