/**
 * `make demo` follows the server's PORT, as a newcomer runs it after `PORT=… make run`: it runs to its end
 * against a server on a port that is not 8080 with no other variable than the secret; against a port where
 * nothing listens it says what to set instead of a stack trace. (`make demo-route` on PORT and PUBLIC_ORIGIN:
 * test/integration/route-process.test.ts.)
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { freePort, spawnGroup, startedDataDir, startServerChild, type Child } from '../support/process.js';

const root = path.resolve(import.meta.dirname, '../..');

/** Runs `make <target>` with `env`; resolves with its exit code and output. */
async function make(target: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawnGroup('make', ['--no-print-directory', target], env, root);
  const code = await new Promise<number | null>((resolve) => child.process.once('exit', resolve));
  return { code, output: child.output() };
}

describe('make demo on a PORT other than 8080', function () {
  this.timeout(180_000);
  let dataDir: string;
  let server: Child | undefined;
  let port: number;
  let secret: string;

  before(async () => {
    dataDir = await startedDataDir(root, 'pss-demo-port-');
    port = await freePort();
    expect(port).not.to.equal(8080);
    // The server's own default PUBLIC_ORIGIN for that port, as `PORT=… make run` has it.
    const started = await startServerChild(root, {
      port,
      dataDir,
      env: { PUBLIC_ORIGIN: `http://localhost:${port}`, SANDBOX_BLOCK_SECONDS: '0.1' },
    });
    server = started.child;
    secret = started.demo.secret;
  });
  after(async () => {
    await server?.stop('SIGTERM');
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('make demo: PORT and the secret are enough, and the swap finishes', async () => {
    const { code, output } = await make('demo', { PORT: String(port), PSS_SECRET: secret });
    expect(code, output).to.equal(0);
    expect(output).to.match(/^finished {2}\S+ USDT sent to 0x/m);
  });

  it('make demo where nothing listens: says what to set, without a stack trace', async () => {
    const nowhere = await freePort();
    const { code, output } = await make('demo', { PORT: String(nowhere), PSS_SECRET: secret });
    expect(code).not.to.equal(0);
    expect(output).to.contain(`demo failed: nothing answers at http://127.0.0.1:${nowhere}/api/v1 (ECONNREFUSED)`);
    expect(output).to.contain("PORT=<the server's PORT> make demo");
    expect(output).not.to.contain('    at ');
  });
});
