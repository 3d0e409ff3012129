import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createScratchDatabase, type ScratchDatabase } from '../support/postgres.js';
import { freePort, spawnGroup, waitForHttp, type Child } from '../support/process.js';
import { openStream } from '../support/sse.js';
import { swapClient, type SwapEvent } from '../support/swaps.js';

const root = path.resolve(import.meta.dirname, '../..');

describe('two server processes on one PostgreSQL', function () {
  this.timeout(120_000);
  const children: Child[] = [];
  const dirs: string[] = [];
  let database: ScratchDatabase | undefined;

  before(async function () {
    if (!process.env.DATABASE_URL) {
      // The embedded database belongs to one process: fan-out between instances is PostgreSQL's.
      return this.skip();
    }
    database = await createScratchDatabase(process.env.DATABASE_URL, 'pss_two');
  });
  after(async () => {
    for (const child of children) await child.stop('SIGTERM');
    for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
    await database?.drop();
  });

  async function start(port: number, origin: string, env: Record<string, string>): Promise<Child> {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pss-two-'));
    dirs.push(dir);
    const child = spawnGroup(
      process.execPath,
      ['--import', 'tsx', 'server/main.ts'],
      { PORT: String(port), DATA_DIR: dir, DATABASE_URL: database!.url, PUBLIC_ORIGIN: origin, LOG_LEVEL: 'warn', ...env },
      root,
    );
    children.push(child);
    await waitForHttp(`http://127.0.0.1:${port}/api/v1/health`, 60_000, child);
    return child;
  }

  it('streams from one process the transitions the other makes', async () => {
    // One audience and one SECRETS_KEY for both, as instances behind one load balancer share them.
    const [portA, portB] = [await freePort(), await freePort()];
    const origin = `http://127.0.0.1:${portA}`;
    const env = { SECRETS_KEY: randomBytes(32).toString('hex'), PRINT_BANNER: 'true', SANDBOX_BLOCK_SECONDS: '0.2' };
    const a = await start(portA, origin, env);
    // On PostgreSQL a stream learns of every change, whichever process's worker made it, through LISTEN/NOTIFY.
    await start(portB, origin, env);
    const secret = /keyId=demo secret=(\S+)/.exec(a.output())?.[1];
    if (!secret) throw new Error(`no demo credentials in:\n${a.output()}`);

    const onA = swapClient(origin, { keyId: 'demo', secret, audience: origin });
    const { order, accessToken } = await onA.create();
    const session = await openStream(`http://127.0.0.1:${portB}/api/v1/swaps/${order.id}/stream`, {
      authorization: `Bearer ${accessToken}`,
    });
    expect(session.status).to.equal(200);
    await session.waitFor((m) => m.event === 'order');
    await onA.pay(order);
    await session.ended;
    const statuses = session.messages.filter((m) => m.event === 'status').map((m) => (JSON.parse(m.data) as SwapEvent).status);
    expect(statuses[0]).to.equal('waiting');
    expect(statuses[statuses.length - 1]).to.equal('finished');
    const { events } = await onA.get(order.id);
    expect(session.messages.filter((m) => m.event === 'status').map((m) => m.id)).to.deep.equal(events.map((e) => e.id));
  });
});
