import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '../../test/support/server.js';
import { API_VERSION } from '../src/generated/version.js';

const root = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

// The consumer a partner would write, compiled with strict TypeScript against the packed package.
const CONSUMER = `
import { createPartnerClient, newIdempotencyKey, PartnerApiError, API_VERSION, type components } from '@partner-swap/sdk';

const client = createPartnerClient({
  baseUrl: process.env.PSS_BASE_URL!,
  audience: process.env.PSS_AUDIENCE!,
  keyId: process.env.PSS_KEY_ID!,
  secret: process.env.PSS_SECRET!,
  userId: 'customer-42',
});
const health = await client.health();
const assets = await client.listAssets();
const first: components['schemas']['Asset'] | undefined = assets.data?.assets[0];
const markup = await client.setMarkup(1.5);
const bad = await client.setMarkup(9);
const isTyped: boolean = bad.error instanceof PartnerApiError;
console.log(JSON.stringify({
  version: health.data?.version, api: API_VERSION, firstSymbol: first?.symbol, markup: markup.data?.percent,
  badCode: bad.error?.code, isTyped, keyLength: newIdempotencyKey().length,
}));
`;

describe('the packed SDK in a throw-away TypeScript project', function () {
  this.timeout(240_000);
  let server: TestServer;
  let work: string;
  before(async () => {
    server = await startTestServer();
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'pss-sdk-consumer-'));
  });
  after(async () => {
    await server.close();
    await fs.rm(work, { recursive: true, force: true });
  });

  it('installs from npm pack, compiles against its declarations and calls /health, /assets and a signed operation', async () => {
    await run('npm', ['run', 'build', '--workspace', 'sdk'], { cwd: root });
    const { stdout: packed } = await run('npm', ['pack', '--workspace', 'sdk', '--pack-destination', work, '--json'], { cwd: root });
    const tarball = path.join(work, JSON.parse(packed)[0].filename);

    const app = path.join(work, 'app');
    await fs.mkdir(app);
    await fs.writeFile(path.join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    await fs.writeFile(
      path.join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          outDir: 'dist',
          types: ['node'],
        },
        include: ['index.ts'],
      }),
    );
    await fs.writeFile(path.join(app, 'index.ts'), CONSUMER);
    const nodeTypes = JSON.parse(await fs.readFile(path.join(root, 'node_modules/@types/node/package.json'), 'utf8')).version;
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, `@types/node@${nodeTypes}`], { cwd: app });
    await run(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', app]);

    const issued = await server.createPartner('Packed SDK user');
    const { stdout } = await run(process.execPath, [path.join(app, 'dist/index.js')], {
      cwd: app,
      env: {
        ...process.env,
        PSS_BASE_URL: server.baseUrl,
        PSS_AUDIENCE: server.config.publicOrigin,
        PSS_KEY_ID: issued.keyId,
        PSS_SECRET: issued.secret,
      },
    });
    expect(JSON.parse(stdout)).to.deep.equal({
      version: API_VERSION,
      api: API_VERSION,
      firstSymbol: 'BTC',
      markup: 1.5,
      badCode: 'invalid_request',
      isTyped: true,
      keyLength: 36,
    });
  });
});
