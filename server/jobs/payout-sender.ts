/**
 * The payout outbox's sender (DESIGN 10). For one committed payout, outside every lock and transaction:
 * 1. prepare: the network's sender builds and signs it; the hash and the signed bytes are committed (only if
 *    the payout is still unsigned: two senders never both sign it) before anything is broadcast;
 * 2. broadcast the committed bytes, and record the outcome: accepted (the chain has it), rejected in a way
 *    that proves it never went out (failed), or ambiguous (review: an operator looks before anything more).
 * A retry after any failure or crash finds the bytes committed and broadcasts them again: the same
 * transaction, never a second payment. An error that is neither (a node that does not answer) is thrown,
 * and the job engine retries it. Each recorded outcome wakes the swap, which decides what follows.
 *
 * A payout broadcast but in no block `rebroadcastAfterMs` later (a mempool dropped it, or the node that took
 * it lost it) is broadcast again, the same bytes, as often as that passes (the engine's payout sweep queues
 * it). A refusal then proves nothing (the first broadcast was accepted: it may be in a block the watcher has
 * not read, or spent by another transaction), so the payout goes to review.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { AmbiguousBroadcastError, type AdapterRegistry, type PayoutOrder } from '../adapters/chain.js';
import { findAsset, type Catalog } from '../domain/catalog.js';
import { transaction } from '../store/after-commit.js';
import { findPayout, movePayout, type PayoutRecord } from '../store/payouts.js';

/** How long a broadcast payout may stay in no block before it is broadcast again. */
export const PAYOUT_REBROADCAST_MS = 10 * 60_000;

/** A point at which a test kills the process (PAYOUT_CRASH_AT, sandbox only). */
export type CrashPoint = 'after-sign' | 'after-broadcast';

/** What the sender needs. */
export interface PayoutSenderDeps {
  knex: Knex;
  catalog: Catalog;
  adapters: AdapterRegistry;
  now: () => Date;
  logger: Logger;
  /** Queues the step of swap `swapId` in `trx` (the outcome of its payout moves it). */
  wakeSwap(swapId: string, trx: Knex.Transaction): Promise<void>;
  /** Told of each broadcast the chain accepted (the network's watcher looks for it soon). */
  broadcasted?: (network: string) => void;
  /** Kills the process at this point (crash tests). */
  crashAt?: CrashPoint;
  /** How long a broadcast payout may stay in no block before it is broadcast again (default PAYOUT_REBROADCAST_MS). */
  rebroadcastAfterMs?: number;
  /**
   * Resolves once `wakeSwap` works (the job engine is running). A send waits for it before any node call: a job
   * fetched while the engine starts (the open payouts it queues at start) could otherwise broadcast, fail to
   * record the outcome, and broadcast again on its retry (or sign again, from pending).
   */
  ready?: () => Promise<unknown>;
}

/** Creates the sender. */
export function createPayoutSender(deps: PayoutSenderDeps) {
  const crash = (point: CrashPoint) => {
    if (deps.crashAt === point) {
      deps.logger.warn({ point }, 'PAYOUT_CRASH_AT: killing the process');
      process.kill(process.pid, 'SIGKILL');
    }
  };

  const orderOf = (payout: PayoutRecord): PayoutOrder => {
    const asset = findAsset(deps.catalog, payout.asset, payout.network);
    if (!asset) throw new Error(`payout ${payout.id} names ${payout.asset}/${payout.network}, which the catalogue no longer lists`);
    return { key: payout.idempotencyKey, swapId: payout.swapId, asset, address: payout.address, memo: payout.memo, amount: payout.amount };
  };

  // Moves the payout and wakes its swap, together.
  async function record(
    payout: PayoutRecord,
    from: PayoutRecord['status'],
    to: PayoutRecord['status'],
    fields: Parameters<typeof movePayout>[4],
    options: Parameters<typeof movePayout>[6] = {},
  ) {
    return transaction(deps.knex, async (trx) => {
      const moved = await movePayout(trx, payout.id, from, to, fields, deps.now(), options);
      if (moved) await deps.wakeSwap(payout.swapId, trx);
      return moved;
    });
  }

  const rebroadcastAfterMs = deps.rebroadcastAfterMs ?? PAYOUT_REBROADCAST_MS;
  async function rebroadcast(payout: PayoutRecord, order: PayoutOrder): Promise<void> {
    if (payout.blockHeight !== null || deps.now().getTime() - payout.updatedAt.getTime() < rebroadcastAfterMs) return;
    let outcome;
    try {
      outcome = await deps.adapters.of(payout.network).sender.broadcast(order, { txHash: payout.txHash!, bytes: payout.signedBytes! });
    } catch (err) {
      if (!(err instanceof AmbiguousBroadcastError)) throw err;
      deps.logger.warn({ err, payoutId: payout.id, txHash: payout.txHash }, 'payout rebroadcast ambiguous; tried again later');
      return;
    }
    if (outcome.kind === 'accepted') {
      // The wait for a block starts again (and the attempt is counted); the swap has nothing to decide.
      await movePayout(deps.knex, payout.id, 'broadcast', 'broadcast', {}, deps.now());
      deps.logger.warn({ payoutId: payout.id, txHash: payout.txHash }, 'payout was in no block; broadcast again');
      deps.broadcasted?.(payout.network);
    } else {
      deps.logger.error(
        { payoutId: payout.id, txHash: payout.txHash, reason: outcome.reason },
        'payout rebroadcast refused; held for review',
      );
      await record(payout, 'broadcast', 'review', { lastError: `broadcast again and refused: ${outcome.reason}` }, { unmined: true });
    }
  }

  return {
    /**
     * Moves payout `id` as far as it goes: signed and committed, then broadcast; broadcast again when it has
     * been in no block for too long. Safe to run twice at once.
     */
    async send(id: string): Promise<void> {
      await deps.ready?.();
      let payout = await findPayout(deps.knex, id);
      if (!payout) return;
      const order = orderOf(payout);
      const { sender } = deps.adapters.of(payout.network);
      if (payout.status === 'pending') {
        const signed = await sender.prepare(order);
        await record(payout, 'pending', 'signed', { txHash: signed.txHash, signedBytes: signed.bytes });
        crash('after-sign');
        // Signed here, or by another sender first: either way the committed bytes are the ones to send.
        payout = await findPayout(deps.knex, id);
        if (!payout) return;
      }
      if (payout.status === 'broadcast') return rebroadcast(payout, order);
      if (payout.status !== 'signed') return;
      let outcome;
      try {
        outcome = await sender.broadcast(order, { txHash: payout.txHash!, bytes: payout.signedBytes! });
      } catch (err) {
        if (!(err instanceof AmbiguousBroadcastError)) throw err;
        deps.logger.error({ err, payoutId: id, txHash: payout.txHash }, 'payout broadcast ambiguous; held for review');
        await record(payout, 'signed', 'review', { lastError: err.message });
        return;
      }
      crash('after-broadcast');
      if (outcome.kind === 'accepted') {
        await record(payout, 'signed', 'broadcast', {});
        deps.broadcasted?.(payout.network);
      } else if (payout.acceptedAt !== null) {
        // Accepted once (then held for review and approved): it may be on the chain, so a refusal now proves
        // nothing. Failed would let another payment be committed for it; it waits for an operator again.
        deps.logger.error(
          { payoutId: id, txHash: payout.txHash, reason: outcome.reason },
          'payout accepted before, refused now; held for review',
        );
        await record(payout, 'signed', 'review', { lastError: `accepted before, refused now: ${outcome.reason}` });
      } else {
        await record(payout, 'signed', 'failed', { lastError: outcome.reason });
      }
    },
  };
}

/** The sender's operations. */
export type PayoutSender = ReturnType<typeof createPayoutSender>;
