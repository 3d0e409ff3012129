/**
 * Screening verdicts on the senders of deposits: a swap's (migration 0035), written once per swap and sender,
 * and a permanent-route deposit's (0036), written once per deposit by the route poll. Read by the swap step
 * (swap-decision.ts holds a swap whose sender is denied or held, and never refunds to one; a route order's
 * verdicts are those of its deposits), the route poll and the ops CLI.
 */
import type { Knex } from 'knex';
import type { DepositRecord } from '../domain/route-deposit-view.js';
import type { ScreeningDecision, ScreeningProvider } from '../domain/screening.js';
import { fromRow } from './rows.js';

/** One sender's verdict on one swap. */
export interface SenderVerdictRecord {
  swapId: string;
  network: string;
  address: string;
  /** The address in the form it is compared in (domain/screening.ts screeningKeyOf). */
  addressKey: string;
  decision: ScreeningDecision;
  reason: string | null;
  provider: Exclude<ScreeningProvider, 'none'>;
  failure: string | null;
  screenedAt: Date;
}

interface VerdictRow {
  swap_id: string;
  network: string;
  address: string;
  address_key: string;
  decision: ScreeningDecision;
  reason: string | null;
  provider: SenderVerdictRecord['provider'];
  failure: string | null;
  screened_at: Date;
}

const toRecord = (row: VerdictRow): SenderVerdictRecord => ({
  swapId: row.swap_id,
  network: row.network,
  address: row.address,
  addressKey: row.address_key,
  decision: row.decision,
  reason: row.reason,
  provider: row.provider,
  failure: row.failure,
  screenedAt: new Date(row.screened_at),
});

/** Stores `verdict` unless the swap has one for that sender already; true when it was stored. */
export async function insertSenderVerdict(db: Knex, verdict: SenderVerdictRecord): Promise<boolean> {
  const rows = await db('screening_verdicts')
    .insert({
      swap_id: verdict.swapId,
      network: verdict.network,
      address: verdict.address,
      address_key: verdict.addressKey,
      role: 'sender',
      decision: verdict.decision,
      reason: verdict.reason,
      provider: verdict.provider,
      failure: verdict.failure,
      screened_at: verdict.screenedAt,
    })
    .onConflict(['swap_id', 'role', 'address_key'])
    .ignore()
    .returning('swap_id');
  return rows.length > 0;
}

/**
 * The sender verdicts of `swapIds`, oldest first: a swap's own, and a route order's those its route holds on
 * the senders of its deposits (listed as the order's).
 */
export async function listSenderVerdicts(
  db: Knex,
  swapIds: readonly string[],
  options: { routeOrders: boolean } = { routeOrders: true },
): Promise<SenderVerdictRecord[]> {
  if (swapIds.length === 0) return [];
  const [own, routed] = await Promise.all([
    db<VerdictRow>('screening_verdicts')
      .whereIn('swap_id', swapIds as string[])
      .andWhere('role', 'sender'),
    // Every verdict the route holds on the sender of each of the order's deposits (the worst one counts);
    // none to look for when none of `swapIds` is a route order.
    !options.routeOrders
      ? Promise.resolve([] as VerdictRow[])
      : db('route_deposits as o')
          .join('route_deposit_verdicts as ov', 'ov.deposit_id', 'o.id')
          .join('route_deposits as d', 'd.route_id', 'o.route_id')
          .join('route_deposit_verdicts as v', (on) =>
            on.on('v.deposit_id', 'd.id').andOn('v.network', 'ov.network').andOn('v.address_key', 'ov.address_key'),
          )
          .whereIn('o.order_id', swapIds as string[])
          .distinct<VerdictRow[]>('v.*', 'o.order_id as swap_id'),
  ]);
  return [...own, ...routed].map(toRecord).sort((a, b) => a.screenedAt.getTime() - b.screenedAt.getTime());
}

/** The verdict on the sender of one permanent-route deposit. */
export type RouteDepositVerdictRecord = Omit<SenderVerdictRecord, 'swapId'> & { depositId: string };

/** Stores each of `verdicts` whose deposit has none yet; the deposit ids stored. */
export async function insertRouteDepositVerdicts(db: Knex, verdicts: readonly RouteDepositVerdictRecord[]): Promise<string[]> {
  if (verdicts.length === 0) return [];
  const rows = await db('route_deposit_verdicts')
    .insert(
      verdicts.map((v) => ({
        deposit_id: v.depositId,
        network: v.network,
        address: v.address,
        address_key: v.addressKey,
        decision: v.decision,
        reason: v.reason,
        provider: v.provider,
        failure: v.failure,
        screened_at: v.screenedAt,
      })),
    )
    .onConflict('deposit_id')
    .ignore()
    .returning('deposit_id');
  return rows.map((row: { deposit_id: string }) => row.deposit_id);
}

/** The verdicts on the senders of the route's deposits among `depositIds`, by deposit id. */
export async function listRouteDepositVerdicts(db: Knex, depositIds: readonly string[]): Promise<Map<string, RouteDepositVerdictRecord>> {
  if (depositIds.length === 0) return new Map();
  const rows = await db<VerdictRow & { deposit_id: string }>('route_deposit_verdicts').whereIn('deposit_id', depositIds as string[]);
  return new Map(
    rows.map((row) => {
      const { swapId: _order, ...verdict } = toRecord({ ...row, swap_id: '' });
      return [row.deposit_id, { ...verdict, depositId: row.deposit_id }];
    }),
  );
}

/**
 * Route `routeId`'s deposits without an order (dust aside) whose sender has no verdict yet, and that name one:
 * the ones the next poll needs screened.
 */
export async function listUnscreenedRouteDeposits(db: Knex, routeId: string): Promise<DepositRecord[]> {
  const rows = await db('route_deposits as d')
    .leftJoin('route_deposit_verdicts as v', 'v.deposit_id', 'd.id')
    .where('d.route_id', routeId)
    .whereNull('d.order_id')
    .whereNull('v.deposit_id')
    .andWhereNot('d.status', 'dust')
    .andWhereNot('d.from_address', '')
    .select('d.*');
  return rows.map((row: Record<string, unknown>) => fromRow<DepositRecord>(row));
}

/** Order `orderId`'s deposits whose sender has no verdict yet, and that name one. */
export async function listUnscreenedOrderDeposits(db: Knex, orderId: string): Promise<DepositRecord[]> {
  const rows = await db('route_deposits as d')
    .leftJoin('route_deposit_verdicts as v', 'v.deposit_id', 'd.id')
    .where('d.order_id', orderId)
    .whereNull('v.deposit_id')
    .andWhereNot('d.from_address', '')
    .select('d.*');
  return rows.map((row: Record<string, unknown>) => fromRow<DepositRecord>(row));
}

/** The decisions route `routeId` holds on each of `senders` (`NETWORK:addressKey`), every one of its deposits' verdicts. */
export async function listRouteSenderDecisions(
  db: Knex,
  routeId: string,
  senders: ReadonlyArray<{ network: string; addressKey: string }>,
): Promise<Map<string, ScreeningDecision[]>> {
  const decisions = new Map<string, ScreeningDecision[]>();
  if (senders.length === 0) return decisions;
  const rows = await db('route_deposit_verdicts as v')
    .join('route_deposits as d', 'd.id', 'v.deposit_id')
    .where('d.route_id', routeId)
    .whereIn(
      'v.address_key',
      senders.map((s) => s.addressKey),
    )
    .select<Array<{ network: string; address_key: string; decision: ScreeningDecision }>>('v.network', 'v.address_key', 'v.decision');
  for (const row of rows) {
    const key = `${row.network}:${row.address_key}`;
    decisions.set(key, [...(decisions.get(key) ?? []), row.decision]);
  }
  return decisions;
}
