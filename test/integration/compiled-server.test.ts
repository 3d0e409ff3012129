import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { freePort, spawnGroup, waitForHttp, type Child } from '../support/process.js';
import { createVerifiedRoute } from '../support/routes.js';
import { swapClient } from '../support/swaps.js';
import { compiledBuild } from '../support/build.js';

const root = path.resolve(import.meta.dirname, '../..');
// tsc on the whole server takes 10-40 s on a small CI machine.
const BUILD_TIMEOUT_MS = 180_000;

describe('the compiled server (npm run build, npm start)', function () {
  this.timeout(BUILD_TIMEOUT_MS);
  let outDir: string;
  let dataDir: string;
  let child: Child | undefined;
  let origin: string;

  before(async () => {
    // Built with tsconfig.build.json, as `npm run build` does, but into a directory of this test process's own
    // (shared with the CLI suites, support/build.ts) so that parallel runs and a developer's dist/ do not
    // collide. It stays inside the project so that the compiled files find node_modules and package.json
    // ("type": "module") the way dist/ does.
    outDir = await compiledBuild();
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'pss-compiled-'));

    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    // Node alone: no --import, and NODE_OPTIONS emptied so that no loader (tsx) comes in through the environment.
    child = spawnGroup(
      process.execPath,
      [path.join(outDir, 'server/main.js')],
      {
        NODE_OPTIONS: '',
        PORT: String(port),
        DATA_DIR: dataDir,
        DATABASE_URL: '',
        SECRETS_KEY: '',
        PUBLIC_ORIGIN: origin,
        PRINT_BANNER: 'true',
        LOG_LEVEL: 'info',
      },
      root,
    );
    await waitForHttp(`${origin}/api/v1/health`, 60_000, child);
  });

  after(async () => {
    await child?.stop('SIGKILL');
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('emits the server, the migrate and partners CLIs and the JSON files they read at run time', async () => {
    for (const file of [
      'server/main.js',
      'scripts/migrate.js',
      'scripts/partners.js',
      'generated/openapi.json',
      'server/adapters/sandbox/catalog.json',
    ]) {
      await fs.access(path.join(outDir, file));
    }
  });

  it('runs on node without tsx and prints its banner', () => {
    expect(child!.process.spawnargs).to.deep.equal([process.execPath, path.join(outDir, 'server/main.js')]);
    expect(child!.process.spawnargs.join(' ')).not.to.contain('tsx');
    expect(child!.output()).to.match(/Partner Swap Service \S+ \(sandbox, pglite\) at http:\/\/127\.0\.0\.1:\d+\/api\/v1/);
  });

  it('answers GET /api/v1/health with 200 and status ok', async () => {
    const res = await fetch(`${origin}/api/v1/health`);
    expect(res.status).to.equal(200);
    expect(((await res.json()) as { status: string }).status).to.equal('ok');
  });

  it('serves the sandbox catalogue (GET /api/v1/assets)', async () => {
    const res = await fetch(`${origin}/api/v1/assets`);
    expect(res.status).to.equal(200);
    const body = (await res.json()) as { assets: { symbol: string }[] };
    expect(body.assets.map((a) => a.symbol)).to.include('BTC');
  });

  it('serves the bundled contract it validates against (GET /api/v1/openapi.json)', async () => {
    const res = await fetch(`${origin}/api/v1/openapi.json`);
    expect(res.status).to.equal(200);
    const expected = JSON.parse(await fs.readFile(path.join(root, 'generated/openapi.json'), 'utf8')) as { info: { version: string } };
    expect(((await res.json()) as { info: { version: string } }).info.version).to.equal(expected.info.version);
  });

  // The wallet proof is checked, and the route's addresses derived, on a worker thread whose module the
  // compiled server loads from its own directory (crypto-worker.js beside crypto-thread.js).
  it('creates a permanent route from a wallet signature and allocates its addresses', async () => {
    const [, keyId, secret] = child!.output().match(/keyId=(\S+) secret=(\S+)/)!;
    const client = swapClient(origin, { keyId, secret, audience: origin, user: 'compiled-user' });
    const route = await createVerifiedRoute(client, 'compiled-user');
    expect(route.external_user_id).to.equal('compiled-user');
    expect(Object.values(route.addresses)).to.have.length.above(3).and.not.include('');
  });

  it('stops cleanly on SIGTERM', async () => {
    expect(await child!.stop('SIGTERM')).to.equal(0);
    expect(child!.output()).to.contain('"msg":"stopped"');
  });
});
