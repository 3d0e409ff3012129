/**
 * The chain watchers (docs/architecture.md#production): for each network, a loop on every instance asks the network's watcher
 * what changed since the stored cursor and writes it into the chain ledger, then wakes what it moves:
 * the swaps paid (or whose deposit left the chain, or whose confirmations or payout moved), and the route
 * orders whose converted deposit left the chain, get a step queued, in the transaction that writes the
 * ledger. Permanent routes read the ledger on their own polling schedule (jobs/route-deposits.ts).
 *
 * One scan serves every watched address of a network: its cost follows the blocks, not the open swaps.
 * The scan (a call to the node) runs outside any transaction; its results are written only if the cursor is
 * still the one the scan started from, so instances that scan the same stretch write it once. A network is
 * scanned about once a block while anything on it is confirming, at the watcher's idle pace otherwise, and
 * at once when this instance was told of a payment (a sandbox deposit).
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AdapterRegistry } from '../adapters/chain.js';
import type { Catalog } from '../domain/catalog.js';
import { transaction } from '../store/after-commit.js';
import {
  advanceCursor,
  hasPending,
  listMovedByTip,
  listOrdersConverting,
  listSwapsPaying,
  listWatchedAmong,
  readCursor,
  recordOutputs,
  recordPayoutBlocks,
  recordRemovals,
  releaseWatchLeases,
  takeWatchLease,
} from '../store/chain-ledger.js';

/** What watching needs. */
export interface ChainWatchDeps {
  knex: Knex;
  catalog: Catalog;
  adapters: AdapterRegistry;
  now: () => Date;
  logger: Logger;
  /** Queues a step for each of `swapIds` in `trx`. */
  wakeSwaps(swapIds: string[], trx: Knex.Transaction): Promise<void>;
  /**
   * Scan each network on one instance at a time (real nodes: one instance's calls are enough): the instance
   * that holds the network's lease scans, renewing it with every scan; the others try to take it over every
   * LEASE_RETRY_MS and succeed once it has gone unrenewed for LEASE_MS (its holder died or lost the database).
   * Without it (the simulated chain, whose scans are database reads), every instance scans.
   */
  exclusive?: { holder: string };
}

/** Running watchers. */
export interface ChainWatching {
  /** Scans `network` soon (a payment was made to it through this instance). */
  wake(network: string): void;
  /** Scans `network` once now and resolves when its results are written (tests, sandbox operations). */
  scanNow(network: string): Promise<void>;
  stop(): Promise<void>;
}

/** Scans that fail are tried again after this long. */
const RETRY_MS = 1_000;
/** A watcher lease not renewed for this long may be taken by another instance. */
export const LEASE_MS = 30_000;
/** How often an instance that does not hold a network's lease tries to take it. */
export const LEASE_RETRY_MS = 10_000;

/** Starts a watcher loop per network served. */
export function startChainWatching(deps: ChainWatchDeps): ChainWatching {
  let stopped = false;
  const loops = new Map(deps.adapters.networks.map((network) => [network, createLoop(network)]));

  function createLoop(network: string) {
    const { watcher, payoutConfirmations } = deps.adapters.of(network);
    // How deep an output's confirmations matter: the most any deposit or payout on the network needs.
    const depth = Math.max(deps.catalog.networks[network]?.confirmations ?? 1, payoutConfirmations);
    let timer: NodeJS.Timeout | undefined;
    let running: Promise<void> | undefined;
    let again = false;
    // Whether anything on the network was confirming at the last scan (unknown at start), and whether the
    // chain had more to report than it could.
    let pending = true;
    let behind = false;

    // Whether this instance held the lease at its last try (always, without exclusive watching).
    let holding = true;

    async function scanOnce(): Promise<void> {
      if (deps.exclusive) {
        holding = await takeWatchLease(deps.knex, network, deps.exclusive.holder, deps.now(), LEASE_MS);
        if (!holding) return;
      }
      const cursor = await readCursor(deps.knex, network);
      const scan = await watcher.scan(cursor, (candidates) => listWatchedAmong(deps.knex, network, candidates));
      behind = scan.behind === true;
      const quiet = scan.outputs.length === 0 && scan.removed.length === 0 && scan.payouts.length === 0;
      // Nothing seen and nothing confirming (as the ledger says, whichever instance wrote it): the new tip
      // moves nothing, and the cursor may stay (the next scan reads the same stretch again, still empty unless
      // something arrived).
      // A watcher that reads a bounded stretch per scan (`behind`) moves its cursor even over empty blocks.
      if (quiet && cursor && !scan.behind) {
        pending = await hasPending(deps.knex, network, cursor.tip.height, depth);
        if (!pending) return;
      }
      const at = deps.now();
      pending = await transaction(deps.knex, async (trx) => {
        if (!(await advanceCursor(trx, network, cursor, scan, at))) return pending; // another instance wrote this stretch
        const paid = await recordOutputs(trx, network, scan.outputs);
        const removed = await recordRemovals(trx, network, scan.removed, at);
        const payoutSwaps = await recordPayoutBlocks(trx, network, scan.payouts, at);
        const previousTip = cursor?.tip.height ?? scan.tip.height - depth;
        const moved = await listMovedByTip(trx, network, previousTip, scan.tip.height, depth);
        const addresses = [...new Set([...paid, ...removed, ...moved.addresses])];
        const swapIds = await listSwapsPaying(trx, addresses);
        // A route order whose converted deposit left the chain: it is held for review.
        const orders = await listOrdersConverting(trx, network, scan.removed);
        await deps.wakeSwaps([...new Set([...swapIds, ...orders, ...payoutSwaps, ...moved.swapIds])], trx);
        return hasPending(trx, network, scan.tip.height, depth);
      });
    }

    const schedule = (ms: number) => {
      clearTimeout(timer);
      if (!stopped) timer = setTimeout(run, ms);
    };

    function run(): Promise<void> {
      if (running) {
        again = true;
        return running;
      }
      again = false;
      running = (async () => {
        let next: number;
        try {
          await scanOnce();
          next = !holding
            ? LEASE_RETRY_MS
            : pending || behind
              ? watcher.busyScanMs
              : deps.exclusive
                ? Math.min(watcher.idleScanMs, LEASE_MS / 3) // renewed well before it runs out
                : watcher.idleScanMs;
        } catch (err) {
          deps.logger.warn({ err, network }, 'chain scan failed; will retry');
          next = RETRY_MS;
        } finally {
          running = undefined;
        }
        schedule(again ? 0 : next);
      })();
      return running;
    }

    // Networks start spread over the first idle period, so their scans do not all come at once.
    schedule(Math.floor(Math.random() * Math.min(watcher.idleScanMs, 1_000)));
    return {
      wake: () => schedule(0),
      async scanNow() {
        if (running) await running;
        await run();
      },
      stop: async () => {
        clearTimeout(timer);
        await running;
      },
    };
  }

  const loopOf = (network: string) => {
    const loop = loops.get(network);
    if (!loop) throw new Error(`no watcher for network ${network}`);
    return loop;
  };
  return {
    wake: (network) => {
      if (!stopped) loopOf(network).wake();
    },
    scanNow: (network) => loopOf(network).scanNow(),
    async stop() {
      stopped = true;
      await Promise.all([...loops.values()].map((loop) => loop.stop()));
      // A stopping instance gives its leases up: the next instance (a restart, another one) watches at once
      // instead of LEASE_MS later. Only a crash leaves a lease to run out.
      if (deps.exclusive) {
        await releaseWatchLeases(deps.knex, deps.exclusive.holder).catch((err: unknown) =>
          deps.logger.warn({ err }, 'could not give up the chain watcher leases; they run out in LEASE_MS'),
        );
      }
    },
  };
}
