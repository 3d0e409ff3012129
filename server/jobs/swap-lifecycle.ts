/**
 * Moves one swap forward (DESIGN 6.5): allocates its deposit address, notices the deposit and its
 * confirmations, decides between exchange, refund and review, exchanges at the quote's terms (fixed) or the
 * market (floating, late deposits), pays out and finishes; and applies the deposit deadlines.
 *
 * Each step runs in a transaction on the swap's locked row (its own, or a sandbox action's, stepLocked) and
 * acts only on the status it finds, so a step run twice (a retried job, two workers) finds the work done and
 * does nothing; payouts and refunds carry an idempotency key (`<swap id>:payout`, `<swap id>:refund`) so
 * money moves once whatever happens. The one exception is a new swap's first step, the allocation of its
 * deposit address: it is tried without a lock, as one statement that applies only if the swap is unchanged
 * since it was read (allocateUnlocked), and it moves no money.
 */
import type { Knex } from 'knex';
import type { ChainAdapter } from '../adapters/chain.js';
import type { RatesAdapter } from '../adapters/rates.js';
import { findAsset, type Catalog, type CatalogAsset } from '../domain/catalog.js';
import { Money } from '../domain/money.js';
import { priceRouteOrder, priceTerms, sourceLimits, usdValue } from '../domain/pricing.js';
import type { SwapRecord } from '../domain/swap-view.js';
import { transaction } from '../store/after-commit.js';
import { groupCommit } from '../store/group-commit.js';
import { insertEarning, listOrderDeposits, updateDeposit } from '../store/route-deposits.js';
import { createSwapReader, lockSwap } from '../store/swaps.js';
import { changeSwapOrder, changeSwapOrdersIfUnchanged, transitionSwap, type SwapChange } from '../store/swap-transitions.js';

/** What the lifecycle needs. */
export interface SwapLifecycleDeps {
  knex: Knex;
  catalog: Catalog;
  rates: RatesAdapter;
  chain: ChainAdapter;
  now: () => Date;
}

/** The outcome of advancing a swap: when it should be looked at again, if the clock alone will move it. */
export interface AdvanceResult {
  swap: SwapRecord | undefined;
  nextRunAt: Date | undefined;
}

/** Queues swaps' wake-ups, each at its `at`, in `trx` (the job engine's queueWakeUps). */
export type QueueWakeUps = (trx: Knex.Transaction, wakeUps: Array<{ swapId: string; at: Date }>) => Promise<void>;

/** What one step did: a change (after which the swap may move again at once, unless it `waitsUntil` a time), or nothing until `wakeAt`. */
export type StepOutcome = (SwapChange & { waitsUntil?: Date }) | { wakeAt: Date | undefined };

// The deadline a swap without a deposit waits for: the quote's while waiting, the grace period's once overdue.
const depositDeadline = (swap: SwapRecord): Date => (swap.status === 'waiting' ? swap.quoteExpiresAt : swap.expiresAt);

/** Why a swap was refunded or failed (`Swap.failureCode`). */
export const FAILURE_CODES = {
  outOfRange: 'amount_out_of_range',
  mismatch: 'amount_mismatch',
  late: 'late_deposit',
  slippage: 'slippage_exceeded',
  exchangeFailed: 'exchange_failed',
  payoutFailed: 'payout_failed',
  refundedInReview: 'refunded_by_review',
  failedInReview: 'failed_by_review',
} as const;

// A bound on the steps of one advance; the longest path (allocate, deposit, confirm, exchange, send, finish)
// takes far fewer.
const MAX_STEPS = 50;

/** Creates the lifecycle over its dependencies. */
export function createSwapLifecycle(deps: SwapLifecycleDeps) {
  // New swaps' first steps come in batches: their swaps are read together, and their allocations written
  // together, with their wake-ups, in one transaction (the group's first `wakeUp` queues them all; the engine gives one).
  const readSwap = createSwapReader(deps.knex);
  const writeAllocation = groupCommit(
    (allocations: Array<{ swap: SwapRecord; fields: Partial<SwapRecord>; at: Date; deadline: Date; wakeUp: QueueWakeUps }>) =>
      transaction(deps.knex, async (trx) => {
        const changes = await changeSwapOrdersIfUnchanged(
          trx,
          allocations.map((a) => ({ ...a, withEvent: true })),
        );
        await allocations[0].wakeUp(
          trx,
          allocations.map((a) => ({ swapId: a.swap.id, at: a.deadline })),
        );
        return changes;
      }),
  );
  const assetOf = (symbol: string, network: string): CatalogAsset => {
    const asset = findAsset(deps.catalog, symbol, network);
    if (!asset) throw new Error(`swap names ${symbol}/${network}, which the catalogue no longer lists`);
    return asset;
  };

  // One step: returns the change made, or the time the swap should be looked at again (undefined: never by
  // the clock; a deposit or a decision moves it). A change after which the swap can only wait says until when
  // (`waitsUntil`), which spares the step that would find nothing to do.
  async function step(trx: Knex.Transaction, swap: SwapRecord, at: Date): Promise<StepOutcome> {
    const source = assetOf(swap.sourceAsset, swap.sourceNetwork);
    const destination = assetOf(swap.destinationAsset, swap.destinationNetwork);
    switch (swap.status) {
      case 'waiting':
      case 'overdue': {
        if (swap.depositAddress === null) {
          const allocated = await deps.chain.allocateDepositAddress(trx, source, swap.id);
          const change = await changeSwapOrder(trx, swap, { depositAddress: allocated.address, depositMemo: allocated.memo }, at, {
            withEvent: true,
          });
          // Nothing can have been paid to an address that is not shown yet (a sandbox payment names an address
          // a swap shows, and schedules the swap's next step itself), so the next look is at the deadline.
          const deadline = depositDeadline(swap);
          return at < deadline ? { ...change, waitsUntil: deadline } : change;
        }
        const deposit = await deps.chain.findDeposit(trx, source, swap.depositAddress, swap.depositMemo, swap.createdAt, at);
        if (deposit) {
          return transitionSwap(
            trx,
            swap,
            'confirming',
            {
              sourceTxHash: deposit.txHash,
              receivedAmount: deposit.amount,
              receivedFrom: deposit.fromAddress,
              lateDeposit: swap.status === 'overdue' || deposit.seenAt.getTime() >= swap.quoteExpiresAt.getTime(),
              confirmationCount: Math.min(deposit.confirmations, swap.requiredConfirmations),
            },
            at,
          );
        }
        if (swap.status === 'waiting') {
          if (at >= swap.quoteExpiresAt) return transitionSwap(trx, swap, 'overdue', {}, at);
          return { wakeAt: swap.quoteExpiresAt };
        }
        if (at >= swap.expiresAt) return transitionSwap(trx, swap, 'expired', {}, at);
        return { wakeAt: swap.expiresAt };
      }
      case 'confirming': {
        const deposit = await deps.chain.findDeposit(trx, source, swap.depositAddress!, swap.depositMemo, swap.createdAt, at);
        if (!deposit) throw new Error(`swap ${swap.id} is confirming but its deposit is gone`);
        const confirmations = Math.min(deposit.confirmations, swap.requiredConfirmations);
        if (confirmations < swap.requiredConfirmations) {
          if (confirmations > (swap.confirmationCount ?? 0)) {
            return transitionSwap(trx, swap, 'confirming', { confirmationCount: confirmations }, at);
          }
          return { wakeAt: nextBlock(deposit.seenAt, confirmations + 1) };
        }
        return decideConfirmed(trx, swap, source, at, confirmations);
      }
      case 'exchanging':
        return exchange(trx, swap, source, destination, at);
      case 'sending': {
        if (swap.armedFailure === 'payout') {
          return transitionSwap(trx, swap, 'failed', { failureCode: FAILURE_CODES.payoutFailed, armedFailure: null }, at);
        }
        if (swap.settlementTxHash === null) throw new Error(`swap ${swap.id} is sending without a payout transaction`);
        // The payout settles after one block.
        const settled = deps.chain.confirmationsSince(swap.updatedAt, at) >= 1;
        if (settled) {
          if (swap.routeId !== null) await recordEarning(trx, swap, destination, at);
          return transitionSwap(trx, swap, 'finished', {}, at);
        }
        return { wakeAt: nextBlock(swap.updatedAt, 1) };
      }
      default:
        // review waits for a decision; accumulating belongs to permanent routes; terminal statuses never change.
        return { wakeAt: undefined };
    }
  }

  // A new swap's first step without a transaction: a plain read, then the allocation in one statement that
  // applies only if the swap is still as read. On the embedded database, which runs one transaction at a
  // time, the locked step (BEGIN, lock, change, COMMIT) held every other connection up for its round trips.
  // Undefined when the swap needs something else, or changed meanwhile: the locked steps take it from there.
  async function allocateUnlocked(swapId: string, wakeUp: QueueWakeUps): Promise<AdvanceResult | undefined> {
    const swap = await readSwap(swapId);
    if (!swap) return { swap: undefined, nextRunAt: undefined };
    if (swap.depositAddress !== null || swap.routeId !== null || (swap.status !== 'waiting' && swap.status !== 'overdue')) return undefined;
    const at = deps.now();
    const deadline = depositDeadline(swap);
    if (at >= deadline) return undefined;
    const allocated = await deps.chain.allocateDepositAddress(deps.knex, assetOf(swap.sourceAsset, swap.sourceNetwork), swap.id);
    // The wake-up at the deadline is queued in the same transaction. Should the swap have changed meanwhile (the
    // allocation then writes nothing), the wake-up still stands; a swap woken with nothing to do goes on waiting.
    const change = await writeAllocation({
      swap,
      fields: { depositAddress: allocated.address, depositMemo: allocated.memo },
      at,
      deadline,
      wakeUp,
    });
    return change && { swap: change.swap, nextRunAt: undefined };
  }

  const nextBlock = (from: Date, confirmations: number) => deps.chain.confirmationTime(from, confirmations);

  async function decideConfirmed(
    trx: Knex.Transaction,
    swap: SwapRecord,
    source: CatalogAsset,
    at: Date,
    confirmations: number,
  ): Promise<SwapChange> {
    const received = new Money(swap.receivedAmount!);
    const price = await deps.rates.priceUsd(source.symbol, source.network, at);
    const confirmed = { confirmationCount: confirmations };
    if (usdValue(received, price).greaterThan(deps.catalog.limitsUsd.automaticMaximum)) {
      return transitionSwap(trx, swap, 'review', confirmed, at);
    }
    const limits = sourceLimits(deps.catalog, source, price);
    if (received.lessThan(limits.minimumSourceAmount) || received.greaterThan(limits.maximumSourceAmount)) {
      return refund(trx, swap, source, at, FAILURE_CODES.outOfRange, confirmed);
    }
    if (swap.lateDeposit && swap.lateDepositPolicy === 'refund') return refund(trx, swap, source, at, FAILURE_CODES.late, confirmed);
    if (swap.rateType === 'fixed' && !swap.lateDeposit && !received.equals(swap.depositAmount)) {
      return refund(trx, swap, source, at, FAILURE_CODES.mismatch, confirmed);
    }
    return transitionSwap(trx, swap, 'exchanging', confirmed, at);
  }

  async function exchange(
    trx: Knex.Transaction,
    swap: SwapRecord,
    source: CatalogAsset,
    destination: CatalogAsset,
    at: Date,
  ): Promise<SwapChange> {
    if (swap.armedFailure === 'exchange') return refund(trx, swap, source, at, FAILURE_CODES.exchangeFailed, { armedFailure: null });
    const received = new Money(swap.receivedAmount!);
    let output: string;
    let routeTerms: Partial<SwapRecord> = {};
    // The quote guarantees its amount for exactly depositAmount before the deadline; anything else (an
    // approved review of another amount, a late deposit) is exchanged at the market.
    if (swap.routeId !== null) {
      // A route order converts at the market, at the fee terms of its route (markup included).
      const [sourcePrice, destinationPrice] = await Promise.all([
        deps.rates.priceUsd(source.symbol, source.network, at),
        deps.rates.priceUsd(destination.symbol, destination.network, at),
      ]);
      const terms = priceRouteOrder({
        destination,
        sourceAmount: received,
        sourcePriceUsd: sourcePrice,
        destinationPriceUsd: destinationPrice,
        feePercent: swap.feePercent!,
        feeFloorUsd: swap.feeFloorUsd!,
        markupPercent: swap.markupPercent!,
      });
      output = terms.receiveAmount;
      routeTerms = { feeUsd: terms.feeUsd, markupAmount: terms.markupAmount, markupUsd: terms.markupUsd };
    } else if (swap.rateType === 'fixed' && !swap.lateDeposit && received.equals(swap.depositAmount)) {
      output = swap.expectedOutputAmount!;
    } else {
      const [sourcePrice, destinationPrice] = await Promise.all([
        deps.rates.priceUsd(source.symbol, source.network, at),
        deps.rates.priceUsd(destination.symbol, destination.network, at),
      ]);
      output = priceTerms(deps.catalog, {
        destination,
        sourceAmount: received,
        sourcePriceUsd: sourcePrice,
        destinationPriceUsd: destinationPrice,
        rateType: 'floating',
      }).receiveAmount;
      if (swap.rateType === 'floating' && !swap.lateDeposit && swap.minimumOutputAmount !== null) {
        // The slippage bound scales with what actually arrived.
        const minimum = new Money(swap.minimumOutputAmount).times(received).div(swap.depositAmount);
        if (new Money(output).lessThan(minimum.toDecimalPlaces(destination.precision, Money.ROUND_DOWN))) {
          return refund(trx, swap, source, at, FAILURE_CODES.slippage);
        }
      }
    }
    if (new Money(output).isZero()) return refund(trx, swap, source, at, FAILURE_CODES.outOfRange);
    // An armed payout failure (sandbox) lets the swap reach `sending` without a payout, then fails it.
    if (swap.armedFailure === 'payout') return transitionSwap(trx, swap, 'sending', { ...routeTerms, actualOutputAmount: output }, at);
    const sent = await deps.chain.send(trx, {
      idempotencyKey: `${swap.id}:payout`,
      asset: destination,
      address: swap.destination,
      memo: swap.destinationMemo,
      amount: output,
    });
    return transitionSwap(trx, swap, 'sending', { ...routeTerms, actualOutputAmount: output, settlementTxHash: sent.txHash }, at);
  }

  async function refund(
    trx: Knex.Transaction,
    swap: SwapRecord,
    source: CatalogAsset,
    at: Date,
    failureCode: string,
    fields: Partial<SwapRecord> = {},
  ): Promise<SwapChange> {
    if (swap.routeId !== null) return refundRouteOrder(trx, swap, source, at, failureCode, fields);
    const sent = await deps.chain.send(trx, {
      idempotencyKey: `${swap.id}:refund`,
      asset: source,
      address: swap.refundMode === 'address' ? swap.refundAddress! : swap.receivedFrom!,
      memo: swap.refundMode === 'address' ? swap.refundMemo : null,
      amount: swap.receivedAmount!,
    });
    return transitionSwap(
      trx,
      swap,
      'refunded',
      { ...fields, failureCode, refundTxHash: sent.txHash, refundAmount: swap.receivedAmount },
      at,
    );
  }

  // A route order may convert deposits from several senders: each gets its own deposit back.
  async function refundRouteOrder(
    trx: Knex.Transaction,
    swap: SwapRecord,
    source: CatalogAsset,
    at: Date,
    failureCode: string,
    fields: Partial<SwapRecord>,
  ): Promise<SwapChange> {
    const hashes: string[] = [];
    for (const deposit of await listOrderDeposits(trx, swap.id)) {
      const sent = await deps.chain.send(trx, {
        idempotencyKey: `${swap.id}:refund:${deposit.id}`,
        asset: source,
        address: deposit.fromAddress,
        memo: null,
        amount: deposit.amount,
      });
      await updateDeposit(trx, deposit.id, { refundTxHash: sent.txHash, updatedAt: at });
      hashes.push(sent.txHash);
    }
    return transitionSwap(
      trx,
      swap,
      'refunded',
      { ...fields, failureCode, refundTxHash: hashes[0] ?? null, refundAmount: swap.receivedAmount },
      at,
    );
  }

  // The partner's markup on a finished route order, in the destination asset (recorded once per order).
  async function recordEarning(trx: Knex.Transaction, swap: SwapRecord, destination: CatalogAsset, at: Date): Promise<void> {
    await insertEarning(trx, {
      partnerId: swap.partnerId,
      routeId: swap.routeId!,
      orderId: swap.id,
      asset: destination.symbol,
      network: destination.network,
      amount: swap.markupAmount ?? '0',
      amountUsd: swap.markupUsd ?? '0',
      markupPercent: swap.markupPercent ?? '0',
      createdAt: at,
    });
  }

  return {
    /**
     * Runs steps until the swap waits for the clock, a deposit or a person; returns when to look again.
     * Safe to call concurrently and repeatedly for the same swap. `wakeUp` (given for a swap's first step,
     * queued with its creation): the allocation of its deposit address is tried first without a lock, and
     * `wakeUp` queues the swap's wake-up at its deadline in the same transaction (then the answer's
     * nextRunAt is undefined: the wake-up is queued already).
     */
    async advance(swapId: string, options: { wakeUp?: QueueWakeUps } = {}): Promise<AdvanceResult> {
      if (options.wakeUp) {
        const allocated = await allocateUnlocked(swapId, options.wakeUp);
        if (allocated) return allocated;
      }
      let last: SwapRecord | undefined;
      for (let i = 0; i < MAX_STEPS; i++) {
        const at = deps.now();
        const result = await transaction(deps.knex, async (trx) => {
          const locked = await lockSwap(trx, swapId);
          if (!locked) return { kind: 'missing' as const };
          const outcome = await step(trx, locked, at);
          return 'wakeAt' in outcome
            ? { kind: 'idle' as const, swap: locked, wakeAt: outcome.wakeAt }
            : { kind: 'changed' as const, change: outcome };
        });
        if (result.kind === 'missing') return { swap: undefined, nextRunAt: undefined };
        if (result.kind === 'idle') return { swap: result.swap, nextRunAt: result.wakeAt };
        if (result.change.waitsUntil) return { swap: result.change.swap, nextRunAt: result.change.waitsUntil };
        last = result.change.swap;
      }
      return { swap: last, nextRunAt: deps.now() };
    },

    /**
     * One step of `swap`, which the caller has locked in `trx`, at `at`: the change it made, or when the swap
     * should be looked at again. A sandbox action uses it to see, in its own transaction, whether its change
     * moves the swap.
     */
    stepLocked(trx: Knex.Transaction, swap: SwapRecord, at: Date): Promise<StepOutcome> {
      return step(trx, swap, at);
    },

    /** Plays the operator on a swap in review (sandbox and operator tools). */
    async decideReview(trx: Knex.Transaction, swap: SwapRecord, decision: 'approve' | 'refund' | 'fail', at: Date): Promise<SwapChange> {
      const source = assetOf(swap.sourceAsset, swap.sourceNetwork);
      if (decision === 'approve') return transitionSwap(trx, swap, 'exchanging', {}, at);
      if (decision === 'refund') return refund(trx, swap, source, at, FAILURE_CODES.refundedInReview);
      return transitionSwap(trx, swap, 'failed', { failureCode: FAILURE_CODES.failedInReview }, at);
    },
  };
}

/** The lifecycle's operations. */
export type SwapLifecycle = ReturnType<typeof createSwapLifecycle>;
