/**
 * The per-instance hub of swap streams (docs/architecture.md#streams-and-webhooks): one listening connection per server instance, not one
 * per stream. On PostgreSQL it LISTENs on the swap-changes channel, so a change committed by any instance
 * reaches every instance's streams; on the embedded PGlite it takes the in-process bus. Subscribers are
 * told only that a swap changed; they read what changed from the database themselves.
 */
import { EventEmitter } from 'node:events';
import type { Knex } from 'knex';
import pg from 'pg';
import type { Logger } from 'pino';
import { deliverChangesLocally, SWAP_CHANGES_CHANNEL } from './swap-notifications.js';
import { createSwapViewReader, type SwapEventRecord, type SwapRecord } from './swaps.js';

/** How long the hub waits before listening again after its connection broke. */
export const HUB_RECONNECT_MS = 1_000;

/** Subscriptions to swap changes. */
export interface SwapHub {
  /** Calls `listener` after each committed change of `swapId` (and after a reconnect); returns the unsubscribe. */
  subscribe(swapId: string, listener: () => void): () => void;
  /**
   * The swap and its whole timeline as of after the latest change announced for it. Streams of one swap
   * share one read per change instead of each reading the database.
   */
  snapshot(swapId: string): Promise<{ swap: SwapRecord | undefined; events: SwapEventRecord[] }>;
  /** Number of open subscriptions (streams). */
  size(): number;
  /** Number of swaps the hub keeps state for (only swaps someone streams). */
  trackedSwaps(): number;
  /** Stops listening and tells every subscriber to finish (`onClose` listeners). */
  close(): Promise<void>;
  /** Registers a callback run when the hub closes (open streams end, clients reconnect elsewhere). */
  onClose(callback: () => void): () => void;
}

/** Starts the hub for a database: LISTEN on PostgreSQL (`databaseUrl`), the in-process bus otherwise. */
export async function startSwapHub(options: { knex: Knex; databaseUrl?: string; logger: Logger }): Promise<SwapHub> {
  const listeners = new Map<string, Set<() => void>>();
  const closers = new Set<() => void>();
  // A read is shared by the callers of one generation; an announced change starts the next generation, so a
  // read that began before the change is never handed to a subscriber told about it.
  const generations = new Map<string, number>();
  // Reads start after they are asked for (grouped with the other streams' and polls' reads), so a read asked
  // for after a change sees it.
  const readSwap = createSwapViewReader(options.knex);
  const reads = new Map<string, { generation: number; read: Promise<{ swap: SwapRecord | undefined; events: SwapEventRecord[] }> }>();
  const dispatch = (swapId: string) => {
    const subscribed = listeners.get(swapId);
    // Only streamed swaps are remembered; every other swap's changes would otherwise pile up here.
    if (!subscribed) return;
    generations.set(swapId, (generations.get(swapId) ?? 0) + 1);
    for (const listener of subscribed) listener();
  };
  const wakeAll = () => {
    for (const swapId of listeners.keys()) dispatch(swapId);
  };

  let stop: () => Promise<void>;
  if (options.databaseUrl) {
    stop = await listenOnPostgres(options.databaseUrl, dispatch, wakeAll, options.logger);
  } else {
    const bus = new EventEmitter();
    bus.setMaxListeners(0);
    bus.on('change', dispatch);
    deliverChangesLocally(options.knex, bus);
    stop = async () => {
      bus.removeAllListeners();
    };
  }

  let count = 0;
  return {
    subscribe(swapId, listener) {
      const set = listeners.get(swapId) ?? new Set();
      set.add(listener);
      listeners.set(swapId, set);
      count++;
      return () => {
        if (set.delete(listener)) count--;
        if (set.size === 0 && listeners.get(swapId) === set) {
          listeners.delete(swapId);
          reads.delete(swapId);
          generations.delete(swapId);
        }
      };
    },
    snapshot(swapId) {
      const generation = generations.get(swapId) ?? 0;
      const cached = reads.get(swapId);
      if (cached && cached.generation === generation) return cached.read;
      // One statement: the swap and its timeline from the same snapshot.
      const read = readSwap(swapId).then((found) => ({ swap: found?.swap, events: found?.events ?? [] }));
      reads.set(swapId, { generation, read });
      // Forget a read once done when nobody streams the swap any more; a failed read is never reused.
      read.then(
        () => {
          if (!listeners.has(swapId)) {
            reads.delete(swapId);
            generations.delete(swapId);
          }
        },
        () => reads.get(swapId)?.read === read && reads.delete(swapId),
      );
      return read;
    },
    size: () => count,
    trackedSwaps: () => new Set([...listeners.keys(), ...generations.keys(), ...reads.keys()]).size,
    onClose(callback) {
      closers.add(callback);
      return () => closers.delete(callback);
    },
    async close() {
      await stop();
      for (const callback of [...closers]) callback();
      closers.clear();
    },
  };
}

// A dedicated client (not from the pool, which hands connections to other work) that LISTENs, and listens
// again after the connection breaks; then every subscriber re-reads, so nothing missed meanwhile is lost.
async function listenOnPostgres(
  databaseUrl: string,
  dispatch: (swapId: string) => void,
  wakeAll: () => void,
  logger: Logger,
): Promise<() => Promise<void>> {
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: databaseUrl, application_name: 'pss-swap-hub' });
    next.on('notification', (message) => {
      if (message.channel === SWAP_CHANGES_CHANNEL && message.payload) dispatch(message.payload);
    });
    next.on('error', (err) => {
      logger.warn({ err }, 'swap hub lost its listening connection; listening again');
      void next.end().catch(() => undefined);
      if (client === next) client = undefined;
      schedule();
    });
    await next.connect();
    await next.query(`listen ${SWAP_CHANGES_CHANNEL}`);
    client = next;
  };
  const schedule = () => {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      connect().then(wakeAll, (err) => {
        logger.warn({ err }, 'swap hub could not listen; retrying');
        schedule();
      });
    }, HUB_RECONNECT_MS);
  };

  await connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    await client?.end().catch(() => undefined);
  };
}
