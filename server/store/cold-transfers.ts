/**
 * Cold transfers in the payout outbox (jobs/cold-transfers.ts, docs/treasury.md "Cold storage"): payouts with
 * purpose `cold` and no swap, each moving a hot wallet's surplus to its network's cold address.
 */
import type { Knex } from 'knex';
import type { PayoutRecord } from './payouts.js';

/** A cold transfer, as the ops CLI and the metrics show it. */
export interface ColdTransfer {
  id: string;
  network: string;
  asset: string;
  address: string;
  amount: string;
  status: PayoutRecord['status'];
  txHash: string | null;
  confirmations: number;
  heldReason: string | null;
  /** When an operator released it (held, it stops the next transfer of its asset until then). */
  releasedAt: Date | null;
  createdAt: Date;
}

const HELD_STATUSES = `('failed', 'review', 'reverted', 'cancelled')`;

// A cold transfer still in play: on its way (pending to broadcast, or mined short of its finality), or held
// for an operator and not released. While one is, no other of its asset is made.
const OPEN = `p.purpose = 'cold' and (p.status in ('pending', 'signed', 'broadcast') or (p.status in ${HELD_STATUSES} and p.released_at is null))`;

const SELECT = `p.id, p.network, p.asset, p.address, p.amount::text as amount, p.status, p.tx_hash, p.held_reason, p.released_at,
  p.created_at, greatest(0, coalesce(c.tip_height - p.block_height + 1, 0))::int as confirmations`;

const toColdTransfer = (row: Record<string, unknown>): ColdTransfer => ({
  id: row.id as string,
  network: row.network as string,
  asset: row.asset as string,
  address: row.address as string,
  amount: row.amount as string,
  status: row.status as PayoutRecord['status'],
  txHash: row.tx_hash as string | null,
  confirmations: row.confirmations as number,
  heldReason: row.held_reason as string | null,
  releasedAt: row.released_at as Date | null,
  createdAt: row.created_at as Date,
});

/** The cold transfer of `asset` on `network` still in play, if any (read under the asset's liquidity lock). */
export async function findOpenColdTransfer(db: Knex | Knex.Transaction, network: string, asset: string): Promise<ColdTransfer | undefined> {
  const { rows } = await db.raw(
    `select ${SELECT} from payouts p left join chain_cursors c on c.network = p.network
      where p.network = ? and p.asset = ? and ${OPEN} order by p.created_at limit 1`,
    [network, asset],
  );
  return rows.length > 0 ? toColdTransfer(rows[0]) : undefined;
}

/** Cold transfers, newest first (at most `limit`). */
export async function listColdTransfers(db: Knex, limit: number): Promise<ColdTransfer[]> {
  const { rows } = await db.raw(
    `select ${SELECT} from payouts p left join chain_cursors c on c.network = p.network
      where p.purpose = 'cold' order by p.created_at desc, p.id limit ?`,
    [limit],
  );
  return (rows as Array<Record<string, unknown>>).map(toColdTransfer);
}

/** One cold transfer, locked in `trx`. */
export async function lockColdTransfer(trx: Knex.Transaction, id: string): Promise<ColdTransfer | undefined> {
  const locked = await trx('payouts').where({ id, purpose: 'cold' }).forUpdate().first('id');
  if (!locked) return undefined;
  const { rows } = await trx.raw(`select ${SELECT} from payouts p left join chain_cursors c on c.network = p.network where p.id = ?`, [id]);
  return toColdTransfer(rows[0]);
}

/** Marks held cold transfer `id` released at `at` (it no longer stops the next transfer of its asset). */
export async function releaseColdTransfer(trx: Knex.Transaction, id: string, at: Date): Promise<void> {
  await trx('payouts').where({ id, purpose: 'cold' }).whereNull('released_at').update({ released_at: at, updated_at: at });
}

/**
 * Marks the cold transfers on `network` that a block holds `confirmations` deep `confirmed` (nothing else moves
 * them: no swap step follows them); returns their ids.
 */
export async function confirmColdTransfers(db: Knex, network: string, confirmations: number, at: Date): Promise<string[]> {
  const { rows } = await db.raw(
    `update payouts p set status = 'confirmed', updated_at = ?
       from chain_cursors c
      where c.network = p.network and p.network = ? and p.purpose = 'cold' and p.status = 'broadcast'
        and p.block_height is not null and c.tip_height - p.block_height + 1 >= ?
      returning p.id`,
    [at, network, confirmations],
  );
  return (rows as Array<{ id: string }>).map((r) => r.id);
}

/** What the cold-transfer gauges show, per asset: transfers on their way, those held, and the amount confirmed. */
export interface ColdTransferGauges {
  open: Array<{ network: string; asset: string; count: number }>;
  held: Array<{ network: string; asset: string; count: number }>;
  confirmed: Array<{ network: string; asset: string; amount: string }>;
}

/** Reads the cold-transfer gauges in one statement. */
export async function readColdTransferGauges(db: Knex): Promise<ColdTransferGauges> {
  const { rows } = await db.raw(
    `select network, asset,
            count(*) filter (where status in ('pending', 'signed', 'broadcast'))::int as open,
            count(*) filter (where status in ${HELD_STATUSES} and released_at is null)::int as held,
            coalesce(sum(amount) filter (where status = 'confirmed'), 0)::text as confirmed
       from payouts where purpose = 'cold' group by network, asset`,
  );
  const all = rows as Array<{ network: string; asset: string; open: number; held: number; confirmed: string }>;
  return {
    open: all.map((r) => ({ network: r.network, asset: r.asset, count: r.open })),
    held: all.map((r) => ({ network: r.network, asset: r.asset, count: r.held })),
    confirmed: all.map((r) => ({ network: r.network, asset: r.asset, amount: r.confirmed })),
  };
}
