/**
 * A swap held by address screening (docs/screening.md), decided with the ops CLI next to a running server: the
 * queue shows the provider's reason, a refund to the denied sender is refused with why, a decision is recorded
 * in the operator action trail after the screening verdict.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { compiledScript } from '../support/build.js';
import type { TrailEntry } from '../support/operator-trail.js';
import { createScratchDatabase, type ScratchDatabase } from '../support/postgres.js';
import { freePort, startedDataDir, startServerChild, type ServerChild } from '../support/process.js';
import { allow, deny, startScreeningProvider } from '../support/screening-provider.js';
import { btcToUsdt, swapClient } from '../support/swaps.js';

const root = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

const SHARED_ENV = { SECRETS_KEY: '', SANDBOX_BLOCK_SECONDS: '0.05', LOG_LEVEL: 'warn' };

describe('a swap held by address screening, decided with the ops CLI', function () {
  this.timeout(180_000);
  let dataDir: string;
  let database: ScratchDatabase | undefined;
  let server: ServerChild;
  let provider: Awaited<ReturnType<typeof startScreeningProvider>>;
  let client: ReturnType<typeof swapClient>;

  const cli = async (...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
    try {
      const { stdout, stderr } = await run(process.execPath, [...(await compiledScript('ops')), ...args], {
        cwd: root,
        env: { ...process.env, ...SHARED_ENV, DATA_DIR: dataDir, DATABASE_URL: database?.url ?? '' },
      });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };

  before(async () => {
    provider = await startScreeningProvider();
    provider.answer = (subject) => (subject.role === 'sender' ? deny('linked to a ransomware wallet') : allow);
    if (process.env.DATABASE_URL) database = await createScratchDatabase(process.env.DATABASE_URL, 'pss_screen');
    dataDir = database ? await fs.mkdtemp(path.join(os.tmpdir(), 'pss-screen-')) : await startedDataDir(root, 'pss-screen-');
    server = await startServerChild(root, {
      port: await freePort(),
      dataDir,
      env: { ...SHARED_ENV, DATABASE_URL: database?.url ?? '', SCREENING_URL: provider.url },
    });
    client = swapClient(server.origin, { ...server.demo, user: 'user-7' });
  });
  after(async () => {
    await server?.child.stop();
    await provider?.close();
    await fs.rm(dataDir, { recursive: true, force: true });
    await database?.drop();
  });

  it('shows the reason, refuses a refund to the denied sender, and records the decision after the verdict', async () => {
    const { order } = await client.create(btcToUsdt('0.015', { rateType: 'fixed' }));
    await client.pay(order);
    const held = (await client.waitFor(order.id, (o) => o.status === 'review')).order;
    expect(held.failureCode).to.equal('screening_hold');

    const table = await cli('swaps', 'list', '--action-required', 'operator');
    expect(table.code, table.stderr).to.equal(0);
    expect(table.stdout).to.match(new RegExp(`${order.id}\\s.*review\\s+manual_review\\s+screening_hold`));
    expect(table.stdout).to.match(
      new RegExp(`Address screening .*\\n  ${order.id} sender \\S+: denied by the screening provider: linked to a ransomware wallet`),
    );
    const json = await cli('swaps', 'list', '--action-required', 'operator', '--json');
    const item = (JSON.parse(json.stdout) as Array<{ id: string; screening: unknown[] }>).find((s) => s.id === order.id)!;
    expect(item.screening).to.have.length(1);
    expect(item.screening[0]).to.include({ decision: 'deny', reason: 'linked to a ransomware wallet', provider: 'provider' });

    // refundMode sender: a refund would go to the denied sender. Refused (exit 4), recorded as refused.
    const refund = await cli('review', 'decide', order.id, '--refund', '--reason', 'customer asked', '--actor', 'bob');
    expect(refund.code, refund.stdout).to.equal(4);
    expect(refund.stderr).to.match(/denied by address screening \(linked to a ransomware wallet\)/);

    const failed = await cli(
      'review',
      'decide',
      order.id,
      '--fail',
      '--reason',
      'sanctions: funds frozen for compliance',
      '--actor',
      'bob',
    );
    expect(failed.code, failed.stderr).to.equal(0);
    expect(failed.stdout).to.include('review -> failed');
    expect((await client.get(order.id)).order).to.include({ status: 'failed', failureCode: 'failed_by_review' });

    const audit = await cli('audit', 'list', '--target', order.id, '--json');
    expect(audit.code, audit.stderr).to.equal(0);
    const trail = (JSON.parse(audit.stdout) as TrailEntry[]).map((e) => ({
      actor: e.actor,
      action: e.action,
      outcome: e.outcome,
      reason: e.reason,
    }));
    expect(trail).to.deep.equal([
      { actor: 'bob', action: 'review.decide', outcome: 'succeeded', reason: 'sanctions: funds frozen for compliance' },
      { actor: 'bob', action: 'review.decide', outcome: 'refused', reason: 'customer asked' },
      { actor: 'screening', action: 'screening.verdict', outcome: 'succeeded', reason: 'linked to a ransomware wallet' },
    ]);
  });

  it('refunds a held swap to an address the customer gave (--refund --to), recorded in the trail', async () => {
    const { order } = await client.create(btcToUsdt('0.015', { rateType: 'fixed' }));
    await client.pay(order);
    expect((await client.waitFor(order.id, (o) => o.status === 'review')).order.failureCode).to.equal('screening_hold');
    const given = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';

    // --to goes with --refund only, and must be an address of the source network.
    const misplaced = await cli('review', 'decide', order.id, '--exchange', '--to', given, '--reason', 'x', '--actor', 'bob');
    expect(misplaced.code).to.equal(2);
    expect(misplaced.stderr).to.contain('--to goes with --refund');
    const foreign = await cli(
      'review',
      'decide',
      order.id,
      '--refund',
      '--to',
      '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
      '--reason',
      'x',
      '--actor',
      'bob',
    );
    expect(foreign.code).to.equal(2);
    expect(foreign.stderr).to.contain('The address to refund the deposit to');
    expect((await client.get(order.id)).order).to.include({ status: 'review', refundTxHash: null });

    const refunded = await cli(
      'review',
      'decide',
      order.id,
      '--refund',
      '--to',
      given,
      '--reason',
      'customer proved ownership of a clean address',
      '--actor',
      'bob',
    );
    expect(refunded.code, refunded.stderr).to.equal(0);
    const { order: done } = await client.waitFor(order.id, (o) => o.status === 'refunded');
    expect(done.failureCode).to.equal('refunded_by_review');
    expect(done.refundTxHash).to.be.a('string');

    const audit = await cli('audit', 'list', '--target', order.id, '--action', 'review.decide', '--json');
    const entries = (JSON.parse(audit.stdout) as TrailEntry[]).filter((e) => e.outcome === 'succeeded');
    expect(entries).to.have.length(1);
    expect(entries[0].details).to.deep.include({ decision: 'refund', refundTo: { address: given, memo: null } });
  });
});
