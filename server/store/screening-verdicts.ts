/**
 * Screening verdicts on the senders of swaps' deposits (migration 0035): written once per swap and sender,
 * read by the swap step (swap-decision.ts holds a swap whose sender is denied or held, and never refunds to
 * one) and by the ops CLI.
 */
import type { Knex } from 'knex';
import type { ScreeningDecision, ScreeningProvider } from '../domain/screening.js';

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

/** The sender verdicts of `swapIds`, oldest first. */
export async function listSenderVerdicts(db: Knex, swapIds: readonly string[]): Promise<SenderVerdictRecord[]> {
  if (swapIds.length === 0) return [];
  const rows = await db<VerdictRow>('screening_verdicts')
    .whereIn('swap_id', swapIds as string[])
    .andWhere('role', 'sender')
    .orderBy('screened_at');
  return rows.map(toRecord);
}
