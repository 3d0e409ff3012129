/**
 * The swap's decisions (docs/architecture.md#lifecycle, #every-payment-accounted-for, #production), as one pure function: given the swap, what the chain ledger
 * shows for its address, its payouts in the outbox, the prices and the time, `decide` returns the one step
 * to take: a status transition or a change of the order's fields, the payouts to commit, the payouts to
 * mark, and when to look again. The service (services/swaps.ts) loads, decides, saves and enqueues in one
 * transaction; the payouts are sent later by the outbox, outside every lock.
 *
 * Every payment to the address is accounted for in `deposits`: the first while the swap waits is the
 * swap's deposit; any other is an extra, returned once confirmed to the refund destination (or held for an
 * operator where none is safe). A deposit a reorganisation removes before it is credited sends the swap
 * back to waiting; after, to review.
 *
 * A refund returns the deposit less the source network's payout fee at the source price when it is committed
 * (pricing.ts refundTerms), fixed then in its payout intent; one whose remainder would not exceed the asset's
 * dust floor is not made: the deposit is held for an operator (and the swap too, for its own deposit).
 */
import { findAsset, type Catalog, type CatalogAsset } from './catalog.js';
import { Money, type Amount } from './money.js';
import { priceRouteOrder, priceTerms, refundTerms, sourceLimits, usdValue } from './pricing.js';
import { screeningKeyOf, type ScreeningDecision } from './screening.js';
import { isAllowedTransition, type SwapStatus } from './swap-lifecycle.js';
import type { SwapDepositRecord, SwapRecord } from './swap-view.js';

/** A transaction output paid to the swap's address, as the ledger shows it now. */
export interface OutputObservation {
  txHash: string;
  outputIndex: number;
  /** The asset paid (a catalogue symbol of the swap's source network); absent: the swap's source asset. */
  asset?: string;
  amount: string;
  fromAddress: string | null;
  confirmations: number;
  seenAt: Date;
  removed: boolean;
}

/** A payout or refund of the swap in the outbox. */
export interface PayoutObservation {
  key: string;
  /** excess_refund: under `refund_excess`, what an overpayment brought beyond `depositAmount`, returned. */
  purpose: 'payout' | 'refund' | 'extra_refund' | 'excess_refund';
  /**
   * failed: proved never taken (refused, or not buildable); review: held after an ambiguous broadcast;
   * reverted: mined and paid nothing; cancelled: its EVM nonce went to a zero-value self-transfer.
   */
  status: 'pending' | 'signed' | 'broadcast' | 'confirmed' | 'failed' | 'review' | 'reverted' | 'cancelled';
  /** The version a block holds, else the newest one. */
  txHash: string | null;
  amount: string;
  /** From the payout's block and the network's tip; 0 while unmined. */
  confirmations: number;
  /** A block holds it (its confirmations may still be 0 where the block is the next one); default: confirmations > 0. */
  mined?: boolean;
  /** Why it is held for an operator, if it is. */
  heldReason?: string | null;
}

/** A payout to commit: the amount is fixed here, once. */
export interface PayoutIntent {
  key: string;
  purpose: PayoutObservation['purpose'];
  asset: CatalogAsset;
  address: string;
  memo: string | null;
  amount: string;
  /** For a route order's refund: the route deposit it returns. */
  routeDepositId?: string;
}

/** A route order's deposit (a route order converts deposits the route's polling confirmed). */
export interface RouteDepositObservation {
  id: string;
  amount: string;
  fromAddress: string;
  /** A reorganisation took its payment out of the chain (and no block holds it again yet). */
  removed: boolean;
}

/** The screening verdict on a sender of payments to the swap's address (services/screening.ts). */
export interface SenderVerdictObservation {
  /** The sender in the form addresses are compared in (domain/screening.ts screeningKeyOf). */
  addressKey: string;
  decision: ScreeningDecision;
  reason: string | null;
}

/** What `decide` sees. */
export interface Observations {
  /** Outputs paid to the swap's deposit address (and memo), oldest first; none for route orders. */
  outputs: OutputObservation[];
  payouts: PayoutObservation[];
  /** A route order's deposits. */
  routeDeposits: RouteDepositObservation[];
  /**
   * USD prices of the source and destination assets now (each throws when its price is unavailable). A
   * refund reads the source's: the swap's own refund throws with it (the step is taken again), an extra
   * payment's waits (it stays `confirming`, and the decision's wakeAt looks again). `of`: the price of another
   * asset of the source network by symbol (a payment of another asset, refunded less its own network fee).
   */
  prices: { source(): Amount; destination(): Amount; of?(symbol: string): Amount };
  /**
   * Why the exchange venue refused this swap's conversion (adapters/exchange.ts), or null: it did not, or
   * was not asked (it is asked only in `exchanging`).
   */
  exchangeRefusal: string | null;
  /**
   * What the hot wallet can still pay in the destination asset (asked only in `exchanging`), or undefined:
   * nothing limits it (the sandbox) or it was not asked.
   */
  payable?: Amount;
  /** Screening verdicts on the senders of payments to the swap's address (docs/screening.md); absent: none. */
  senderVerdicts?: SenderVerdictObservation[];
  /** Screening is on and the source network names senders: a sender without a verdict yet waits for one. */
  screeningRequired?: boolean;
}

/** The fixed inputs of a decision. */
export interface DecisionContext {
  catalog: Catalog;
  source: CatalogAsset;
  destination: CatalogAsset;
  /** Confirmations a payout of ours needs before the swap is finished. */
  payoutConfirmations: number;
  /** The source network's transactions can revert (EVM): a refund is made once mined with a successful receipt. */
  refundsNeedReceipts?: boolean;
  now: Date;
}

/** One step. */
export interface Decision {
  /** A status change (with its timeline entry, and the entry's note where a rule of the swap's decided it), or null. */
  transition: { to: SwapStatus; fields: Partial<SwapRecord>; note?: string } | null;
  /** A change of the order's fields without a status change, or null. */
  change: Partial<SwapRecord> | null;
  /** Payouts to commit. */
  payouts: PayoutIntent[];
  /**
   * Outbox rows to mark: `signed` (a review approved: broadcast the same bytes again), or `failed` from
   * `pending` (a refund not yet signed whose deposit left the chain: it must never go out).
   */
  payoutUpdates: Array<{ key: string; status: 'signed' | 'failed' }>;
  /** A route order finished: its partner's markup is earned. */
  earn: boolean;
  /** When the clock alone moves the swap next (a deadline); undefined: a deposit, the chain or a person will. */
  wakeAt: Date | undefined;
}

/** Why a swap was refunded or failed (`Swap.failureCode`). */
export const FAILURE_CODES = {
  outOfRange: 'amount_out_of_range',
  mismatch: 'amount_mismatch',
  late: 'late_deposit',
  slippage: 'slippage_exceeded',
  exchangeFailed: 'exchange_failed',
  payoutFailed: 'payout_failed',
  refundFailed: 'refund_failed',
  depositRemoved: 'deposit_removed',
  insufficientLiquidity: 'insufficient_liquidity',
  refundedInReview: 'refunded_by_review',
  failedInReview: 'failed_by_review',
  screeningHold: 'screening_hold',
} as const;

/**
 * A review decision (sandbox operation, operator CLI). `pay-again` (the CLI's): a new payout under the swap's
 * next payout key, once the current one is proven to have paid nothing; `approve` does the same then, and
 * otherwise carries the swap on (a payout held after an ambiguous broadcast goes out again, the same bytes).
 */
export type ReviewDecision = 'approve' | 'pay-again' | 'refund' | 'fail';

/** How soon a swap is looked at again when an extra payment's refund could not be priced. */
export const UNPRICED_REFUND_RETRY_MS = 60_000;

/** How soon a swap whose deposit's sender has no screening verdict yet is looked at again. */
export const SCREENING_RETRY_MS = 5_000;

const NOTHING: Decision = { transition: null, change: null, payouts: [], payoutUpdates: [], earn: false, wakeAt: undefined };

/** The key of the swap's own payout, its refund, and an extra deposit's refund. */
export const payoutKey = (swapId: string) => `${swapId}:payout`;
export const refundKey = (swapId: string, routeDepositId?: string, attempt = 1) =>
  `${swapId}:refund${routeDepositId ? `:${routeDepositId}` : ''}${attempt > 1 ? `#${attempt}` : ''}`;
/** The key of the `attempt`-th refund of an overpayment's excess (`refund_excess`). */
export const excessRefundKey = (swapId: string, attempt = 1) => `${swapId}:excess${attempt > 1 ? `#${attempt}` : ''}`;
/** The route deposit a route order's refund key names, if any. */
export const routeDepositOfRefund = (key: string): string | undefined => key.split(':refund:')[1]?.split('#')[0];
export const extraRefundKey = (swapId: string, output: { txHash: string; outputIndex: number }, attempt = 1) =>
  `${swapId}:extra:${output.txHash}:${output.outputIndex}${attempt > 1 ? `#${attempt}` : ''}`;
// The refunds of an extra deposit: the automatic one, and those an operator committed after it (`#n`).
const extraRefundsOf = (swapId: string, output: { txHash: string; outputIndex: number }, seen: Observations) => {
  const first = extraRefundKey(swapId, output);
  return seen.payouts.filter((p) => p.key === first || p.key.startsWith(`${first}#`));
};

/** Ended without paying anything, for certain: never taken (failed), or reverted or cancelled at finality. */
export function payoutIsDead(payout: PayoutObservation, payoutConfirmations: number): boolean {
  if (payout.status === 'failed') return true;
  return (payout.status === 'reverted' || payout.status === 'cancelled') && payout.confirmations >= payoutConfirmations;
}

/** Held for an operator: failed, in review, reverted or cancelled. */
const isHeld = (payout: PayoutObservation) =>
  payout.status === 'failed' || payout.status === 'review' || payout.status === 'reverted' || payout.status === 'cancelled';

// The swap's payout now: the newest under the swap's payout keys (an operator's "pay again" adds one).
const currentPayout = (seen: Observations) => seen.payouts.filter((p) => p.purpose === 'payout').at(-1);
// The refund of an overpayment's excess now (an operator's approval after a failed one adds one).
const currentExcessRefund = (seen: Observations) => seen.payouts.filter((p) => p.purpose === 'excess_refund').at(-1);

/** The key of the swap's `attempt`-th payout (the first has no suffix; an operator's "pay again" adds one). */
export const payoutKeyOf = (swapId: string, attempt: number) => `${payoutKey(swapId)}${attempt > 1 ? `#${attempt}` : ''}`;

/** The next step of `swap`. */
export function decide(swap: SwapRecord, seen: Observations, context: DecisionContext): Decision {
  const { deposits, cancelled } = account(swap, seen, context);
  const decided = decideStatus(swap, seen, context, deposits);
  const step =
    cancelled.length > 0
      ? { ...decided, payoutUpdates: [...cancelled.map((key) => ({ key, status: 'failed' as const })), ...decided.payoutUpdates] }
      : decided;
  // Any change of the deposits' accounting rides along with the step (or is the step).
  const changedDeposits = JSON.stringify(deposits) !== JSON.stringify(swap.deposits) ? { deposits } : {};
  if (step.transition) return { ...step, transition: { ...step.transition, fields: { ...changedDeposits, ...step.transition.fields } } };
  if (step.change || Object.keys(changedDeposits).length > 0) return { ...step, change: { ...changedDeposits, ...step.change } };
  return step;
}

// The deposits' accounting with what the ledger and the outbox show now: new outputs join (as the swap's or
// as extras), confirmations move, removals and refunds are recorded.
function account(swap: SwapRecord, seen: Observations, context: DecisionContext): { deposits: SwapDepositRecord[]; cancelled: string[] } {
  const cancelled: string[] = [];
  if (swap.routeId !== null) return { deposits: swap.deposits, cancelled };
  const required = swap.requiredConfirmations;
  const known = new Map(swap.deposits.map((d) => [`${d.txHash}:${d.outputIndex}`, d]));
  const waiting = swap.status === 'waiting' || swap.status === 'overdue';
  let swapDepositTaken = swap.deposits.some((d) => d.role === 'swap' && d.status !== 'removed');
  const result: SwapDepositRecord[] = [];
  for (const output of seen.outputs) {
    const id = `${output.txHash}:${output.outputIndex}`;
    const before = known.get(id);
    // An output that left the chain before it was seen, or that pays nothing (token spam), is no payment.
    if (!before && (output.removed || new Money(output.amount).isZero())) continue;
    // A swap that was confirming before deposits were accounted for names its deposit by hash. A payment of
    // another asset is never the swap's: it is an extra, returned in its own asset (or held).
    const foreign = !isOwnAsset(output, context);
    const role = before?.role ?? (!foreign && (output.txHash === swap.sourceTxHash || (waiting && !swapDepositTaken)) ? 'swap' : 'extra');
    if (role === 'swap' && !before) swapDepositTaken = true;
    const deposit: SwapDepositRecord = before
      ? { ...before }
      : {
          txHash: output.txHash,
          outputIndex: output.outputIndex,
          asset: output.asset ?? context.source.symbol,
          network: context.source.network,
          amount: output.amount,
          confirmationCount: 0,
          requiredConfirmations: required,
          role,
          status: 'confirming',
          refundTxHash: null,
          refundAmount: null,
          seenAt: output.seenAt.toISOString(),
          // A swap past confirming before deposits were accounted for: its deposit was credited, or refunded.
          ...(output.txHash === swap.sourceTxHash && !waiting && swap.status !== 'confirming' ? settledBefore(swap) : {}),
        };
    deposit.confirmationCount = Math.min(output.confirmations, required);
    // The swap's refund belongs to its current deposit only (not to one a reorganisation removed earlier).
    const refund =
      deposit.role === 'extra'
        ? latestOf(extraRefundsOf(swap.id, output, seen))
        : deposit.txHash === swap.sourceTxHash
          ? latestOf(seen.payouts.filter((p) => p.purpose === 'refund'))
          : undefined;
    if (refund) followRefund(deposit, refund);
    if (output.removed) {
      deposit.confirmationCount = 0;
      if (refund && refund.status === 'pending') {
        // Its refund is not signed yet: it is cancelled, and never goes out for money the chain took back.
        cancelled.push(refund.key);
        deposit.status = 'removed';
        deposit.refundAmount = null;
      } else if (refund && refund.status !== 'failed') {
        // Its refund may be on its way: an operator looks.
        deposit.status = 'review';
      } else if (deposit.status !== 'refunded') {
        deposit.status = 'removed';
      }
    } else if (deposit.status === 'removed') {
      // Mined again after all: counted afresh (as an extra when the swap took another meanwhile).
      deposit.status = 'confirming';
      if (deposit.role === 'swap' && swapDepositTaken) deposit.role = 'extra';
      else if (deposit.role === 'swap') swapDepositTaken = true;
    }
    result.push(deposit);
  }
  // Deposits the ledger no longer lists (never expected) stay as they were.
  for (const deposit of swap.deposits)
    if (!result.some((d) => d.txHash === deposit.txHash && d.outputIndex === deposit.outputIndex)) result.push(deposit);
  return { deposits: result, cancelled };
}

// How a deposit found for a swap that was past confirming before deposits were accounted for (an older
// version) stands: refunded with the swap's refund, or credited.
function settledBefore(swap: SwapRecord): Partial<SwapDepositRecord> {
  if (swap.status === 'refunded') return { status: 'refunded', refundTxHash: swap.refundTxHash, refundAmount: swap.refundAmount };
  return { status: 'credited' };
}

// The refund of a deposit being followed, of its refunds (oldest first): the one still in play (not
// failed), else the last that failed.
function latestOf(refunds: PayoutObservation[]): PayoutObservation | undefined {
  return refunds.filter((p) => p.status !== 'failed').at(-1) ?? refunds.at(-1);
}

// A deposit being returned follows its refund in the outbox: refunding until the chain accepted the
// refund's transaction, refunded from then on, and held for an operator when it failed.
function followRefund(deposit: SwapDepositRecord, refund: PayoutObservation) {
  const accepted = refund.status === 'broadcast' || refund.status === 'confirmed';
  // The hash is shown once the chain has the transaction: a signed one may yet be refused.
  deposit.refundTxHash = accepted ? refund.txHash : null;
  deposit.refundAmount = refund.amount;
  if (isHeld(refund)) deposit.status = 'review';
  else if (accepted) deposit.status = 'refunded';
  else deposit.status = 'refunding';
}

// Where an extra deposit goes back to: the refund address (with its memo), or the sender where the network
// names one and needs no memo; null where no destination is safe.
function extraRefundDestination(
  swap: SwapRecord,
  output: OutputObservation,
  source: CatalogAsset,
  foreign: boolean,
): { address: string; memo: string | null } | null {
  // A payment of another asset goes back to whoever sent it, where the network names one: the refund address
  // is the customer's for the swap's asset, and nothing says it takes this one.
  if (foreign) return output.fromAddress && !source.memoNeeded ? { address: output.fromAddress, memo: null } : null;
  if (swap.refundMode === 'address' && swap.refundAddress) return { address: swap.refundAddress, memo: swap.refundMemo };
  if (swap.refundMode === 'sender' && output.fromAddress && !source.memoNeeded) return { address: output.fromAddress, memo: null };
  return null;
}

function decideStatus(swap: SwapRecord, seen: Observations, context: DecisionContext, deposits: SwapDepositRecord[]): Decision {
  // Confirmed extra deposits without a refund yet: one refund each, of the payment less the network's payout
  // fee (or review where no destination is safe, or the remainder would not exceed the dust floor).
  const extraRefunds: PayoutIntent[] = [];
  // The source price, read once when a refund needs it; null: unavailable now.
  let sourcePrice: Amount | null | undefined;
  let unpriced = false;
  for (const deposit of deposits) {
    if (deposit.role !== 'extra' || deposit.status !== 'confirming' || deposit.confirmationCount < deposit.requiredConfirmations) continue;
    const output = seen.outputs.find((o) => o.txHash === deposit.txHash && o.outputIndex === deposit.outputIndex)!;
    const foreign = !isOwnAsset(output, context);
    // A payment of an asset the catalogue does not list on the network cannot be returned by the service.
    const asset = foreign ? findAsset(context.catalog, output.asset!, context.source.network) : context.source;
    const destination = asset ? extraRefundDestination(swap, output, asset, foreign) : null;
    // A refund to its sender waits for the sender's screening; one denied or held is never refunded to.
    const toSender =
      destination !== null && destination.address === output.fromAddress ? senderScreening(seen, output.fromAddress) : 'cleared';
    if (toSender === 'pending') continue;
    // Not above the asset's dust floor after the fee, a refund costs the hot wallet more than it returns (or
    // cannot be built at all): the payment is kept, recorded, for an operator to return or keep. A payment
    // not above the floor before the fee is held without a price.
    if (!asset || !destination || toSender === 'held' || new Money(deposit.amount).lessThanOrEqualTo(asset.dustFloor)) {
      deposit.status = 'review';
      continue;
    }
    if (!foreign && sourcePrice === undefined) sourcePrice = sourcePriceOrNull(seen);
    // A payment of another asset pays its own fee, priced in its own asset.
    const price = foreign ? priceOrNull(() => seen.prices.of!(asset.symbol)) : sourcePrice!;
    if (price === null) {
      // No price now: the payment stays confirming, and is refunded once one is (the swap's own step goes on).
      unpriced = true;
      continue;
    }
    const terms = refundTerms(context.catalog, asset, deposit.amount, price);
    if (terms.held) {
      deposit.status = 'review';
      continue;
    }
    deposit.status = 'refunding';
    deposit.refundAmount = terms.amount;
    extraRefunds.push({
      key: extraRefundKey(swap.id, output),
      purpose: 'extra_refund',
      asset,
      ...destination,
      amount: terms.amount,
    });
  }
  // The swap itself converts payments of its source asset only.
  const step = decideSwap(swap, { ...seen, outputs: seen.outputs.filter((o) => isOwnAsset(o, context)) }, context, deposits);
  const withRefunds = extraRefunds.length > 0 ? { ...step, payouts: [...extraRefunds, ...step.payouts] } : step;
  if (!unpriced) return withRefunds;
  const retry = new Date(context.now.getTime() + UNPRICED_REFUND_RETRY_MS);
  return { ...withRefunds, wakeAt: step.wakeAt && step.wakeAt < retry ? step.wakeAt : retry };
}

// The source price now, or null where it is unavailable.
function sourcePriceOrNull(seen: Observations): Amount | null {
  return priceOrNull(() => seen.prices.source());
}

// A price now, or null where it is unavailable (or none was given).
function priceOrNull(read: () => Amount): Amount | null {
  try {
    return read();
  } catch {
    return null;
  }
}

// Whether `output` pays the swap's source asset (the only one the swap converts).
const isOwnAsset = (output: OutputObservation, context: DecisionContext) =>
  output.asset === undefined || output.asset === context.source.symbol;

function decideSwap(swap: SwapRecord, seen: Observations, context: DecisionContext, deposits: SwapDepositRecord[]): Decision {
  const at = context.now;
  const own = deposits.find((d) => d.role === 'swap' && d.status !== 'removed');
  const removedOwn = deposits.some((d) => d.role === 'swap' && d.status === 'removed' && d.txHash === swap.sourceTxHash);
  // The swap's deposit left the chain while money for it may be on its way out: an operator looks.
  // A route order's: any deposit it converts.
  const ownGone =
    removedOwn ||
    seen.routeDeposits.some((d) => d.removed) ||
    seen.outputs.some(
      (o) =>
        o.removed &&
        o.txHash === swap.sourceTxHash &&
        deposits.some((d) => d.role === 'swap' && d.txHash === o.txHash && d.status === 'review'),
    );
  switch (swap.status) {
    case 'waiting':
    case 'overdue': {
      if (swap.depositAddress === null) return NOTHING; // the service allocates it first
      if (own) {
        const output = seen.outputs.find((o) => o.txHash === own.txHash && o.outputIndex === own.outputIndex)!;
        return transition('confirming', {
          sourceTxHash: own.txHash,
          receivedAmount: own.amount,
          receivedFrom: output.fromAddress ?? '',
          // By when the chain showed it, not when this step ran (the watcher may lag the deadline).
          lateDeposit: output.seenAt.getTime() >= swap.quoteExpiresAt.getTime(),
          confirmationCount: own.confirmationCount,
        });
      }
      if (swap.status === 'waiting') {
        if (at >= swap.quoteExpiresAt) return transition('overdue', {});
        return { ...NOTHING, wakeAt: swap.quoteExpiresAt };
      }
      if (at >= swap.expiresAt) return transition('expired', {});
      return { ...NOTHING, wakeAt: swap.expiresAt };
    }
    case 'confirming': {
      if (swap.routeId !== null) return NOTHING; // route polling moves its orders on from here
      if (ownGone && !removedOwn) return transition('review', { failureCode: FAILURE_CODES.depositRemoved });
      if (removedOwn) {
        // The deposit left the chain before it was credited: the swap waits again.
        const back = at >= swap.quoteExpiresAt ? 'overdue' : 'waiting';
        return transition(back, {
          sourceTxHash: null,
          receivedAmount: null,
          receivedFrom: null,
          lateDeposit: false,
          confirmationCount: null,
          failureCode: null,
        });
      }
      const refunding = refundStep(swap, seen, context);
      if (refunding) return refunding;
      const confirmations = own?.confirmationCount ?? 0;
      // A fixed rate is no free option: it holds only for a deposit confirmed before the confirmation
      // deadline. One still unconfirmed then is late, and lateDepositPolicy decides once it is confirmed.
      const rateHeld = swap.rateType === 'fixed' && !swap.lateDeposit && swap.confirmationDeadline !== null;
      if (rateHeld && at >= swap.confirmationDeadline!) {
        return transition('confirming', { lateDeposit: true });
      }
      if (confirmations < swap.requiredConfirmations) {
        if (confirmations > (swap.confirmationCount ?? 0)) return transition('confirming', { confirmationCount: confirmations });
        return rateHeld ? { ...NOTHING, wakeAt: swap.confirmationDeadline! } : NOTHING;
      }
      const held = screeningHold(swap, seen, context, deposits);
      if (held) return held;
      return decideConfirmed(swap, seen, context, deposits);
    }
    case 'exchanging':
    case 'sending': {
      if (ownGone && isAllowedTransition(swap.status, 'review')) {
        // A payout (or an overpayment's excess refund) not yet signed never goes out for a deposit the chain took back.
        const unsigned = seen.payouts.filter((p) => (p.purpose === 'payout' || p.purpose === 'excess_refund') && p.status === 'pending');
        return {
          ...transition('review', { failureCode: FAILURE_CODES.depositRemoved }),
          payoutUpdates: unsigned.map((p) => ({ key: p.key, status: 'failed' as const })),
        };
      }
      const refunding = refundStep(swap, seen, context);
      if (refunding) return refunding;
      return swap.status === 'exchanging' ? exchange(swap, seen, context, deposits) : settle(swap, seen, context);
    }
    case 'review': {
      const refunding = refundStep(swap, seen, context);
      if (refunding) return refunding;
      return NOTHING;
    }
    default:
      // accumulating belongs to route polling; terminal statuses never change (their extra deposits still do).
      return NOTHING;
  }
}

// The swap's refund in the outbox: once the chain accepted it the swap is refunded; a refund that failed goes
// to review. Null when there is none.
function refundStep(swap: SwapRecord, seen: Observations, context: DecisionContext): Decision | null {
  const refunds = seen.payouts.filter((p) => p.purpose === 'refund');
  if (refunds.length === 0) return null;
  // The refunds in play: a failed one was never broadcast (a review decision may commit another).
  const live = refunds.filter((p) => p.status !== 'failed');
  const toReview = () => (swap.status === 'review' ? NOTHING : transition('review', { failureCode: FAILURE_CODES.refundFailed }));
  if (live.length === 0 || live.some(isHeld)) return toReview();
  // A route order returns each of its deposits: one that has no refund in play is held.
  if (swap.routeId !== null && seen.routeDeposits.some((d) => !live.some((p) => routeDepositOfRefund(p.key) === d.id))) return toReview();
  if (live.some((p) => p.status !== 'broadcast' && p.status !== 'confirmed')) return NOTHING; // the sender is on it
  // Where a mined transaction can still pay nothing (EVM), the refund is made once a block holds it and its
  // receipt succeeded (a reverted one is `reverted`, held above); elsewhere once the chain accepted it.
  if (context.refundsNeedReceipts && live.some((p) => !(p.mined ?? p.confirmations > 0))) return NOTHING;
  // What the refunds returned (the deposit less the network fee, as each intent fixed it; a route order's, together).
  const returned = swap.routeId !== null ? live.reduce((sum, p) => sum.plus(p.amount), new Money(0)).toFixed() : live[0].amount;
  return transition('refunded', { refundTxHash: live[0].txHash, refundAmount: returned }, mismatchRefundNote(swap, context.source));
}

// How screening stands on `address` as a sender: cleared (allowed, or nothing to screen), held (denied, or held
// for review), or pending (screening is required and has no verdict on it yet).
function senderScreening(seen: Observations, address: string | null): 'cleared' | 'held' | 'pending' {
  if (!address) return 'cleared';
  const key = screeningKeyOf(address);
  // The worst verdict on it counts (a route's sender may have been allowed once, and denied since).
  const verdicts = seen.senderVerdicts?.filter((v) => v.addressKey === key) ?? [];
  if (verdicts.length > 0) return verdicts.every((v) => v.decision === 'allow') ? 'cleared' : 'held';
  return seen.screeningRequired ? 'pending' : 'cleared';
}

// Before a confirmed deposit is credited: a sender screening denied or held holds the swap for an operator
// (`screening_hold`), its deposit held with it; a sender not screened yet waits for its verdict. Null: cleared.
function screeningHold(swap: SwapRecord, seen: Observations, context: DecisionContext, deposits: SwapDepositRecord[]): Decision | null {
  const state = senderScreening(seen, swap.receivedFrom);
  if (state === 'cleared') return null;
  if (state === 'pending') return { ...NOTHING, wakeAt: new Date(context.now.getTime() + SCREENING_RETRY_MS) };
  credit(deposits, 'review');
  return transition('review', { confirmationCount: swap.requiredConfirmations, failureCode: FAILURE_CODES.screeningHold });
}

function decideConfirmed(swap: SwapRecord, seen: Observations, context: DecisionContext, deposits: SwapDepositRecord[]): Decision {
  const { catalog, source } = context;
  const received = new Money(swap.receivedAmount!);
  const confirmed = { confirmationCount: swap.requiredConfirmations };
  credit(deposits, 'credited');
  if (usdValue(received, seen.prices.source()).greaterThan(catalog.limitsUsd.automaticMaximum)) {
    credit(deposits, 'review');
    return transition('review', confirmed);
  }
  const limits = sourceLimits(catalog, source, seen.prices.source());
  if (received.lessThan(limits.minimumSourceAmount) || received.greaterThan(limits.maximumSourceAmount)) {
    return refund(swap, seen, context, deposits, FAILURE_CODES.outOfRange, confirmed);
  }
  if (swap.lateDeposit && swap.lateDepositPolicy === 'refund') return refund(swap, seen, context, deposits, FAILURE_CODES.late, confirmed);
  if (swap.rateType === 'fixed' && !swap.lateDeposit && !received.equals(swap.depositAmount)) {
    return mismatched(swap, seen, context, deposits, received, confirmed);
  }
  return transition('exchanging', confirmed);
}

// A fixed-rate deposit in time and within the limits, of another amount than depositAmount: the swap's
// amountMismatchPolicy decides, and the timeline entry of the step says which rule applied and why.
// `market_rate` exchanges what arrived at the market (exchange(), as any deposit the quote does not hold for);
// `refund_excess` pays the quoted output for an overpayment and returns the excess less the network fee,
// fixed here, once (exchange() commits it with the payout; below the dust floor it is kept, and said so); an
// underpayment under it, and any mismatch under `refund`, is refunded.
function mismatched(
  swap: SwapRecord,
  seen: Observations,
  context: DecisionContext,
  deposits: SwapDepositRecord[],
  received: Amount,
  confirmed: Partial<SwapRecord>,
): Decision {
  const { source, destination } = context;
  const policy = swap.amountMismatchPolicy ?? 'refund';
  const over = received.greaterThan(swap.depositAmount);
  const arrived = `${over ? 'Overpaid' : 'Underpaid'}: ${received.toFixed()} ${source.symbol} arrived, not the depositAmount of ${swap.depositAmount} ${source.symbol}`;
  if (policy === 'market_rate') {
    return transition(
      'exchanging',
      confirmed,
      `${arrived}. amountMismatchPolicy market_rate: what arrived is exchanged at the market rate.`,
    );
  }
  if (policy === 'refund_excess' && over) {
    const excess = received.minus(swap.depositAmount).toFixed();
    const paid = `${arrived}. amountMismatchPolicy refund_excess: the quoted ${swap.expectedOutputAmount} ${destination.symbol} is paid for ${swap.depositAmount} ${source.symbol}`;
    const address = refundAddressOf(swap);
    if (!address) {
      return transition(
        'exchanging',
        { ...confirmed, excessRefundAmount: null },
        `${paid}; the excess of ${excess} ${source.symbol} is kept: the network named no sender to return it to.`,
      );
    }
    const terms = refundTerms(context.catalog, source, excess, seen.prices.source());
    if (terms.held) {
      return transition(
        'exchanging',
        { ...confirmed, excessRefundAmount: null },
        `${paid}; the excess of ${excess} ${source.symbol} is kept: less the network fee of ${terms.fee} ${source.symbol} it leaves ${terms.remainder}, not above the dust floor of ${source.dustFloor} ${source.symbol}.`,
      );
    }
    return transition(
      'exchanging',
      { ...confirmed, excessRefundAmount: terms.amount },
      `${paid}, and the excess of ${excess} ${source.symbol} goes back less the network fee of ${terms.fee} ${source.symbol}: ${terms.amount} ${source.symbol} (excessRefundAmount).`,
    );
  }
  return refund(swap, seen, context, deposits, FAILURE_CODES.mismatch, confirmed);
}

// The note of a refunded swap whose amountMismatchPolicy refunded it.
function mismatchRefundNote(swap: SwapRecord, source: CatalogAsset): string | undefined {
  if (swap.failureCode !== FAILURE_CODES.mismatch || swap.receivedAmount === null) return undefined;
  const policy = swap.amountMismatchPolicy ?? 'refund';
  const under = new Money(swap.receivedAmount).lessThan(swap.depositAmount);
  return `${under ? 'Underpaid' : 'Overpaid'}: ${swap.receivedAmount} ${source.symbol} arrived, not the depositAmount of ${swap.depositAmount} ${source.symbol}. amountMismatchPolicy ${policy}: ${policy === 'refund' ? 'a deposit of another amount' : 'an underpayment'} is returned, less the network fee.`;
}

// Marks the swap's own deposit.
function credit(deposits: SwapDepositRecord[], status: SwapDepositRecord['status']) {
  const own = deposits.find((d) => d.role === 'swap' && d.status !== 'removed');
  if (own) own.status = status;
}

// Commits the refund of the swap's deposit (each of a route order's deposits back to its sender), less the
// network's payout fee; the swap is refunded once the outbox has signed them (refundStep). Where no refund
// can be made (no sender to return it to, or a remainder not above the dust floor), the deposit is held
// for an operator, and the swap goes to review with the code it would have been refunded with.
function refund(
  swap: SwapRecord,
  seen: Observations,
  context: DecisionContext,
  deposits: SwapDepositRecord[],
  failureCode: string,
  fields: Partial<SwapRecord> = {},
  to?: RefundDestination,
): Decision {
  const own = deposits.find((d) => d.role === 'swap' && d.status !== 'removed');
  const address = to?.address ?? refundAddressOf(swap);
  const hold = () => {
    if (own) own.status = 'review';
    const held = { ...fields, failureCode };
    return swap.status === 'review' ? { ...NOTHING, change: held } : transition('review', held);
  };
  // The network named no single sender to return it to, or screening denied or held the sender: the deposit
  // is held for an operator (who may name where it goes instead: `to`).
  if (!to && (swap.routeId === null ? !address || refundsToHeldSender(swap, seen) : !routeSendersRefundable(seen))) return hold();
  const payouts = refundIntents(swap, seen, context, address, to);
  if (!Array.isArray(payouts)) return hold();
  if (own && payouts.length > 0) {
    own.status = 'refunding';
    own.refundAmount = payouts[0].amount;
  }
  const refunds = seen.payouts.filter((p) => p.purpose === 'refund');
  if (payouts.length === 0 && refunds.every((p) => p.status === 'failed'))
    return transition('refunded', { ...fields, failureCode, refundTxHash: null, refundAmount: swap.receivedAmount });
  return { ...NOTHING, change: { ...fields, failureCode }, payouts };
}

// Whether the swap's own refund would go to a sender that screening did not clear.
const refundsToHeldSender = (swap: SwapRecord, seen: Observations) =>
  swap.refundMode === 'sender' && senderScreening(seen, swap.receivedFrom) !== 'cleared';

// Whether each of a route order's deposits can go back to its sender: the payment named one, and screening cleared it.
const routeSendersRefundable = (seen: Observations) =>
  seen.routeDeposits.every((d) => d.fromAddress !== '') && heldRouteSenders(seen).length === 0;

// The senders of a route order's deposits (each refunded to its sender) that screening did not clear.
const heldRouteSenders = (seen: Observations) => [
  ...new Set(seen.routeDeposits.filter((d) => senderScreening(seen, d.fromAddress) !== 'cleared').map((d) => d.fromAddress)),
];

// Where the swap's own refund goes: the refund address, or the sender the network named (null: none).
const refundAddressOf = (swap: SwapRecord) => (swap.refundMode === 'address' ? swap.refundAddress : swap.receivedFrom) || null;

// The refunds of the swap's deposit (or of each of a route order's deposits that has no refund in play): each
// the deposit less the source network's payout fee at the source price now (pricing.ts refundTerms; the
// price throws when it is unavailable, and with it the step, which is taken again). `held`, with why, where
// a remainder would not exceed the dust floor: then none is made.
function refundIntents(
  swap: SwapRecord,
  seen: Observations,
  context: DecisionContext,
  address: string | null,
  to?: RefundDestination,
): PayoutIntent[] | { held: string } {
  const { catalog, source } = context;
  const terms = (amount: string) => refundTerms(catalog, source, amount, seen.prices.source());
  const dust = (what: string, amount: string, t: { fee: string; remainder: string }) =>
    `${what} of ${amount} ${source.symbol} less the network fee of ${t.fee} ${source.symbol} leaves ${t.remainder}, not above the dust floor of ${source.dustFloor} ${source.symbol}`;
  // A refund once committed is followed by refundStep and followRefund; one committed again after a failed
  // one (a review decision) is a new payment, under the next key.
  const refunds = seen.payouts.filter((p) => p.purpose === 'refund');
  if (swap.routeId === null) {
    const t = terms(swap.receivedAmount!);
    if (t.held) return { held: dust('The deposit', swap.receivedAmount!, t) };
    return [
      {
        key: refundKey(swap.id, undefined, refunds.length + 1),
        purpose: 'refund',
        asset: source,
        address: address!,
        memo: to ? to.memo : swap.refundMode === 'address' ? swap.refundMemo : null,
        amount: t.amount,
      },
    ];
  }
  // A route order returns each deposit that has no refund in play, under that deposit's next key.
  const attemptOf = (depositId: string) => refunds.filter((p) => routeDepositOfRefund(p.key) === depositId).length + 1;
  const unrefunded = seen.routeDeposits.filter((d) => !refunds.some((p) => p.status !== 'failed' && routeDepositOfRefund(p.key) === d.id));
  const payouts: PayoutIntent[] = [];
  for (const deposit of unrefunded) {
    const t = terms(deposit.amount);
    if (t.held) return { held: dust(`Route deposit ${deposit.id}`, deposit.amount, t) };
    payouts.push({
      key: refundKey(swap.id, deposit.id, attemptOf(deposit.id)),
      purpose: 'refund',
      asset: source,
      address: to?.address ?? deposit.fromAddress,
      memo: to?.memo ?? null,
      amount: t.amount,
      routeDepositId: deposit.id,
    });
  }
  return payouts;
}

// In `exchanging`: prices the payout once and commits it; the swap is `sending` once the outbox signed it.
function exchange(swap: SwapRecord, seen: Observations, context: DecisionContext, deposits: SwapDepositRecord[]): Decision {
  const payout = currentPayout(seen);
  if (payout) {
    // Proved never taken (refused for good, or never buildable; its hash is cleared): an operator decides.
    if (payout.status === 'failed') return transition('review', { failureCode: FAILURE_CODES.payoutFailed });
    // Signed: the swap is sending (then settle() follows the broadcast, or holds it for review).
    if (payout.txHash !== null) return transition('sending', { settlementTxHash: payout.txHash });
    if (isHeld(payout)) return transition('review', { failureCode: FAILURE_CODES.payoutFailed });
    return NOTHING; // the sender signs it
  }
  const { catalog, destination } = context;
  // Refunded whole, an overpayment's excess is not returned apart.
  const noExcess = swap.excessRefundAmount !== null ? { excessRefundAmount: null } : {};
  if (seen.exchangeRefusal !== null) return refund(swap, seen, context, deposits, FAILURE_CODES.exchangeFailed, noExcess);
  const received = new Money(swap.receivedAmount!);
  let output: string;
  let routeTerms: Partial<SwapRecord> = {};
  // The quote guarantees its amount for exactly depositAmount before the deadline; anything else (an
  // approved review of another amount, a late deposit) is exchanged at the market.
  if (swap.routeId !== null) {
    // A route order converts at the market, at the fee terms of its route (markup included).
    const terms = priceRouteOrder({
      destination,
      sourceAmount: received,
      sourcePriceUsd: seen.prices.source(),
      destinationPriceUsd: seen.prices.destination(),
      feePercent: swap.feePercent!,
      feeFloorUsd: swap.feeFloorUsd!,
      markupPercent: swap.markupPercent!,
    });
    output = terms.receiveAmount;
    routeTerms = { feeUsd: terms.feeUsd, markupAmount: terms.markupAmount, markupUsd: terms.markupUsd };
  } else if (
    swap.rateType === 'fixed' &&
    !swap.lateDeposit &&
    (received.equals(swap.depositAmount) || overpaidUnderRefundExcess(swap, received))
  ) {
    // Exactly depositAmount, or an overpayment under refund_excess (its excess goes back apart): the quoted output.
    output = swap.expectedOutputAmount!;
  } else {
    output = priceTerms(catalog, {
      destination,
      sourceAmount: received,
      sourcePriceUsd: seen.prices.source(),
      destinationPriceUsd: seen.prices.destination(),
      rateType: 'floating',
    }).receiveAmount;
    if (swap.rateType === 'floating' && !swap.lateDeposit && swap.minimumOutputAmount !== null) {
      // The slippage bound scales with what actually arrived.
      const minimum = new Money(swap.minimumOutputAmount).times(received).div(swap.depositAmount);
      if (new Money(output).lessThan(minimum.toDecimalPlaces(destination.precision, Money.ROUND_DOWN))) {
        return refund(swap, seen, context, deposits, FAILURE_CODES.slippage);
      }
    }
  }
  if (new Money(output).isZero()) return refund(swap, seen, context, deposits, FAILURE_CODES.outOfRange, noExcess);
  // The hot wallet cannot cover it now: an operator funds it (then approves) or refunds; it never waits silently.
  if (seen.payable !== undefined && seen.payable.lessThan(output)) {
    return transition('review', { failureCode: FAILURE_CODES.insufficientLiquidity });
  }
  const intent: PayoutIntent = {
    key: payoutKey(swap.id),
    purpose: 'payout',
    asset: destination,
    address: swap.destination,
    memo: swap.destinationMemo,
    amount: output,
  };
  // An overpayment's excess (refund_excess) goes back with the payout, at the amount fixed when it was credited;
  // one credited another way (an operator approved it in review) is priced now, by the same rule. Never to a
  // sender screening did not clear (an operator approved the swap it held): that excess stays for them.
  let excessAmount = swap.excessRefundAmount;
  if (excessAmount === null && overpaidUnderRefundExcess(swap, received) && refundAddressOf(swap) && !refundsToHeldSender(swap, seen)) {
    const terms = refundTerms(catalog, context.source, received.minus(swap.depositAmount).toFixed(), seen.prices.source());
    if (!terms.held) excessAmount = terms.amount;
  }
  const excess =
    excessAmount !== null && !currentExcessRefund(seen)
      ? [excessRefundIntent({ ...swap, excessRefundAmount: excessAmount }, context, 1)]
      : [];
  const fixed = excessAmount !== swap.excessRefundAmount ? { excessRefundAmount: excessAmount } : {};
  return { ...NOTHING, change: { ...routeTerms, ...fixed, actualOutputAmount: output }, payouts: [intent, ...excess] };
}

// A fixed-rate deposit in time, above depositAmount, of a swap whose policy returns the excess.
const overpaidUnderRefundExcess = (swap: SwapRecord, received: Amount) =>
  swap.rateType === 'fixed' &&
  !swap.lateDeposit &&
  swap.amountMismatchPolicy === 'refund_excess' &&
  received.greaterThan(swap.depositAmount);

// The `attempt`-th refund of an overpayment's excess: excessRefundAmount to the swap's refund destination.
function excessRefundIntent(swap: SwapRecord, context: DecisionContext, attempt: number): PayoutIntent {
  return {
    key: excessRefundKey(swap.id, attempt),
    purpose: 'excess_refund',
    asset: context.source,
    address: refundAddressOf(swap)!,
    memo: swap.refundMode === 'address' ? swap.refundMemo : null,
    amount: swap.excessRefundAmount!,
  };
}

// In `sending`: finished once the watcher saw the payout confirmed.
function settle(swap: SwapRecord, seen: Observations, context: DecisionContext): Decision {
  const payout = currentPayout(seen);
  // Sent by a version before the outbox (no payout row): it settled one block after it was sent.
  if (!payout) return { ...transition('finished', {}), earn: swap.routeId !== null };
  // It paid nothing (never went out, reverted, its nonce cancelled): its hash names no payment. Held.
  if (payout.status === 'failed' || payout.status === 'reverted' || payout.status === 'cancelled') {
    return transition('review', { failureCode: FAILURE_CODES.payoutFailed, settlementTxHash: null });
  }
  if (payout.status === 'review') return transition('review', { failureCode: FAILURE_CODES.payoutFailed });
  // An overpayment's excess going back (refund_excess): the swap shows its hash once the chain accepted it,
  // goes to review when it is held, and is finished only once it is made (as refundStep makes a refund).
  const excess = currentExcessRefund(seen);
  const excessAccepted = excess !== undefined && (excess.status === 'broadcast' || excess.status === 'confirmed');
  const excessFields = excessAccepted && excess.txHash !== swap.excessRefundTxHash ? { excessRefundTxHash: excess.txHash } : {};
  if (excess && isHeld(excess)) {
    return transition(
      'review',
      { failureCode: FAILURE_CODES.refundFailed },
      `The refund of the excess (${excess.amount} ${context.source.symbol}) is ${excess.status}: an operator sends it again or decides.`,
    );
  }
  const excessMade = !excess || (excessAccepted && (!context.refundsNeedReceipts || (excess.mined ?? excess.confirmations > 0)));
  const paid = payout.status === 'confirmed' || (payout.status === 'broadcast' && payout.confirmations >= context.payoutConfirmations);
  if (paid && excessMade) {
    // Whichever version was mined is the payout: the swap names it.
    return {
      ...transition('finished', {
        ...(payout.txHash !== swap.settlementTxHash ? { settlementTxHash: payout.txHash } : {}),
        ...excessFields,
      }),
      earn: swap.routeId !== null,
    };
  }
  // A replacement at a higher fee is the payout's newest version: the swap shows the hash that may be mined.
  const replaced = payout.txHash !== null && payout.txHash !== swap.settlementTxHash ? { settlementTxHash: payout.txHash } : {};
  const change = { ...replaced, ...excessFields };
  return Object.keys(change).length > 0 ? { ...NOTHING, change } : NOTHING;
}

/** Where an operator returns a deposit instead of where the swap's refund would go (checked for the source network). */
export interface RefundDestination {
  address: string;
  memo: string | null;
}

/** The step a review decision takes. */
export function decideReview(
  swap: SwapRecord,
  decision: ReviewDecision,
  seen: Observations,
  context: DecisionContext,
  refundTo?: RefundDestination,
): Decision | { refused: string } {
  const deposits = swap.deposits.map((d) => ({ ...d }));
  const { payoutConfirmations } = context;
  // In play: anything not proven to have paid nothing (a reverted or cancelled one counts once final).
  const live = (purpose: PayoutObservation['purpose']) =>
    seen.payouts.filter((p) => p.purpose === purpose && !payoutIsDead(p, payoutConfirmations));
  const payout = currentPayout(seen);
  const unfinal = (p: PayoutObservation) =>
    `Payout ${p.txHash} is ${p.status} with ${p.confirmations} of ${payoutConfirmations} confirmations: until it is final a reorganisation could still make it pay. Decide again then.`;
  // The swap's payout is made or in play, and only the refund of its overpayment's excess is held.
  const excess = currentExcessRefund(seen);
  const depositGone =
    swap.routeId === null && swap.sourceTxHash !== null && !deposits.some((d) => d.role === 'swap' && d.status !== 'removed');
  if (excess && isHeld(excess) && payout && !payoutIsDead(payout, payoutConfirmations)) {
    if (decision === 'approve' && depositGone) {
      return {
        refused: 'The deposit of this swap left the chain (a reorganisation): its excess is not sent again. Fail the swap instead.',
      };
    }
    if (decision === 'refund' || decision === 'pay-again') {
      return {
        refused: `The payout of this swap is ${payout.status}${payout.txHash ? ` (${payout.txHash})` : ''}; only the refund of its excess is held. Approve to send the excess again, or fail the swap to keep it for support.`,
      };
    }
    if (decision === 'approve') {
      // The same bytes again after an ambiguous broadcast; a new refund (the next key) once the held one surely paid nothing.
      const again = payout.status === 'review' ? [{ key: payout.key, status: 'signed' as const }] : [];
      if (excess.status === 'review') {
        return { ...transition('exchanging', { failureCode: null }), payoutUpdates: [...again, { key: excess.key, status: 'signed' }] };
      }
      if (!payoutIsDead(excess, payoutConfirmations)) return { refused: unfinal(excess) };
      const attempt = seen.payouts.filter((p) => p.purpose === 'excess_refund').length + 1;
      return {
        ...transition('exchanging', { failureCode: null }),
        payoutUpdates: again,
        payouts: [excessRefundIntent(swap, context, attempt)],
      };
    }
  }
  if (decision === 'pay-again' && (!payout || !payoutIsDead(payout, payoutConfirmations))) {
    if (payout && (payout.status === 'reverted' || payout.status === 'cancelled')) return { refused: unfinal(payout) };
    return {
      refused: payout
        ? `The payout of this swap is ${payout.status}${payout.txHash ? ` (${payout.txHash})` : ''}: it is not proven to have paid nothing, so paying again could pay twice.${payout.status === 'review' ? ' Approve to broadcast the same payout again (it cannot pay twice), or wait: a held EVM payout that stalls later ones is cancelled, and can then be paid again.' : ''}`
        : 'This swap has no payout to pay again; approve it to exchange and pay.',
    };
  }
  if (
    decision === 'approve' &&
    payout &&
    (payout.status === 'reverted' || payout.status === 'cancelled') &&
    !payoutIsDead(payout, payoutConfirmations)
  ) {
    return { refused: unfinal(payout) };
  }
  if ((decision === 'approve' || decision === 'pay-again') && live('refund').length > 0) {
    return { refused: 'A refund of this swap is committed (it may be on its way); approving would pay twice. Fail the swap instead.' };
  }
  if (refundTo && decision !== 'refund') return { refused: 'Only a refund takes an address to return the deposit to.' };
  if (decision === 'refund' && !refundTo && swap.routeId === null && refundsToHeldSender(swap, seen)) {
    const verdict = seen.senderVerdicts?.find((v) => v.addressKey === screeningKeyOf(swap.receivedFrom!));
    return {
      refused: `The deposit's sender ${swap.receivedFrom} is ${verdict ? `${verdict.decision === 'deny' ? 'denied' : 'held for review'} by address screening (${verdict.reason?.slice(0, 200) ?? 'no reason given'})` : 'not screened yet'}, and refundMode sender would refund to it: the service never refunds to a sender screening did not allow. Approve the swap if screening was wrong, refund it to another address the customer gave (--to), or fail it (the deposit stays held for support to return as the law allows).`,
    };
  }
  if (decision === 'refund' && !refundTo && swap.routeId !== null && seen.routeDeposits.some((d) => d.fromAddress === '')) {
    return {
      refused: `A deposit of this route order names no sender to return it to (${seen.routeDeposits.find((d) => d.fromAddress === '')!.id}: its network hides senders, or the payment had several). Refund it to an address the customer gave (--to), or fail it.`,
    };
  }
  if (decision === 'refund' && !refundTo && swap.routeId !== null && heldRouteSenders(seen).length > 0) {
    return {
      refused: `A deposit of this route order came from ${heldRouteSenders(seen).join(', ')}, which address screening did not allow, and a route order is refunded to each deposit's sender: the service never refunds to a sender screening did not allow. Approve the order if screening was wrong, refund it to another address the customer gave (--to), or fail it (the deposit stays held for support to return as the law allows).`,
    };
  }
  // An overpayment's excess went back (or may have): a refund of the whole deposit would pay it twice.
  if (decision === 'refund' && live('excess_refund').length > 0) {
    return {
      refused: `The excess of this swap's deposit was returned, or may have been (${live('excess_refund').at(-1)!.status}): refunding the whole deposit would pay it twice. Pay again, or fail the swap.`,
    };
  }
  if (decision === 'refund' && live('refund').some((p) => p.status === 'pending' || p.status === 'signed')) {
    return { refused: 'A refund of this swap is already on its way; refunding again would pay twice.' };
  }
  const held = live('refund').filter((p) => p.status === 'review');
  if (decision === 'refund' && held.length > 0 && refundTo) {
    return {
      refused: `A refund of this swap to ${held.map((p) => p.key).join(', ')} is held after a broadcast of unknown outcome: it may still pay, so it goes out again as it was (refund without an address), never to another one.`,
    };
  }
  if (decision === 'refund' && held.length > 0) {
    // Held for an ambiguous broadcast: the same refund goes out again (the same bytes cannot pay twice).
    return {
      ...NOTHING,
      change: { failureCode: FAILURE_CODES.refundedInReview },
      payoutUpdates: held.map((p) => ({ key: p.key, status: 'signed' as const })),
    };
  }
  if (decision === 'refund' && live('payout').length > 0) {
    const p = live('payout').at(-1)!;
    if (p.status === 'reverted' || p.status === 'cancelled') return { refused: unfinal(p) };
    return {
      refused:
        'The payout of this swap is signed (it may be on the chain); refunding would pay twice. Approve to broadcast the same payout again, or fail the swap.',
    };
  }
  if (
    decision !== 'fail' &&
    swap.routeId === null &&
    swap.sourceTxHash !== null &&
    !deposits.some((d) => d.role === 'swap' && d.status !== 'removed')
  ) {
    return {
      refused: `The deposit of this swap left the chain (a reorganisation): there is nothing to ${decision === 'refund' ? 'refund' : 'exchange'}. Fail the swap instead.`,
    };
  }
  if (decision !== 'fail' && seen.routeDeposits.some((d) => d.removed)) {
    return {
      refused: `A deposit of this route order left the chain (a reorganisation): it cannot be ${decision === 'refund' ? 'refunded' : 'exchanged'} unless a block holds it again. Wait, or fail the order.`,
    };
  }
  if ((decision === 'approve' || decision === 'pay-again') && payout && payoutIsDead(payout, payoutConfirmations)) {
    // The payout paid nothing, for certain: a new one, the same amount to the same destination, under the
    // swap's next payout key (the outbox never sends one key twice).
    credit(deposits, 'credited');
    const attempt = seen.payouts.filter((p) => p.purpose === 'payout').length + 1;
    return {
      ...transition('exchanging', { deposits, failureCode: null, settlementTxHash: null }),
      payouts: [
        {
          key: payoutKeyOf(swap.id, attempt),
          purpose: 'payout',
          asset: context.destination,
          address: swap.destination,
          memo: swap.destinationMemo,
          amount: swap.actualOutputAmount ?? payout.amount,
        },
      ],
    };
  }
  if (decision === 'approve' || decision === 'pay-again') {
    credit(deposits, 'credited');
    // A payout held for an ambiguous broadcast: the same bytes go out again (they cannot pay twice).
    const heldPayout = payout?.status === 'review' ? payout : undefined;
    return {
      ...transition('exchanging', { deposits, failureCode: null }),
      payoutUpdates: heldPayout ? [{ key: heldPayout.key, status: 'signed' }] : [],
    };
  }
  if (decision === 'refund') {
    // Nothing above the dust floor would go back after the network fee: the deposit stays held.
    const address = refundTo?.address ?? refundAddressOf(swap);
    const planned = swap.routeId !== null || address ? refundIntents(swap, seen, context, address, refundTo) : [];
    if (!Array.isArray(planned)) {
      return { refused: `${planned.held}: a refund would return nothing. Fail the swap to keep the deposit for support, or approve it.` };
    }
    // Refunded whole, an overpayment's excess is not returned apart.
    const noExcess = swap.excessRefundAmount !== null ? { excessRefundAmount: null } : {};
    const step = refund(swap, seen, context, deposits, FAILURE_CODES.refundedInReview, noExcess, refundTo);
    return step.transition ? step : { ...step, change: { ...step.change, deposits } };
  }
  return transition('failed', { failureCode: FAILURE_CODES.failedInReview });
}

/**
 * An operator's return of a payment held for them: an extra deposit no safe destination could take back, or
 * whose refund failed, gets a refund to `destination` (checked by the caller for the source network) under
 * the deposit's next refund key; one whose refund is held after an ambiguous broadcast gets that same refund
 * broadcast again (`'rebroadcast'`: the same signed bytes, which cannot pay twice). Refused for a payment that
 * is not held, or whose refund is in play, or where the other kind of return is the one that fits.
 */
export function decideHeldPayment(
  swap: SwapRecord,
  payment: { txHash: string; outputIndex: number },
  destination: { address: string; memo: string | null } | 'rebroadcast',
  seen: Observations,
  context: DecisionContext,
): Decision | { refused: string } {
  const { deposits, cancelled } = account(swap, seen, context);
  const name = `${payment.txHash}:${payment.outputIndex}`;
  const deposit = deposits.find((d) => d.txHash === payment.txHash && d.outputIndex === payment.outputIndex);
  if (!deposit) return { refused: `No payment ${name} to the deposit address of swap ${swap.id}.` };
  if (deposit.role !== 'extra' || deposit.status !== 'review') {
    return {
      refused: `Payment ${name} is ${deposit.role === 'swap' ? "the swap's own deposit" : 'an extra payment'}, ${deposit.status}: not a payment held for an operator${deposit.role === 'swap' ? ' (a swap in review is decided with review decide)' : ''}.`,
    };
  }
  const refunds = extraRefundsOf(swap.id, deposit, seen);
  const live = refunds.find((p) => p.status !== 'failed');
  // Refunds of other payments the chain took back meanwhile are cancelled, as decide() does.
  const cancellations = cancelled.map((key) => ({ key, status: 'failed' as const }));
  if (live?.status === 'review') {
    if (destination !== 'rebroadcast') {
      return {
        refused: `The refund of payment ${name} (${live.txHash}) is held after a broadcast whose outcome is unknown: it may be on the chain, so no other refund is made. Return it with --rebroadcast (the same refund again, which cannot pay twice).`,
      };
    }
    deposit.status = 'refunding';
    deposit.refundAmount = live.amount;
    return { ...NOTHING, change: { deposits }, payoutUpdates: [...cancellations, { key: live.key, status: 'signed' }] };
  }
  if (live) {
    return {
      refused: `A refund of payment ${name} is committed (${live.status}${live.txHash ? `, ${live.txHash}` : ''}); returning it again could pay twice.`,
    };
  }
  if (destination === 'rebroadcast') {
    return { refused: `Payment ${name} has no refund held after an ambiguous broadcast to send again; give the address to return it to.` };
  }
  // A payment of another asset goes back in that asset.
  const asset = deposit.asset === undefined ? context.source : findAsset(context.catalog, deposit.asset, context.source.network);
  if (!asset)
    return { refused: `Payment ${name} is of ${deposit.asset}, which the catalogue does not list: the service cannot pay it back.` };
  deposit.status = 'refunding';
  deposit.refundAmount = deposit.amount;
  deposit.refundTxHash = null;
  return {
    ...NOTHING,
    change: { deposits },
    payoutUpdates: cancellations,
    payouts: [
      {
        key: extraRefundKey(swap.id, deposit, refunds.length + 1),
        purpose: 'extra_refund',
        asset,
        address: destination.address,
        memo: destination.memo,
        amount: deposit.amount,
      },
    ],
  };
}

function transition(to: SwapStatus, fields: Partial<SwapRecord>, note?: string): Decision {
  return { ...NOTHING, transition: note === undefined ? { to, fields } : { to, fields, note } };
}
