/**
 * Permanent-route deposits as stored and as partners see them (PermanentDeposit, PermanentAccumulation):
 * the same bodies in `GET /permanent-routes/{id}/deposits`, the route's `accumulations` and the
 * `permanent_deposit.updated` webhook.
 */
import type { components } from '../../generated/api.js';
import { accumulationMessage, USD_DECIMALS } from './accumulation.js';
import { Money } from './money.js';
import { attributesOf } from './swap-lifecycle.js';
import type { SwapRecord } from './swap-view.js';

type PermanentDeposit = components['schemas']['PermanentDeposit'];
type PermanentAccumulation = components['schemas']['PermanentAccumulation'];

/** A stored deposit. Amounts are decimal strings. */
export interface DepositRecord {
  id: string;
  routeId: string;
  asset: string;
  network: string;
  address: string;
  txHash: string;
  outputIndex: number;
  fromAddress: string;
  amount: string;
  amountBaseUnits: string;
  /** When the transaction was broadcast (confirmations count from here). */
  broadcastAt: Date;
  confirmationCount: number;
  requiredConfirmations: number;
  /** `confirming` or `accumulating` without an order; `ordered` once it has one. */
  status: 'confirming' | 'accumulating' | 'ordered';
  firstSeenAt: Date;
  lastSeenAt: Date;
  confirmedAt: Date | null;
  /** The bucket's valuation while accumulating. */
  accumulatedUsd: string | null;
  thresholdUsd: string | null;
  valuedAt: Date | null;
  orderId: string | null;
  refundTxHash: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The amount in the asset's smallest unit: `12.4` USDT of precision 6 is `12400000`. */
export function toBaseUnits(amount: string, precision: number): string {
  const [whole, fraction = ''] = amount.split('.');
  if (fraction.length > precision) throw new RangeError(`${amount} has more than ${precision} decimal places`);
  return BigInt(whole + fraction.padEnd(precision, '0')).toString();
}

/** The part of a deposit's order its public view shows. */
export type DepositOrder = Pick<SwapRecord, 'id' | 'status' | 'settlementTxHash' | 'actualOutputAmount'>;

/** The PermanentDeposit body of a deposit and the order it joined (null: none yet). */
export function toDepositBody(deposit: DepositRecord, order: DepositOrder | null): PermanentDeposit {
  const status = order ? order.status : deposit.status === 'accumulating' ? 'accumulating' : 'confirming';
  const waiting = !order && deposit.status === 'accumulating' && deposit.accumulatedUsd !== null && deposit.thresholdUsd !== null;
  const remaining = waiting ? remainingOf(deposit) : null;
  return {
    id: deposit.id,
    asset: deposit.asset,
    network: deposit.network,
    txHash: deposit.txHash,
    outputIndex: deposit.outputIndex,
    amountBaseUnits: deposit.amountBaseUnits,
    confirmationCount: deposit.confirmationCount,
    requiredConfirmations: deposit.requiredConfirmations,
    status,
    ...attributesOf(status, true),
    orderId: order?.id ?? null,
    settlementTxHash: order?.settlementTxHash ?? null,
    actualOutputAmount: order?.actualOutputAmount ?? null,
    refundTxHash: deposit.refundTxHash,
    firstSeenAt: deposit.firstSeenAt.toISOString(),
    lastSeenAt: deposit.lastSeenAt.toISOString(),
    confirmedAt: deposit.confirmedAt?.toISOString() ?? null,
    accumulated_usd: waiting ? deposit.accumulatedUsd : null,
    threshold_usd: waiting ? deposit.thresholdUsd : null,
    remaining_usd: remaining,
    same_asset_required: waiting,
    valued_at: waiting ? (deposit.valuedAt?.toISOString() ?? null) : null,
    message: remaining !== null ? accumulationMessage(remaining, deposit.asset, deposit.network) : null,
  };
}

/** The PermanentAccumulation bodies of a route's waiting deposits: one per same-asset bucket. */
export function toAccumulationBodies(deposits: DepositRecord[]): PermanentAccumulation[] {
  const buckets = new Map<string, DepositRecord>();
  for (const deposit of deposits) {
    if (deposit.status !== 'accumulating' || deposit.accumulatedUsd === null || deposit.thresholdUsd === null) continue;
    // Every deposit of a bucket carries the bucket's latest valuation; any one of them describes it.
    buckets.set(`${deposit.asset}/${deposit.network}`, deposit);
  }
  return [...buckets.values()].map((deposit) => {
    const remaining = remainingOf(deposit);
    return {
      asset: deposit.asset,
      network: deposit.network,
      accumulated_usd: deposit.accumulatedUsd!,
      threshold_usd: deposit.thresholdUsd!,
      remaining_usd: remaining,
      same_asset_required: true,
      valued_at: (deposit.valuedAt ?? deposit.updatedAt).toISOString(),
      message: accumulationMessage(remaining, deposit.asset, deposit.network),
    };
  });
}

// Derived from the stored valuation (both in cents), so the three figures always agree.
function remainingOf(deposit: DepositRecord): string {
  return Money.max(0, new Money(deposit.thresholdUsd!).minus(deposit.accumulatedUsd!)).toFixed(USD_DECIMALS);
}
