/**
 * Chain alerts (migration 0027): what a reorganisation took back after its swap ended, a confirmed payout or a
 * credited deposit, kept for an operator until one marks it resolved. The chain ledger writes them
 * (store/chain-ledger.ts, in the transaction that records the removal); the ops CLI lists and resolves them.
 */
import type { Knex } from 'knex';

/** An open chain alert. */
export interface ChainAlertRecord {
  id: string;
  network: string;
  kind: 'payout_removed' | 'deposit_removed';
  swapId: string | null;
  txHash: string;
  detail: string;
  createdAt: Date;
}

/** The alerts no operator resolved yet, oldest first. */
export async function listOpenChainAlerts(db: Knex): Promise<ChainAlertRecord[]> {
  const rows = await db('chain_alerts').whereNull('resolved_at').orderBy('created_at');
  return rows.map((r: Record<string, unknown>) => ({
    id: r.id as string,
    network: r.network as string,
    kind: r.kind as ChainAlertRecord['kind'],
    swapId: r.swap_id as string | null,
    txHash: r.tx_hash as string,
    detail: r.detail as string,
    createdAt: r.created_at as Date,
  }));
}

/** Marks open alert `id` resolved by `actor` at `at`; false when there is no such open alert. */
export async function resolveChainAlertRecord(trx: Knex.Transaction, id: string, actor: string, at: Date): Promise<boolean> {
  const updated = await trx('chain_alerts').where({ id }).whereNull('resolved_at').update({ resolved_at: at, resolved_by: actor });
  return updated === 1;
}
