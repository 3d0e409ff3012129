/**
 * Swaps as stored and as partners see them: the record types the store returns and their conversion to the
 * spec's Swap and SwapEvent bodies (the same shape in responses, the stream and webhooks).
 */
import type { components } from '../../generated/api.js';
import { attributesOf, STATUS_ATTRIBUTES, type SwapStatus } from './swap-lifecycle.js';

/** The spec's Swap body. */
export type SwapBody = components['schemas']['Swap'];
/** The spec's SwapEvent body. */
export type SwapEventBody = components['schemas']['SwapEvent'];
/** The spec's SwapDeposit body: one payment to a swap's deposit address. */
export type SwapDepositBody = components['schemas']['SwapDeposit'];
/** A one-time swap's rule for a fixed-rate deposit of another amount than `depositAmount`. */
export type AmountMismatchPolicy = components['schemas']['AmountMismatchPolicy'];
/** What became of a payment to a swap's deposit address. */
export type SwapDepositStatus = SwapDepositBody['status'];

/** Version (date) of the terms new swaps are created under. */
export const TERMS_VERSION = '2026-06-01';

/** A stored swap. Amounts are decimal strings. */
export interface SwapRecord {
  id: string;
  partnerId: string;
  quoteId: string | null;
  mode: 'standard' | 'permanent';
  externalUser: string;
  sourceAsset: string;
  sourceNetwork: string;
  destinationAsset: string;
  destinationNetwork: string;
  destination: string;
  destinationMemo: string | null;
  refundMode: 'sender' | 'address';
  refundAddress: string | null;
  refundMemo: string | null;
  rateType: 'fixed' | 'floating';
  sourceAmount: string;
  depositAmount: string;
  expectedOutputAmount: string | null;
  minimumOutputAmount: string | null;
  actualOutputAmount: string | null;
  quotedRate: string;
  feeUsd: string | null;
  depositAddress: string | null;
  depositMemo: string | null;
  /**
   * The compact JWS over the swap's deposit instructions (domain/signed-instructions.ts), stored with its deposit
   * address; null before it, and on route orders (their address is signed by the route's `addresses_jws`).
   */
  depositInstructionsJws: string | null;
  sourceTxHash: string | null;
  receivedAmount: string | null;
  receivedFrom: string | null;
  lateDeposit: boolean;
  confirmationCount: number | null;
  requiredConfirmations: number;
  settlementTxHash: string | null;
  refundTxHash: string | null;
  refundAmount: string | null;
  quoteExpiresAt: Date;
  /**
   * One-time swaps: a deposit seen before `quoteExpiresAt` must be confirmed before this for a fixed rate to
   * hold (later, it is a late deposit), and the swap's liquidity reservation ends then. Null: a route order.
   */
  confirmationDeadline: Date | null;
  expiresAt: Date;
  lateDepositPolicy: 'refund' | 'market_rate';
  /** A one-time swap's rule for a fixed-rate deposit of another amount (swap-decision.ts); null: a route order. */
  amountMismatchPolicy: AmountMismatchPolicy | null;
  /** Under `refund_excess`, what goes back of an overpayment (fixed when committed), and its transaction once accepted. */
  excessRefundAmount: string | null;
  excessRefundTxHash: string | null;
  status: SwapStatus;
  failureCode: string | null;
  armedFailure: 'exchange' | 'payout' | null;
  termsVersion: string;
  /** Route orders (mode `permanent`): the route, its fee terms, and the markup earned at exchange. */
  routeId: string | null;
  feePercent: string | null;
  feeFloorUsd: string | null;
  markupPercent: string | null;
  markupAmount: string | null;
  markupUsd: string | null;
  /** Every payment to the deposit address, as the swap accounts for it (docs/architecture.md#every-payment-accounted-for). */
  deposits: SwapDepositRecord[];
  createdAt: Date;
  updatedAt: Date;
}

/** The fields only route orders set. */
export type RouteOrderFields = Pick<SwapRecord, 'routeId' | 'feePercent' | 'feeFloorUsd' | 'markupPercent' | 'markupAmount' | 'markupUsd'>;

/** One timeline entry. */
export interface SwapEventRecord {
  seq: string;
  id: string;
  swapId: string;
  status: SwapStatus;
  terminal: boolean;
  actionRequired: 'none' | 'customer' | 'operator';
  retryable: boolean;
  reasonCode: string;
  confirmationCount: number | null;
  requiredConfirmations: number | null;
  sourceTxHash: string | null;
  settlementTxHash: string | null;
  refundTxHash: string | null;
  /** Why the step was taken, where a rule of the swap's decided it (its amount mismatch policy); else null. */
  note: string | null;
  occurredAt: Date;
}

/**
 * One payment to a swap's deposit address, as the swap accounts for it (docs/architecture.md#every-payment-accounted-for): stored with the swap
 * (its `deposits` column) in the shape partners read. `asset` and `network` are stored since payments of other
 * assets are listed; a payment stored before has neither and is of the swap's source asset (the view says so).
 */
export type SwapDepositRecord = Omit<SwapDepositBody, 'asset' | 'network'> & Partial<Pick<SwapDepositBody, 'asset' | 'network'>>;

/** Deposit statuses that hold customer funds not yet settled: while any is present, a swap is not retryable. */
export const UNRESOLVED_DEPOSIT_STATUSES: ReadonlySet<SwapDepositStatus> = new Set(['confirming', 'refunding', 'review']);

/**
 * `retryable` of a swap (docs/architecture.md#lifecycle): its status's value, but false while any payment to its deposit address
 * is unresolved, whatever the status says. Swap bodies, timeline entries and webhooks all take it from here.
 */
export function isRetryable(status: SwapStatus, deposits: readonly Pick<SwapDepositRecord, 'status'>[] = []): boolean {
  return STATUS_ATTRIBUTES[status].retryable && !deposits.some((deposit) => UNRESOLVED_DEPOSIT_STATUSES.has(deposit.status));
}

/** The Swap body of a record, its deposits included. */
export function toSwapBody(swap: SwapRecord): SwapBody {
  const attributes = attributesOf(swap.status, swap.depositAddress !== null);
  return {
    id: swap.id,
    mode: swap.mode,
    sourceAsset: swap.sourceAsset,
    sourceNetwork: swap.sourceNetwork,
    destinationAsset: swap.destinationAsset,
    destinationNetwork: swap.destinationNetwork,
    destination: swap.destination,
    destinationMemo: swap.destinationMemo,
    refundMode: swap.refundMode,
    refundAddress: swap.refundAddress,
    refundMemo: swap.refundMemo,
    rateType: swap.rateType,
    sourceAmount: swap.sourceAmount,
    depositAmount: swap.depositAmount,
    expectedOutputAmount: swap.expectedOutputAmount,
    actualOutputAmount: swap.actualOutputAmount,
    minimumOutputAmount: swap.minimumOutputAmount,
    depositAddress: swap.depositAddress,
    depositMemo: swap.depositMemo,
    depositInstructionsJws: swap.depositInstructionsJws,
    sourceTxHash: swap.sourceTxHash,
    settlementTxHash: swap.settlementTxHash,
    refundTxHash: swap.refundTxHash,
    refundAmount: swap.refundAmount,
    feeUsd: swap.feeUsd,
    quoteExpiresAt: swap.quoteExpiresAt.toISOString(),
    confirmationDeadline: swap.confirmationDeadline?.toISOString() ?? null,
    requiredConfirmations: swap.requiredConfirmations,
    lateDepositPolicy: swap.lateDepositPolicy,
    amountMismatchPolicy: swap.amountMismatchPolicy,
    excessRefundAmount: swap.excessRefundAmount,
    excessRefundTxHash: swap.excessRefundTxHash,
    status: swap.status,
    ...attributes,
    retryable: isRetryable(swap.status, swap.deposits),
    failureCode: swap.failureCode,
    termsVersion: swap.termsVersion,
    deposits: swap.deposits.map((d) =>
      d.asset !== undefined && d.network !== undefined
        ? (d as SwapDepositBody)
        : { ...d, asset: swap.sourceAsset, network: swap.sourceNetwork },
    ),
    createdAt: swap.createdAt.toISOString(),
    updatedAt: swap.updatedAt.toISOString(),
  };
}

/** The SwapEvent body of a timeline entry. */
export function toSwapEventBody(event: SwapEventRecord): SwapEventBody {
  return {
    id: event.id,
    orderId: event.swapId,
    status: event.status,
    terminal: event.terminal,
    actionRequired: event.actionRequired,
    retryable: event.retryable,
    reasonCode: event.reasonCode,
    confirmationCount: event.confirmationCount,
    requiredConfirmations: event.requiredConfirmations,
    sourceTxHash: event.sourceTxHash,
    settlementTxHash: event.settlementTxHash,
    refundTxHash: event.refundTxHash,
    note: event.note,
    occurredAt: event.occurredAt.toISOString(),
  };
}

/** Whether a status is one a swap never leaves. */
export const isTerminal = (status: SwapStatus): boolean => attributesOf(status, true).terminal;
