import { randomBytes } from 'node:crypto';
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

  it('warns about a secrets.key that others can read, and names partners whose secret no longer opens', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pss-keys-'));
    try {
      const start = async () => {
        const port = await freePort();
        child = spawnGroup(
          process.execPath,
          ['--import', 'tsx', 'server/main.ts'],
          { PORT: String(port), DATA_DIR: dir, DATABASE_URL: '', SECRETS_KEY: '', LOG_LEVEL: 'info' },
          root,
        );
        expect(await waitForHttp(`http://127.0.0.1:${port}/api/v1/health`, 60_000, child)).to.equal(200);
        expect(await child.stop('SIGTERM')).to.equal(0);
        return child.output();
      };
      await fs.writeFile(path.join(dir, 'secrets.key'), `${randomBytes(32).toString('hex')}\n`, { mode: 0o644 });
      await fs.chmod(path.join(dir, 'secrets.key'), 0o644);
      const first = await start(); // creates the demo partner under this key
      expect(first).to.contain('secrets.key is accessible to other users (mode 0644)');
      expect(first).not.to.contain('do not open under the current SECRETS_KEY');

      await fs.writeFile(path.join(dir, 'secrets.key'), `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
      await fs.chmod(path.join(dir, 'secrets.key'), 0o600);
      const second = await start();
      expect(second).not.to.contain('is accessible to other users');
      const report = second.split('\n').filter((line) => line.includes('do not open under the current SECRETS_KEY'));
      expect(report, second).to.have.length(1);
      expect(report[0]).to.contain('1 partner secret(s)').and.contain(': demo.').and.contain('rotate-secret');
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses to start with a clear message when configuration is invalid', async () => {
    child = spawnGroup(process.execPath, ['--import', 'tsx', 'server/main.ts'], { PORT: 'eighty', QUOTE_TTL_SECONDS: '-5' }, root);
    const code = await new Promise<number | null>((resolve) => child!.process.once('exit', resolve));
    expect(code).to.equal(78);
    expect(child.output()).to.contain('PORT="eighty" must be an integer from 0 to 65535');
    expect(child.output()).to.contain('QUOTE_TTL_SECONDS="-5" must be an integer of at least 1');
  });
});
