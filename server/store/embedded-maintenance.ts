/**
 * The upkeep the embedded database needs and does not do itself. PGlite runs PostgreSQL in single-user mode,
 * with none of its background processes: no autovacuum (the setting reads `on`, but no launcher runs) and no
 * checkpointer. So nothing made the space of deleted and updated rows reusable (request_nonces, swept every
 * minute, and pg-boss's jobs grew for as long as the process ran), planner statistics were never refreshed,
 * and no WAL was ever removed (in memory, WAL is memory). Measured with PGlite 0.5.14 (docs/embedded-database.md,
 * "Upkeep"): 50,000 nonce-like rows inserted and deleted four times grew their table (with its index) to 30 MB
 * and the WAL to 64 MB; vacuumed and checkpointed after each round, the table stayed at 8 MB and the WAL at
 * two 16 MB files.
 *
 * `maintainEmbedded` does what those processes would: it vacuums and analyzes the tables past autovacuum's
 * default thresholds, and checkpoints once WAL has been written since the last checkpoint. Housekeeping runs
 * it every minute (autovacuum's own default nap). Each table is its own statement, so requests run between
 * them (the socket takes statements in turns, embedded-socket.ts), and none runs inside an open transaction:
 * VACUUM cannot, and the socket runs nothing of another connection's while one is open.
 *
 * PostgreSQL proper needs none of this; its database has no `maintain` (database.ts).
 */
import type { Knex } from 'knex';

// PostgreSQL's defaults for autovacuum: a table is vacuumed when its dead rows pass
// autovacuum_vacuum_threshold + autovacuum_vacuum_scale_factor x its live rows, or its rows inserted since the
// last vacuum pass autovacuum_vacuum_insert_threshold + autovacuum_vacuum_insert_scale_factor x live (so the
// visibility map and freezing keep up on tables that only grow), or its oldest unfrozen transaction or
// multixact is older than autovacuum_freeze_max_age or autovacuum_multixact_freeze_max_age; it is analyzed
// when its rows changed since the last analyze pass autovacuum_analyze_threshold +
// autovacuum_analyze_scale_factor x live. Simpler than autovacuum in three ways, none of which matters at the
// embedded database's sizes: live rows are the statistics' count (autovacuum reads pg_class.reltuples and
// scales the insert threshold by the unfrozen fraction), toast tables are vacuumed with their table only, and
// only this database is visited (the age of template0 and template1 matters only after two billion transactions).
const VACUUM_THRESHOLD = 50;
const VACUUM_SCALE_FACTOR = 0.2;
const VACUUM_INSERT_THRESHOLD = 1000;
const VACUUM_INSERT_SCALE_FACTOR = 0.2;
const FREEZE_MAX_AGE = 200_000_000;
const MULTIXACT_FREEZE_MAX_AGE = 400_000_000;
const ANALYZE_THRESHOLD = 50;
const ANALYZE_SCALE_FACTOR = 0.1;
/** WAL written since the last checkpoint's redo point past which a checkpoint is made (an idle database makes none). */
export const CHECKPOINT_AFTER_BYTES = 1024 * 1024;

/** What one pass did. */
export interface MaintenanceReport {
  /** Tables vacuumed, as PostgreSQL names them (schema-qualified when not on the search path). */
  vacuumed: string[];
  /** Tables analyzed (with or without a vacuum). */
  analyzed: string[];
  /** Whether a checkpoint was made. */
  checkpointed: boolean;
}

// Toast tables go with their table's vacuum; information_schema holds views and a few small fixed tables.
const TABLES_DUE = `
  select c.oid::regclass::text as name,
         (s.n_dead_tup > ${VACUUM_THRESHOLD} + ${VACUUM_SCALE_FACTOR} * s.n_live_tup
          or s.n_ins_since_vacuum > ${VACUUM_INSERT_THRESHOLD} + ${VACUUM_INSERT_SCALE_FACTOR} * s.n_live_tup
          or age(c.relfrozenxid) > ${FREEZE_MAX_AGE}
          or mxid_age(c.relminmxid) > ${MULTIXACT_FREEZE_MAX_AGE}) as vacuum,
         -- ANALYZE passes over pg_statistic (it holds the statistics), so its count would never go down.
         (s.n_mod_since_analyze > ${ANALYZE_THRESHOLD} + ${ANALYZE_SCALE_FACTOR} * s.n_live_tup
          and c.oid <> 'pg_catalog.pg_statistic'::regclass) as analyze
    from pg_stat_all_tables s
    join pg_class c on c.oid = s.relid
   where c.relkind in ('r', 'm')
     and s.schemaname <> 'information_schema'
     and s.schemaname not like 'pg\\_toast%'
   order by s.n_dead_tup desc`;

const WAL_SINCE_CHECKPOINT = `select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), redo_lsn)::bigint as bytes from pg_control_checkpoint()`;

/**
 * One pass of the upkeep above, on the embedded database `knex` reaches. Once `signal` is aborted (the server
 * is stopping) it starts no further statement and returns what it did.
 */
export async function maintainEmbedded(knex: Knex, signal?: AbortSignal): Promise<MaintenanceReport> {
  const report: MaintenanceReport = { vacuumed: [], analyzed: [], checkpointed: false };
  if (signal?.aborted) return report;
  // The session's table statistics reach the views at most once a second; the pass reads them as they are now.
  await knex.raw('select pg_stat_force_next_flush()');
  const { rows } = await knex.raw(TABLES_DUE);
  for (const table of rows as Array<{ name: string; vacuum: boolean; analyze: boolean }>) {
    if (signal?.aborted) return report;
    if (!table.vacuum && !table.analyze) continue;
    // The name is PostgreSQL's own regclass text: quoted where it needs quoting.
    const statement = table.vacuum ? `vacuum${table.analyze ? ' (analyze)' : ''} ${table.name}` : `analyze ${table.name}`;
    try {
      await knex.raw(statement);
    } catch (err) {
      // Dropped since it was listed, alone or with its schema (a test's, say): nothing left to do for it.
      const code = (err as { code?: string }).code;
      if (code === '42P01' || code === '3F000') continue;
      throw err;
    }
    if (table.vacuum) report.vacuumed.push(table.name);
    if (table.analyze) report.analyzed.push(table.name);
  }
  if (signal?.aborted) return report;
  const [{ bytes }] = (await knex.raw(WAL_SINCE_CHECKPOINT)).rows as Array<{ bytes: string }>;
  if (BigInt(bytes) > BigInt(CHECKPOINT_AFTER_BYTES)) {
    await knex.raw('checkpoint');
    report.checkpointed = true;
  }
  return report;
}
