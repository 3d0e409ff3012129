/**
 * Opens the one database the service uses: real PostgreSQL when a URL is configured, otherwise an
 * embedded PGlite served over a Unix socket so that the same `pg` driver and SQL run on both.
 */
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import type { EmbeddedDatabaseOptions, EmbeddedWorkerData, EmbeddedWorkerMessage, PGliteWasmModule } from './embedded-worker.js';
import { maintainEmbedded, type MaintenanceReport } from './embedded-maintenance.js';
import { createMigrationSource, type MigrationContext } from './migrations/index.js';
import { deployStatementFunctions } from './statement-functions.js';
import { startWorker, WASM_V8_OPTIONS, workerModuleSource } from '../worker-module.js';

// Postgres `numeric` and `bigint` arrive as strings (never JS numbers: money is decimal); timestamps as Date.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => value);
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => value);

/** Where the database lives. */
export interface DatabaseOptions {
  /** A postgres:// URL; when absent an embedded PGlite is started. */
  databaseUrl?: string;
  /** Directory for the embedded database; in memory when absent. */
  dataDir?: string;
  /** Run inside this schema (created if missing); tests use one schema each. */
  schema?: string;
  /** Largest number of pooled connections (PostgreSQL; the embedded database always uses one). */
  poolSize?: number;
}

/** An open database: the knex handle plus how to close everything that was started for it. */
export interface Database {
  readonly knex: Knex;
  readonly kind: 'postgres' | 'pglite';
  /**
   * The upkeep PostgreSQL's background processes do elsewhere (vacuum, analyze, checkpoints), for an
   * embedded database this process runs (embedded-maintenance.ts); housekeeping calls it. Absent on
   * PostgreSQL, whose autovacuum and checkpointer do it, and on an embedded database another process runs.
   */
  maintain?(signal?: AbortSignal): Promise<MaintenanceReport>;
  close(): Promise<void>;
}

// Fail fast when the database is unreachable (health answers 503 instead of hanging for a minute).
const ACQUIRE_TIMEOUT_MS = 5_000;

/** Opens the database described by `options`; the caller owns the returned handle and must close it. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const poolSize = options.poolSize ?? 10;
  if (options.databaseUrl) {
    const knex = knexFactory({
      client: 'pg',
      connection: options.databaseUrl,
      searchPath: options.schema ? [options.schema] : undefined,
      pool: { min: 0, max: poolSize },
      acquireConnectionTimeout: ACQUIRE_TIMEOUT_MS,
    });
    if (options.schema) await knex.raw('create schema if not exists ??', [options.schema]);
    return { knex, kind: 'postgres', close: () => knex.destroy() };
  }

  if (!options.dataDir) return startEmbedded(undefined, options.schema);
  // The embedded database is reachable only through the file system: DATA_DIR is private to this user
  // (0700), its files lose group and world access, and PGlite listens on a Unix socket inside it.
  await makePrivateDirectory(options.dataDir);
  // PGlite is single-process: when a live server already holds this directory, share its socket
  // (the partners CLI next to `make run`) instead of opening the files a second time.
  const shared = await connectToRunningEmbedded(options.dataDir, options.schema);
  if (shared) return shared;
  return startEmbedded(options.dataDir, options.schema);
}

/** Names the process and socket directory that hold an embedded data directory. */
const EMBEDDED_LOCK_FILE = 'pglite.json';
/** The port number in the socket's file name (`.s.PGSQL.<port>`), which is how `pg` finds a Unix socket. */
const SOCKET_PORT = 5432;
// sun_path holds 108 bytes on Linux (104 on macOS); past that a socket cannot be bound at that path.
const MAX_SOCKET_PATH_BYTES = 100;

/**
 * Postgres settings of the embedded database. PGlite's WebAssembly heap never shrinks, and Postgres's
 * default 128 MB of shared buffers (and 4 MB of WAL buffers, 1/32 of them) ended up resident in it. 16 MB
 * hold the sandbox's working set: over a `make bench` run, 99.9% of block reads were buffer hits (490
 * reads, 768,511 hits; 998 reads with 128 MB). Measured with PGlite 0.5.14 (docs/embedded-database.md,
 * "Memory"): PGlite alone on an existing directory, idle, 311 -> 187 MB RSS; `make run` on an existing
 * DATA_DIR, idle, 466-502 -> 310-381 MB.
 *
 * WAL: after each checkpoint (made by embedded-maintenance.ts; PGlite has no checkpointer) Postgres keeps old
 * segments for reuse, at least min_wal_size (80 MB by default) and up to max_wal_size (1 GB) when more was
 * written between checkpoints. In memory, that is memory. With these two, a checkpoint keeps 32-64 MB: two
 * to four 16 MB segments (measured: 50 MB written between checkpoints kept five segments with the defaults,
 * four with these).
 */
export const EMBEDDED_SETTINGS: readonly string[] = ['shared_buffers=16MB', 'min_wal_size=32MB', 'max_wal_size=64MB'];

async function startEmbedded(dataDir: string | undefined, schema: string | undefined): Promise<Database> {
  const pgliteDir = dataDir ? path.join(dataDir, 'pglite') : undefined;
  if (pgliteDir) await createDataDirectory({ pgliteDir, settings: EMBEDDED_SETTINGS });
  const socketDir = await socketDirectory(dataDir);
  const socketPath = path.join(socketDir.path, `.s.PGSQL.${SOCKET_PORT}`);
  // No live process holds this directory (checked by the caller), so a socket file here is left over from
  // a process that was killed; listening needs its path free.
  await fs.rm(socketPath, { force: true });
  let worker: EmbeddedWorker;
  try {
    worker = await startEmbeddedWorker({ pgliteDir, settings: EMBEDDED_SETTINGS, socketPath });
  } catch (err) {
    await socketDir.remove();
    throw err;
  }
  const knex = embeddedKnex(socketDir.path, schema);
  const lockFile = dataDir ? path.join(dataDir, EMBEDDED_LOCK_FILE) : undefined;
  try {
    if (dataDir) await removeGroupAndWorldAccess(dataDir);
    if (schema) await knex.raw('create schema if not exists ??', [schema]);
    if (lockFile) await fs.writeFile(lockFile, JSON.stringify({ pid: process.pid, socketDir: socketDir.path }), { mode: 0o600 });
  } catch (err) {
    // Half-started: stop what was started, so the data directory is not left held by a live thread.
    await knex.destroy();
    await worker.close();
    await socketDir.remove();
    throw err;
  }
  return {
    knex,
    kind: 'pglite',
    maintain: (signal) => maintainEmbedded(knex, signal),
    async close() {
      await knex.destroy();
      await worker.close();
      if (lockFile) await fs.rm(lockFile, { force: true });
      if (dataDir) await removeGroupAndWorldAccess(dataDir);
      await socketDir.remove();
    },
  };
}

/** The worker thread running the embedded database. */
interface EmbeddedWorker {
  /** Stops the socket server, closes the database and ends the thread. */
  close(): Promise<void>;
}

// The worker's module sits next to this one (worker-module.ts).
const WORKER_SOURCE = workerModuleSource('embedded-worker', import.meta.url);

const runFile = promisify(execFile);

/**
 * Creates the database in a data directory that has none yet, in a child process that then exits. Opening
 * an empty directory runs initdb in a second, temporary PGlite instance, whose memory stayed with the
 * process that opened it (no idle collection frees it, and a worker thread's exit left ~200 MB with the
 * allocator): a first `make run` idled at 932-962 MB RSS. The child costs a few seconds, once.
 */
async function createDataDirectory(options: EmbeddedDatabaseOptions & { pgliteDir: string }): Promise<void> {
  // PG_VERSION is the file Postgres (and PGlite, to decide whether to run initdb) finds in a data directory.
  const exists = await fs.access(path.join(options.pgliteDir, 'PG_VERSION')).then(
    () => true,
    () => false,
  );
  if (exists) return;
  try {
    await runFile(process.execPath, [...WASM_V8_OPTIONS, '--input-type=module', '--eval', WORKER_SOURCE, JSON.stringify(options)]);
  } catch (err) {
    const { stderr } = err as { stderr?: string };
    throw new Error(`the embedded database could not be created in ${options.pgliteDir}: ${stderr || (err as Error).message}`);
  }
}

/**
 * What this process's in-memory databases share (tests open about a hundred; a server on DATA_DIR opens
 * none). Each new one ran initdb and compiled PGlite's WebAssembly afresh: 4.5 s and 8 s of CPU per open,
 * and its first statements ran in the compiler's baseline code. Now the first one posts back the files of
 * its fresh cluster (40 MB, kept while the process lives), the others load them (PGlite's loadDataDir), and
 * all run one compiled module (PGlite's pgliteWasmModule), so code optimised by one is fast in the next: an open
 * with the migrations takes about 1.6 s and 2.1 s of CPU (5.0 s and 7.6 s before).
 */
const inMemoryShared: { freshImage?: Uint8Array; wasmModule?: PGliteWasmModule } = {};

// PGlite loads pglite.wasm from beside its own entry module; the compiled module is given back to it through
// its pgliteWasmModule option. The WebAssembly global is typed by lib.dom, which this project leaves out.
const { Module: WasmModule } = (globalThis as unknown as { WebAssembly: { Module: new (bytes: Uint8Array) => PGliteWasmModule } })
  .WebAssembly;

function startEmbeddedWorker(options: EmbeddedDatabaseOptions & { socketPath: string }): Promise<EmbeddedWorker> {
  const data: EmbeddedWorkerData = { ...options };
  if (options.pgliteDir === undefined) {
    data.freshImage = inMemoryShared.freshImage ?? 'make';
    data.wasmModule = inMemoryShared.wasmModule ??= new WasmModule(
      readFileSync(fileURLToPath(new URL('pglite.wasm', import.meta.resolve('@electric-sql/pglite')))),
    );
  }
  const worker = startWorker(WORKER_SOURCE, { eval: true, workerData: data });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const close = async () => {
    worker.postMessage('close');
    await exited;
  };
  return new Promise((resolve, reject) => {
    const fail = (err: Error) => {
      void worker.terminate();
      reject(err);
    };
    const exitedEarly = (code: number) => fail(new Error(`the embedded database's worker exited (code ${code}) before it was ready`));
    worker.once('error', fail);
    worker.once('exit', exitedEarly);
    worker.once('message', (message: EmbeddedWorkerMessage) => {
      worker.removeListener('exit', exitedEarly);
      worker.removeListener('error', fail);
      if (typeof message === 'object' && 'error' in message)
        return fail(new Error(`the embedded database did not start: ${message.error}`));
      if (typeof message === 'object' && message.freshImage) inMemoryShared.freshImage ??= message.freshImage;
      // After start-up a failure of the database thread is fatal: every query would hang until its timeout.
      worker.on('error', (err) => {
        throw new Error(`the embedded database's worker failed: ${err.stack ?? String(err)}`);
      });
      resolve({ close });
    });
  });
}

// The socket lives in DATA_DIR when its path fits a socket address; otherwise (a deep DATA_DIR, or the
// in-memory database of tests) in a fresh private directory under the system's temporary directory.
async function socketDirectory(dataDir: string | undefined): Promise<{ path: string; remove(): Promise<void> }> {
  if (dataDir && Buffer.byteLength(path.join(dataDir, `.s.PGSQL.${SOCKET_PORT}`)) <= MAX_SOCKET_PATH_BYTES) {
    return { path: dataDir, remove: async () => undefined };
  }
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pss-pg-')); // mkdtemp creates it with mode 0700
  return { path: dir, remove: () => fs.rm(dir, { recursive: true, force: true }) };
}

async function makePrivateDirectory(dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  await fs.chmod(dir, 0o700); // an existing directory keeps its old mode through mkdir
}

// PGlite's file system layer creates its files 0666 whatever the umask. The 0700 DATA_DIR already keeps
// other users out; this also takes group and world bits off every file and folder below it.
async function removeGroupAndWorldAccess(dir: string): Promise<void> {
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isSocket() || entry.isSymbolicLink()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const { mode } = await fs.stat(file);
    if (mode & 0o077) await fs.chmod(file, mode & 0o700);
  }
}

// Connections to the embedded database. PGlite runs one statement at a time (embedded-socket.ts takes
// the connections in turns, a transaction at a time), but with a few connections the next query is
// already waiting while the current one runs, so neither this thread nor the database's waits on the other.
const EMBEDDED_POOL_SIZE = 8;

function embeddedKnex(socketDir: string, schema: string | undefined): Knex {
  return knexFactory({
    client: 'pg',
    // A host that is a path makes `pg` connect to the Unix socket <host>/.s.PGSQL.<port>.
    connection: { host: socketDir, port: SOCKET_PORT, user: 'postgres', database: 'postgres' },
    searchPath: schema ? [schema] : undefined,
    pool: { min: 0, max: EMBEDDED_POOL_SIZE },
    acquireConnectionTimeout: ACQUIRE_TIMEOUT_MS,
  });
}

async function connectToRunningEmbedded(dataDir: string, schema: string | undefined): Promise<Database | undefined> {
  let holder: { pid: number; socketDir?: string };
  try {
    holder = JSON.parse(await fs.readFile(path.join(dataDir, EMBEDDED_LOCK_FILE), 'utf8'));
    process.kill(holder.pid, 0); // throws when that process is gone
  } catch {
    return undefined;
  }
  if (holder.pid === process.pid || typeof holder.socketDir !== 'string') return undefined;
  const knex = embeddedKnex(holder.socketDir, schema);
  try {
    await knex.raw('select 1');
  } catch {
    await knex.destroy();
    return undefined;
  }
  return { knex, kind: 'pglite', close: () => knex.destroy() };
}

/**
 * Applies every pending migration (forward only), then deploys the statement functions whose generated text
 * changed (store/statement-functions.ts). Data migrations that re-seal secrets need the SecretBox.
 */
export async function migrate(knex: Knex, context: MigrationContext = {}): Promise<string[]> {
  return retryStartupRace(async () => {
    const [, applied] = (await knex.migrate.latest({ migrationSource: createMigrationSource(context) })) as [number, string[]];
    // The functions are generated from code (the route create from the challenge rule), so a change to them
    // ships with the code that generates them, not as a migration; this keeps the database's copy current.
    await deployStatementFunctions(knex);
    return applied;
  });
}

// Errors of instances starting together on an empty database, each creating the same tables: a duplicate
// table or type, a unique violation in the catalogue, a deadlock. The loser's next attempt finds the work done.
const STARTUP_RACE_CODES = new Set(['42P07', '42710', '23505', '40P01']);

/**
 * Runs start-up work that several instances may do at once on a fresh database, again (up to 5 times, with a
 * short random pause) when it failed because another instance was doing the same.
 */
export async function retryStartupRace<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= 5 || !STARTUP_RACE_CODES.has((err as { code?: string }).code ?? '')) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 400));
    }
  }
}

/** Answers whether the database responds, and how long it took. */
export async function pingDatabase(knex: Knex): Promise<{ ok: boolean; latencyMs: number }> {
  const started = process.hrtime.bigint();
  try {
    await knex.raw('select 1');
    return { ok: true, latencyMs: Number((process.hrtime.bigint() - started) / 1_000_000n) };
  } catch {
    return { ok: false, latencyMs: Number((process.hrtime.bigint() - started) / 1_000_000n) };
  }
}
