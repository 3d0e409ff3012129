import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { openDatabase } from '../../server/store/database.js';
import { createScratchDatabase, type ScratchDatabase } from '../support/postgres.js';
import { freePort, startedDataDir, startServerChild, type Child } from '../support/process.js';
import { btcToUsdt, swapClient } from '../support/swaps.js';

const root = path.resolve(import.meta.dirname, '../..');

// The payout outbox across a crash (docs/architecture.md#production): the process kills itself (SIGKILL) right after it committed
// the signed payout, or right after the chain accepted it, and a restart on the same database sends the
// committed bytes again: the chain holds one transaction, the one the swap and the outbox name.
describe('payout outbox across a crash (the real process killed at the payout)', function () {
  this.timeout(120_000);
  let dataDir: string;
  let scratch: ScratchDatabase | undefined;
  let child: Child | undefined;
  beforeEach(async () => {
    // On PostgreSQL the child runs on a database of its own (DATA_DIR then holds only generated keys); otherwise
    // on the embedded database as a first start leaves it (copied: these tests are about payouts, not the first start).
    if (process.env.DATABASE_URL) scratch = await createScratchDatabase(process.env.DATABASE_URL, 'payout_crash');
    dataDir = scratch ? await fs.mkdtemp(path.join(os.tmpdir(), 'pss-payout-crash-')) : await startedDataDir(root, 'pss-payout-crash-');
  });
  afterEach(async () => {
    await child?.stop('SIGKILL');
    child = undefined;
    await fs.rm(dataDir, { recursive: true, force: true });
    await scratch?.drop();
    scratch = undefined;
  });

  async function start(port: number, env: Record<string, string> = {}) {
    const started = await startServerChild(root, {
      port,
      dataDir,
      env: { SANDBOX_BLOCK_SECONDS: '0.1', ...(scratch ? { DATABASE_URL: scratch.url } : {}), ...env },
    });
    child = started.child;
    return started;
  }

  // The swap's payouts on the simulated chain and in the outbox, read while no server runs.
  async function readPayouts(swapId: string) {
    const db = await openDatabase(scratch ? { databaseUrl: scratch.url } : { dataDir });
    try {
      return {
        onChain: await db.knex('sandbox_payouts').where('idempotency_key', 'like', `${swapId}:%`),
        outbox: await db.knex('payouts').where({ swap_id: swapId }),
      };
    } finally {
      await db.close();
    }
  }

  const exited = (c: Child) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the server did not kill itself:\n${c.output()}`)), 30_000);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      if (c.process.exitCode !== null || c.process.signalCode !== null) return done();
      c.process.once('exit', done);
    });

  for (const point of ['after-sign', 'after-broadcast'] as const) {
    it(`finishes with one payout on the chain, the one the outbox committed, after a kill ${point}`, async () => {
      const port = await freePort();
      const origin = `http://127.0.0.1:${port}`;
      const first = await start(port, { PAYOUT_CRASH_AT: point });
      const client = swapClient(origin, first.demo);
      const { order } = await client.create(btcToUsdt('0.015', { rateType: 'fixed' }));
      await client.pay(order);
      await exited(first.child);
      expect(first.child.process.signalCode, first.child.output()).to.equal('SIGKILL');

      // Killed where asked: the payout is signed and committed, and on the chain only after the broadcast.
      const crashed = await readPayouts(order.id);
      expect(crashed.outbox.map((p) => [p.idempotency_key, p.status])).to.deep.equal([[`${order.id}:payout`, 'signed']]);
      const signedHash = crashed.outbox[0].tx_hash as string;
      expect(signedHash).to.be.a('string');
      expect(crashed.onChain.map((p) => p.tx_hash)).to.deep.equal(point === 'after-sign' ? [] : [signedHash]);

      const second = await start(port);
      const again = swapClient(origin, second.demo);
      const { order: done, events } = await again.waitFor(order.id, (o) => o.terminal, 30_000);
      expect(done.status).to.equal('finished');
      expect(events.filter((e) => e.status === 'sending')).to.have.length(1);
      expect(events.find((e) => e.status === 'sending')!.settlementTxHash).to.equal(done.settlementTxHash);
      await child!.stop('SIGTERM');
      child = undefined;

      const { onChain, outbox } = await readPayouts(order.id);
      expect(onChain.map((p) => p.idempotency_key)).to.deep.equal([`${order.id}:payout`]);
      expect(outbox.map((p) => p.idempotency_key)).to.deep.equal([`${order.id}:payout`]);
      expect(outbox[0].status).to.be.oneOf(['broadcast', 'confirmed']);
      // The bytes signed before the kill are the ones broadcast, once.
      expect(done.settlementTxHash).to.equal(signedHash);
      expect(onChain[0].tx_hash).to.equal(signedHash);
      expect(outbox[0].tx_hash).to.equal(signedHash);
      expect(onChain[0].signed_bytes).to.equal(outbox[0].signed_bytes);
    });
  }
});
