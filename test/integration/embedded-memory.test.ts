import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { openDatabase, type Database } from '../../server/store/database.js';

/** The memory settings, and some of PGlite's own start parameters that ours must not replace. */
async function settings(db: Database): Promise<Record<string, string>> {
  const names = [
    'shared_buffers',
    'wal_buffers',
    'min_wal_size',
    'max_wal_size',
    'max_worker_processes',
    'max_parallel_workers_per_gather',
    'exit_on_error',
  ];
  const found: Record<string, string> = {};
  for (const name of names) found[name] = (await db.knex.raw(`show ${name}`)).rows[0][name];
  return found;
}

// Postgres's default 128 MB of shared buffers stayed resident in PGlite's WebAssembly heap (docs/embedded-database.md,
// "Memory"); these are the settings the idle-memory figures there were measured with.
const EXPECTED = {
  shared_buffers: '16MB',
  wal_buffers: '512kB',
  min_wal_size: '32MB',
  max_wal_size: '64MB',
  max_worker_processes: '0',
  max_parallel_workers_per_gather: '0',
  exit_on_error: 'off',
};

describe('embedded database memory settings', () => {
  let dataDir: string;
  before(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'pss-memory-'));
  });
  after(() => fs.rm(dataDir, { recursive: true, force: true }));

  it('runs with 16 MB of shared buffers, keeping PGlite’s own start parameters, in memory', async () => {
    const db = await openDatabase({});
    try {
      expect(await settings(db)).to.deep.equal(EXPECTED);
    } finally {
      await db.close();
    }
  });

  it('runs with 16 MB of shared buffers in a new DATA_DIR and again when it reopens it', async () => {
    for (const open of ['new', 'reopened']) {
      const db = await openDatabase({ dataDir });
      try {
        expect(await settings(db), open).to.deep.equal(EXPECTED);
      } finally {
        await db.close();
      }
    }
  });
});
