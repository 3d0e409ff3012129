/**
 * The swap state machine of docs/architecture.md#lifecycle: the public attributes of each status and the one table of allowed
 * transitions. Every status change of a swap goes through `checkTransition`; anything else is a bug.
 */
import type { components } from '../../generated/api.js';

/** A public swap status. */
export type SwapStatus = components['schemas']['SwapStatus'];
/** Who must act next. */
export type ActionRequired = components['schemas']['ActionRequired'];
/** The stable reason of a status. */
export type ReasonCode = components['schemas']['SwapReasonCode'];

/** What a status tells a partner, fixed per status. */
export interface StatusAttributes {
  terminal: boolean;
  actionRequired: ActionRequired;
  reasonCode: ReasonCode;
  retryable: boolean;
}

/** The attributes of every status (docs/architecture.md#lifecycle). `waiting` asks the customer to act only once an address exists. */
export const STATUS_ATTRIBUTES: Readonly<Record<SwapStatus, StatusAttributes>> = Object.freeze({
  waiting: { terminal: false, actionRequired: 'customer', reasonCode: 'payment_required', retryable: false },
  confirming: { terminal: false, actionRequired: 'none', reasonCode: 'confirming', retryable: false },
  exchanging: { terminal: false, actionRequired: 'none', reasonCode: 'processing', retryable: false },
  sending: { terminal: false, actionRequired: 'none', reasonCode: 'processing', retryable: false },
  accumulating: { terminal: false, actionRequired: 'customer', reasonCode: 'accumulating', retryable: false },
  overdue: { terminal: false, actionRequired: 'none', reasonCode: 'payment_required', retryable: false },
  review: { terminal: false, actionRequired: 'operator', reasonCode: 'manual_review', retryable: false },
  finished: { terminal: true, actionRequired: 'none', reasonCode: 'completed', retryable: false },
  refunded: { terminal: true, actionRequired: 'none', reasonCode: 'refunded', retryable: true },
  expired: { terminal: true, actionRequired: 'none', reasonCode: 'payment_required', retryable: true },
  failed: { terminal: true, actionRequired: 'operator', reasonCode: 'support_required', retryable: false },
});

/** Every status, in the order of the table above. */
export const SWAP_STATUSES = Object.keys(STATUS_ATTRIBUTES) as SwapStatus[];

/** The allowed transitions; `confirming -> confirming` records confirmation progress. */
export const TRANSITIONS: Readonly<Record<SwapStatus, readonly SwapStatus[]>> = Object.freeze({
  waiting: ['confirming', 'overdue', 'review', 'failed'],
  overdue: ['confirming', 'expired'],
  // Back to waiting (or overdue): a reorganisation removed the deposit before it was credited.
  confirming: ['confirming', 'waiting', 'overdue', 'exchanging', 'accumulating', 'refunded', 'review', 'failed'],
  accumulating: ['exchanging', 'review'],
  exchanging: ['sending', 'refunded', 'review', 'failed'],
  // Review: the payout's broadcast was ambiguous, or the deposit left the chain after it was credited.
  sending: ['finished', 'failed', 'review'],
  review: ['exchanging', 'refunded', 'failed'],
  finished: [],
  refunded: [],
  expired: [],
  failed: [],
});

/** The attributes a swap shows in `status`, given whether its deposit address is allocated yet. */
export function attributesOf(status: SwapStatus, hasDepositAddress: boolean): StatusAttributes {
  const attributes = STATUS_ATTRIBUTES[status];
  return status === 'waiting' && !hasDepositAddress ? { ...attributes, actionRequired: 'none' } : attributes;
}

/** Whether `from -> to` is in the table. */
export function isAllowedTransition(from: SwapStatus, to: SwapStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** Raised for a transition outside the table: a bug in the caller, never a client error. */
export class IllegalTransitionError extends Error {
  constructor(
    readonly from: SwapStatus,
    readonly to: SwapStatus,
  ) {
    super(`Illegal swap transition ${from} -> ${to}`);
    this.name = 'IllegalTransitionError';
  }
}

/** Throws IllegalTransitionError unless `from -> to` is allowed. */
export function checkTransition(from: SwapStatus, to: SwapStatus): void {
  if (!isAllowedTransition(from, to)) throw new IllegalTransitionError(from, to);
}
