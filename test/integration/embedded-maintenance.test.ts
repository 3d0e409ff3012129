/**
 * The embedded database's upkeep (store/embedded-maintenance.ts): PGlite runs PostgreSQL without autovacuum
 * or a checkpointer, so the space of deleted rows is never used again and WAL is never removed unless the
 * server does it. Housekeeping runs `maintain` every minute; these tests run it directly.
 */
import { expect } from 'chai';
import pino from 'pino';
import { startHousekeeping } from '../../server/jobs/housekeeping.js';
import { migrate, openDatabase, type Database, type DatabaseOptions } from '../../server/store/database.js';

/** Runs `use` on a database opened as `options` (embedded in memory for `{}`), and closes it whatever happens. */
async function withDatabase(options: DatabaseOptions, use: (db: Database) => Promise<void>): Promise<void> {
  const db = await openDatabase(options);
  try {
    await use(db);
  } finally {
    await db.close();
  }
}

const ROWS_PER_ROUND = 50_000;
const ROUNDS = 4;
const WAL_SEGMENT_BYTES = 16 * 1024 * 1024;

/** Fills and empties a nonce-like table ROUNDS times, with `between` after each; the sizes after each round. */
async function churn(db: Database, between: () => Promise<unknown>): Promise<Array<{ table: number; wal: number }>> {
  await db.knex.raw(`create table churned (key_id text, nonce text, expires_at timestamptz, primary key (key_id, nonce))`);
  const sizes: Array<{ table: number; wal: number }> = [];
  for (let round = 0; round < ROUNDS; round++) {
    await db.knex.raw(`insert into churned select 'k', md5(g::text || ?), now() from generate_series(1, ?) g`, [round, ROWS_PER_ROUND]);
    await db.knex.raw(`delete from churned`);
    await between();
    const { rows } = await db.knex.raw(
      `select pg_total_relation_size('churned')::bigint as table, (select sum(size) from pg_ls_waldir())::bigint as wal`,
    );
    sizes.push({ table: Number(rows[0].table), wal: Number(rows[0].wal) });
  }
  return sizes;
}

describe('embedded database upkeep', () => {
  it('is needed: PGlite alone never reuses the space of deleted rows nor removes WAL', async () => {
    await withDatabase({}, async (db) => {
      const sizes = await churn(db, async () => undefined);
      // Each round adds a table's worth of dead rows, and every round's WAL stays.
      expect(sizes[ROUNDS - 1].table).to.be.at.least(sizes[0].table * (ROUNDS - 0.5));
      expect(sizes[ROUNDS - 1].wal).to.be.above(sizes[0].wal + WAL_SEGMENT_BYTES);
    });
  });

  it('vacuums the tables past autovacuum’s thresholds and checkpoints, so the table and WAL stop growing', async () => {
    await withDatabase({}, async (db) => {
      const reports: Array<Awaited<ReturnType<NonNullable<Database['maintain']>>>> = [];
      const sizes = await churn(db, async () => reports.push(await db.maintain!()));
      for (const report of reports) {
        expect(report.vacuumed).to.include('churned');
        expect(report.analyzed).to.include('churned');
        expect(report.checkpointed).to.equal(true);
      }
      // Vacuumed after each round, the table's pages are free for the next one. Its index keeps a second
      // round's worth (a btree's emptied pages are reused only once no transaction can still see them), then
      // stops growing: here 3.8, 7.7, 7.7, 7.7 MB, where PGlite alone reached 30 MB.
      expect(sizes[ROUNDS - 1].table).to.be.at.most(sizes[ROUNDS - 2].table * 1.05);
      expect(sizes[ROUNDS - 1].table).to.be.at.most(sizes[0].table * 2.25);
      // The current segment and one recycled for the next: no more, however many rounds were written.
      for (const size of sizes) expect(size.wal).to.be.at.most(2 * WAL_SEGMENT_BYTES);
    });
  });

  it('comes to rest on an idle database: a few passes after the last change, a pass does nothing', async () => {
    await withDatabase({}, async (db) => {
      await migrate(db.knex);
      await db.knex.raw(`create table churned (n int)`);
      await db.knex.raw(`insert into churned select generate_series(1, 5000)`);
      await db.knex.raw(`delete from churned`);
      const reports = [];
      for (let pass = 0; pass < 4; pass++) reports.push(await db.maintain!());
      expect(reports[0].vacuumed).to.include('churned');
      // The statistics an ANALYZE writes are themselves vacuumed in a later pass, but never analyzed: ANALYZE
      // passes over pg_statistic, so a pass that listed it would list it every minute, forever.
      for (const report of reports) expect(report.analyzed).not.to.include('pg_statistic');
      const resting = { vacuumed: [], analyzed: [], checkpointed: false };
      expect(reports.slice(2)).to.deep.equal([resting, resting]);
    });
  });

  it('runs in housekeeping after the sweep, one pass at a time, and its stop waits for a running pass', async () => {
    await withDatabase({}, async (db) => {
      await migrate(db.knex);
      let calls = 0;
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let signal: AbortSignal | undefined;
      const stop = startHousekeeping(
        {
          knex: db.knex,
          // The first pass is held until released: the ticks due meanwhile must not start another.
          maintain: async (s) => {
            calls += 1;
            signal = s;
            await held;
            return db.maintain!(s);
          },
        },
        pino({ level: 'silent' }),
        () => new Date(),
        10,
      );
      while (calls === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(calls).to.equal(1);
      let stopped = false;
      const stopping = stop().then(() => (stopped = true));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(stopped, 'stopped while a pass was running').to.equal(false);
      expect(signal?.aborted).to.equal(true);
      release();
      await stopping;
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(calls).to.equal(1);
    });
  });

  it('waits for another connection’s open transaction, and vacuums once it is committed', async () => {
    await withDatabase({}, async (db) => {
      await db.knex.raw(`create table held (n int)`);
      await db.knex.raw(`insert into held select generate_series(1, 1000)`);
      await db.knex.raw(`delete from held`);
      // Connections ready in the pool, so the pass's first statement is sent while the transaction is open.
      await Promise.all([1, 2, 3].map(() => db.knex.raw('select 1')));
      const trx = await db.knex.transaction();
      await trx.raw(`insert into held values (1)`);
      const pass = db.maintain!();
      // The pass is queued behind the transaction; VACUUM inside it would fail ("cannot run inside a
      // transaction block") and would see this uncommitted row.
      await trx.raw(`select pg_sleep(0.2)`);
      await trx.raw(`insert into held values (2)`);
      await trx.commit();
      const report = await pass;
      expect(report.vacuumed).to.include('held');
      expect((await db.knex.raw(`select count(*)::int as n from held`)).rows[0].n).to.equal(2);
    });
  });

  it('is left to PostgreSQL’s own autovacuum and checkpointer there', async function () {
    if (!process.env.DATABASE_URL) return this.skip();
    await withDatabase({ databaseUrl: process.env.DATABASE_URL }, async (db) => {
      expect(db.maintain).to.equal(undefined);
    });
  });
});
