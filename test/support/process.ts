/**
 * Helpers for tests that run real processes (the server, Prism). Each child gets its own process group so
 * stopping it stops everything it spawned (npx leaves node children behind otherwise).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { SignerOptions } from './signer.js';

/** A child process started in its own group, with its output collected. */
export interface Child {
  process: ChildProcess;
  output(): string;
  /** Sends `signal` to the whole group and waits for the exit code (SIGKILL after `graceMs`). */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<number | null>;
}

/** Spawns `command` detached in a new process group. */
export function spawnGroup(command: string, args: string[], env: Record<string, string | undefined> = {}, cwd?: string): Child {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    process: child,
    output: () => output,
    async stop(signal = 'SIGTERM', graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      try {
        process.kill(-child.pid!, signal);
      } catch {
        return child.exitCode;
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      }, graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** A running `prism mock` of spec/openapi.yaml (paths without /api/v1). */
export interface PrismMock {
  url: string;
  stop(): Promise<number | null>;
}

/** Starts `prism mock` on a free port in its own process group and waits until it answers. */
export async function startPrismMock(root: string): Promise<PrismMock> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawnGroup(
    path.join(root, 'node_modules/.bin/prism'),
    // As scripts/mock.ts (make mock) runs it, behind the front that answers browsers (test/integration/mock-cors.test.ts).
    ['mock', '--cors=false', '--host', '127.0.0.1', '--port', String(port), 'spec/openapi.yaml'],
    {},
    root,
  );
  await waitForHttp(`${url}/health`, 60_000, child);
  return { url, stop: () => child.stop() };
}

/** A TCP port that was free a moment ago. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Polls `url` until it answers (any status) or `timeoutMs` passes; returns the last status. */
export async function waitForHttp(url: string, timeoutMs: number, child?: Child, init?: RequestInit): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && (child.process.exitCode !== null || child.process.signalCode !== null)) {
      throw new Error(`process exited early (${child.process.exitCode ?? child.process.signalCode}):\n${child.output()}`);
    }
    try {
      const res = await fetch(url, init);
      await res.arrayBuffer();
      return res.status;
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms${child ? `:\n${child.output()}` : ''}`);
}

/** A `server/main.ts` process on the embedded database, with the sandbox demo partner's credentials. */
export interface ServerChild {
  child: Child;
  /** e.g. http://127.0.0.1:41234; also the signing audience (PUBLIC_ORIGIN). */
  origin: string;
  /** The demo partner, read from the banner the server prints. */
  demo: SignerOptions;
}

/**
 * Starts `server/main.ts` on `port` with its embedded database in `dataDir` (a restart passes the same
 * two), waits until it answers and reads the demo partner's secret from its banner. `env` adds or overrides
 * variables (block times, retry schedules).
 */
export async function startServerChild(
  root: string,
  options: { port: number; dataDir: string; env?: Record<string, string> },
): Promise<ServerChild> {
  const origin = `http://127.0.0.1:${options.port}`;
  const child = spawnGroup(
    process.execPath,
    ['--import', 'tsx', 'server/main.ts'],
    {
      PORT: String(options.port),
      DATA_DIR: options.dataDir,
      DATABASE_URL: '',
      SECRETS_KEY: '',
      PUBLIC_ORIGIN: origin,
      PRINT_BANNER: 'true',
      LOG_LEVEL: 'warn',
      ...options.env,
    },
    root,
  );
  try {
    await waitForHttp(`${origin}/api/v1/health`, 60_000, child);
  } catch (err) {
    await child.stop('SIGKILL');
    throw err;
  }
  const secret = /keyId=demo secret=(\S+)/.exec(child.output())?.[1];
  if (!secret) {
    await child.stop('SIGKILL');
    throw new Error(`no demo credentials in:\n${child.output()}`);
  }
  return { child, origin, demo: { keyId: 'demo', secret, audience: origin } };
}

let embeddedTemplate: Promise<string> | undefined;

/**
 * A new DATA_DIR (under the system's temporary directory, named `prefix`...) that already holds what a server's
 * first start leaves there: the embedded database, migrated, and the generated secrets key. For suites whose
 * subject is not the first start: a first start spends about 10 s creating the cluster (PGlite's initdb) and
 * migrating it, and this copies the result of one first start, made once per test process, in a fraction of
 * a second. The template's server stopped cleanly, so the copy opens like any DATA_DIR after a restart.
 * Every copy holds the template's `secrets.key` and its demo partner, sealed with that key: a server started
 * on a copy must read the key from DATA_DIR (SECRETS_KEY empty), or it cannot open the demo partner's secret.
 */
export async function startedDataDir(root: string, prefix: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  await copyStartedDataDir(root, dir);
  return dir;
}

/** Copies into `dir` (made if missing) what startedDataDir's directories hold. */
export async function copyStartedDataDir(root: string, dir: string): Promise<void> {
  embeddedTemplate ??= (async () => {
    const template = await fs.mkdtemp(path.join(os.tmpdir(), 'pss-template-'));
    process.once('exit', () => rmSync(template, { recursive: true, force: true }));
    const { child } = await startServerChild(root, { port: await freePort(), dataDir: template });
    const code = await child.stop('SIGTERM');
    if (code !== 0) throw new Error(`the template server exited with ${code}:\n${child.output()}`);
    return template;
  })().catch((err: unknown) => {
    // Not remembered: the next suite that asks starts a template server again.
    embeddedTemplate = undefined;
    throw err;
  });
  const template = await embeddedTemplate;
  await fs.cp(template, dir, { recursive: true, filter: (source) => !/[/\\](\.s\.PGSQL\.\d+(\.lock)?|pglite\.json)$/.test(source) });
}
