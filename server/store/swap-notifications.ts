/**
 * Announcing committed swap changes to every server instance's stream hub (docs/architecture.md#streams-and-webhooks): NOTIFY on PostgreSQL,
 * delivered once the transaction commits; on the embedded PGlite, whose NOTIFY does not cross socket
 * connections, an in-process bus fired after the commit. On PostgreSQL a statement that writes a swap can
 * carry its own NOTIFY (announcementSql) and save the round trip of announceSwapChange.
 */
import { EventEmitter } from 'node:events';
import type { Knex } from 'knex';
import { afterCommit } from './after-commit.js';

/** The NOTIFY channel of swap changes; the payload is the swap id. */
export const SWAP_CHANGES_CHANNEL = 'pss_swap_changes';

// Buses keyed by the knex configuration object, which a transaction shares with the knex it came from.
const localBuses = new WeakMap<object, EventEmitter>();

/** Delivers changes committed through `knex` to `bus` (event `change`, argument the swap id), in this process. */
export function deliverChangesLocally(knex: Knex, bus: EventEmitter): void {
  localBuses.set(knex.client.config, bus);
}

/**
 * The select-list expression that announces the change of the swap whose id is the SQL `idSql`, for a
 * statement that writes that swap through `db`; undefined where announceSwapChange must be called instead
 * (the embedded PGlite's bus). NOTIFY is transactional: it is sent when the statement's transaction commits
 * and dropped if it rolls back, as announceSwapChange's is, and not at all when the statement selects no row.
 */
export function announcementSql(db: Knex, idSql: string): { sql: string; bindings: [string] } | undefined {
  if (localBuses.has(db.client.config)) return undefined;
  return { sql: `pg_notify(?, (${idSql})::text)`, bindings: [SWAP_CHANGES_CHANNEL] };
}

/**
 * Announces a change of `swapId` once it is committed: when `db` is a transaction, once it commits (nothing
 * is announced if it rolls back); otherwise the change was a statement of its own, committed already.
 */
export async function announceSwapChange(db: Knex, swapId: string): Promise<void> {
  const bus = localBuses.get(db.client.config);
  if (bus) return afterCommit(db, () => bus.emit('change', swapId));
  await db.raw('select pg_notify(?, ?)', [SWAP_CHANGES_CHANNEL, swapId]);
}
