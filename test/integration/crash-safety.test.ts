import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { openDatabase } from '../../server/store/database.js';
import { freePort, startedDataDir, startServerChild, type Child } from '../support/process.js';
import { btcToUsdt, swapClient } from '../support/swaps.js';

const root = path.resolve(import.meta.dirname, '../..');

describe('crash safety (the real process, SIGKILL mid-lifecycle)', function () {
  this.timeout(120_000);
  let dataDir: string;
  let child: Child | undefined;
  before(async () => {
    dataDir = await startedDataDir(root, 'pss-crash-');
  });
  afterEach(async () => {
    await child?.stop('SIGKILL');
    child = undefined;
  });
  after(() => fs.rm(dataDir, { recursive: true, force: true }));

  // Slow enough blocks that the kill lands between the deposit and the payout.
  async function start(port: number): Promise<{ secret: string }> {
    const started = await startServerChild(root, { port, dataDir, env: { SANDBOX_BLOCK_SECONDS: '1' } });
    child = started.child;
    return { secret: started.demo.secret };
  }

  it('finishes a swap with exactly one payout after the server is killed between deposit and payout', async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const { secret } = await start(port);
    const client = swapClient(origin, { keyId: 'demo', secret, audience: origin });
    const { order } = await client.create(btcToUsdt('0.015', { rateType: 'fixed' }));
    await client.pay(order);
    await client.waitFor(order.id, (o) => o.status === 'confirming');
    await child!.stop('SIGKILL');

    const restarted = await start(port);
    const again = swapClient(origin, { keyId: 'demo', secret: restarted.secret, audience: origin });
    const { order: done, events } = await again.waitFor(order.id, (o) => o.terminal, 30_000);
    expect(done.status).to.equal('finished');
    expect(events.filter((e) => e.status === 'sending')).to.have.length(1);
    await child!.stop('SIGTERM');
    child = undefined;

    const db = await openDatabase({ dataDir });
    try {
      const payouts = await db.knex('sandbox_payouts').where('idempotency_key', 'like', `${order.id}:%`);
      expect(payouts.map((p) => p.idempotency_key)).to.deep.equal([`${order.id}:payout`]);
      expect(payouts[0].tx_hash).to.equal(done.settlementTxHash);
    } finally {
      await db.close();
    }
  });
});
