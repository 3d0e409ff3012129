/**
 * Serves one PGlite over a Unix socket in the PostgreSQL wire protocol, to any number of `pg` connections.
 *
 * PGlite is a single session that runs one thing at a time, so connections take turns. The unit of a turn
 * is what a client sends up to a point where it waits for the answer: a simple query (`Q`), or an
 * extended-protocol exchange up to its `Sync` (`S`) or `Flush` (`H`). Each unit runs whole, so the unnamed
 * statement and portal of one connection's Parse/Bind/Execute are never replaced by another's in between
 * (serving message by message, as pglite-socket does, breaks exactly there, which is why the server used
 * to keep one connection). While a connection has a transaction open, only its units run; the others wait
 * in order for it to commit or roll back, so every connection sees transaction isolation it can rely on.
 *
 * What a connection leaves in the shared session goes with it: when it closes, its open transaction is
 * rolled back and the statements it prepared are deallocated (the server prepares none by name, but a
 * client of the socket may, and replaced connections would otherwise pile theirs up in the session).
 *
 * With several connections the server's event loop can prepare the next query and handle HTTP while
 * PGlite runs the current one (in its own worker thread, embedded-worker.ts).
 */
import net from 'node:net';
import type { PGlite } from '@electric-sql/pglite';

// Special messages of the start-up phase (no type byte; a length, then a code).
const SSL_REQUEST_CODE = 80877103;
const GSSENC_REQUEST_CODE = 80877104;
const CANCEL_REQUEST_CODE = 80877102;
// Message types that end a unit: Sync, simple Query, Flush; and Terminate, and Parse (names a statement).
const SYNC = 0x53;
const QUERY = 0x51;
const FLUSH = 0x48;
const TERMINATE = 0x58;
const PARSE = 0x50;

/** One client connection's turn: its bytes up to a point where it waits for the answer. */
interface Unit {
  connection: Connection;
  /** The protocol bytes to run, or 'cleanup' for what a connection that went away left in the session. */
  bytes: Uint8Array | 'cleanup';
}

interface Connection {
  readonly socket: net.Socket;
  closed: boolean;
  /** The named statements it prepared. */
  readonly statements: Set<string>;
}

/** A socket server for one PGlite; `listen` then `close`. */
export class EmbeddedSocketServer {
  private readonly server: net.Server;
  private readonly queue: Unit[] = [];
  private readonly connections = new Set<Connection>();
  /** The connection whose transaction is open: only its units run until it ends. */
  private owner: Connection | undefined;
  private running = false;

  constructor(private readonly db: PGlite) {
    this.server = net.createServer((socket) => this.accept(socket));
  }

  /** Listens on the Unix socket at `path`. */
  listen(path: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(path, () => {
        this.server.removeListener('error', reject);
        resolve();
      });
    });
  }

  /** Stops listening and closes every connection; waits for the unit being run. */
  async close(): Promise<void> {
    const stopped = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const connection of this.connections) connection.socket.destroy();
    await stopped;
    while (this.running) await new Promise((resolve) => setImmediate(resolve));
  }

  private accept(socket: net.Socket): void {
    const connection: Connection = { socket, closed: false, statements: new Set() };
    this.connections.add(connection);
    let pending: Buffer = Buffer.alloc(0);
    let started = false;
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      // Complete units are handed on; an incomplete one stays in `pending` until more bytes come.
      let unitStart = 0;
      let offset = 0;
      while (!connection.closed) {
        if (!started) {
          if (pending.length - offset < 8) break;
          const length = pending.readInt32BE(offset);
          if (length < 8) return void socket.destroy(); // not the protocol
          if (pending.length - offset < length) break;
          const code = pending.readInt32BE(offset + 4);
          offset += length;
          unitStart = offset;
          // No TLS on a local socket: refuse it, and the client goes on in the clear.
          if (code === SSL_REQUEST_CODE || code === GSSENC_REQUEST_CODE) socket.write('N');
          else if (code === CANCEL_REQUEST_CODE) socket.end();
          else {
            started = true;
            this.submit({ connection, bytes: pending.subarray(offset - length, offset) });
          }
          continue;
        }
        if (pending.length - offset < 5) break;
        const type = pending[offset];
        const length = 1 + pending.readInt32BE(offset + 1);
        if (length < 5) return void socket.destroy(); // not the protocol
        if (pending.length - offset < length) break;
        if (type === PARSE) {
          const nameEnd = pending.indexOf(0, offset + 5);
          if (nameEnd > offset + 5) connection.statements.add(pending.toString('utf8', offset + 5, nameEnd));
        }
        offset += length;
        if (type === TERMINATE) {
          socket.end();
          break;
        }
        if (type === SYNC || type === QUERY || type === FLUSH) {
          this.submit({ connection, bytes: pending.subarray(unitStart, offset) });
          unitStart = offset;
        }
      }
      pending = pending.subarray(unitStart);
    });
    const gone = () => this.drop(connection);
    socket.on('close', gone);
    socket.on('error', gone);
  }

  private drop(connection: Connection): void {
    if (connection.closed) return;
    connection.closed = true;
    this.connections.delete(connection);
    for (let i = this.queue.length - 1; i >= 0; i--) if (this.queue[i].connection === connection) this.queue.splice(i, 1);
    // Its open transaction is rolled back before any other connection's unit runs.
    if (this.owner === connection) this.queue.unshift({ connection, bytes: 'cleanup' });
    else if (connection.statements.size > 0) this.queue.push({ connection, bytes: 'cleanup' });
    void this.pump();
  }

  // Ends the transaction a closed connection left open and deallocates the statements it prepared.
  private async cleanUp(connection: Connection): Promise<void> {
    const sql: string[] = [];
    if (this.owner === connection) {
      this.owner = undefined;
      if (this.db.isInTransaction()) sql.push('ROLLBACK');
    }
    for (const name of connection.statements) sql.push(`DEALLOCATE "${name.replaceAll('"', '""')}"`);
    connection.statements.clear();
    // A statement that failed to parse was never prepared, so deallocate one by one and ignore failures.
    // (exec takes PGlite's lock itself; inside runExclusive it would wait for itself.)
    for (const statement of sql) await this.db.exec(statement).catch(() => undefined);
  }

  /**
   * Runs a unit's bytes and returns PGlite's answer. Not `execProtocolRaw`: besides the bytes, it parses
   * every message of the answer and keeps the parsed copies in a list that only PGlite's own query methods
   * ever clear, so over this socket it grew without bound (about 600 bytes a simple query) and spent the
   * parse. The stream form hands over the bytes alone, as views of PGlite's memory: they are copied.
   * It leaves its callback installed inside PGlite until the next call, so nothing here may call
   * `execProtocolRaw` on this PGlite (its answer would go to that callback); `exec`, used by the clean-up,
   * installs and clears a callback of its own.
   */
  private async execute(bytes: Uint8Array): Promise<Buffer> {
    const chunks: Buffer[] = [];
    await this.db.execProtocolRawStream(bytes, { onRawData: (chunk) => chunks.push(Buffer.from(chunk)) });
    return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
  }

  private submit(unit: Unit): void {
    this.queue.push(unit);
    void this.pump();
  }

  // Runs queued units one at a time, the transaction owner's first.
  private async pump(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (;;) {
        const owner = this.owner;
        const index = owner ? this.queue.findIndex((u) => u.connection === owner) : 0;
        if (index < 0 || index >= this.queue.length) break;
        const [unit] = this.queue.splice(index, 1);
        if (unit.bytes === 'cleanup') {
          await this.cleanUp(unit.connection);
          continue;
        }
        const bytes = unit.bytes;
        let answer: Buffer;
        try {
          answer = await this.db.runExclusive(() => this.execute(bytes));
        } catch (err) {
          // PGlite answers SQL errors in the protocol; a throw here means the session itself failed.
          unit.connection.socket.destroy(err as Error);
          continue;
        }
        this.owner = this.db.isInTransaction() ? unit.connection : undefined;
        // It went away while this unit ran: its clean-up (queued at drop) runs next.
        if (unit.connection.closed) {
          this.queue.unshift({ connection: unit.connection, bytes: 'cleanup' });
          continue;
        }
        if (answer.length > 0) unit.connection.socket.write(answer);
      }
    } finally {
      this.running = false;
    }
  }
}
