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
  /**
   * `confirming` or `accumulating` without an order; `ordered` once it has one; `dust` below its asset's dust
   * floor (recorded only: never valued, accumulated, followed or announced).
   */
  status: 'confirming' | 'accumulating' | 'ordered' | 'dust';
  firstSeenAt: Date;
  lastSeenAt: Date;
  confirmedAt: Date | null;
  orderId: string | null;
  refundTxHash: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * The valuation of a waiting same-asset bucket, kept once per bucket (not on each of its deposits), so a
 * bucket that grows by one deposit costs one write, whatever its size.
 */
export interface BucketRecord {
  routeId: string;
  asset: string;
  network: string;
  accumulatedUsd: string;
  thresholdUsd: string;
  valuedAt: Date;
}

/** The amount in the asset's smallest unit: `12.4` USDT of precision 6 is `12400000`. */
export function toBaseUnits(amount: string, precision: number): string {
  const [whole, fraction = ''] = amount.split('.');
  if (fraction.length > precision) throw new RangeError(`${amount} has more than ${precision} decimal places`);
  return BigInt(whole + fraction.padEnd(precision, '0')).toString();
}

/** The part of a deposit's order its public view shows. */
export type DepositOrder = Pick<SwapRecord, 'id' | 'status' | 'settlementTxHash' | 'actualOutputAmount'>;

// What a dust deposit shows: it is over for the service (nothing more happens to it) and asks nothing of anyone.
const DUST_ATTRIBUTES = { terminal: true, actionRequired: 'none', retryable: false, reasonCode: 'below_dust_floor' } as const;

/**
 * The PermanentDeposit body of a deposit, the order it joined (null: none yet) and, while it waits, its
 * bucket's valuation (read from the bucket, so every waiting deposit shows the bucket's latest figures).
 */
export function toDepositBody(deposit: DepositRecord, order: DepositOrder | null, bucket: BucketRecord | null = null): PermanentDeposit {
  const dust = !order && deposit.status === 'dust';
  const status = order ? order.status : dust ? 'dust' : deposit.status === 'accumulating' ? 'accumulating' : 'confirming';
  const waiting = !order && deposit.status === 'accumulating' && bucket !== null ? bucket : null;
  const remaining = waiting ? remainingOf(waiting) : null;
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
    ...(status === 'dust' ? DUST_ATTRIBUTES : attributesOf(status, true)),
    orderId: order?.id ?? null,
    settlementTxHash: order?.settlementTxHash ?? null,
    actualOutputAmount: order?.actualOutputAmount ?? null,
    refundTxHash: deposit.refundTxHash,
    firstSeenAt: deposit.firstSeenAt.toISOString(),
    lastSeenAt: deposit.lastSeenAt.toISOString(),
    confirmedAt: deposit.confirmedAt?.toISOString() ?? null,
    accumulated_usd: waiting?.accumulatedUsd ?? null,
    threshold_usd: waiting?.thresholdUsd ?? null,
    remaining_usd: remaining,
    same_asset_required: waiting !== null,
    valued_at: waiting?.valuedAt.toISOString() ?? null,
    message: remaining !== null ? accumulationMessage(remaining, deposit.asset, deposit.network) : null,
  };
}

/** The PermanentAccumulation bodies of a route's waiting buckets. */
export function toAccumulationBodies(buckets: BucketRecord[]): PermanentAccumulation[] {
  return buckets.map((bucket) => {
    const remaining = remainingOf(bucket);
    return {
      asset: bucket.asset,
      network: bucket.network,
      accumulated_usd: bucket.accumulatedUsd,
      threshold_usd: bucket.thresholdUsd,
      remaining_usd: remaining,
      same_asset_required: true,
      valued_at: bucket.valuedAt.toISOString(),
      message: accumulationMessage(remaining, bucket.asset, bucket.network),
    };
  });
}

/** The bucket of `deposit` among `buckets` (same asset and network), if it waits in one. */
export function bucketOf(deposit: Pick<DepositRecord, 'asset' | 'network'>, buckets: BucketRecord[]): BucketRecord | null {
  return buckets.find((b) => b.asset === deposit.asset && b.network === deposit.network) ?? null;
}

// Derived from the stored valuation (both in cents), so the three figures always agree.
function remainingOf(bucket: BucketRecord): string {
  return Money.max(0, new Money(bucket.thresholdUsd).minus(bucket.accumulatedUsd)).toFixed(USD_DECIMALS);
}
