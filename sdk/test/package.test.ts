import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { API_VERSION } from '../src/index.js';
import { computeSignature, parseSignedHeaders } from '../../server/domain/signing.js';
import { startPrismMock, type PrismMock } from '../../test/support/process.js';
import { startTestServer, type TestServer } from '../../test/support/server.js';

const root = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

// The consumer a partner would write, compiled with strict TypeScript against the packed package. Its fetch
// records what the packed SDK sent, so the test can check the signatures with the server's code.
const CONSUMER = `
import { createPartnerClient, newIdempotencyKey, PartnerApiError, API_VERSION, type components } from '@partner-swap/sdk';
import { createSwapViewer } from '@partner-swap/sdk/browser';

const sent: Array<{ method: string; pathAndQuery: string; headers: Record<string, string>; body: string }> = [];
const client = createPartnerClient({
  baseUrl: process.env.PSS_BASE_URL!,
  audience: process.env.PSS_AUDIENCE!,
  keyId: process.env.PSS_KEY_ID!,
  secret: process.env.PSS_SECRET!,
  userId: 'customer-42',
  fetch: async (request: Request) => {
    const url = new URL(request.url);
    const headers = Object.fromEntries([...request.headers].filter(([name]) => name.startsWith('x-service-')));
    sent.push({ method: request.method, pathAndQuery: url.pathname + url.search, headers, body: await request.clone().text() });
    return fetch(request);
  },
});
const health = await client.health();
const assets = await client.listAssets();
const first: components['schemas']['Asset'] | undefined = assets.data?.assets[0];
const markup = await client.setMarkup(1.5);
const bad = await client.setMarkup(9);
const isTyped: boolean = bad.error instanceof PartnerApiError;
// The browser entry, through the package's exports: a token read (the mock serves its example; the server
// refuses a token that grants no swap).
const viewed = await createSwapViewer({
  baseUrl: process.env.PSS_BASE_URL!, swapId: '3f2b8a1e-6c4d-4e7a-9b1f-2d5c8e0a4b71', accessToken: 'sat_' + 'x'.repeat(40),
}).get();
console.log(JSON.stringify({
  result: {
    version: health.data?.version, api: API_VERSION, firstSymbol: first?.symbol, markup: markup.data?.percent,
    badCode: bad.error?.code, isTyped, keyLength: newIdempotencyKey().length, viewed: viewed.data?.order.id ?? viewed.error?.code,
  },
  sent,
}));
`;

/** What the consumer prints: its results, and every request its SDK sent. */
interface ConsumerOutput {
  result: Record<string, unknown>;
  sent: Array<{ method: string; pathAndQuery: string; headers: Record<string, string>; body: string }>;
}

describe('the packed SDK in a throw-away TypeScript project', function () {
  this.timeout(240_000);
  let mock: PrismMock;
  let server: TestServer;
  let work: string;
  let app: string;

  /** Runs the compiled consumer against `baseUrl` as the partner `keyId` with `secret`. */
  async function runConsumer(env: { baseUrl: string; audience: string; keyId: string; secret: string }): Promise<ConsumerOutput> {
    const { stdout } = await run(process.execPath, [path.join(app, 'dist/index.js')], {
      cwd: app,
      env: { ...process.env, PSS_BASE_URL: env.baseUrl, PSS_AUDIENCE: env.audience, PSS_KEY_ID: env.keyId, PSS_SECRET: env.secret },
    });
    return JSON.parse(stdout) as ConsumerOutput;
  }

  // Packs, installs and compiles once; the mock and the server start meanwhile.
  before(async () => {
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'pss-sdk-consumer-'));
    const started = Promise.all([startPrismMock(root), startTestServer()]);
    // As a partner gets it (both READMEs): `make sdk-pack`, which prints the tarball's path.
    const { stdout: packed } = await run('make', ['--no-print-directory', 'sdk-pack', `SDK_PACK_DIR=${work}`], { cwd: root });
    const tarball = packed.trim().split('\n').at(-1)!.split(' ')[0];
    const version = JSON.parse(await fs.readFile(path.join(root, 'sdk/package.json'), 'utf8')).version;
    expect(tarball).to.equal(path.join(work, `partner-swap-sdk-${version}.tgz`));

    app = path.join(work, 'app');
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
    [mock, server] = await started;
  });
  after(async () => {
    await mock?.stop();
    await server?.close();
    await fs.rm(work, { recursive: true, force: true });
  });

  it('imports, signs and calls the Prism mock of the spec: /health, /assets and a signed operation', async () => {
    const partner = { keyId: 'pk_live_7Hq2Xv', secret: 'pss_sk_3Jd9sPq2VwXy7RtLm4Nb6Hc1' };
    const { result, sent } = await runConsumer({ baseUrl: mock.url, audience: 'https://swap.example.com', ...partner });
    // The mock answers with the spec's examples (a markup of 0.5 whatever was set) and refuses percent 9.
    expect(result).to.deep.equal({
      version: API_VERSION,
      api: API_VERSION,
      firstSymbol: 'BTC',
      markup: 0.5,
      badCode: 'invalid_request',
      isTyped: true,
      keyLength: 36,
      viewed: '3f2b8a1e-6c4d-4e7a-9b1f-2d5c8e0a4b71',
    });
    // The mock checks no signature, so the test does, with the server's code: every request carries a valid one.
    expect(sent.map((r) => `${r.method} ${r.pathAndQuery}`)).to.deep.equal([
      'GET /health',
      'GET /assets',
      'PUT /partner/markup',
      'PUT /partner/markup',
    ]);
    for (const request of sent) {
      const headers = parseSignedHeaders((name) => request.headers[name]);
      expect(headers).to.include({ keyId: partner.keyId, user: 'customer-42' });
      const expected = computeSignature(partner.secret, {
        audience: 'https://swap.example.com',
        method: request.method,
        pathAndQuery: request.pathAndQuery,
        timestamp: headers.timestamp,
        nonce: headers.nonce,
        keyId: headers.keyId,
        user: headers.user,
        body: new TextEncoder().encode(request.body),
      });
      expect(headers.signatureHex, `${request.method} ${request.pathAndQuery}`).to.equal(expected);
    }
    expect(sent[2].body).to.equal('{"percent":1.5}');
  });

  it('is accepted by the real server', async () => {
    const issued = await server.createPartner('Packed SDK user');
    const { result } = await runConsumer({
      baseUrl: server.baseUrl,
      audience: server.config.publicOrigin,
      keyId: issued.keyId,
      secret: issued.secret,
    });
    expect(result).to.deep.equal({
      version: API_VERSION,
      api: API_VERSION,
      firstSymbol: 'BTC',
      markup: 1.5,
      badCode: 'invalid_request',
      isTyped: true,
      keyLength: 36,
      viewed: 'invalid_token',
    });
  });
});
