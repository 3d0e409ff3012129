/**
 * The operator action trail (migration 0014): append-only, so this module only inserts and reads. A
 * succeeded action is inserted in the caller's transaction; the database refuses any UPDATE or DELETE.
 */
import type { Knex } from 'knex';

/** How an operator action ended: done, refused by the service (a 4xx), or failed unexpectedly. */
export type OperatorActionOutcome = 'succeeded' | 'refused' | 'failed';

/** One entry of the trail. */
export interface OperatorActionRecord {
  /** Increasing with every entry (a bigint, as text). */
  id: string;
  actor: string;
  action: string;
  target: string;
  reason: string | null;
  outcome: OperatorActionOutcome;
  details: Record<string, unknown> | null;
  actedAt: Date;
}

/** An entry to append; the database numbers it, and times it unless `actedAt` is given. */
export type NewOperatorAction = Omit<OperatorActionRecord, 'id' | 'actedAt'> & { actedAt?: Date };

/** SQLSTATE the append-only trigger raises for an UPDATE, DELETE or TRUNCATE of operator_actions. */
export const APPEND_ONLY_VIOLATION = 'PS002';

interface OperatorActionRow {
  id: string;
  actor: string;
  action: string;
  target: string;
  reason: string | null;
  outcome: OperatorActionOutcome;
  details: Record<string, unknown> | string | null;
  acted_at: Date;
}

const toRecord = (row: OperatorActionRow): OperatorActionRecord => ({
  id: String(row.id),
  actor: row.actor,
  action: row.action,
  target: row.target,
  reason: row.reason,
  outcome: row.outcome,
  // jsonb comes back parsed from PostgreSQL; keep a string readable too.
  details: typeof row.details === 'string' ? (JSON.parse(row.details) as Record<string, unknown>) : row.details,
  actedAt: row.acted_at,
});

/** Appends an entry on `db` (the action's transaction for a success, the pool for a refusal). */
export async function insertOperatorAction(db: Knex, entry: NewOperatorAction): Promise<OperatorActionRecord> {
  const [row] = await db<OperatorActionRow>('operator_actions')
    .insert({
      actor: entry.actor,
      action: entry.action,
      target: entry.target,
      reason: entry.reason,
      outcome: entry.outcome,
      details: entry.details === null ? null : JSON.stringify(entry.details),
      ...(entry.actedAt ? { acted_at: entry.actedAt } : {}),
    } as never)
    .returning('*');
  return toRecord(row as OperatorActionRow);
}

/** The newest `limit` entries, newest first, of one action and/or one target when given. */
export async function listOperatorActions(
  db: Knex,
  filter: { limit: number; action?: string; target?: string },
): Promise<OperatorActionRecord[]> {
  const query = db<OperatorActionRow>('operator_actions').orderBy('id', 'desc').limit(filter.limit);
  if (filter.action !== undefined) query.where({ action: filter.action });
  if (filter.target !== undefined) query.where({ target: filter.target });
  return (await query).map((row) => toRecord(row as OperatorActionRow));
}
