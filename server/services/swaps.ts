/**
 * The swap service: loads a swap and what the chain ledger and the payout outbox show for it, decides
 * (domain/swap-decision.ts), and saves the step, the payouts it commits and the jobs they need, in one
 * ordinary transaction on the swap's locked row. Handlers, jobs and the operator CLI all move swaps
 * through it; the transition table (domain/swap-lifecycle.ts, enforced by store/swap-transitions.ts) stays
 * the one owner of status changes.
 *
 * No step calls a chain adapter inside a transaction: a new swap's deposit address is asked of the address
 * source before the transaction that stores it, prices before the step's transaction, and payouts are only
 * committed here (the sender job sends them, jobs/payout-sender.ts).
 */
import type { Knex } from 'knex';
import type { AdapterRegistry } from '../adapters/chain.js';
import type { ExchangeVenue } from '../adapters/exchange.js';
import type { RatesAdapter } from '../adapters/rates.js';
import { findAsset, type Catalog, type CatalogAsset } from '../domain/catalog.js';
import { validateAddress, validateMemo } from '../domain/addresses.js';
import { AppError, invalidRequest } from '../domain/errors.js';
import type { Amount } from '../domain/money.js';
import type { Liquidity } from './liquidity.js';
import type { ScreeningGate } from './screening.js';
import { namesSender } from '../domain/screening.js';
import { listSenderVerdicts } from '../store/screening-verdicts.js';
import {
  decide,
  decideHeldPayment,
  decideReview,
  routeDepositOfRefund,
  type Decision,
  type DecisionContext,
  type Observations,
  type PayoutIntent,
  type ReviewDecision,
} from '../domain/swap-decision.js';
import { DEPOSIT_INSTRUCTIONS_TYPE, depositInstructionsOf, type InstructionsSigner } from '../domain/signed-instructions.js';
import type { SwapRecord } from '../domain/swap-view.js';
import { transaction } from '../store/after-commit.js';
import { depositIndexOf, listOutputsTo, listOwnFundingTxs, listRemovedOrderDeposits } from '../store/chain-ledger.js';
import { groupCommit } from '../store/group-commit.js';
import { insertPayoutIntents, listSwapPayouts, setPayoutStatus, type PayoutRecord } from '../store/payouts.js';
import { insertEarning, listOrderDeposits, updateDeposit } from '../store/route-deposits.js';
import { changeSwapOrder, changeSwapOrdersIfUnchanged, transitionSwap, type SwapChange } from '../store/swap-transitions.js';
import { createSwapReader, lockSwap } from '../store/swaps.js';

/** The jobs a step queues in its transaction. */
export interface SwapJobs {
  /** Queues the sender of each payout (by id), in `trx`. */
  sendPayouts(payoutIds: string[], trx: Knex.Transaction): Promise<void>;
}

/** What the service needs. */
export interface SwapServiceDeps {
  knex: Knex;
  catalog: Catalog;
  rates: RatesAdapter;
  adapters: AdapterRegistry;
  /** Where a credited deposit is converted (asked before the step's transaction, in `exchanging`). */
  exchange: ExchangeVenue;
  /** The job queue (jobs/queue.ts), opened before the service. */
  jobs: SwapJobs;
  now: () => Date;
  /** What the hot wallets can still pay (read under the asset's lock in the step's transaction, in `exchanging`); none: no limit. */
  liquidity?: Liquidity;
  /** Signs a new swap's deposit instructions, once, with its deposit address (domain/signed-instructions.ts). */
  signer: InstructionsSigner;
  /** Screens the senders of payments to a swap's address before the step's transaction (none: no screening). */
  screening?: Pick<ScreeningGate, 'enabled' | 'screenSenders'>;
}

/** The outcome of advancing a swap: when it should be looked at again, if the clock alone will move it. */
export interface AdvanceResult {
  swap: SwapRecord | undefined;
  nextRunAt: Date | undefined;
}

// A bound on the steps of one advance; the longest path takes far fewer.
const MAX_STEPS = 50;

/** Creates the service. */
export function createSwapService(deps: SwapServiceDeps) {
  const readSwap = createSwapReader(deps.knex);
  // New swaps' addresses come in numbers: they are written together (each only if its swap is unchanged).
  const writeAllocation = groupCommit((allocations: Array<{ swap: SwapRecord; fields: Partial<SwapRecord>; at: Date }>) =>
    changeSwapOrdersIfUnchanged(
      deps.knex,
      allocations.map((a) => ({ ...a, withEvent: true })),
    ),
  );
  const assetOf = (symbol: string, network: string): CatalogAsset => {
    const asset = findAsset(deps.catalog, symbol, network);
    if (!asset) throw new Error(`swap names ${symbol}/${network}, which the catalogue no longer lists`);
    return asset;
  };
  const contextOf = (swap: SwapRecord, at: Date): DecisionContext => ({
    catalog: deps.catalog,
    source: assetOf(swap.sourceAsset, swap.sourceNetwork),
    destination: assetOf(swap.destinationAsset, swap.destinationNetwork),
    payoutConfirmations: deps.adapters.of(swap.destinationNetwork).payoutConfirmations,
    refundsNeedReceipts: deps.adapters.of(swap.sourceNetwork).revertible === true,
    now: at,
  });

  // Prices, asked before the step's transaction: by the statuses that price the swap, or by any step
  // (`always`) once one asked for a price it was not given (`unasked`: an extra payment's refund, which is
  // the payment less the network fee). A price that is unavailable fails only the decision that needs it
  // (the job is then retried; an extra payment's refund waits instead, swap-decision.ts).
  async function pricesFor(
    swap: SwapRecord,
    at: Date,
    always = false,
  ): Promise<{ prices: Observations['prices']; unasked: () => boolean }> {
    const wanted = always || swap.status === 'confirming' || swap.status === 'exchanging';
    let missed = false;
    const ask = async (symbol: string, network: string): Promise<() => Amount> => {
      if (!wanted)
        return () => {
          missed = true;
          throw new Error(`swap ${swap.id} in ${swap.status} asked for a price it was not given`);
        };
      try {
        const price = await deps.rates.priceUsd(symbol, network, at);
        return () => price;
      } catch (err) {
        return () => {
          throw err;
        };
      }
    };
    // Other assets of the source network are priced only for a step that asked for one (a payment of another
    // asset, refunded less its own network fee): the step is then taken again with them (`always`).
    const others = always
      ? deps.catalog.assets.filter((a) => a.network === swap.sourceNetwork && a.symbol !== swap.sourceAsset).map((a) => a.symbol)
      : [];
    const [source, destination, ...otherPrices] = await Promise.all([
      ask(swap.sourceAsset, swap.sourceNetwork),
      ask(swap.destinationAsset, swap.destinationNetwork),
      ...others.map((symbol) => ask(symbol, swap.sourceNetwork)),
    ]);
    const bySymbol = new Map(others.map((symbol, i) => [symbol, otherPrices[i]!]));
    const of = (symbol: string): Amount => {
      if (symbol === swap.sourceAsset) return source();
      const price = bySymbol.get(symbol);
      if (price) return price();
      missed = true;
      throw new Error(`swap ${swap.id} asked for the price of ${symbol}, which it was not given`);
    };
    return { prices: { source, destination, of }, unasked: () => missed };
  }

  // The venue's answer for the conversion of `swap` as read (the attempt is named by the swap's last change,
  // so a retried step asks the same attempt), asked only in `exchanging`, before the step's transaction.
  async function exchangeRefusalFor(swap: SwapRecord): Promise<string | null> {
    if (swap.status !== 'exchanging') return null;
    return deps.exchange.refusal({ swapId: swap.id, swapVersion: swap.updatedAt });
  }

  // What the hot wallet can still pay in the destination asset for `swap`, in `exchanging` (undefined: no
  // limit): read under the asset's lock in the step's transaction, which commits the payout intent, without
  // the swap's own reservation (the payout is what it was for).
  async function payableFor(trx: Knex.Transaction, swap: SwapRecord, at: Date): Promise<Amount | undefined> {
    if (swap.status !== 'exchanging' || !deps.liquidity) return undefined;
    const room = await deps.liquidity.lock(trx, assetOf(swap.destinationAsset, swap.destinationNetwork), at, { exceptSwapId: swap.id });
    return room.available;
  }

  // `destination` checked for the swap's source network (400 naming `what` when it refuses the address or memo).
  function checkedReturnAddress(swap: SwapRecord, destination: { address: string; memo: string | null }, what: string) {
    const source = assetOf(swap.sourceAsset, swap.sourceNetwork);
    const address = validateAddress(source.network, destination.address, source.chain);
    if (!address.ok) throw invalidRequest(`${what}: ${address.reason}`);
    const memo = validateMemo(source, destination.memo);
    if (!memo.ok) throw invalidRequest(`${what}, its memo: ${memo.reason}`);
    return { address: address.value, memo: memo.value };
  }

  async function observe(
    trx: Knex.Transaction,
    swap: SwapRecord,
    prices: Observations['prices'],
    exchangeRefusal: string | null,
    payable: Amount | undefined,
  ): Promise<Observations & { payoutRows: PayoutRecord[] }> {
    const source = assetOf(swap.sourceAsset, swap.sourceNetwork);
    const [outputs, payoutRows, routeDeposits, removedDeposits, verdicts] = await Promise.all([
      swap.routeId === null && swap.depositAddress !== null
        ? listOutputsTo(trx, swap.sourceNetwork, swap.depositAddress, source.memoNeeded ? swap.depositMemo : null)
        : Promise.resolve([]),
      listSwapPayouts(trx, swap.id),
      swap.routeId !== null ? listOrderDeposits(trx, swap.id) : Promise.resolve([]),
      swap.routeId !== null ? listRemovedOrderDeposits(trx, swap.id) : Promise.resolve([]),
      listSenderVerdicts(trx, [swap.id], { routeOrders: swap.routeId !== null }),
    ]);
    // Every payment to the address, whatever its asset (one of another asset is returned or held, never
    // converted), but the service's own gas top-ups for sweeping it.
    const ours = await listOwnFundingTxs(
      trx,
      swap.sourceNetwork,
      outputs.filter((o) => o.asset !== swap.sourceAsset).map((o) => o.txHash),
    );
    return {
      outputs: outputs.filter((o) => o.asset === swap.sourceAsset || !ours.has(o.txHash)),
      payouts: payoutRows.map((p) => ({
        key: p.idempotencyKey,
        purpose: p.purpose,
        status: p.status,
        txHash: p.txHash,
        amount: p.amount,
        confirmations: p.confirmations,
        mined: p.blockHeight !== null,
        heldReason: p.heldReason,
      })),
      routeDeposits: routeDeposits.map((d) => ({
        id: d.id,
        amount: d.amount,
        fromAddress: d.fromAddress,
        removed: removedDeposits.includes(d.id),
      })),
      prices,
      exchangeRefusal,
      payable,
      senderVerdicts: verdicts.map((v) => ({ addressKey: v.addressKey, decision: v.decision, reason: v.reason })),
      screeningRequired: deps.screening?.enabled === true && namesSender(swap.sourceNetwork),
      payoutRows,
    };
  }

  // Saves a decision on `swap` (locked in `trx`): the step, its payouts and their jobs, the payouts it marks.
  async function apply(
    trx: Knex.Transaction,
    swap: SwapRecord,
    decision: Decision,
    seen: { payoutRows: PayoutRecord[] },
    context: DecisionContext,
    at: Date,
  ): Promise<SwapChange | undefined> {
    // Payouts the chain confirmed are marked so (bookkeeping; the decision read them as confirmed already).
    const confirmed = seen.payoutRows.filter((p) => p.status === 'broadcast' && p.confirmations >= context.payoutConfirmations);
    for (const payout of confirmed) await setPayoutStatus(trx, swap.id, payout.idempotencyKey, 'broadcast', 'confirmed', at);
    for (const update of decision.payoutUpdates) {
      // Both moves are from a status the sender leaves alone (review) or may leave at any moment (pending):
      // each applies only from the status the decision saw, or the step is taken again.
      const from = update.status === 'signed' ? 'review' : 'pending';
      if (!(await setPayoutStatus(trx, swap.id, update.key, from, update.status, at))) {
        throw new Error(`payout ${update.key} of swap ${swap.id} moved while the step decided; the step runs again`);
      }
    }
    const rebroadcast = decision.payoutUpdates.filter((u) => u.status === 'signed');
    if (rebroadcast.length > 0) {
      await deps.jobs.sendPayouts(
        seen.payoutRows.filter((p) => rebroadcast.some((u) => u.key === p.idempotencyKey)).map((p) => p.id),
        trx,
      );
    }
    if (decision.payouts.length > 0) await commitPayouts(trx, swap, decision.payouts, at);
    let change: SwapChange | undefined;
    if (decision.transition) {
      // A route order's deposits name their refunds before the transition announces them.
      if (decision.transition.to === 'refunded' && swap.routeId !== null) await recordRouteRefunds(trx, swap, seen.payoutRows, at);
      change = await transitionSwap(trx, swap, decision.transition.to, decision.transition.fields, at, decision.transition.note);
    } else if (decision.change) {
      change = await changeSwapOrder(trx, swap, decision.change, at);
    }
    if (decision.earn) await recordEarning(trx, change?.swap ?? swap, context.destination, at);
    return change;
  }

  async function commitPayouts(trx: Knex.Transaction, swap: SwapRecord, payouts: PayoutIntent[], at: Date): Promise<void> {
    const ids = await insertPayoutIntents(
      trx,
      payouts.map((p) => ({
        idempotencyKey: p.key,
        swapId: swap.id,
        purpose: p.purpose,
        network: p.asset.network,
        asset: p.asset.symbol,
        address: p.address,
        memo: p.memo,
        amount: p.amount,
      })),
      at,
    );
    await deps.jobs.sendPayouts(ids, trx);
  }

  // A route order's refunds: each deposit gets its own transaction back.
  async function recordRouteRefunds(trx: Knex.Transaction, swap: SwapRecord, payouts: PayoutRecord[], at: Date): Promise<void> {
    for (const payout of payouts) {
      const depositId = routeDepositOfRefund(payout.idempotencyKey);
      if (depositId && payout.txHash && (payout.status === 'broadcast' || payout.status === 'confirmed')) {
        await updateDeposit(trx, depositId, { refundTxHash: payout.txHash, updatedAt: at });
      }
    }
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

  // A new swap's address: asked of the address source outside any transaction, stored only if the swap is
  // unchanged since it was read, with its signed deposit instructions (signed here, once: every read, webhook
  // and stream then shows the same bytes, which verify after a key rotation too). Undefined when nothing was
  // stored (the locked steps take it from there).
  async function allocate(swap: SwapRecord, at: Date): Promise<SwapRecord | undefined> {
    const source = assetOf(swap.sourceAsset, swap.sourceNetwork);
    const allocated = await deps.adapters.of(source.network).addresses.depositAddress(source, {
      key: swap.id,
      index: () => depositIndexOf(deps.knex, source.network, swap.id),
    });
    const fields = { depositAddress: allocated.address, depositMemo: allocated.memo };
    const instructions = depositInstructionsOf({ ...swap, ...fields }, at);
    const depositInstructionsJws = deps.signer.sign(DEPOSIT_INSTRUCTIONS_TYPE, instructions);
    const change = await writeAllocation({ swap, fields: { ...fields, depositInstructionsJws }, at });
    return change?.swap;
  }

  // One step of swap `swapId`: the change, or 'idle' with when to look again, or 'missing'; 'unpriced': it
  // needed a price it was not given (take it again with `priced`).
  async function step(
    swapId: string,
    priced = false,
  ): Promise<
    | { kind: 'changed'; change: SwapChange }
    | { kind: 'idle'; swap: SwapRecord; wakeAt: Date | undefined }
    | { kind: 'missing' }
    | { kind: 'again' }
    | { kind: 'unpriced' }
  > {
    const read = await readSwap(swapId);
    if (!read) return { kind: 'missing' };
    const at = deps.now();
    if (read.depositAddress === null && read.routeId === null && (read.status === 'waiting' || read.status === 'overdue')) {
      // Nothing can have been paid to an address not shown yet (the watcher wakes the swap when it is), so
      // the next look is at the deadline.
      const allocated = await allocate(read, at);
      if (allocated)
        return { kind: 'idle', swap: allocated, wakeAt: allocated.status === 'waiting' ? allocated.quoteExpiresAt : allocated.expiresAt };
    }
    // The senders of its payments are screened first, outside the transaction (services/screening.ts).
    const [{ prices, unasked }, exchangeRefusal] = await Promise.all([
      pricesFor(read, at, priced),
      exchangeRefusalFor(read),
      deps.screening?.screenSenders(read),
    ]);
    return transaction(deps.knex, async (trx) => {
      const swap = await lockSwap(trx, swapId);
      if (!swap) return { kind: 'missing' as const };
      // Moved since the read (its prices may not be the ones it needs now, and the venue answered for the
      // attempt it read, which a change since, such as an armed failure, replaced): read it again.
      if (swap.status !== read.status || swap.depositAddress === null) return { kind: 'again' as const };
      if (swap.status === 'exchanging' && swap.updatedAt.getTime() !== read.updatedAt.getTime()) return { kind: 'again' as const };
      const seen = await observe(trx, swap, prices, exchangeRefusal, await payableFor(trx, swap, at));
      const context = contextOf(swap, at);
      const decision = decide(swap, seen, context);
      if (unasked()) return { kind: 'unpriced' as const };
      const change = await apply(trx, swap, decision, seen, context, at);
      return change ? { kind: 'changed' as const, change } : { kind: 'idle' as const, swap, wakeAt: decision.wakeAt };
    });
  }

  return {
    /**
     * Runs steps until the swap waits for the clock, the chain, the outbox or a person; returns when to look
     * again. Safe to call concurrently and repeatedly for the same swap.
     */
    async advance(swapId: string): Promise<AdvanceResult> {
      let last: SwapRecord | undefined;
      let priced = false;
      for (let i = 0; i < MAX_STEPS; i++) {
        const result = await step(swapId, priced);
        if (result.kind === 'unpriced') priced = true;
        if (result.kind === 'missing') return { swap: undefined, nextRunAt: undefined };
        if (result.kind === 'idle') return { swap: result.swap, nextRunAt: result.wakeAt };
        if (result.kind === 'changed') last = result.change.swap;
      }
      return { swap: last, nextRunAt: deps.now() };
    },

    /**
     * A review decision on `swap` (locked by the caller in `trx`, in review): the transition or the refund it
     * commits. The sandbox's review operation and the operator CLI use it.
     */
    async decideReview(
      trx: Knex.Transaction,
      swap: SwapRecord,
      decision: ReviewDecision,
      at: Date,
      refundTo?: { address: string; memo: string | null },
    ): Promise<SwapChange> {
      // An operator's address to return the deposit to instead (a swap screening holds): one of the source network.
      const to = refundTo && checkedReturnAddress(swap, refundTo, 'The address to refund the deposit to');
      const unpriced = () => {
        throw new Error('a review decision other than refund prices nothing');
      };
      // A refund returns the deposit less the network fee at the source price now: asked here, in the
      // caller's transaction. Unavailable, the decision throws (503) and the swap stays in review.
      const prices = decision === 'refund' ? (await pricesFor(swap, at, true)).prices : { source: unpriced, destination: unpriced };
      const seen = await observe(trx, swap, prices, null, undefined);
      const context = contextOf(swap, at);
      const decided = decideReview(swap, decision, seen, context, to);
      if ('refused' in decided) throw new AppError(409, 'invalid_state', decided.refused, { status: swap.status });
      const change = await apply(trx, swap, decided, seen, context, at);
      if (!change) throw new Error(`review decision ${decision} on swap ${swap.id} changed nothing`);
      return change;
    },

    /**
     * An operator's return of a payment held on `swap` (locked by the caller in `trx`): to `destination`, or
     * its held refund broadcast again (`'rebroadcast'`); the refund it commits or releases, and the deposit's
     * accounting. 400 for an address or memo the source network refuses; 409 when the payment is not held,
     * its refund is in play, or the other kind of return fits.
     */
    async returnHeldPayment(
      trx: Knex.Transaction,
      swap: SwapRecord,
      payment: { txHash: string; outputIndex: number },
      destination: { address: string; memo: string | null } | 'rebroadcast',
      at: Date,
    ): Promise<SwapChange> {
      const checked =
        destination === 'rebroadcast' ? destination : checkedReturnAddress(swap, destination, 'The address to return the payment to');
      const unpriced = () => {
        throw new Error('returning a held payment prices nothing');
      };
      const seen = await observe(trx, swap, { source: unpriced, destination: unpriced }, null, undefined);
      const context = contextOf(swap, at);
      const decided = decideHeldPayment(swap, payment, checked, seen, context);
      if ('refused' in decided) throw new AppError(409, 'invalid_state', decided.refused, { status: swap.status });
      const change = await apply(trx, swap, decided, seen, context, at);
      if (!change) throw new Error(`returning payment ${payment.txHash}:${payment.outputIndex} of swap ${swap.id} changed nothing`);
      return change;
    },
  };
}

/** The service's operations. */
export type SwapService = ReturnType<typeof createSwapService>;
