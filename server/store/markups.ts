/** The partner markup applied to permanent routes created after it is set. */
import type { Knex } from 'knex';

/** A stored markup; percent is a decimal string with two places (numeric(5,2)). */
export interface MarkupRecord {
  percent: string;
  updatedAt: Date;
}

/** The partner's markup, if one was ever set. */
export async function findMarkup(db: Knex, partnerId: string): Promise<MarkupRecord | undefined> {
  const row = await db('partner_markups').where({ partner_id: partnerId }).first('percent', 'updated_at');
  return row ? { percent: row.percent, updatedAt: row.updated_at } : undefined;
}

/** Sets the partner's markup (insert or replace) and returns it as stored. */
export async function upsertMarkup(db: Knex, partnerId: string, percent: string): Promise<MarkupRecord> {
  const [row] = await db('partner_markups')
    .insert({ partner_id: partnerId, percent, updated_at: db.fn.now() })
    .onConflict('partner_id')
    .merge(['percent', 'updated_at'])
    .returning(['percent', 'updated_at']);
  return { percent: row.percent, updatedAt: row.updated_at };
}
