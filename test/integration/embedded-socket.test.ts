import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { PGlite } from '@electric-sql/pglite';
import { expect } from 'chai';
import pg from 'pg';
import { EmbeddedSocketServer } from '../../server/store/embedded-socket.js';

describe('the embedded database socket server (several pg connections on one PGlite session)', () => {
  let dir: string;
  let db: PGlite;
  let server: EmbeddedSocketServer;
  const clients: pg.Client[] = [];
  const connect = async () => {
    const client = new pg.Client({ host: dir, port: 5432, user: 'postgres', database: 'postgres' });
    client.on('error', () => undefined); // a client destroyed on purpose below
    await client.connect();
    clients.push(client);
    return client;
  };

  /**
   * Reads `select count(*)` on `reader` while `writer` holds its open transaction, and checks that the read
   * is answered only after `writer` commits, and sees what it committed (one row).
   */
  async function expectReadAfterCommit(writer: pg.Client, reader: pg.Client, countSql: string): Promise<void> {
    let readAt = 0;
    const read = reader.query(countSql).then((r) => {
      readAt = performance.now();
      return r.rows[0].n as number;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(readAt, 'the read ran inside the other connection’s transaction').to.equal(0);
    await writer.query('COMMIT');
    const committedAt = performance.now();
    expect(await read).to.equal(1);
    expect(readAt).to.be.at.least(committedAt - 1);
  }

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pss-socket-test-'));
    db = await PGlite.create();
    await db.exec('create table items (id int primary key, label text)');
    server = new EmbeddedSocketServer(db);
    await server.listen(path.join(dir, '.s.PGSQL.5432'));
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
    await server.close();
    await db.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps every connection’s extended-protocol queries whole when many run at once', async () => {
    const [a, b, c] = await Promise.all([connect(), connect(), connect()]);
    // Different texts and parameter counts on each connection: interleaved Parse/Bind messages of two
    // connections would bind one's parameters to the other's unnamed statement.
    const runs = Array.from({ length: 60 }, (_, i) => [
      a.query('select $1::int + $2::int as n', [i, 1]).then((r) => expect(r.rows[0].n).to.equal(i + 1)),
      b.query('select $1::text || $2::text || $3::text as s', ['x', String(i), 'y']).then((r) => expect(r.rows[0].s).to.equal(`x${i}y`)),
      c.query({ text: 'select $1::int * 2 as n', values: [i], name: 'double_c' }).then((r) => expect(r.rows[0].n).to.equal(i * 2)),
    ]).flat();
    await Promise.all(runs);
  });

  it('lets one transaction run at a time: another connection waits for its commit', async () => {
    const [writer, reader] = await Promise.all([connect(), connect()]);
    await writer.query('begin');
    await writer.query('insert into items values ($1, $2)', [1, 'first']);
    await expectReadAfterCommit(writer, reader, 'select count(*)::int as n from items');
  });

  it('runs a plain BEGIN as a statement of its own: from it on, the transaction holds the others until it ends', async () => {
    const [writer, other] = await Promise.all([connect(), connect()]);
    await writer.query('BEGIN;');
    // The transaction is open in the session: another connection's query waits for its end.
    let answeredAt = 0;
    const waiting = other.query('select $1::int as n', [5]).then((r) => {
      answeredAt = performance.now();
      return r.rows[0].n as number;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(answeredAt, 'a query ran inside the other connection’s open transaction').to.equal(0);
    await writer.query('insert into items values ($1, $2)', [3, 'rolled back']);
    expect((await writer.query('select count(*)::int as n from items where id = 3')).rows[0].n).to.equal(1);
    await writer.query('ROLLBACK');
    expect(await waiting).to.equal(5);
    // The insert was inside the transaction: the rollback undid it.
    expect((await other.query('select count(*)::int as n from items where id = 3')).rows[0].n).to.equal(0);
    await writer.query('BEGIN;');
    await writer.query('insert into items values ($1, $2)', [5, 'after commit']);
    await expectReadAfterCommit(writer, other, 'select count(*)::int as n from items where id = 5');
    // An empty transaction, and BEGIN twice in a row (the second is PostgreSQL's warning, not an error).
    await writer.query('BEGIN;');
    await writer.query('COMMIT');
    await writer.query('BEGIN;');
    await writer.query('BEGIN;');
    await writer.query('insert into items values ($1, $2)', [4, 'committed']);
    await writer.query('COMMIT');
    expect((await other.query('select count(*)::int as n from items where id = 4')).rows[0].n).to.equal(1);
  });

  it('answers pipelined queries in order', async () => {
    const socket = net.createConnection(path.join(dir, '.s.PGSQL.5432'));
    await new Promise((resolve) => socket.once('connect', resolve));
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const message = (type: string, body: Buffer) => {
      const header = Buffer.alloc(5);
      header.write(type, 0, 'latin1');
      header.writeInt32BE(4 + body.length, 1);
      return Buffer.concat([header, body]);
    };
    const startup = Buffer.from('user\0postgres\0database\0postgres\0\0');
    const length = Buffer.alloc(8);
    length.writeInt32BE(8 + startup.length, 0);
    length.writeInt32BE(196608, 4); // protocol 3.0
    socket.write(Buffer.concat([length, startup]));
    const readyCount = () => Buffer.concat(received).toString('latin1').split('Z\0\0\0\x05').length - 1;
    while (readyCount() < 1) await new Promise((resolve) => setTimeout(resolve, 10));
    received.length = 0;
    // Two queries in one write: the answers must come back in the order asked.
    socket.write(Buffer.concat([message('Q', Buffer.from('select 42 as n\0')), message('Q', Buffer.from('BEGIN;\0'))]));
    while (readyCount() < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    const answers = Buffer.concat(received).toString('latin1');
    expect(answers.indexOf('SELECT 1')).to.be.greaterThan(-1);
    expect(answers.indexOf('SELECT 1'), answers).to.be.lessThan(answers.indexOf('BEGIN'));
    socket.write(message('Q', Buffer.from('ROLLBACK\0')));
    while (readyCount() < 3) await new Promise((resolve) => setTimeout(resolve, 10));
    socket.destroy();
  });

  it('closes a connection that sends something other than the protocol, and goes on serving the others', async () => {
    const other = await connect();
    const garbage = net.createConnection(path.join(dir, '.s.PGSQL.5432'));
    await new Promise((resolve) => garbage.once('connect', resolve));
    const closed = new Promise((resolve) => garbage.once('close', resolve));
    garbage.write(Buffer.from([0, 0, 0, 2, 0, 0, 0, 0, 0, 0]));
    await closed;
    expect((await other.query('select $1::int as n', [7])).rows[0].n).to.equal(7);
  });

  it('rolls back the open transaction of a connection that goes away and deallocates its statements', async () => {
    const [leaving, staying] = await Promise.all([connect(), connect()]);
    await leaving.query({ text: 'select $1::int as n', values: [1], name: 'left_behind' });
    const prepared = async () =>
      (await staying.query(`select count(*)::int as n from pg_prepared_statements where name = 'left_behind'`)).rows[0].n as number;
    expect(await prepared()).to.equal(1);
    await leaving.query('begin');
    await leaving.query('insert into items values ($1, $2)', [2, 'never committed']);
    (leaving as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    const rows = await staying.query('select id from items where id = $1', [2]);
    expect(rows.rows).to.deep.equal([]);
    expect(await prepared()).to.equal(0);
  });
  it('forwards an answer that PGlite hands over in many pieces whole and in order', async () => {
    const client = await connect();
    const rows = await client.query("select g as n, repeat('x', 100) as padding from generate_series(1, 20000) g");
    expect(rows.rows).to.have.length(20_000);
    expect(rows.rows.every((r: { n: number }, i: number) => r.n === i + 1)).to.equal(true);
    expect(rows.rows[19_999].padding).to.equal('x'.repeat(100));
    expect((await client.query('select 1 as one')).rows).to.deep.equal([{ one: 1 }]);
  });

  it('keeps nothing of the answers it forwards: memory stays flat over thousands of queries', async function () {
    this.timeout(60_000);
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const client = await connect();
    const run = async (count: number) => {
      for (let i = 0; i < count; i++) await client.query('select $1::int as n, repeat($2, 40) as padding', [i, 'x']);
    };
    await run(1_000);
    gc();
    const before = process.memoryUsage().heapUsed;
    await run(10_000);
    gc();
    const grownMb = (process.memoryUsage().heapUsed - before) / 1e6;
    // PGlite's execProtocolRaw kept a parsed copy of every answer: about 7 MB for these 10,000 queries.
    expect(grownMb, `the heap grew by ${grownMb.toFixed(1)} MB`).to.be.below(3);
  });
});
