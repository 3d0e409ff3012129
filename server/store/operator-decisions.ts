/** Operator decisions on swaps held for a person (`review`), written in the transaction of the transition they cause. */
import type { Knex } from 'knex';
import type { SwapStatus } from '../domain/swap-lifecycle.js';
import { fromRow, isUuid, toColumns } from './rows.js';

/** What an operator can decide about a swap in review. */
export type OperatorDecision = 'exchange' | 'pay-again' | 'refund' | 'fail';

/** One recorded decision. */
export interface OperatorDecisionRecord {
  id: string;
  swapId: string;
  operator: string;
  decision: OperatorDecision;
  reason: string;
  fromStatus: SwapStatus;
  toStatus: SwapStatus;
  createdAt: Date;
}

/** Records a decision in the caller's transaction. */
export async function insertOperatorDecision(
  trx: Knex.Transaction,
  decision: Omit<OperatorDecisionRecord, 'id'>,
): Promise<OperatorDecisionRecord> {
  const [row] = await trx('operator_decisions').insert(toColumns(decision)).returning('*');
  return fromRow<OperatorDecisionRecord>(row);
}

/** The decisions taken on swap `swapId`, oldest first. */
export async function listOperatorDecisions(db: Knex, swapId: string): Promise<OperatorDecisionRecord[]> {
  if (!isUuid(swapId)) return [];
  const rows = await db('operator_decisions').where({ swap_id: swapId }).orderBy('created_at');
  return rows.map((row) => fromRow<OperatorDecisionRecord>(row));
}
