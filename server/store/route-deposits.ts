/**
 * Deposits to permanent-route addresses, the orders they join, and the partner's markup earnings.
 * A deposit's public status is its own (`confirming`, `accumulating`) until it joins an order, and the
 * order's afterwards; reads therefore return each deposit with its order.
 */
import type { Knex } from 'knex';
import { bucketOf, toDepositBody, type BucketRecord, type DepositRecord } from '../domain/route-deposit-view.js';
import type { SwapRecord } from '../domain/swap-view.js';
import { groupReadDistinct } from './group-commit.js';
import { afterPosition, fromJsonRow, fromRow, pageKey, toColumns } from './rows.js';
import { insertOutboxMessage } from './swaps.js';

export type { BucketRecord, DepositRecord } from '../domain/route-deposit-view.js';

/** A markup earnings entry. */
export interface EarningRecord {
  id: string;
  partnerId: string;
  routeId: string;
  orderId: string;
  asset: string;
  network: string;
  amount: string;
  amountUsd: string;
  markupPercent: string;
  createdAt: Date;
}

/** Records deposits seen for the first time; a transaction output already recorded is skipped. Returns the new ones. */
export async function insertNewDeposits(
  trx: Knex.Transaction,
  deposits: Array<Omit<DepositRecord, 'id' | 'orderId' | 'refundTxHash'>>,
): Promise<DepositRecord[]> {
  if (deposits.length === 0) return [];
  const rows = await trx('route_deposits')
    .insert(deposits.map((d) => toColumns(d)))
    .onConflict(['tx_hash', 'output_index'])
    .ignore()
    .returning('*');
  return rows.map((row: Record<string, unknown>) => fromRow<DepositRecord>(row));
}

/** The route's deposits that belong to no order yet, oldest first; dust is never open. */
export async function listOpenDeposits(trx: Knex.Transaction, routeId: string): Promise<DepositRecord[]> {
  const rows = await trx('route_deposits')
    .where({ route_id: routeId })
    .whereNull('order_id')
    .andWhereNot({ status: 'dust' })
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  return rows.map((row: Record<string, unknown>) => fromRow<DepositRecord>(row));
}

/** The (tx hash, output index) pairs of `routeId` already recorded among `txHashes`, as `hash:index`. */
export async function listRecordedOutputs(db: Knex, routeId: string, txHashes: string[]): Promise<Set<string>> {
  if (txHashes.length === 0) return new Set();
  const rows = await db('route_deposits').where({ route_id: routeId }).whereIn('tx_hash', txHashes).select('tx_hash', 'output_index');
  return new Set(rows.map((row: { tx_hash: string; output_index: number }) => `${row.tx_hash}:${row.output_index}`));
}

/** Updates one deposit. */
export async function updateDeposit(trx: Knex.Transaction, id: string, fields: Partial<DepositRecord>): Promise<DepositRecord> {
  const [row] = await trx('route_deposits').where({ id }).update(toColumns(fields)).returning('*');
  return fromRow<DepositRecord>(row);
}

/** Puts deposits into `orderId`; they leave their bucket. */
export async function attachDeposits(trx: Knex.Transaction, depositIds: string[], orderId: string, at: Date): Promise<void> {
  await trx('route_deposits').whereIn('id', depositIds).update({ order_id: orderId, status: 'ordered', updated_at: at });
}

/** The route's waiting buckets, by asset and network. */
export async function listBuckets(trx: Knex.Transaction, routeId: string): Promise<BucketRecord[]> {
  const rows = await trx('route_buckets')
    .where({ route_id: routeId })
    .select(
      'route_id',
      'asset',
      'network',
      trx.raw('accumulated_usd::text as accumulated_usd'),
      trx.raw('threshold_usd::text as threshold_usd'),
      'valued_at',
    )
    .orderBy(['asset', 'network']);
  return rows.map((row: Record<string, unknown>) => fromRow<BucketRecord>(row));
}

/** Stores a waiting bucket's valuation (one row per route, asset and network). */
export async function saveBucket(trx: Knex.Transaction, bucket: BucketRecord): Promise<void> {
  await trx('route_buckets')
    .insert(toColumns(bucket))
    .onConflict(['route_id', 'asset', 'network'])
    .merge(['accumulated_usd', 'threshold_usd', 'valued_at']);
}

/** Removes a bucket that no longer waits (its deposits joined an order). */
export async function deleteBucket(trx: Knex.Transaction, bucket: Pick<BucketRecord, 'routeId' | 'asset' | 'network'>): Promise<void> {
  await trx('route_buckets').where({ route_id: bucket.routeId, asset: bucket.asset, network: bucket.network }).delete();
}

/** The deposits an order converts, oldest first. */
export async function listOrderDeposits(db: Knex, orderId: string): Promise<DepositRecord[]> {
  const rows = await db('route_deposits')
    .where({ order_id: orderId })
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  return rows.map((row: Record<string, unknown>) => fromRow<DepositRecord>(row));
}

/**
 * Queues a `permanent_deposit.updated` message for each deposit, in the caller's transaction; a waiting one
 * carries its bucket's figures (from `buckets`) as they are now.
 */
export async function insertDepositMessages(
  trx: Knex.Transaction,
  partnerId: string,
  routeId: string,
  deposits: DepositRecord[],
  order: SwapRecord | null,
  buckets: BucketRecord[] = [],
): Promise<void> {
  for (const deposit of deposits) {
    const ordered = deposit.orderId && order?.id === deposit.orderId ? order : null;
    await insertOutboxMessage(trx, partnerId, 'permanent_deposit.updated', {
      route_id: routeId,
      deposit: toDepositBody(deposit, ordered, ordered ? null : bucketOf(deposit, buckets)),
    });
  }
}

/** Announces every deposit of a route order after the order changed (its status is theirs). */
export async function announceOrderDeposits(trx: Knex.Transaction, order: SwapRecord): Promise<void> {
  if (order.routeId === null) return;
  await insertDepositMessages(trx, order.partnerId, order.routeId, await listOrderDeposits(trx, order.id), order);
}

/** Records the earnings entry of a finished route order once (a repeated step finds it there). */
export async function insertEarning(trx: Knex.Transaction, earning: Omit<EarningRecord, 'id'>): Promise<void> {
  await trx('partner_earnings').insert(toColumns(earning)).onConflict('order_id').ignore();
}

/** Filters of the earnings list. */
export interface EarningsFilter {
  from?: Date;
  to?: Date;
}

function filtered(db: Knex, partnerId: string, filter: EarningsFilter): Knex.QueryBuilder {
  const query = db('partner_earnings').where({ partner_id: partnerId });
  if (filter.from) query.andWhere('created_at', '>=', filter.from);
  if (filter.to) query.andWhere('created_at', '<', filter.to);
  return query;
}

/** A total of the partner's earnings in one asset and network (decimal strings). */
export interface EarningsTotal {
  asset: string;
  network: string;
  amount: string;
  amountUsd: string;
}

/**
 * Returns `read(partnerId, filter, options)`: listEarnings through a grouped read (group-commit.ts): the
 * lookups asked for while a read runs are read by the next, an identical one (a partner's dashboard polling its
 * earnings) once, its result shared; each read starts after its requests arrived.
 */
export function createEarningsReader(db: Knex): (
  partnerId: string,
  filter: EarningsFilter,
  options: { limit: number; after?: { createdAt: Date; id: string } },
) => Promise<{
  page: EarningRecord[];
  totals: EarningsTotal[];
}> {
  type Lookup = { partnerId: string; filter: EarningsFilter; options: { limit: number; after?: { createdAt: Date; id: string } } };
  const read = groupReadDistinct(
    (l: Lookup) =>
      [l.partnerId, l.filter.from?.toISOString(), l.filter.to?.toISOString(), pageKey({ partnerId: l.partnerId, ...l.options })].join(' '),
    (lookups: Lookup[]) => Promise.all(lookups.map((l) => listEarnings(db, l.partnerId, l.filter, l.options))),
  );
  return (partnerId, filter, options) => read({ partnerId, filter, options });
}

/**
 * A page of the partner's earnings, newest first, and the sums of every entry matching the filter per asset
 * and network, in one statement (two subqueries, each aggregated to JSON, numeric columns cast to text).
 */
export async function listEarnings(
  db: Knex,
  partnerId: string,
  filter: EarningsFilter,
  options: { limit: number; after?: { createdAt: Date; id: string } },
): Promise<{ page: EarningRecord[]; totals: EarningsTotal[] }> {
  const page = afterPosition(
    filtered(db, partnerId, filter)
      .select(
        'id',
        'partner_id',
        'route_id',
        'order_id',
        'asset',
        'network',
        db.raw('amount::text as amount'),
        db.raw('amount_usd::text as amount_usd'),
        db.raw('markup_percent::text as markup_percent'),
        'created_at',
      )
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(options.limit),
    options.after,
  );
  const totals = filtered(db, partnerId, filter)
    .groupBy('asset', 'network')
    .select('asset', 'network', db.raw('sum(amount)::text as amount'), db.raw('sum(amount_usd)::text as amount_usd'));
  const row = (await db
    .select(
      db.raw(`coalesce((select json_agg(p order by p.created_at desc, p.id desc) from ? as p), '[]') as page`, [page]),
      db.raw(`coalesce((select json_agg(t order by t.asset, t.network) from ? as t), '[]') as totals`, [totals]),
    )
    .first()) as { page: Array<Record<string, unknown>>; totals: Array<Record<string, unknown>> };
  return {
    page: row.page.map((entry) => fromJsonRow<EarningRecord>(entry, ['createdAt'])),
    totals: row.totals.map((entry) => fromRow<EarningsTotal>(entry)),
  };
}
