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

/**
 * Sets the partner's markup and returns it as stored. Setting the percentage it already has writes nothing
 * and keeps `updatedAt`: the row is only read, so identical sets do not queue on its lock, each waiting for
 * the last one's commit. A first set inserts the row.
 */
export async function upsertMarkup(db: Knex, partnerId: string, percent: string): Promise<MarkupRecord> {
  // One statement, planned once per connection (pss_set_markup, migration 0022). Each of its branches writes
  // only where the others do not: `changed` a row this statement's snapshot has, `inserted` one it has not
  // (or, should a concurrent first set have inserted it meanwhile, that one).
  const {
    rows: [row],
  } = await db.raw(`select updated_at from pss_set_markup(?::uuid, ?::numeric)`, [partnerId, percent]);
  // Unchanged, the row is as the statement's snapshot saw it; a set committed since can only have been to
  // this same percentage (the update re-checks the newest row), so it is what the answer shows.
  return { percent, updatedAt: row.updated_at };
}
