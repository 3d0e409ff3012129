/**
 * The embedded PGlite and its Unix-socket server, run in a worker thread of their own (started by
 * database.ts). PGlite executes SQL in WebAssembly and writes its files synchronously; on the main thread
 * that work stopped HTTP requests from being handled while any statement ran. Here it runs beside them,
 * and the server reaches it exactly as before, through the `pg` driver on the socket.
 *
 * Messages: the worker posts `{ ready: true }` once the socket listens, or `{ error }` when start-up
 * failed; on `'close'` it stops the socket server, closes the database and posts `'closed'`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { EmbeddedSocketServer } from './embedded-socket.js';

/** What database.ts hands the worker. */
export interface EmbeddedWorkerData {
  /** The PGlite data directory, or undefined for an in-memory database. */
  pgliteDir?: string;
  socketPath: string;
}

/** What the worker posts back. */
export type EmbeddedWorkerMessage = { ready: true } | { error: string } | 'closed';

const port = parentPort!;
const data = workerData as EmbeddedWorkerData;

try {
  const pglite = await PGlite.create(data.pgliteDir ?? 'memory://');
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
  port.postMessage({ ready: true } satisfies EmbeddedWorkerMessage);
} catch (err) {
  port.postMessage({ error: (err as Error).stack ?? String(err) } satisfies EmbeddedWorkerMessage);
  port.close();
}
