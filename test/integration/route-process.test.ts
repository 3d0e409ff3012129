import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { freePort, startedDataDir, spawnGroup, startServerChild, type Child } from '../support/process.js';
import { swapClient } from '../support/swaps.js';
import { createVerifiedRoute, waitForDeposits } from '../support/routes.js';

const root = path.resolve(import.meta.dirname, '../..');

describe('permanent routes against the real server process', function () {
  this.timeout(180_000);
  let dataDir: string;
  let child: Child | undefined;

  beforeEach(async () => {
    dataDir = await startedDataDir(root, 'pss-routes-');
  });
  afterEach(async () => {
    await child?.stop('SIGTERM');
    child = undefined;
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('runs make demo-route to the end: a generated wallet proves its address, three deposits accumulate and convert, the markup is earned', async () => {
    const started = await startServerChild(root, { port: await freePort(), dataDir, env: { SANDBOX_BLOCK_SECONDS: '0.2' } });
    child = started.child;
    const demo = spawnGroup(
      process.execPath,
      ['--import', 'tsx', 'scripts/demo-route.ts'],
      {
        PSS_SECRET: started.demo.secret,
        // Found as the server reads its own address (its port is not 8080): PORT and PUBLIC_ORIGIN.
        PORT: new URL(started.origin).port,
        PUBLIC_ORIGIN: started.origin,
      },
      root,
    );
    const code = await new Promise<number | null>((resolve) => demo.process.once('exit', resolve));
    const output = demo.output();
    expect(code, output).to.equal(0);
    expect(output).to.match(/^route {5}\S+: fee 1\.5 % \(at least 1 USD\), converts from 25 USD$/m);
    expect(output.match(/^bucket /gm)).to.have.length(2);
    expect(output).to.match(/^order {5}\S+: accumulating -> exchanging -> sending -> finished$/m);
    expect(output).to.match(/^earning {3}0\.\d+ ZANO \(0\.1\d USD\) at 0\.5 %$/m);
  });

  it('keeps polling a route across a restart: a payment made while the server was down is found after it starts again', async () => {
    const port = await freePort();
    const env = { SANDBOX_BLOCK_SECONDS: '0.05', ROUTE_POLL_SECONDS: '1' };
    let started = await startServerChild(root, { port, dataDir, env });
    child = started.child;
    const client = swapClient(started.origin, { ...started.demo, user: 'restart-user' });
    const route = await createVerifiedRoute(client, 'restart-user');
    await child.stop('SIGTERM');
    // The payment lands on the simulated chain while no server runs: recorded straight into its table.
    started = await startServerChild(root, { port, dataDir, env });
    child = started.child;
    const paid = await client.send<{ txHash: string }>('POST', '/api/v1/sandbox/deposits', {
      address: route.addresses['USDT/TRX'],
      asset: 'USDT',
      network: 'TRX',
      amount: '30',
    });
    expect(paid.status, paid.text).to.equal(202);
    const done = await waitForDeposits(
      client,
      route.route_id,
      (l) => l.deposits.length === 1 && l.deposits[0].status === 'finished',
      30_000,
    );
    expect(done.deposits[0].txHash).to.equal(paid.body.txHash);
  });
});
