import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { freePort, spawnGroup, waitForHttp, type Child } from '../support/process.js';

const root = path.resolve(import.meta.dirname, '../..');

describe('the server process (server/main.ts)', function () {
  this.timeout(90_000);
  let dataDir: string;
  let child: Child | undefined;
  before(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'pss-proc-'));
  });
  afterEach(async () => {
    await child?.stop('SIGKILL');
    child = undefined;
  });
  after(() => fs.rm(dataDir, { recursive: true, force: true }));

  it('starts on embedded PGlite, answers /health and shuts down cleanly on SIGTERM', async () => {
    const port = await freePort();
    child = spawnGroup(
      process.execPath,
      ['--import', 'tsx', 'server/main.ts'],
      { PORT: String(port), DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'info' },
      root,
    );
    const status = await waitForHttp(`http://127.0.0.1:${port}/api/v1/health`, 60_000, child);
    expect(status).to.equal(200);
    expect(await child.stop('SIGTERM')).to.equal(0);
    expect(child.output()).to.contain('"msg":"stopped"');
    await fs.access(path.join(dataDir, 'pglite'));
  });

  it('refuses to start with a clear message when configuration is invalid', async () => {
    child = spawnGroup(process.execPath, ['--import', 'tsx', 'server/main.ts'], { PORT: 'eighty', QUOTE_TTL_SECONDS: '-5' }, root);
    const code = await new Promise<number | null>((resolve) => child!.process.once('exit', resolve));
    expect(code).to.equal(78);
    expect(child.output()).to.contain('PORT="eighty" must be an integer from 0 to 65535');
    expect(child.output()).to.contain('QUOTE_TTL_SECONDS="-5" must be an integer of at least 1');
  });
});
