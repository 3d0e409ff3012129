import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { migrate, openDatabase } from '../../server/store/database.js';

describe('embedded database', () => {
  let dataDir: string;
  before(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'pss-data-'));
  });
  after(() => fs.rm(dataDir, { recursive: true, force: true }));

  it('keeps data in DATA_DIR across restarts', async () => {
    const first = await openDatabase({ dataDir });
    await migrate(first.knex);
    await first.knex.raw('create table restart_probe (value text)');
    await first.knex('restart_probe').insert({ value: 'kept' });
    await first.close();

    const second = await openDatabase({ dataDir });
    try {
      expect(await second.knex('restart_probe').pluck('value')).to.deep.equal(['kept']);
      expect(await migrate(second.knex)).to.deep.equal([]); // nothing left to apply
    } finally {
      await second.close();
    }
  });

  it('runs concurrent transactions over the socket, each seeing only its own writes until commit', async () => {
    const db = await openDatabase({});
    try {
      await db.knex.raw('create table tx_probe (id int primary key, owner text)');
      await Promise.all(
        [1, 2, 3, 4].map((id) =>
          db.knex.transaction(async (trx) => {
            await trx('tx_probe').insert({ id, owner: `t${id}` });
            const rows = await trx('tx_probe').select('id');
            expect(rows.map((r) => r.id)).to.include(id);
          }),
        ),
      );
      expect(await db.knex('tx_probe').count({ n: '*' })).to.deep.equal([{ n: '4' }]);
    } finally {
      await db.close();
    }
  });
});
