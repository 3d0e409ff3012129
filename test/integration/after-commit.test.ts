import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { afterCommit, transaction } from '../../server/store/after-commit.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** What a rejected promise's error says, or 'resolved'. */
const outcome = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (err: Error) => err.message,
  );

describe('after-commit work (server/store/after-commit.ts) on a real database', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    await server.knex.schema.createTable('after_commit_probe', (table) => table.text('id').primary());
  });
  after(() => server?.close());

  /** Inserts a fresh probe row in `trx` and returns its id. */
  const write = async (trx: Knex.Transaction) => {
    const id = randomUUID();
    await trx('after_commit_probe').insert({ id });
    return id;
  };
  /** Whether another connection sees probe row `id`. */
  const committed = async (id: string) => (await server.knex('after_commit_probe').where({ id }).first()) !== undefined;

  it('runs the work once, after the commit: another connection already sees the write', async () => {
    const runs: Array<Promise<boolean>> = [];
    const id = await transaction(server.knex, async (trx) => {
      const written = await write(trx);
      afterCommit(trx, () => runs.push(committed(written)));
      expect(runs).to.have.length(0);
      return written;
    });
    expect(runs).to.have.length(1);
    expect(await Promise.all(runs)).to.deep.equal([true]);
    expect(await committed(id)).to.equal(true);
  });

  it('never runs the work of a transaction that throws and rolls back', async () => {
    let runs = 0;
    let id = '';
    const result = transaction(server.knex, async (trx) => {
      id = await write(trx);
      afterCommit(trx, () => runs++);
      throw new Error('rolled back on purpose');
    });
    expect(await outcome(result)).to.equal('rolled back on purpose');
    expect(runs).to.equal(0);
    expect(await committed(id)).to.equal(false);
  });

  it('never runs the work of a transaction rolled back by trx.rollback() without an error, and rejects', async () => {
    let runs = 0;
    let id = '';
    const result = transaction(server.knex, async (trx) => {
      id = await write(trx);
      afterCommit(trx, () => runs++);
      await trx.rollback();
    });
    const settled = await outcome(result);
    await new Promise((resolve) => setTimeout(resolve, 50)); // what a settled promise would run has run
    expect(runs).to.equal(0);
    expect(settled).to.match(/rejected with non-error/);
    expect(await committed(id)).to.equal(false);
  });

  it('runs the work of a released savepoint once the outer transaction commits, not when it is released', async () => {
    const runs: string[] = [];
    await transaction(server.knex, async (outer) => {
      await transaction(outer, async (inner) => {
        await write(inner);
        afterCommit(inner, () => runs.push('inner'));
      });
      expect(runs).to.deep.equal([]);
      afterCommit(outer, () => runs.push('outer'));
    });
    expect(runs).to.deep.equal(['inner', 'outer']);
  });

  it('drops the work of a savepoint that rolls back while the outer transaction commits', async () => {
    const runs: string[] = [];
    let kept = '';
    let dropped = '';
    await transaction(server.knex, async (outer) => {
      kept = await write(outer);
      afterCommit(outer, () => runs.push('outer'));
      const inner = transaction(outer, async (trx) => {
        dropped = await write(trx);
        afterCommit(trx, () => runs.push('inner'));
        throw new Error('savepoint rolled back on purpose');
      });
      expect(await outcome(inner)).to.equal('savepoint rolled back on purpose');
    });
    expect(runs).to.deep.equal(['outer']);
    expect([await committed(kept), await committed(dropped)]).to.deep.equal([true, false]);
  });

  it('never runs the work of a released savepoint when the outer transaction rolls back', async () => {
    const runs: string[] = [];
    const result = transaction(server.knex, async (outer) => {
      await transaction(outer, async (inner) => {
        await write(inner);
        afterCommit(inner, () => runs.push('inner'));
      });
      throw new Error('outer rolled back on purpose');
    });
    expect(await outcome(result)).to.equal('outer rolled back on purpose');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(runs).to.deep.equal([]);
  });

  it('runs the work at once when the write was a statement of its own', () => {
    let runs = 0;
    afterCommit(server.knex, () => runs++);
    expect(runs).to.equal(1);
  });

  it('refuses a transaction not opened through transaction(), whose work would otherwise be lost', async () => {
    const result = server.knex.transaction(async (trx) => afterCommit(trx, () => undefined));
    expect(await outcome(result)).to.match(/afterCommit needs a transaction opened through transaction\(\)/);
  });
});
