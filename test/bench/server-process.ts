/**
 * Shared pieces of the benches: the real server started as a child process (so the load generator does not
 * share its event loop or CPU accounting) on PGlite or a database of its own on DATABASE_URL's PostgreSQL,
 * its memory, the bare-express baseline in a process of its own, and the figures of the older bench scripts.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { compiledBuild } from '../support/build.js';
import { createScratchDatabase } from '../support/postgres.js';
import { freePort, spawnGroup, waitForHttp, type Child } from '../support/process.js';
import type { SignerOptions } from '../support/signer.js';

/** The server under test, running in its own process group. */
export interface ServerProcess {
  /** e.g. http://127.0.0.1:41234 (no /api/v1); also the signing audience (PUBLIC_ORIGIN). */
  origin: string;
  /** The demo partner's credentials, parsed from the banner. */
  signer: SignerOptions;
  /** Which database the child runs on, for the report. */
  database: string;
  /** What runs: 'compiled' (the default) or 'the sources under tsx' (BENCH_TSX=1). */
  code: 'compiled' | 'the sources under tsx';
  /** The child's DATA_DIR (the embedded database and its socket live there). */
  dataDir: string;
  child: Child;
  /** The server's own process id (the node process running server/main), for /proc readings. */
  pid: number;
  /** How to open a direct connection to the server's database (EXPLAIN, seeding): its PostgreSQL database or PGlite's socket. */
  connection(): Promise<pg.ClientConfig>;
  stop(): Promise<void>;
}

/**
 * The PostgreSQL the benches run on: DATABASE_URL (as `make test` reads it), or the older BENCH_DATABASE_URL;
 * undefined for the embedded PGlite. Each run gets a fresh database on that server, dropped when it stops.
 */
const POSTGRES_ADMIN_URL: string | undefined = process.env.DATABASE_URL || process.env.BENCH_DATABASE_URL || undefined;

/** Resident memory (VmRSS) of process `pid` in MB, from Linux /proc. */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

const UNLIMITED = '100000000';

/** Optional additions to the child's environment and Node options (e.g. `--cpu-prof`). */
export interface ServerProcessOptions {
  /** Extra environment variables, applied over the bench defaults (e.g. WEBHOOK_RETRY_SECONDS). */
  env?: Record<string, string>;
  /** Node options placed before the entry point, e.g. ['--cpu-prof', '--cpu-prof-dir', dir]. */
  nodeArgs?: string[];
}

/**
 * Starts the server in a child process on a free port with a fresh DATA_DIR and embedded PGlite (or a
 * fresh database on the PostgreSQL of DATABASE_URL, dropped by stop()), production-like settings and rate
 * limits out of the way, and reads the demo partner's secret from the banner it prints. The server is the
 * compiled one, as `npm start` runs it: plain Node on JavaScript that tsc emitted (built, type-checked, for
 * this bench process, test/support/build.ts, and removed when it exits). Its idle RSS on PGlite under tsx was
 * about 120 MB more (tsx's loaders), for the same req/s. BENCH_TSX=1 runs the TypeScript sources under tsx instead.
 * `options` adds environment variables and Node options.
 */
export async function startServerProcess(root: string, options: ServerProcessOptions = {}): Promise<ServerProcess> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pss-bench-'));
  const fresh = POSTGRES_ADMIN_URL ? await createScratchDatabase(POSTGRES_ADMIN_URL, 'pss_bench') : undefined;
  const databaseUrl = fresh?.url ?? '';
  const env: Record<string, string> = {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    SECRETS_KEY: '',
    PUBLIC_ORIGIN: origin,
    NODE_ENV: 'production',
    VALIDATE_RESPONSES: 'false',
    PRINT_BANNER: 'true',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PUBLIC_PER_MINUTE: UNLIMITED,
    RATE_LIMIT_SIGNED_PER_MINUTE: UNLIMITED,
    RATE_LIMIT_QUOTES_PER_MINUTE: UNLIMITED,
    RATE_LIMIT_SWAPS_PER_MINUTE: UNLIMITED,
    ...options.env,
  };
  const underTsx = process.env.BENCH_TSX === '1';
  const entry = underTsx ? ['--import', 'tsx', 'server/main.ts'] : [path.join(await compiledBuild(), 'server/main.js')];
  const child = spawnGroup(process.execPath, [...(options.nodeArgs ?? []), ...entry], env, root);
  const stop = async () => {
    await child.stop();
    await rm(dataDir, { recursive: true, force: true });
    await fresh?.drop();
  };
  try {
    const status = await waitForHttp(`${origin}/api/v1/health`, 60_000, child);
    if (status !== 200) throw new Error(`GET /api/v1/health answered ${status}:\n${child.output()}`);
    // The banner is written right after the listener starts; give it a moment to arrive through the pipe.
    const deadline = Date.now() + 5_000;
    let match: RegExpMatchArray | null = null;
    while (!(match = child.output().match(/keyId=(\S+) secret=(\S+)/)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (!match) throw new Error(`the server printed no demo partner credentials:\n${child.output()}`);
    return {
      origin,
      signer: { keyId: match[1], secret: match[2], audience: origin, user: 'bench-user' },
      database: fresh ? `PostgreSQL (database ${fresh.name}, made for this run)` : 'embedded PGlite',
      code: underTsx ? 'the sources under tsx' : 'compiled',
      dataDir,
      child,
      // The server runs in this very process (under BENCH_TSX, tsx registers a loader; it does not fork).
      pid: child.process.pid!,
      async connection() {
        if (fresh) return { connectionString: fresh.url };
        // The embedded database is served on a Unix socket whose directory the server records in DATA_DIR.
        const { socketDir } = JSON.parse(await readFile(path.join(dataDir, 'pglite.json'), 'utf8')) as { socketDir: string };
        return { host: socketDir, port: 5432, user: 'postgres', database: 'postgres' };
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Fetches once and throws unless the answer is 200, so a bench never measures a stream of 4xx. */
export async function expectOk(label: string, url: string, init: RequestInit): Promise<void> {
  const res = await fetch(url, init);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${label}: expected 200 before measuring, got ${res.status}: ${text.slice(0, 500)}`);
}

/** p-th percentile (0-100) of `values` by nearest rank. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** One route of the bare-express baseline: what it answers, always. */
export interface BareRoute {
  method: 'get' | 'post';
  /** The express path, e.g. /api/v1/assets. */
  path: string;
  status: number;
  body: unknown;
}

/**
 * Starts the bench script `script` (under test/bench) in its own process on a free port (PORT, NODE_ENV=production,
 * plus `env`) and waits until it answers; resolves with its origin.
 */
async function startBenchProcess(root: string, script: string, env: Record<string, string> = {}) {
  const port = await freePort();
  const child = spawnGroup(
    process.execPath,
    ['--import', 'tsx', `test/bench/${script}`],
    { PORT: String(port), NODE_ENV: 'production', ...env },
    root,
  );
  const origin = `http://127.0.0.1:${port}`;
  await waitForHttp(`${origin}/`, 30_000, child);
  return { origin, stop: (): Promise<unknown> => child.stop() };
}

/**
 * Starts test/bench/webhook-receiver.ts in its own process: a receiver that answers every webhook 200 and keeps
 * nothing; resolves with the URL to set as the partner's webhook.
 */
export async function startWebhookReceiver(root: string): Promise<{ url: string; stop(): Promise<unknown> }> {
  const hookPath = '/hooks';
  const { origin, stop } = await startBenchProcess(root, 'webhook-receiver.ts', { HOOK_PATH: hookPath });
  return { url: `${origin}${hookPath}`, stop };
}

/** Starts test/bench/bare-express.ts in its own process (NODE_ENV=production) serving `routes`; returns its origin. */
export function startBareExpress(root: string, routes: BareRoute[]): Promise<{ origin: string; stop(): Promise<unknown> }> {
  return startBenchProcess(root, 'bare-express.ts', { BARE_ROUTES: JSON.stringify(routes) });
}
