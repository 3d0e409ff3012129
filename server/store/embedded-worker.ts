/**
 * The embedded PGlite and its Unix-socket server, run in a worker thread of their own (started by
 * database.ts). PGlite executes SQL in WebAssembly and writes its files synchronously; on the main thread
 * that work stopped HTTP requests from being handled while any statement ran. Here it runs beside them,
 * and the server reaches it exactly as before, through the `pg` driver on the socket.
 *
 * Messages: the worker posts `{ ready: true }` once the socket listens, or `{ error }` when start-up
 * failed; on `'close'` it stops the socket server, closes the database and posts `'closed'`.
 *
 * Started as a child process instead (database.ts does so for a data directory that has no database yet),
 * it only creates the database in that directory and exits: see `createDataDirectory` there.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { EmbeddedSocketServer } from './embedded-socket.js';

/** How the embedded database is opened: where, and with which Postgres settings. */
export interface EmbeddedDatabaseOptions {
  /** The PGlite data directory, or undefined for an in-memory database. */
  pgliteDir?: string;
  /** Postgres settings, `name=value`, added to PGlite's own start parameters. */
  settings: readonly string[];
}

/** What database.ts hands the worker. */
export interface EmbeddedWorkerData extends EmbeddedDatabaseOptions {
  socketPath: string;
  /**
   * In memory only: a fresh cluster's files as an uncompressed tar (PGlite's dumpDataDir), loaded instead of
   * running initdb; or 'make', to run initdb and post the image of the fresh cluster back with `ready`.
   */
  freshImage?: Uint8Array | 'make';
  /** In memory only: PGlite's WebAssembly, compiled once in the process and shared by its databases. */
  wasmModule?: PGliteWasmModule;
}

/** A compiled pglite.wasm (PGlite's pgliteWasmModule option). */
export type PGliteWasmModule = NonNullable<PGliteOptions['pgliteWasmModule']>;

/** What the worker posts back. */
export type EmbeddedWorkerMessage = { ready: true; freshImage?: Uint8Array } | { error: string } | 'closed';

function openPGlite(options: EmbeddedDatabaseOptions & Pick<EmbeddedWorkerData, 'freshImage' | 'wasmModule'>): Promise<PGlite> {
  // startParams replaces PGlite's defaults (single-user mode, no parallel workers...), so they are kept first.
  const startParams = [...PGlite.defaultStartParams, ...options.settings.flatMap((setting) => ['-c', setting])];
  const loadDataDir = options.freshImage instanceof Uint8Array ? new Blob([options.freshImage]) : undefined;
  return PGlite.create(options.pgliteDir ?? 'memory://', { startParams, loadDataDir, pgliteWasmModule: options.wasmModule });
}

if (isMainThread) await createAndExit(JSON.parse(process.argv.at(-1)!) as EmbeddedDatabaseOptions);
else await serve();

// The child process's work: opening a directory that holds no database runs initdb, which PGlite does in a
// second, temporary instance; closing both leaves the files, and the process's exit returns all their memory.
async function createAndExit(options: EmbeddedDatabaseOptions): Promise<void> {
  const pglite = await openPGlite(options);
  await pglite.close();
  process.exit(0);
}

async function serve(): Promise<void> {
  const port = parentPort!;
  const data = workerData as EmbeddedWorkerData;
  try {
    const pglite = await openPGlite(data);
    // The image is in PGlite's file system now; workerData would keep this copy as long as the thread lives.
    if (data.freshImage instanceof Uint8Array) data.freshImage = undefined;
    // Taken before any statement ran, so the image is the cluster initdb made and nothing else.
    const freshImage = data.freshImage === 'make' ? new Uint8Array(await (await pglite.dumpDataDir('none')).arrayBuffer()) : undefined;
    const socketServer = new EmbeddedSocketServer(pglite);
    await socketServer.listen(data.socketPath);
    port.on('message', (message: unknown) => {
      if (message !== 'close') return;
      void (async () => {
        try {
          await socketServer.close();
          await pglite.close();
        } catch (err) {
          process.stderr.write(`the embedded database did not close cleanly: ${(err as Error).stack ?? String(err)}\n`);
        } finally {
          // The thread ends once the port closes, whatever closing the database said.
          port.postMessage('closed' satisfies EmbeddedWorkerMessage);
          port.close();
        }
      })();
    });
    port.postMessage({ ready: true, freshImage } satisfies EmbeddedWorkerMessage, freshImage ? [freshImage.buffer] : []);
  } catch (err) {
    port.postMessage({ error: (err as Error).stack ?? String(err) } satisfies EmbeddedWorkerMessage);
    port.close();
  }
}
