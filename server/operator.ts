/**
 * Operator decisions (scripts/ops.ts): the swaps held for a person, a decision on a swap in review, the
 * return of a payment held for a person, and the redelivery of a webhook message. Decisions run through the same lifecycle code as the sandbox's review
 * decision, so each is an ordinary transition of docs/architecture.md#lifecycle (timeline entry, `swap.updated` webhook), recorded
 * with the operator's name and reason in the same transaction, in operator_decisions and in the operator
 * action trail (server/operator-actions.ts), as a redelivery is in the trail. This process runs no workers:
 * the job that carries a swap on, and a redelivery attempt, are queued in that transaction for the running
 * servers' workers.
 */
import type { Knex } from 'knex';
import { AppError, notFound } from './domain/errors.js';
import { STATUS_ATTRIBUTES, SWAP_STATUSES, TRANSITIONS, type SwapStatus } from './domain/swap-lifecycle.js';
import { extraRefundKey } from './domain/swap-decision.js';
import type { SwapRecord } from './domain/swap-view.js';
import type { JobQueue } from './jobs/queue.js';
import type { SwapService } from './services/swaps.js';
import { runOperatorAction, type Acting } from './operator-actions.js';
import { insertOperatorDecision, type OperatorDecision, type OperatorDecisionRecord } from './store/operator-decisions.js';
import { listPartners } from './store/partners.js';
import { listOpenChainAlerts, resolveChainAlertRecord, type ChainAlertRecord } from './store/chain-alerts.js';
import { listColdTransfers, lockColdTransfer, releaseColdTransfer, type ColdTransfer } from './store/cold-transfers.js';
import { listHeldOutputs, resolveHeldOutput, type HeldOutput } from './store/held-outputs.js';
import { listHeldPayouts, listHeldRefundKeys, movePayout, type PayoutRecord } from './store/payouts.js';
import { listSenderVerdicts } from './store/screening-verdicts.js';
import { listSwapsForOperator, lockSwap } from './store/swaps.js';
import { findOutboxMessage, findWebhook, lastAttemptNumber } from './store/webhooks.js';

/** What the operator operations need. */
export interface OperatorDeps {
  knex: Knex;
  lifecycle: Pick<SwapService, 'decideReview' | 'returnHeldPayment'>;
  jobs: Pick<JobQueue, 'scheduleAdvances' | 'redeliver'>;
  now: () => Date;
}

/** The statuses whose swaps wait for an operator (`actionRequired: operator`): review, failed. */
export const OPERATOR_STATUSES: readonly SwapStatus[] = SWAP_STATUSES.filter(
  (status) => STATUS_ATTRIBUTES[status].actionRequired === 'operator',
);

/** A swap waiting for an operator, as the CLI shows it. */
export interface OperatorQueueItem {
  id: string;
  mode: SwapRecord['mode'];
  partnerId: string;
  partnerKeyId: string | null;
  partnerName: string | null;
  status: SwapStatus;
  reasonCode: string;
  failureCode: string | null;
  sourceAsset: string;
  sourceNetwork: string;
  depositAmount: string;
  receivedAmount: string | null;
  destinationAsset: string;
  destinationNetwork: string;
  expectedOutputAmount: string | null;
  refundAmount: string | null;
  /** Payments to its address held for an operator (`deposits` entries in review). */
  heldPayments: number;
  /**
   * Those payments, each as `TXHASH:INDEX` with its amount and how `payments return` takes it: `to` an address
   * (no refund, or a failed one), or `rebroadcast` (its refund is held after an ambiguous broadcast).
   */
  heldPaymentList: Array<{ payment: string; amount: string; returnBy: 'to' | 'rebroadcast' }>;
  /**
   * Screening verdicts on the senders of its payments that deny or hold (docs/screening.md): why a swap is in
   * review with `screening_hold`, in the provider's words.
   */
  screening: Array<{ address: string; decision: 'deny' | 'review'; reason: string | null; provider: string; screenedAt: string }>;
  updatedAt: string;
}

/**
 * Swaps waiting for an operator: review first, then failed, then swaps of any other status holding a payment
 * no safe destination could take back (docs/architecture.md#every-payment-accounted-for); longest unchanged first; at most `limit`.
 */
export async function listOperatorQueue(db: Knex, limit: number): Promise<OperatorQueueItem[]> {
  const swaps = await listSwapsForOperator(db, OPERATOR_STATUSES, limit);
  const partners = new Map((await listPartners(db)).map((partner) => [partner.id, partner]));
  // Extra payments whose refund is held after an ambiguous broadcast (its key starts with the payment's).
  const heldRefunds = await listHeldRefundKeys(
    db,
    swaps.filter((swap) => heldOf(swap).length > 0).map((swap) => swap.id),
  );
  const verdicts = (
    await listSenderVerdicts(
      db,
      swaps.map((swap) => swap.id),
    )
  ).filter((v) => v.decision !== 'allow');
  const returnBy = (swap: SwapRecord, payment: { txHash: string; outputIndex: number }) =>
    heldRefunds.some((key) => key.split('#')[0] === extraRefundKey(swap.id, payment)) ? ('rebroadcast' as const) : ('to' as const);
  return swaps.map((swap) => ({
    id: swap.id,
    mode: swap.mode,
    partnerId: swap.partnerId,
    partnerKeyId: partners.get(swap.partnerId)?.keyId ?? null,
    partnerName: partners.get(swap.partnerId)?.name ?? null,
    status: swap.status,
    reasonCode: STATUS_ATTRIBUTES[swap.status].reasonCode,
    failureCode: swap.failureCode,
    sourceAsset: swap.sourceAsset,
    sourceNetwork: swap.sourceNetwork,
    depositAmount: swap.depositAmount,
    receivedAmount: swap.receivedAmount,
    destinationAsset: swap.destinationAsset,
    destinationNetwork: swap.destinationNetwork,
    expectedOutputAmount: swap.expectedOutputAmount,
    refundAmount: swap.refundAmount,
    heldPayments: heldOf(swap).length,
    heldPaymentList: heldOf(swap).map((d) => ({ payment: `${d.txHash}:${d.outputIndex}`, amount: d.amount, returnBy: returnBy(swap, d) })),
    screening: verdicts
      .filter((v) => v.swapId === swap.id)
      .map((v) => ({
        address: v.address,
        decision: v.decision as 'deny' | 'review',
        reason: v.reason,
        provider: v.provider,
        screenedAt: v.screenedAt.toISOString(),
      })),
    updatedAt: swap.updatedAt.toISOString(),
  }));
}

// Its own deposit held with the swap in review is the review itself; any other held payment is counted.
const heldOf = (swap: SwapRecord) => swap.deposits.filter((d) => d.status === 'review' && !(d.role === 'swap' && swap.status === 'review'));

/** The status each decision moves a swap in review to (docs/architecture.md#lifecycle: review -> exchanging | refunded | failed). */
export const DECISION_TARGETS: Readonly<Record<OperatorDecision, SwapStatus>> = Object.freeze({
  exchange: 'exchanging',
  'pay-again': 'exchanging',
  refund: 'refunded',
  fail: 'failed',
});

// The lifecycle's name of each decision (the sandbox's review-decision body uses the same three).
const LIFECYCLE_DECISIONS = { exchange: 'approve', 'pay-again': 'pay-again', refund: 'refund', fail: 'fail' } as const;

/**
 * Decides swap `swapId`, which must be in review: the transition, the decision's record, its entry in the
 * operator action trail (`review.decide`) and (when the swap is not terminal afterwards) the job that carries
 * it on commit together. 404 for an unknown swap, 409 `invalid_state` for one not in review (both recorded
 * as refused), 400 for an empty or overlong reason or actor.
 */
export async function decideReview(
  deps: OperatorDeps,
  input: {
    swapId: string;
    decision: OperatorDecision;
    /** A refund's destination instead of the swap's own (its sender, its refund address): one the customer gave. */
    refundTo?: { address: string; memo: string | null };
  } & Required<Acting>,
): Promise<{ swap: SwapRecord; decision: OperatorDecisionRecord }> {
  const to = DECISION_TARGETS[input.decision];
  const { value } = await runOperatorAction(deps.knex, input, 'review.decide', input.swapId, async (trx) => {
    const swap = await lockSwap(trx, input.swapId);
    if (!swap) throw notFound(`No swap with id ${input.swapId}.`);
    if (swap.status !== 'review') throw notInReview(swap, input.decision, to);
    // Read once the swap is locked, so the decision's timeline entry follows every change before it.
    const at = deps.now();
    const change = await deps.lifecycle.decideReview(trx, swap, LIFECYCLE_DECISIONS[input.decision], at, input.refundTo);
    const decision = await insertOperatorDecision(trx, {
      swapId: swap.id,
      operator: input.actor.trim(),
      decision: input.decision,
      reason: input.reason.trim(),
      fromStatus: swap.status,
      // The decision's status: a refund is committed to the payout outbox here, and the swap is refunded once
      // a running server's sender has broadcast it.
      toStatus: to,
      createdAt: at,
    });
    // Committed with the decision: whichever server's worker takes it carries the swap on (exchange, payout).
    if (!STATUS_ATTRIBUTES[change.swap.status].terminal) await deps.jobs.scheduleAdvances([swap.id], trx);
    return {
      value: { swap: change.swap, decision },
      details: {
        decision: input.decision,
        decisionId: decision.id,
        fromStatus: decision.fromStatus,
        toStatus: decision.toStatus,
        ...(input.refundTo ? { refundTo: input.refundTo } : {}),
      },
      at,
    };
  });
  return value;
}

/**
 * Returns payment `txHash:outputIndex`, held on swap `swapId` for an operator, to `to`: an address (and memo),
 * for an extra payment no safe destination could take back or whose refund failed (a new refund, committed
 * to the payout outbox); or `'rebroadcast'`, for one whose refund is held after an ambiguous broadcast (that
 * same refund is broadcast again). The deposit's accounting and the action's entry in the operator action
 * trail (`payment.return`) commit together; a running server's sender broadcasts. 404 for an unknown swap,
 * 409 `invalid_state` for a payment that is not held, whose refund is in play, or that needs the other kind of
 * return, 400 for an address or memo the source network refuses (each recorded as refused).
 */
export async function returnHeldPayment(
  deps: OperatorDeps,
  input: {
    swapId: string;
    txHash: string;
    outputIndex: number;
    to: { address: string; memo: string | null } | 'rebroadcast';
  } & Required<Acting>,
): Promise<{ swap: SwapRecord; payment: SwapRecord['deposits'][number] }> {
  const { value } = await runOperatorAction(deps.knex, input, 'payment.return', input.swapId, async (trx) => {
    const swap = await lockSwap(trx, input.swapId);
    if (!swap) throw notFound(`No swap with id ${input.swapId}.`);
    const at = deps.now();
    const payment = { txHash: input.txHash, outputIndex: input.outputIndex };
    const change = await deps.lifecycle.returnHeldPayment(trx, swap, payment, input.to, at);
    const returned = change.swap.deposits.find((d) => d.txHash === input.txHash && d.outputIndex === input.outputIndex)!;
    return {
      value: { swap: change.swap, payment: returned },
      details: { payment: `${input.txHash}:${input.outputIndex}`, amount: returned.amount, to: input.to },
      at,
    };
  });
  return value;
}

/** A payout held for an operator, as `payouts held` shows it: why, and what the operator can do. */
export interface HeldPayoutItem {
  payoutId: string;
  /** Null for a cold transfer (it pays for no swap). */
  swapId: string | null;
  purpose: PayoutRecord['purpose'];
  network: string;
  asset: string;
  amount: string;
  address: string;
  status: PayoutRecord['status'];
  txHash: string | null;
  confirmations: number;
  reason: string;
  /** The `review decide` options that fit, or what to wait for. */
  remedies: string[];
}

/** What an operator can do about a payout held in `status` with `confirmations` of `final`. */
function remediesOf(payout: PayoutRecord, final: number): string[] {
  if (payout.purpose === 'cold')
    return [payout.status === 'review' ? `cold release ${payout.id} --rebroadcast` : `cold release ${payout.id}`];
  if (payout.purpose === 'extra_refund') return ['payments return SWAP_ID TXHASH:INDEX --rebroadcast'];
  // An overpayment's excess (refund_excess): its swap is in review, and approving sends it again.
  if (payout.purpose === 'excess_refund') {
    if ((payout.status === 'reverted' || payout.status === 'cancelled') && payout.confirmations < final) {
      return [`wait: ${payout.confirmations} of ${final} confirmations`, '--fail'];
    }
    return [`--exchange (${payout.status === 'review' ? 'the same bytes again' : 'a new refund of the excess'})`, '--fail'];
  }
  if (payout.status === 'reverted' || payout.status === 'cancelled') {
    return payout.confirmations >= final
      ? ['--pay-again', '--refund', '--fail']
      : [`wait: ${payout.confirmations} of ${final} confirmations`, '--fail'];
  }
  // review: an ambiguous broadcast. The same bytes again cannot pay twice; an EVM nonce that stalls others is cancelled.
  return ['--exchange (the same bytes again)', '--fail'];
}

/** The payouts held for an operator, oldest first, with their reasons and remedies. */
export async function listHeldPayoutsForOperator(db: Knex, finality: (network: string) => number): Promise<HeldPayoutItem[]> {
  const held = await listHeldPayouts(db);
  return held.map((p) => ({
    payoutId: p.id,
    swapId: p.swapId,
    purpose: p.purpose,
    network: p.network,
    asset: p.asset,
    amount: p.amount,
    address: p.address,
    status: p.status,
    txHash: p.txHash,
    confirmations: p.confirmations,
    reason: p.heldReason ?? p.lastError ?? p.status,
    remedies: remediesOf(p, finality(p.network)),
  }));
}

/** A chain alert as the ops CLI shows it (store/chain-alerts.ts). */
export type ChainAlertItem = Omit<ChainAlertRecord, 'createdAt'> & { createdAt: string };

/** The open chain alerts, oldest first. */
export async function listChainAlerts(db: Knex): Promise<ChainAlertItem[]> {
  return (await listOpenChainAlerts(db)).map((alert) => ({ ...alert, createdAt: alert.createdAt.toISOString() }));
}

/** Marks chain alert `id` seen (it leaves the open alerts and the metric), recorded as `alert.resolve`. */
export async function resolveChainAlert(deps: Pick<OperatorDeps, 'knex' | 'now'>, input: { id: string } & Required<Acting>) {
  const { value } = await runOperatorAction(deps.knex, input, 'alert.resolve', input.id, async (trx) => {
    const at = deps.now();
    if (!(await resolveChainAlertRecord(trx, input.id, input.actor.trim(), at))) throw notFound(`No open chain alert with id ${input.id}.`);
    return { value: { id: input.id, resolvedAt: at.toISOString() }, details: { id: input.id }, at };
  });
  return value;
}

function notInReview(swap: SwapRecord, decision: OperatorDecision, to: SwapStatus): AppError {
  const allowed = TRANSITIONS[swap.status];
  const why = STATUS_ATTRIBUTES[swap.status].terminal
    ? `${swap.status} is terminal: no transition leaves it`
    : `${swap.status} -> ${to} is ${allowed.includes(to) ? 'not a review decision' : 'not an allowed transition'}`;
  return new AppError(
    409,
    'invalid_state',
    `Swap ${swap.id} is in status ${swap.status}, not review; --${decision} is refused (${why}). Only a swap in review can be decided (review -> exchanging | refunded | failed).`,
    { status: swap.status },
  );
}

/**
 * Queues outbox message `messageId` (the `webhook-id` partners see) for delivery again, now, as its next
 * attempt number, to the partner's current webhook URL and secret, recorded as `webhook.redeliver` in the
 * same transaction. 404 for an unknown message (test deliveries are not kept), 409 `invalid_state` when the
 * partner's webhook is off or was never set; both recorded as refused.
 */
export async function redeliverWebhook(
  deps: Pick<OperatorDeps, 'knex' | 'jobs'>,
  acting: Acting,
  messageId: string,
): Promise<{ messageId: string; type: string; partnerId: string; attempt: number; url: string }> {
  const { value } = await runOperatorAction(deps.knex, acting, 'webhook.redeliver', messageId, async (trx) => {
    const message = await findOutboxMessage(trx, messageId);
    if (!message) {
      throw notFound(
        `No webhook message with id ${messageId}. Give the webhook-id of a swap.updated or permanent_deposit.updated delivery (eventId in GET /partner/webhook/deliveries); webhook.test messages are not kept.`,
      );
    }
    const webhook = await findWebhook(trx, message.partnerId);
    if (!webhook || !webhook.enabled) {
      throw new AppError(
        409,
        'invalid_state',
        `The partner of message ${messageId} has ${webhook ? 'its webhook switched off' : 'no webhook set'}; a delivery would be dropped. The partner sets one with PUT /partner/webhook.`,
      );
    }
    const attempt = (await lastAttemptNumber(trx, messageId)) + 1;
    await deps.jobs.redeliver(messageId, attempt, trx);
    const queued = { messageId, type: message.type, partnerId: message.partnerId, attempt, url: webhook.url };
    return { value: queued, details: { type: queued.type, partnerId: queued.partnerId, attempt, url: queued.url } };
  });
  return value;
}

/** A cold transfer as the ops CLI shows it (store/cold-transfers.ts). */
export type ColdTransferItem = Omit<ColdTransfer, 'createdAt' | 'releasedAt'> & { createdAt: string; releasedAt: string | null };

/** Cold transfers (a hot wallet's surplus to its cold address), newest first. */
export async function listColdTransfersForOperator(db: Knex, limit: number): Promise<ColdTransferItem[]> {
  return (await listColdTransfers(db, limit)).map((t) => ({
    ...t,
    createdAt: t.createdAt.toISOString(),
    releasedAt: t.releasedAt?.toISOString() ?? null,
  }));
}

/**
 * Releases cold transfer `id`, held for an operator, recorded as `cold.release`: one proved to have paid
 * nothing (failed, reverted, cancelled) no longer stops the next transfer of its asset (made from the surplus
 * then); one held after an ambiguous broadcast (review) needs `rebroadcast`: the same bytes go out again,
 * which cannot pay twice. 404 for an unknown id, 409 when it is not held or `rebroadcast` does not fit.
 */
export async function releaseCold(
  deps: Pick<OperatorDeps, 'knex' | 'now'> & { jobs: Pick<JobQueue, 'sendPayouts'> },
  input: { id: string; rebroadcast: boolean } & Required<Acting>,
): Promise<ColdTransferItem> {
  const { value } = await runOperatorAction(deps.knex, input, 'cold.release', input.id, async (trx) => {
    const at = deps.now();
    const transfer = await lockColdTransfer(trx, input.id);
    if (!transfer) throw notFound(`No cold transfer with id ${input.id} (ops cold list names them).`);
    const held = ['failed', 'review', 'reverted', 'cancelled'].includes(transfer.status) && transfer.releasedAt === null;
    if (!held) {
      throw new AppError(
        409,
        'invalid_state',
        `Cold transfer ${input.id} is ${transfer.status}${transfer.releasedAt ? ', released already' : ''}: it is not held for an operator.`,
      );
    }
    if ((transfer.status === 'review') !== input.rebroadcast) {
      throw new AppError(
        409,
        'invalid_state',
        transfer.status === 'review'
          ? `Cold transfer ${input.id} is held after an ambiguous broadcast: it may have gone out. Release it with --rebroadcast (the same bytes again, which cannot pay twice).`
          : `Cold transfer ${input.id} is ${transfer.status}: it paid nothing, and there is nothing to broadcast again. Release it without --rebroadcast.`,
      );
    }
    if (input.rebroadcast) {
      await movePayout(trx, transfer.id, 'review', 'signed', { heldReason: null }, at);
      await deps.jobs.sendPayouts([transfer.id], trx);
    } else {
      await releaseColdTransfer(trx, transfer.id, at);
    }
    const released = (await lockColdTransfer(trx, input.id))!;
    return {
      value: { ...released, createdAt: released.createdAt.toISOString(), releasedAt: released.releasedAt?.toISOString() ?? null },
      details: {
        status: transfer.status,
        rebroadcast: input.rebroadcast,
        amount: transfer.amount,
        asset: `${transfer.asset}/${transfer.network}`,
      },
      at,
    };
  });
  return value;
}

/** A held output as the ops CLI shows it (store/held-outputs.ts): its key is `NETWORK:TXHASH:INDEX`. */
export type HeldOutputItem = Omit<HeldOutput, 'seenAt' | 'resolvedAt'> & { key: string; seenAt: string; resolvedAt: string | null };

/** The outputs held for an operator (recorded, credited by nothing), oldest first; with `all`, resolved ones too. */
export async function listHeldOutputsForOperator(db: Knex, options: { all?: boolean } = {}): Promise<HeldOutputItem[]> {
  return (await listHeldOutputs(db, options)).map((o) => ({
    ...o,
    key: `${o.network}:${o.txHash}:${o.outputIndex}`,
    seenAt: o.seenAt.toISOString(),
    resolvedAt: o.resolvedAt?.toISOString() ?? null,
  }));
}

/**
 * Marks held output `key` (`NETWORK:TXHASH:INDEX`) dealt with, recorded as `output.resolve` with the reason (what
 * the operator did: returned it by hand, left it). The service never moves a held output itself. 404 when no
 * unresolved held output has that key.
 */
export async function resolveOutput(deps: Pick<OperatorDeps, 'knex' | 'now'>, input: { key: string } & Required<Acting>) {
  const parsed = /^([A-Z0-9]+):([^:]+):(\d+)$/.exec(input.key);
  const { value } = await runOperatorAction(deps.knex, input, 'output.resolve', input.key, async (trx) => {
    if (!parsed)
      throw new AppError(
        400,
        'invalid_request',
        `A held output is named NETWORK:TXHASH:INDEX (as ops outputs held shows it), not ${input.key}.`,
      );
    const at = deps.now();
    const key = { network: parsed[1]!, txHash: parsed[2]!, outputIndex: Number(parsed[3]) };
    if (!(await resolveHeldOutput(trx, key, input.actor.trim(), input.reason.trim(), at))) {
      throw notFound(`No unresolved held output ${input.key} (ops outputs held lists them).`);
    }
    return { value: { key: input.key, resolvedAt: at.toISOString() }, details: { key: input.key }, at };
  });
  return value;
}
