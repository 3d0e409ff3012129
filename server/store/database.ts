/**
 * Opens the one database the service uses: real PostgreSQL when a URL is configured, otherwise an
 * embedded PGlite served over a local socket so that the same `pg` driver and SQL run on both.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { migrationSource } from './migrations/index.js';

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
  /** Largest number of pooled connections. */
  poolSize?: number;
}

/** An open database: the knex handle plus how to close everything that was started for it. */
export interface Database {
  readonly knex: Knex;
  readonly kind: 'postgres' | 'pglite';
  close(): Promise<void>;
}

const EMBEDDED_MAX_CONNECTIONS = 16;
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

  const dataDir = options.dataDir ? path.join(options.dataDir, 'pglite') : undefined;
  if (dataDir) {
    // PGlite is single-process: when a live server already holds this directory, share its socket
    // (the partners CLI next to `make run`) instead of opening the files a second time.
    const shared = await connectToRunningEmbedded(options.dataDir!, options.schema, poolSize);
    if (shared) return shared;
    await fs.mkdir(dataDir, { recursive: true });
  }
  const pglite = await PGlite.create(dataDir ?? 'memory://');
  const socketServer = new PGLiteSocketServer({
    db: pglite,
    host: '127.0.0.1',
    port: 0,
    maxConnections: EMBEDDED_MAX_CONNECTIONS,
  });
  await socketServer.start();
  const port = socketServer.getServerConn().split(':').pop();
  const knex = embeddedKnex(Number(port), options.schema, poolSize);
  if (options.schema) await knex.raw('create schema if not exists ??', [options.schema]);
  const lockFile = options.dataDir ? path.join(options.dataDir, EMBEDDED_LOCK_FILE) : undefined;
  if (lockFile) await fs.writeFile(lockFile, JSON.stringify({ pid: process.pid, port: Number(port) }));
  return {
    knex,
    kind: 'pglite',
    async close() {
      await knex.destroy();
      await socketServer.stop();
      await pglite.close();
      if (lockFile) await fs.rm(lockFile, { force: true });
    },
  };
}

/** Names the process and socket port that hold an embedded data directory. */
const EMBEDDED_LOCK_FILE = 'pglite.json';

function embeddedKnex(port: number, schema: string | undefined, poolSize: number): Knex {
  return knexFactory({
    client: 'pg',
    connection: { host: '127.0.0.1', port, user: 'postgres', database: 'postgres' },
    searchPath: schema ? [schema] : undefined,
    pool: { min: 0, max: Math.min(poolSize, EMBEDDED_MAX_CONNECTIONS - 2) },
    acquireConnectionTimeout: ACQUIRE_TIMEOUT_MS,
  });
}

async function connectToRunningEmbedded(dataDir: string, schema: string | undefined, poolSize: number): Promise<Database | undefined> {
  let holder: { pid: number; port: number };
  try {
    holder = JSON.parse(await fs.readFile(path.join(dataDir, EMBEDDED_LOCK_FILE), 'utf8'));
    process.kill(holder.pid, 0); // throws when that process is gone
  } catch {
    return undefined;
  }
  if (holder.pid === process.pid) return undefined;
  const knex = embeddedKnex(holder.port, schema, Math.min(poolSize, 2));
  try {
    await knex.raw('select 1');
  } catch {
    await knex.destroy();
    return undefined;
  }
  return { knex, kind: 'pglite', close: () => knex.destroy() };
}

/** Applies every pending migration; forward only. */
export async function migrate(knex: Knex): Promise<string[]> {
  const [, applied] = (await knex.migrate.latest({ migrationSource })) as [number, string[]];
  return applied;
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
