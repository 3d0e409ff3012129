/**
 * Production mode, started as a real process (server/main.ts) against a real Litecoin Core regtest node and
 * local servers that speak the market-data providers' formats: only the configured network is served, its
 * node's health shows in /health, an unconfigured pair is 409, a quote is priced from the market, a node that
 * stops answers 503 on its quotes, and a start with no networks, or with CORS_ORIGINS=*, is refused.
 *
 * Production needs PostgreSQL: each run gets a database of its own on the local server (DATABASE_URL's, or
 * postgres://postgres@127.0.0.1:5432); without one, or without litecoind, the tests are skipped with the
 * reason printed.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HDKey } from '@scure/bip32';
import { chmod, chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { ANVIL_KEY_0, anvilUnavailable, startAnvil, type Anvil } from '../support/anvil.js';
import { createWallets, litecoindMissing, startLitecoind, testAccount, type LitecoinNode } from '../support/litecoind.js';
import { startFakeProvider, type FakeProvider } from '../support/market-data.js';
import { createScratchDatabase, postgresMissing, type ScratchDatabase } from '../support/postgres.js';
import { freePort, spawnGroup, waitForHttp, type Child } from '../support/process.js';
import { signedFetch, type SignerOptions } from '../support/signer.js';
import { readJson } from '../support/http.js';
import { generateSigningKeyPem } from '../../server/signing-keys.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ORIGIN = 'https://swap.example.test';

describe('production mode on a real Litecoin Core node (the server process)', function () {
  this.timeout(120_000);
  let node: LitecoinNode;
  let anvil: Anvil;
  let database: ScratchDatabase;
  let server: Child | undefined;
  let baseUrl: string;
  let partner: SignerOptions;
  let keyDir: string | undefined;
  const providers: FakeProvider[] = [];
  const secretsKey = randomBytes(32).toString('hex');

  before(async function () {
    const missing = litecoindMissing ?? anvilUnavailable() ?? (await postgresMissing(ADMIN_URL));
    if (missing) {
      console.log(`      skipped: ${missing}`);
      this.skip();
    }
    node = await startLitecoind();
    const account = testAccount();
    const wallets = await createWallets(node, account);
    await node.mine(101, wallets.customerAddress);
    database = await createScratchDatabase(ADMIN_URL, 'pss_production');
    anvil = await startAnvil();
    keyDir = await mkdtemp(path.join(os.tmpdir(), 'pss-key-'));
    const keyFile = path.join(keyDir, 'eth-hot.key');
    await writeFile(keyFile, ANVIL_KEY_0, { mode: 0o600 });
    const signingKeyFile = path.join(keyDir, 'signing-key.pem');
    await writeFile(signingKeyFile, generateSigningKeyPem(), { mode: 0o600 });
    const ethAccount = HDKey.fromMasterSeed(Buffer.from('0f0e0d0c0b0a09080706050403020100', 'hex')).derive("m/44'/60'/0'");
    for (const source of ['kraken', 'binance', 'coinbase'] as const) providers.push(await startFakeProvider(source));
    const [kraken, binance, coinbase] = providers;
    kraken.markets.set('XLTCZUSD', { price: '80.10' });
    kraken.markets.set('USDTZUSD', { price: '1.0000' });
    kraken.markets.set('XETHZUSD', { price: '3000.00' });
    binance.markets.set('ETHUSDT', { price: '3001.00' });
    coinbase.markets.set('ETH-USD', { price: '3000.50', time: new Date() });
    binance.markets.set('LTCUSDT', { price: '80.00' });
    coinbase.markets.set('LTC-USD', { price: '80.05', time: new Date() });
    coinbase.markets.set('USDT-USD', { price: '1.0001', time: new Date() });

    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}/api/v1`;
    server = spawnGroup(
      process.execPath,
      ['--import', 'tsx', 'server/main.ts'],
      productionEnv(port, node, wallets.watch, wallets.signer),
      root,
    );
    const status = await waitForHttp(`${baseUrl}/health`, 60_000, server);
    expect(status, server.output()).to.equal(200);
    // Partners are made with the CLI in production; the test writes one the same way.
    const created = spawnGroup(
      process.execPath,
      ['--import', 'tsx', 'scripts/partners.ts', 'create', '--name', 'Production test', '--json'],
      productionEnv(port, node, wallets.watch, wallets.signer),
      root,
    );
    await exitOf(created);
    const credentials = JSON.parse(created.output().slice(created.output().indexOf('{')));
    partner = { keyId: credentials.keyId, secret: credentials.secret, audience: ORIGIN };

    function productionEnv(p: number, n: LitecoinNode, watch: string, signer: string): Record<string, string> {
      return {
        SERVICE_MODE: 'production',
        NODE_ENV: 'test',
        PORT: String(p),
        HOST: '127.0.0.1',
        DATABASE_URL: database.url,
        SECRETS_KEY: secretsKey,
        SIGNING_KEY_FILE: signingKeyFile,
        PUBLIC_ORIGIN: ORIGIN,
        LOG_LEVEL: 'warn',
        PRINT_BANNER: 'false',
        NETWORKS: 'LTC,ETH',
        ETH_RPC_URL: anvil.url,
        ETH_CHAIN_ID: '31337',
        ETH_XPUB: ethAccount.publicExtendedKey,
        ETH_HOT_WALLET_KEY_FILE: keyFile,
        ETH_MAX_TIP_AGE_SECONDS: '3600',
        LTC_CHAIN: 'regtest',
        LTC_RPC_URL: n.url(watch),
        LTC_SIGNER_RPC_URL: n.url(signer),
        LTC_XPUB: account.tpub,
        // Regtest mines only when asked: its tip is as old as the last block the test mined.
        LTC_MAX_TIP_AGE_SECONDS: '3600',
        KRAKEN_URL: kraken.url,
        BINANCE_URL: binance.url,
        COINBASE_URL: coinbase.url,
      };
    }
  });

  const post = (pathAndQuery: string, body: unknown) =>
    signedFetch(baseUrl.replace('/api/v1', ''), partner, 'POST', `/api/v1${pathAndQuery}`, body);

  after(async () => {
    await server?.stop();
    await node?.stop();
    await anvil?.stop();
    await Promise.all(providers.map((p) => p.close()));
    await database?.drop();
    if (keyDir) await rm(keyDir, { recursive: true, force: true });
  });

  it('lists only the configured networks, and shows their nodes in /health', async () => {
    const assets = await readJson(fetch(`${baseUrl}/assets`));
    expect(assets.status).to.equal(200);
    expect(
      (assets.body as { assets: Array<{ symbol: string; network: string }> }).assets.map((a) => `${a.symbol}/${a.network}`),
    ).to.have.members(['LTC/LTC', 'ETH/ETH']);
    const health = await readJson(fetch(`${baseUrl}/health`));
    const networks = (health.body as { checks: { networks: Array<Record<string, unknown>> } }).checks.networks;
    expect(networks.map((n) => n.network)).to.have.members(['LTC', 'ETH']);
    expect(networks.find((n) => n.network === 'LTC')).to.include({ status: 'ok', height: 101, balance: 'low' });
    expect(networks.find((n) => n.network === 'ETH')).to.include({ status: 'ok', height: 0, balance: 'ok' });
  });

  it('says once, at start, that ETH deposits stay on their addresses when ETH_DEPOSIT_KEY_FILE is not set', () => {
    const said = server!.output().match(/ETH_DEPOSIT_KEY_FILE is not set: ETH deposits stay on their addresses/g) ?? [];
    expect(said, server!.output()).to.have.length(1);
  });

  it('prices a quote from the market median, bounded by the hot wallet: an empty one is 409 pair_unavailable', async () => {
    const quote = await readJson(post('/quotes', quoteBody('LTC', 'ETH', '1')));
    expect(quote.status, JSON.stringify(quote.body)).to.equal(200);
    // LTC at the median 80.05, ETH at 3000.50: 80.05 / 3000.50.
    expect((quote.body as { quote: { rate: string } }).quote.rate).to.match(/^0\.02667/);
    // The LTC hot wallet (the watch-only wallet) holds nothing: nothing can be paid out in LTC.
    const reverse = await readJson(post('/quotes', quoteBody('ETH', 'LTC', '0.1')));
    expect(reverse.status, JSON.stringify(reverse.body)).to.equal(409);
    expect((reverse.body as { error: { code: string } }).error.code).to.equal('pair_unavailable');
  });

  it('answers an unconfigured pair with 409 pair_unavailable, and is a plain 404 for the sandbox operations', async () => {
    const quote = await readJson(post('/quotes', quoteBody('BTC', 'LTC', '0.01')));
    expect(quote.status, JSON.stringify(quote.body)).to.equal(409);
    expect((quote.body as { error: { code: string } }).error.code).to.equal('pair_unavailable');
    const sandbox = await readJson(post('/sandbox/deposits', { address: 'x', asset: 'LTC', network: 'LTC', amount: '1' }));
    expect(sandbox.status).to.equal(404);
  });

  it('refuses a permanent route with 409 route_unavailable, saying the server does not pay out on Zano (NETWORKS has no ZANO)', async () => {
    const route = await readJson(
      post('/permanent-routes', {
        destinationAsset: 'fUSD',
        destinationNetwork: 'ZANO',
        destinationAddress: 'ZxDFpn4k7xVYyc9VZ3LphrJbkpc46xfREace5bme1aXiMzKPAHA8jsTWcHSXhv9AdodSaoGXK9Mg7bk3ec4FkQrj357fZPWZX',
        externalUserId: 'customer-1',
        challengeId: '1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed',
        message: 'a signed challenge',
        publicKey: 'a'.repeat(64),
        signature: 'b'.repeat(128),
      }),
    );
    expect(route.status, JSON.stringify(route.body)).to.equal(409);
    expect((route.body as { error: { code: string; message: string } }).error).to.include({ code: 'route_unavailable' });
    expect((route.body as { error: { message: string } }).error.message).to.match(
      /not configured to pay out on Zano \(NETWORKS has no ZANO\)/,
    );
  });

  it('answers 503 with Retry-After for quotes on a network whose node stopped', async () => {
    await node.stop();
    // The board probes every 5 s.
    const deadline = Date.now() + 15_000;
    let networks: Array<Record<string, unknown>> = [];
    while (Date.now() < deadline) {
      const health = await readJson(fetch(`${baseUrl}/health`));
      networks = (health.body as { checks: { networks: Array<Record<string, unknown>> } }).checks.networks;
      if (networks.find((n) => n.network === 'LTC')?.status === 'fail') break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const ltc = networks.find((n) => n.network === 'LTC')!;
    expect(ltc).to.include({ status: 'fail' });
    expect(ltc.reason).to.equal('node unreachable');
    const quote = await post('/quotes', quoteBody('LTC', 'ETH', '1'));
    expect(quote.status).to.equal(503);
    expect(quote.headers.get('retry-after')).to.equal('30');
    expect(((await quote.json()) as { error: { code: string; message: string } }).error.message).to.match(/The LTC network is unavailable/);
  });
});

/** A quote request for `source` -> `destination` (each a coin on its own network). */
function quoteBody(source: string, destination: string, amount: string) {
  return {
    sourceAsset: source,
    sourceNetwork: source,
    destinationAsset: destination,
    destinationNetwork: destination,
    sourceAmount: amount,
    refundMode: 'sender',
  };
}

const exitOf = (child: Child): Promise<number | null> =>
  child.process.exitCode !== null
    ? Promise.resolve(child.process.exitCode)
    : new Promise((resolve) => child.process.once('exit', (code) => resolve(code)));

/** Starts the server in production mode with `env` over the minimum it reads first; resolves once it exits. */
async function startRefused(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawnGroup(
    process.execPath,
    ['--import', 'tsx', 'server/main.ts'],
    {
      SERVICE_MODE: 'production',
      SECRETS_KEY: 'a'.repeat(64),
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/none',
      PUBLIC_ORIGIN: ORIGIN,
      ...env,
    },
    root,
  );
  const code = await exitOf(child);
  return { code, output: child.output() };
}

describe('production mode with no networks', () => {
  it('refuses to start, naming NETWORKS', async function () {
    this.timeout(60_000);
    const { code, output } = await startRefused({ NETWORKS: '' });
    expect(code).to.equal(78);
    expect(output).to.match(/NETWORKS is required when SERVICE_MODE=production/);
  });
});

describe('production mode without a usable signing key', () => {
  it('refuses to start without SIGNING_KEY_FILE, and with one other users can read, never printing the key', async function () {
    this.timeout(60_000);
    const missing = await startRefused({ NETWORKS: '' });
    expect(missing.code).to.equal(78);
    expect(missing.output).to.match(/SIGNING_KEY_FILE is required when SERVICE_MODE=production: .*openssl genpkey -algorithm ed25519/);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pss-key-'));
    const file = path.join(dir, 'signing-key.pem');
    const pem = generateSigningKeyPem();
    await writeFile(file, pem, { mode: 0o644 });
    await chmod(file, 0o644);
    const open = await startRefused({ NETWORKS: '', SIGNING_KEY_FILE: file });
    await rm(dir, { recursive: true, force: true });
    expect(open.code).to.equal(78);
    expect(open.output).to.contain(`SIGNING_KEY_FILE (${file}): is accessible to other users (mode 0644)`);
    expect(open.output).not.to.contain(pem.split('\n')[1]);
  });
});

describe('production mode with CORS_ORIGINS=*', () => {
  it('refuses to start, saying that * is for a sandbox and what to list instead', async function () {
    this.timeout(60_000);
    const { code, output } = await startRefused({ NETWORKS: '', CORS_ORIGINS: '*' });
    expect(code).to.equal(78);
    expect(output).to.contain('CORS_ORIGINS=* lets every website read swaps with an access token it obtains; it is for a sandbox only');
    expect(output).to.contain('CORS_ORIGINS=https://app.example.com');
  });
});

describe('production mode with a deposit key of another account', () => {
  it('refuses to start, naming ETH_DEPOSIT_KEY_FILE and ETH_XPUB, and never prints the key', async function () {
    this.timeout(60_000);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pss-key-'));
    const keyFile = path.join(dir, 'eth-deposit.xprv');
    const other = HDKey.fromMasterSeed(Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex')).derive("m/44'/60'/0'");
    await writeFile(keyFile, other.privateExtendedKey, { mode: 0o600 });
    const account = HDKey.fromMasterSeed(Buffer.from('0f0e0d0c0b0a09080706050403020100', 'hex')).derive("m/44'/60'/0'");
    const { code, output } = await startRefused({
      NETWORKS: 'ETH',
      ETH_RPC_URL: 'http://127.0.0.1:1',
      ETH_XPUB: account.publicExtendedKey,
      ETH_HOT_WALLET_KEY_FILE: keyFile,
      ETH_DEPOSIT_KEY_FILE: keyFile,
    });
    await rm(dir, { recursive: true, force: true });
    expect(code).to.equal(78);
    expect(output).to.contain(`ETH_DEPOSIT_KEY_FILE (${keyFile}): holds an extended private key that does not match ETH_XPUB`);
    expect(output).not.to.contain(other.privateExtendedKey);
  });
});

describe('production mode with a key file other users can read', () => {
  const account = HDKey.fromMasterSeed(Buffer.from('0f0e0d0c0b0a09080706050403020100', 'hex')).derive("m/44'/60'/0'");
  const refusedWith = async (setUp: (file: string) => Promise<void>, variable: 'ETH_HOT_WALLET_KEY_FILE' | 'ETH_DEPOSIT_KEY_FILE') => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pss-key-'));
    const hotKeyFile = path.join(dir, 'eth-hot.key');
    await writeFile(hotKeyFile, ANVIL_KEY_0, { mode: 0o600 });
    const depositKeyFile = path.join(dir, 'eth-deposit.xprv');
    await writeFile(depositKeyFile, account.privateExtendedKey, { mode: 0o600 });
    const file = variable === 'ETH_HOT_WALLET_KEY_FILE' ? hotKeyFile : depositKeyFile;
    await setUp(file);
    try {
      const started = await startRefused({
        NETWORKS: 'ETH',
        ETH_RPC_URL: 'http://127.0.0.1:1',
        ETH_XPUB: account.publicExtendedKey,
        ETH_HOT_WALLET_KEY_FILE: hotKeyFile,
        ETH_DEPOSIT_KEY_FILE: depositKeyFile,
      });
      return { ...started, file };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };

  it('refuses to start when the hot wallet key is world-readable (0644), saying how to fix it, and never prints the key', async function () {
    this.timeout(60_000);
    const { code, output, file } = await refusedWith((f) => chmod(f, 0o644), 'ETH_HOT_WALLET_KEY_FILE');
    expect(code).to.equal(78);
    expect(output).to.contain(`ETH_HOT_WALLET_KEY_FILE (${file}): is accessible to other users (mode 0644)`);
    expect(output).to.contain('anyone who can read it can spend the hot wallet');
    expect(output).to.contain(`chmod 600 ${file}`);
    expect(output).not.to.contain(ANVIL_KEY_0.slice(2));
  });

  it('refuses to start when the deposit key is group-readable (0640), and never prints the key', async function () {
    this.timeout(60_000);
    const { code, output, file } = await refusedWith((f) => chmod(f, 0o640), 'ETH_DEPOSIT_KEY_FILE');
    expect(code).to.equal(78);
    expect(output).to.contain(`ETH_DEPOSIT_KEY_FILE (${file}): is accessible to other users (mode 0640)`);
    expect(output).to.contain('anyone who can read it can spend every deposit');
    expect(output).not.to.contain(account.privateExtendedKey);
  });

  it('refuses to start when another user owns the key file, even at 0600', async function () {
    this.timeout(60_000);
    if (process.getuid?.() !== 0) {
      console.log('      skipped: giving a file to another user needs root');
      this.skip();
    }
    const { code, output, file } = await refusedWith((f) => chown(f, 65534, 65534), 'ETH_HOT_WALLET_KEY_FILE');
    expect(code).to.equal(78);
    expect(output).to.contain(`ETH_HOT_WALLET_KEY_FILE (${file}): is owned by uid 65534, not by the user this service runs as (uid 0)`);
  });
});

describe('production mode with an ETH node that does not answer at start', () => {
  let database: ScratchDatabase | undefined;
  let server: Child | undefined;
  let dir: string | undefined;
  after(async () => {
    await server?.stop();
    await database?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('starts anyway: /health shows the network failing, and its quotes answer 503 with Retry-After', async function () {
    this.timeout(60_000);
    const missing = await postgresMissing(ADMIN_URL);
    if (missing) {
      console.log(`      skipped: ${missing}`);
      this.skip();
    }
    database = await createScratchDatabase(ADMIN_URL, 'pss_production_down');
    dir = await mkdtemp(path.join(os.tmpdir(), 'pss-key-'));
    const keyFile = path.join(dir, 'eth-hot.key');
    await writeFile(keyFile, ANVIL_KEY_0, { mode: 0o600 });
    const signingKeyFile = path.join(dir, 'signing-key.pem');
    await writeFile(signingKeyFile, generateSigningKeyPem(), { mode: 0o600 });
    const account = HDKey.fromMasterSeed(Buffer.from('0f0e0d0c0b0a09080706050403020100', 'hex')).derive("m/44'/60'/0'");
    const port = await freePort();
    const env = {
      SERVICE_MODE: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: database.url,
      SECRETS_KEY: 'b'.repeat(64),
      SIGNING_KEY_FILE: signingKeyFile,
      PUBLIC_ORIGIN: ORIGIN,
      LOG_LEVEL: 'warn',
      PRINT_BANNER: 'false',
      NETWORKS: 'ETH',
      // Nothing listens on port 1: every call to the node is refused.
      ETH_RPC_URL: 'http://127.0.0.1:1',
      ETH_XPUB: account.publicExtendedKey,
      ETH_HOT_WALLET_KEY_FILE: keyFile,
      ETH_TOKENS: 'USDT:0x5FbDB2315678afecb367f032d93F642f64180aa3',
    };
    server = spawnGroup(process.execPath, ['--import', 'tsx', 'server/main.ts'], env, root);
    const baseUrl = `http://127.0.0.1:${port}/api/v1`;
    expect(await waitForHttp(`${baseUrl}/health`, 45_000, server), server.output()).to.equal(200);
    const created = spawnGroup(
      process.execPath,
      ['--import', 'tsx', 'scripts/partners.ts', 'create', '--name', 'Down', '--json'],
      env,
      root,
    );
    await exitOf(created);
    const credentials = JSON.parse(created.output().slice(created.output().indexOf('{')));
    const signer = { keyId: credentials.keyId, secret: credentials.secret, audience: ORIGIN };
    const health = await readJson(fetch(`${baseUrl}/health`));
    const eth = (health.body as { checks: { networks: Array<Record<string, unknown>> } }).checks.networks.find((n) => n.network === 'ETH');
    expect(eth, JSON.stringify(health.body)).to.include({ status: 'fail' });
    const quote = await signedFetch(baseUrl.replace('/api/v1', ''), signer, 'POST', '/api/v1/quotes', {
      sourceAsset: 'ETH',
      sourceNetwork: 'ETH',
      destinationAsset: 'USDT',
      destinationNetwork: 'ETH',
      sourceAmount: '0.1',
      refundMode: 'sender',
    });
    await rm(dir, { recursive: true, force: true });
    const body = (await quote.json()) as { error: { code: string } };
    expect(quote.status, JSON.stringify(body)).to.equal(503);
    expect(body.error.code).to.equal('service_unavailable');
    expect(quote.headers.get('retry-after')).to.equal('30');
  });
});
