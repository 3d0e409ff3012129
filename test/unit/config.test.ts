import { HDKey } from '@scure/bip32';
import { expect } from 'chai';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig, modeCapabilities, STREAM_MAX_LIFETIME_LIMIT_SECONDS } from '../../server/config.js';
import { loadSandboxCatalog } from '../../server/adapters/sandbox/catalog.js';
import { servedCatalog } from '../../server/production-config.js';
import { generateSigningKeyPem } from '../../server/signing-keys.js';

describe('loadConfig', () => {
  it('applies the documented defaults to an empty environment', () => {
    const config = loadConfig({});
    expect(config).to.include({
      port: 8080,
      host: '127.0.0.1',
      publicOrigin: 'http://localhost:8080',
      serviceMode: 'sandbox',
      quoteTtlSeconds: 120,
    });
    expect(config.databaseUrl).to.equal(undefined);
    expect(config.webhookRetrySeconds).to.deep.equal([5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(config.rateLimits).to.deep.equal({
      windowSeconds: 60,
      publicPerMinute: 300,
      signedPerMinute: 600,
      quotesPerMinute: 120,
      swapsPerMinute: 60,
    });
    expect(Object.isFrozen(config)).to.equal(true);
  });

  it('lists every bad variable at once', () => {
    try {
      loadConfig({ PORT: '99999', PUBLIC_ORIGIN: 'https://swap.example.com/', DATABASE_URL: 'mysql://x', WEBHOOK_RETRY_SECONDS: '5,soon' });
      expect.fail('expected a ConfigError');
    } catch (err) {
      expect(err).to.be.instanceOf(ConfigError);
      const { problems } = err as ConfigError;
      expect(problems).to.have.length(4);
      expect(problems.join('\n'))
        .to.contain('PORT')
        .and.contain('PUBLIC_ORIGIN')
        .and.contain('DATABASE_URL')
        .and.contain('WEBHOOK_RETRY_SECONDS');
    }
  });

  it('accepts fractional sandbox block times for tests', () => {
    expect(loadConfig({ SANDBOX_BLOCK_SECONDS: '0.05' }).sandboxBlockSeconds).to.equal(0.05);
  });

  it('has no metrics listener unless METRICS_PORT is set, and refuses a bad one or the API port', () => {
    expect(loadConfig({}).metricsPort).to.equal(undefined);
    expect(loadConfig({ METRICS_PORT: '9464' })).to.include({ metricsPort: 9464, metricsHost: '127.0.0.1' });
    expect(() => loadConfig({ METRICS_PORT: '0' })).to.throw(ConfigError, /METRICS_PORT="0" must be an integer from 1 to 65535/);
    expect(() => loadConfig({ METRICS_PORT: 'prom' })).to.throw(ConfigError, /METRICS_PORT/);
    expect(() => loadConfig({ PORT: '9464', METRICS_PORT: '9464' })).to.throw(ConfigError, /must differ from PORT/);
  });

  it('reads the treasury variables, with their defaults, and refuses bad ones', () => {
    expect(loadConfig({})).to.deep.include({
      fixedRateConfirmationGraceSeconds: 3600,
      liquidityPartnerSharePercent: '50',
      hotWalletMin: {},
      hotWalletMax: {},
    });
    const rules = loadConfig({ HOT_WALLET_MIN: 'LTC/LTC=1, USDT/ETH=500', HOT_WALLET_MAX: 'USDT/ETH=2000.5' });
    expect(rules.hotWalletMin).to.deep.equal({ 'LTC/LTC': '1', 'USDT/ETH': '500' });
    expect(rules.hotWalletMax).to.deep.equal({ 'USDT/ETH': '2000.5' });
    expect(() => loadConfig({ HOT_WALLET_MIN: 'USDT=500' })).to.throw(
      ConfigError,
      /HOT_WALLET_MIN="USDT=500" must list SYMBOL\/NETWORK=amount/,
    );
    expect(() => loadConfig({ HOT_WALLET_MIN: 'USDT/ETH=500', HOT_WALLET_MAX: 'USDT/ETH=500' })).to.throw(
      ConfigError,
      /HOT_WALLET_MAX of USDT\/ETH \(500\) must be above its HOT_WALLET_MIN/,
    );
    expect(() => loadConfig({ LIQUIDITY_PARTNER_SHARE_PERCENT: '0' })).to.throw(
      ConfigError,
      /LIQUIDITY_PARTNER_SHARE_PERCENT=0 must be above 0/,
    );
    expect(() => loadConfig({ LIQUIDITY_PARTNER_SHARE_PERCENT: '101' })).to.throw(ConfigError, /at most 100/);
  });

  it('reads the permanent-route limits, with their defaults, and refuses a backoff cap below the poll interval', () => {
    expect(loadConfig({})).to.include({
      routeMaxPerPartner: 20_000,
      routeIdleSeconds: 86_400,
      routePollMaxSeconds: 3_600,
      routeDustFloorFactor: '1',
    });
    expect(
      loadConfig({ ROUTE_MAX_PER_PARTNER: '3', ROUTE_IDLE_SECONDS: '0.5', ROUTE_POLL_MAX_SECONDS: '120', ROUTE_DUST_FLOOR_FACTOR: '2.5' }),
    ).to.include({ routeMaxPerPartner: 3, routeIdleSeconds: 0.5, routePollMaxSeconds: 120, routeDustFloorFactor: '2.5' });
    expect(loadConfig({ ROUTE_DUST_FLOOR_FACTOR: '0' }).routeDustFloorFactor).to.equal('0');
    expect(() => loadConfig({ ROUTE_MAX_PER_PARTNER: '0' })).to.throw(
      ConfigError,
      /ROUTE_MAX_PER_PARTNER="0" must be an integer of at least 1/,
    );
    expect(() => loadConfig({ ROUTE_DUST_FLOOR_FACTOR: '-1' })).to.throw(
      ConfigError,
      /ROUTE_DUST_FLOOR_FACTOR="-1" must be a non-negative decimal/,
    );
    expect(() => loadConfig({ ROUTE_POLL_SECONDS: '60', ROUTE_POLL_MAX_SECONDS: '30' })).to.throw(
      ConfigError,
      /ROUTE_POLL_MAX_SECONDS=30 must be at least ROUTE_POLL_SECONDS=60/,
    );
  });

  it('caps swap streams per token, IP, partner and instance, and their lifetime, by default and as configured', () => {
    expect(loadConfig({}).streamLimits).to.deep.equal({
      maxPerToken: 3,
      maxPerIp: 200,
      maxPerPartner: 1000,
      maxPerInstance: 10000,
      maxLifetimeSeconds: 3600,
    });
    const config = loadConfig({
      STREAM_MAX_PER_TOKEN: '1',
      STREAM_MAX_PER_IP: '2',
      STREAM_MAX_PER_PARTNER: '3',
      STREAM_MAX_PER_INSTANCE: '4',
      STREAM_MAX_LIFETIME_SECONDS: '0.5',
    });
    expect(config.streamLimits).to.deep.equal({
      maxPerToken: 1,
      maxPerIp: 2,
      maxPerPartner: 3,
      maxPerInstance: 4,
      maxLifetimeSeconds: 0.5,
    });
    expect(Object.isFrozen(config.streamLimits)).to.equal(true);
    expect(() => loadConfig({ STREAM_MAX_PER_TOKEN: '0' })).to.throw(
      ConfigError,
      /STREAM_MAX_PER_TOKEN="0" must be an integer of at least 1/,
    );
    expect(() => loadConfig({ STREAM_MAX_PER_INSTANCE: 'lots' })).to.throw(ConfigError, /STREAM_MAX_PER_INSTANCE/);
    expect(() => loadConfig({ STREAM_MAX_LIFETIME_SECONDS: '0' })).to.throw(
      ConfigError,
      /STREAM_MAX_LIFETIME_SECONDS="0" must be a positive number/,
    );
  });

  it('refuses a stream lifetime over a day, which would also overflow the timer and end every stream at once', () => {
    expect(loadConfig({ STREAM_MAX_LIFETIME_SECONDS: '86400' }).streamLimits.maxLifetimeSeconds).to.equal(86_400);
    expect(() => loadConfig({ STREAM_MAX_LIFETIME_SECONDS: '86400.5' })).to.throw(
      ConfigError,
      /STREAM_MAX_LIFETIME_SECONDS="86400.5" must be a positive number of seconds of at most 86400/,
    );
    // Past 2^31-1 ms Node fires a timer after 1 ms: the value that ended every stream at once.
    expect(() => loadConfig({ STREAM_MAX_LIFETIME_SECONDS: '2147484' })).to.throw(ConfigError, /STREAM_MAX_LIFETIME_SECONDS="2147484"/);
    expect(STREAM_MAX_LIFETIME_LIMIT_SECONDS).to.equal(86_400);
  });

  it('decides from the mode, once, what it allows: the sandbox a generated secrets key and any webhook target, production https only', () => {
    expect(loadConfig({})).to.include({ secretsKeyFallback: true, webhookRequireHttps: false, webhookCanAllowPrivateTargets: true });
    expect(modeCapabilities('production')).to.deep.equal({
      secretsKeyFallback: false,
      signingKeyFallback: false,
      webhookRequireHttps: true,
      webhookCanAllowPrivateTargets: false,
    });
  });

  it('refuses production mode without secrets and networks', () => {
    expect(() => loadConfig({ SERVICE_MODE: 'production' })).to.throw(ConfigError, /SECRETS_KEY is required/);
    expect(() => loadConfig({ SERVICE_MODE: 'production' })).to.throw(ConfigError, /NETWORKS is required when SERVICE_MODE=production/);
  });

  describe('production networks', () => {
    // SIGNING_KEY_FILE is set in `before`, once its file exists.
    const base: Record<string, string> = {
      SERVICE_MODE: 'production',
      SECRETS_KEY: 'a'.repeat(64),
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x',
      PUBLIC_ORIGIN: 'https://swap.example.com',
    };
    // A hot wallet key file (anvil's published first development key), read and checked at start.
    let keysDir: string;
    let hotKey: string;
    before(async () => {
      keysDir = await mkdtemp(path.join(os.tmpdir(), 'pss-hot-'));
      hotKey = path.join(keysDir, 'eth-hot');
      await writeFile(hotKey, 'ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80\n', { mode: 0o600 });
      base.SIGNING_KEY_FILE = path.join(keysDir, 'signing-key.pem');
      await writeFile(base.SIGNING_KEY_FILE, generateSigningKeyPem(), { mode: 0o600 });
    });
    after(() => rm(keysDir, { recursive: true, force: true }));
    const problemsOf = (env: Record<string, string>): string[] => {
      try {
        loadConfig({ ...base, ...env });
        return [];
      } catch (err) {
        return (err as ConfigError).problems;
      }
    };

    it('names every missing variable of each network NETWORKS lists, one line each', () => {
      const problems = problemsOf({ NETWORKS: 'LTC,ETH' });
      for (const name of ['LTC_RPC_URL', 'LTC_SIGNER_RPC_URL', 'LTC_XPUB', 'ETH_RPC_URL', 'ETH_XPUB', 'ETH_HOT_WALLET_KEY_FILE']) {
        expect(
          problems.some((p) => p.startsWith(`${name} is required`)),
          name,
        ).to.equal(true);
      }
    });

    it('refuses a network without a production adapter, DOGE among them (Dogecoin Core lacks the calls the adapter uses)', () => {
      expect(problemsOf({ NETWORKS: 'SOL' }).join('\n')).to.match(/NETWORKS names SOL, which has no production adapter/);
      expect(problemsOf({ NETWORKS: 'DOGE' }).join('\n')).to.match(
        /NETWORKS names DOGE, which has no production adapter; the ones there are: BTC, LTC, ETH, BSC, ZANO, XMR \(DOGE is served by the sandbox only: Dogecoin Core lacks the PSBT/,
      );
    });

    it('reads ZANO: both wallet RPC URLs required, an optional fUSD asset id, and serves ZANO and fUSD', () => {
      const missing = problemsOf({ NETWORKS: 'ZANO' }).join('\n');
      expect(missing).to.match(/ZANO_RPC_URL is required: the RPC URL of the ZANO watch-only wallet/);
      expect(missing).to.match(/ZANO_SIGNER_RPC_URL is required/);
      expect(
        problemsOf({
          NETWORKS: 'ZANO',
          ZANO_RPC_URL: 'http://127.0.0.1:1/json_rpc',
          ZANO_SIGNER_RPC_URL: 'http://127.0.0.1:2/json_rpc',
          ZANO_FUSD_ASSET_ID: 'fUSD',
        }).join('\n'),
      ).to.match(/ZANO_FUSD_ASSET_ID="fUSD" must be an asset id: 64 lowercase hex digits/);
      const config = loadConfig({
        ...base,
        NETWORKS: 'ZANO',
        ZANO_RPC_URL: 'http://127.0.0.1:11212/json_rpc',
        ZANO_SIGNER_RPC_URL: 'http://127.0.0.1:11213/json_rpc',
        ZANO_CONFIRMATIONS: '12',
      });
      expect(config.production!.networks[0]).to.deep.include({
        family: 'zano',
        network: 'ZANO',
        fusdAssetId: undefined,
        confirmations: 12,
      });
      const served = servedCatalog(loadSandboxCatalog(), config.production!);
      expect(served.assets.map((a) => `${a.symbol}/${a.network}`)).to.have.members(['ZANO/ZANO', 'fUSD/ZANO']);
    });

    it('reads XMR: the view-only and signer wallet RPC URLs required, XMR_CONFIRMATIONS checked, and serves XMR alone', () => {
      const missing = problemsOf({ NETWORKS: 'XMR' }).join('\n');
      expect(missing).to.match(/XMR_RPC_URL is required: the RPC URL of the XMR view-only wallet \(monero-wallet-rpc\)/);
      expect(missing).to.match(/XMR_SIGNER_RPC_URL is required: the RPC URL of the XMR signer wallet/);
      const wallets = {
        NETWORKS: 'XMR',
        XMR_RPC_URL: 'http://127.0.0.1:18088/json_rpc',
        XMR_SIGNER_RPC_URL: 'http://127.0.0.1:18089/json_rpc',
      };
      expect(problemsOf({ ...wallets, XMR_CONFIRMATIONS: 'ten' }).join('\n')).to.match(
        /XMR_CONFIRMATIONS="ten" must be a whole number of confirmations of at least 1/,
      );
      expect(problemsOf({ ...wallets, XMR_PAYOUT_BATCH_SECONDS: '60' }).join('\n')).to.match(
        /XMR_PAYOUT_BATCH_SECONDS is for Bitcoin-family networks \(LTC, BTC\): XMR \(monero\) sends each payout in a transaction of its own/,
      );
      const config = loadConfig({ ...base, ...wallets, XMR_CONFIRMATIONS: '12' });
      expect(config.production!.networks[0]).to.deep.include({
        family: 'monero',
        network: 'XMR',
        rpcUrl: 'http://127.0.0.1:18088/json_rpc',
        signerRpcUrl: 'http://127.0.0.1:18089/json_rpc',
        confirmations: 12,
      });
      const served = servedCatalog(loadSandboxCatalog(), config.production!);
      expect(served.assets.map((a) => `${a.symbol}/${a.network}`)).to.deep.equal(['XMR/XMR']);
      expect(served.networks.XMR).to.include({ confirmations: 12, blockSeconds: 120 });
    });

    it('reads a configured network, its tokens and overrides, and the price sources', () => {
      const config = loadConfig({
        ...base,
        NETWORKS: 'ltc, eth',
        LTC_RPC_URL: 'http://u:p@127.0.0.1:19443/wallet/watch',
        LTC_SIGNER_RPC_URL: 'http://u:p@127.0.0.1:19443/wallet/signer',
        LTC_XPUB: 'tpubX',
        LTC_CHAIN: 'regtest',
        LTC_CONFIRMATIONS: '2',
        LTC_SCAN_SECONDS: '1',
        ETH_RPC_URL: 'http://127.0.0.1:8545',
        ETH_XPUB: 'xpubY',
        ETH_HOT_WALLET_KEY_FILE: hotKey,
        ETH_TOKENS: 'USDT:0x5FbDB2315678afecb367f032d93F642f64180aa3',
        RATES_SOURCES: 'kraken,coinbase',
      });
      expect(config.production!.networks.map((n) => [n.network, n.family, n.confirmations, n.scanSeconds])).to.deep.equal([
        ['LTC', 'bitcoin', 2, 1],
        ['ETH', 'ethereum', undefined, undefined],
      ]);
      expect(config.production!.networks[1]).to.include({ hotWalletKeyFile: hotKey });
      expect((config.production!.networks[1] as { tokens: Record<string, { address: string }> }).tokens).to.deep.equal({
        USDT: { address: '0x5FbDB2315678afecb367f032d93F642f64180aa3' },
      });
      expect(config.production!.rates.sources).to.deep.equal(['kraken', 'coinbase']);
    });

    it('refuses a market spread that is not below the smallest percentage fee of the catalogue, and takes the default 0.4%', () => {
      const ltc = {
        NETWORKS: 'LTC',
        LTC_RPC_URL: 'http://u:p@127.0.0.1:19443/wallet/watch',
        LTC_SIGNER_RPC_URL: 'http://u:p@127.0.0.1:19443/wallet/signer',
        LTC_XPUB: 'tpubX',
      };
      // The sandbox catalogue's smallest: 0.5% on floating swaps (fixed 1%, routes 1% before the markup).
      for (const spread of ['0.5', '1']) {
        expect(problemsOf({ ...ltc, RATES_MAX_SPREAD_PERCENT: spread })).to.deep.equal([
          `RATES_MAX_SPREAD_PERCENT=${spread} must be below the smallest percentage fee the catalogue charges (fees.floatingPercent = 0.5): two sources that agree within the spread could differ by a whole fee`,
        ]);
      }
      expect(loadConfig({ ...base, ...ltc, RATES_MAX_SPREAD_PERCENT: '0.49' }).production!.rates.maxSpreadPercent).to.equal('0.49');
      expect(loadConfig({ ...base, ...ltc }).production!.rates.maxSpreadPercent).to.equal('0.4');
      // The sandbox does not price from markets: the variable is not checked there.
      expect(() => loadConfig({ RATES_MAX_SPREAD_PERCENT: '1' })).not.to.throw();
    });

    it('refuses malformed tokens, chains and counts', () => {
      const problems = problemsOf({
        NETWORKS: 'LTC,ETH',
        LTC_CHAIN: 'mainnet',
        LTC_CONFIRMATIONS: '0',
        ETH_SCAN_SECONDS: 'often',
        ETH_TOKENS: 'USDT:0x123',
      }).join('\n');
      expect(problems).to.match(/LTC_CHAIN="mainnet" must be one of main, test, regtest/);
      expect(problems).to.match(/LTC_CONFIRMATIONS="0" must be a whole number of confirmations/);
      expect(problems).to.match(/ETH_SCAN_SECONDS="often" must be a whole number of seconds/);
      expect(problems).to.match(/ETH_TOKENS: token entry "USDT:0x123" is not SYMBOL:0x<40 hex digits>/);
    });

    it('reads the fee bumping settings with their defaults, and refuses malformed ones (docs/architecture.md#money-that-ends-well)', () => {
      const networks = {
        NETWORKS: 'LTC,ETH',
        LTC_RPC_URL: 'http://u:p@127.0.0.1:19443/wallet/watch',
        LTC_SIGNER_RPC_URL: 'http://u:p@127.0.0.1:19443/wallet/signer',
        LTC_XPUB: 'tpubX',
        LTC_CHAIN: 'regtest',
        ETH_RPC_URL: 'http://127.0.0.1:8545',
        ETH_XPUB: 'xpubY',
        ETH_HOT_WALLET_KEY_FILE: hotKey,
      };
      const defaults = loadConfig({ ...base, ...networks }).production!.networks;
      expect(defaults[0]).to.include({ replaceAfterSeconds: 600, maxFeeRate: '0.01' });
      expect(defaults[1]).to.include({ replaceAfterSeconds: 180, maxFeeGwei: '500', testNativeGas: undefined });
      const set = loadConfig({
        ...base,
        ...networks,
        LTC_REPLACE_AFTER_SECONDS: '300',
        LTC_MAX_FEE_RATE: '0.002',
        ETH_REPLACE_AFTER_SECONDS: '60',
        ETH_MAX_FEE_GWEI: '150.5',
      }).production!.networks;
      expect(set[0]).to.include({ replaceAfterSeconds: 300, maxFeeRate: '0.002' });
      expect(set[1]).to.include({ replaceAfterSeconds: 60, maxFeeGwei: '150.5' });
      const problems = problemsOf({
        ...networks,
        LTC_REPLACE_AFTER_SECONDS: '0',
        LTC_MAX_FEE_RATE: '0',
        ETH_MAX_FEE_GWEI: 'lots',
        PSS_TEST_EVM_NATIVE_GAS: '21k',
      }).join('\n');
      expect(problems).to.match(/LTC_REPLACE_AFTER_SECONDS="0" must be a whole number of seconds of at least 1/);
      expect(problems).to.match(/LTC_MAX_FEE_RATE="0" must be a fee rate in coin per kvB above 0/);
      expect(problems).to.match(/ETH_MAX_FEE_GWEI="lots" must be a fee in gwei per gas above 0/);
      expect(problems).to.match(/PSS_TEST_EVM_NATIVE_GAS="21k" must be a gas limit/);
    });

    it('refuses a hot wallet key file that cannot be read or holds no private key, and never shows its content', async () => {
      const malformed = path.join(keysDir, 'not-a-key');
      await writeFile(malformed, 'xprv-looking-secret-text', { mode: 0o600 });
      const eth = (file: string) => ({
        NETWORKS: 'ETH',
        ETH_RPC_URL: 'http://127.0.0.1:8545',
        ETH_XPUB: 'x',
        ETH_HOT_WALLET_KEY_FILE: file,
      });
      expect(problemsOf(eth(path.join(keysDir, 'missing'))).join('\n')).to.contain(
        `ETH_HOT_WALLET_KEY_FILE (${path.join(keysDir, 'missing')}): cannot be read (ENOENT)`,
      );
      const problems = problemsOf(eth(malformed)).join('\n');
      expect(problems).to.contain(`ETH_HOT_WALLET_KEY_FILE (${malformed}): must hold a private key: 64 hex digits`);
      expect(problems).not.to.contain('xprv-looking-secret-text');
    });

    describe('<NET>_DEPOSIT_KEY_FILE', () => {
      // A test seed's account m/44'/60'/0': its xprv, and the xpub deposit addresses derive from.
      const account = HDKey.fromMasterSeed(Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex')).derive("m/44'/60'/0'");
      const other = HDKey.fromMasterSeed(Buffer.from('0f0e0d0c0b0a09080706050403020100', 'hex')).derive("m/44'/60'/0'");
      let dir: string;
      const eth = (env: Record<string, string>) => ({
        NETWORKS: 'ETH',
        ETH_RPC_URL: 'http://127.0.0.1:8545',
        ETH_XPUB: account.publicExtendedKey,
        ETH_HOT_WALLET_KEY_FILE: hotKey,
        ...env,
      });
      const keyFile = async (name: string, content: string) => {
        const file = path.join(dir, name);
        await writeFile(file, content, { mode: 0o600 });
        return file;
      };

      before(async () => {
        dir = await mkdtemp(path.join(os.tmpdir(), 'pss-config-'));
      });
      after(() => rm(dir, { recursive: true, force: true }));

      it('is optional: without it the network has no deposit key file (sweeping is off)', () => {
        const config = loadConfig({ ...base, ...eth({}) });
        expect(config.production!.networks[0]).to.include({ depositKeyFile: undefined });
      });

      it("reads the file's path when it holds the xprv of the account ETH_XPUB is the public key of", async () => {
        const file = await keyFile('good.key', `${account.privateExtendedKey}\n`);
        const config = loadConfig({ ...base, ...eth({ ETH_DEPOSIT_KEY_FILE: file }) });
        expect(config.production!.networks[0]).to.include({ depositKeyFile: file });
        // The key itself is kept nowhere in the configuration.
        expect(JSON.stringify(config)).not.to.contain(account.privateExtendedKey);
      });

      it("refuses another account's xprv, saying it does not match ETH_XPUB, and never shows the key", async () => {
        const file = await keyFile('other.key', other.privateExtendedKey);
        const problems = problemsOf(eth({ ETH_DEPOSIT_KEY_FILE: file }));
        expect(problems).to.have.length(1);
        expect(problems[0]).to.contain(`ETH_DEPOSIT_KEY_FILE (${file}): holds an extended private key that does not match ETH_XPUB`);
        expect(problems[0]).not.to.contain(other.privateExtendedKey);
      });

      it('refuses an xpub in place of the xprv, a file that is not a key, and a file that cannot be read', async () => {
        const xpub = await keyFile('xpub.key', account.publicExtendedKey);
        expect(problemsOf(eth({ ETH_DEPOSIT_KEY_FILE: xpub })).join('\n')).to.match(
          /ETH_DEPOSIT_KEY_FILE \(.*xpub\.key\): must hold the deposit account's extended private key .*not the extended private key/,
        );
        const garbage = await keyFile('garbage.key', 'not a key');
        expect(problemsOf(eth({ ETH_DEPOSIT_KEY_FILE: garbage })).join('\n')).to.match(
          /ETH_DEPOSIT_KEY_FILE \(.*garbage\.key\): must hold the deposit account's extended private key/,
        );
        const missing = path.join(dir, 'missing.key');
        expect(problemsOf(eth({ ETH_DEPOSIT_KEY_FILE: missing }))).to.deep.equal([
          `ETH_DEPOSIT_KEY_FILE (${missing}): cannot be read (ENOENT)`,
        ]);
      });
    });

    it('serves only the configured networks, their coin and configured tokens', () => {
      const catalog = loadSandboxCatalog();
      const config = loadConfig({
        ...base,
        NETWORKS: 'LTC,ETH',
        LTC_RPC_URL: 'http://127.0.0.1:1/wallet/w',
        LTC_SIGNER_RPC_URL: 'http://127.0.0.1:1/wallet/s',
        LTC_XPUB: 'x',
        LTC_CONFIRMATIONS: '3',
        ETH_RPC_URL: 'http://127.0.0.1:2',
        ETH_XPUB: 'x',
        ETH_HOT_WALLET_KEY_FILE: hotKey,
        ETH_TOKENS: 'USDT:0x5FbDB2315678afecb367f032d93F642f64180aa3',
      });
      const served = servedCatalog(catalog, config.production!);
      expect(Object.keys(served.networks)).to.deep.equal(['LTC', 'ETH']);
      expect(served.networks.LTC.confirmations).to.equal(3);
      expect(served.assets.map((a) => `${a.symbol}/${a.network}`)).to.have.members(['LTC/LTC', 'ETH/ETH', 'USDT/ETH']);
    });
  });

  describe('webhook targets and concurrency', () => {
    it('keeps webhooks to public addresses, 4 requests per partner and 128 in all by default', () => {
      expect(loadConfig({})).to.include({ webhookAllowPrivateTargets: false, webhookMaxConcurrentPerPartner: 4, webhookMaxInFlight: 128 });
    });

    it('accepts WEBHOOK_ALLOW_PRIVATE_TARGETS=true in sandbox mode', () => {
      expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }).webhookAllowPrivateTargets).to.equal(true);
    });

    it('refuses to start in production mode with WEBHOOK_ALLOW_PRIVATE_TARGETS=true', () => {
      expect(() => loadConfig({ SERVICE_MODE: 'production', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })).to.throw(
        ConfigError,
        /WEBHOOK_ALLOW_PRIVATE_TARGETS=true is for local development in sandbox mode/,
      );
      expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'sometimes' })).to.throw(ConfigError, /must be true or false/);
    });

    it('refuses a per-partner limit below 1, and a total below the per-partner limit', () => {
      expect(() => loadConfig({ WEBHOOK_MAX_CONCURRENT_PER_PARTNER: '0' })).to.throw(ConfigError, /WEBHOOK_MAX_CONCURRENT_PER_PARTNER="0"/);
      expect(() => loadConfig({ WEBHOOK_MAX_CONCURRENT_PER_PARTNER: '8', WEBHOOK_MAX_IN_FLIGHT: '4' })).to.throw(
        ConfigError,
        /WEBHOOK_MAX_IN_FLIGHT=4 must be at least WEBHOOK_MAX_CONCURRENT_PER_PARTNER=8/,
      );
    });
  });
});

describe('loadConfig behind a proxy and on another port', () => {
  it('defaults PUBLIC_ORIGIN to the address the server listens on, so PORT=9090 signs for port 9090', () => {
    expect(loadConfig({ PORT: '9090' }).publicOrigin).to.equal('http://localhost:9090');
    expect(loadConfig({ PORT: '9090', HOST: '0.0.0.0' }).publicOrigin).to.equal('http://localhost:9090');
    expect(loadConfig({ PORT: '9090', HOST: '::1' }).publicOrigin).to.equal('http://localhost:9090');
    expect(loadConfig({ PORT: '9090', HOST: 'swap.internal' }).publicOrigin).to.equal('http://swap.internal:9090');
    expect(loadConfig({ PORT: '9090', HOST: 'fd00::5' }).publicOrigin).to.equal('http://[fd00::5]:9090');
    expect(loadConfig({ PORT: '80', HOST: '10.1.2.3' }).publicOrigin).to.equal('http://10.1.2.3');
    expect(loadConfig({ PORT: '9090', PUBLIC_ORIGIN: 'https://swap.example.com' }).publicOrigin).to.equal('https://swap.example.com');
  });

  it('leaves TRUST_PROXY off unless it is set', () => {
    expect(loadConfig({}).trustProxy).to.equal(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).to.equal(false);
    expect(loadConfig({ TRUST_PROXY: '0' }).trustProxy).to.equal(false);
  });

  it('reads TRUST_PROXY as a hop count or as a list of proxy addresses and CIDR ranges', () => {
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).to.equal(1);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).to.equal(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8,127.0.0.1' }).trustProxy).to.deep.equal(['10.0.0.0/8', '127.0.0.1']);
    expect(loadConfig({ TRUST_PROXY: 'loopback, fd00::/8' }).trustProxy).to.deep.equal(['loopback', 'fd00::/8']);
  });

  it('refuses TRUST_PROXY=true, which would believe any client, and entries that are not addresses or ranges', () => {
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).to.throw(ConfigError, /true would believe any X-Forwarded-For/);
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/33' })).to.throw(ConfigError, /not an address or range: 10\.0\.0\.0\/33/);
    expect(() => loadConfig({ TRUST_PROXY: '127.0.0.1,proxy.local' })).to.throw(ConfigError, /not an address or range: proxy\.local/);
  });
});

describe('loadConfig CORS_ORIGINS', () => {
  it('allows no browser origin unless it is set', () => {
    expect(loadConfig({}).corsOrigins).to.deep.equal([]);
  });

  it('reads a comma-separated list of origins', () => {
    expect(loadConfig({ CORS_ORIGINS: 'https://app.example.com, http://localhost:5173' }).corsOrigins).to.deep.equal([
      'https://app.example.com',
      'http://localhost:5173',
    ]);
  });

  it('reads * alone as any origin in sandbox mode', () => {
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).to.equal('*');
  });

  it('refuses entries that are not origins as a browser sends them, naming them', () => {
    expect(() => loadConfig({ CORS_ORIGINS: 'https://app.example.com/, app.example.com, *' })).to.throw(
      ConfigError,
      /CORS_ORIGINS=.* must be a comma-separated list of origins .*; not an origin: https:\/\/app\.example\.com\/, app\.example\.com, \*/,
    );
  });

  it('refuses to start in production mode with CORS_ORIGINS=*, saying what to list instead', () => {
    const production = {
      SERVICE_MODE: 'production',
      SECRETS_KEY: 'a'.repeat(64),
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x',
      PUBLIC_ORIGIN: 'https://swap.example.com',
    };
    let problems: string[] = [];
    try {
      loadConfig({ ...production, CORS_ORIGINS: '*' });
    } catch (err) {
      problems = (err as ConfigError).problems;
    }
    expect(problems.filter((p) => p.startsWith('CORS_ORIGINS'))).to.deep.equal([
      'CORS_ORIGINS=* lets every website read swaps with an access token it obtains; it is for a sandbox only. In production list the origins of your frontends, e.g. CORS_ORIGINS=https://app.example.com',
    ]);
    problems = [];
    try {
      loadConfig({ ...production, CORS_ORIGINS: 'https://app.example.com' });
    } catch (err) {
      problems = (err as ConfigError).problems;
    }
    expect(problems.filter((p) => p.startsWith('CORS_ORIGINS'))).to.deep.equal([]);
  });
});

describe('loadConfig SIGNING_KEY_FILE and SIGNING_PREVIOUS_KEYS_FILE', () => {
  const production = {
    SERVICE_MODE: 'production',
    SECRETS_KEY: 'a'.repeat(64),
    DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x',
    PUBLIC_ORIGIN: 'https://swap.example.com',
  };
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pss-signing-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));
  const signingProblems = (env: Record<string, string>): string[] => {
    try {
      loadConfig(env);
      return [];
    } catch (err) {
      return (err as ConfigError).problems.filter((p) => p.startsWith('SIGNING_'));
    }
  };
  const file = async (name: string, text: string, mode = 0o600) => {
    const at = path.join(dir, name);
    await writeFile(at, text, { mode });
    return at;
  };

  it('requires SIGNING_KEY_FILE in production, saying how to make one', () => {
    expect(signingProblems(production)).to.deep.equal([
      'SIGNING_KEY_FILE is required when SERVICE_MODE=production: the PKCS#8 PEM private key that signs deposit instructions, e.g. from: openssl genpkey -algorithm ed25519 -out signing-key.pem (chmod 600; docs/signing.md#signed-deposit-instructions)',
    ]);
    expect(signingProblems({})).to.deep.equal([]);
    expect(loadConfig({})).to.include({ signingKeyFallback: true, signingKeyFile: undefined });
  });

  it('takes an Ed25519 or P-256 key file private to this user', async () => {
    const ed25519 = await file('ed25519.pem', generateSigningKeyPem());
    const p256 = await file(
      'p256.pem',
      generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string,
    );
    expect(signingProblems({ ...production, SIGNING_KEY_FILE: ed25519 })).to.deep.equal([]);
    expect(signingProblems({ ...production, SIGNING_KEY_FILE: p256 })).to.deep.equal([]);
    expect(loadConfig({ SIGNING_KEY_FILE: ed25519 }).signingKeyFile).to.equal(ed25519);
  });

  it('refuses a key file that is missing, readable by others, not a PEM private key, or of another algorithm, never printing the key', async () => {
    const missing = path.join(dir, 'missing.pem');
    expect(signingProblems({ ...production, SIGNING_KEY_FILE: missing })).to.deep.equal([
      `SIGNING_KEY_FILE (${missing}): cannot be read (ENOENT)`,
    ]);
    const pem = generateSigningKeyPem();
    const open = await file('open.pem', pem, 0o644);
    const [openProblem] = signingProblems({ ...production, SIGNING_KEY_FILE: open });
    expect(openProblem).to.equal(
      `SIGNING_KEY_FILE (${open}): is accessible to other users (mode 0644): anyone who can read it can sign deposit addresses as the service. Run: chmod 600 ${open}, and start again`,
    );
    const hex = await file('hex.key', 'ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80\n');
    expect(signingProblems({ ...production, SIGNING_KEY_FILE: hex })[0]).to.match(
      /^SIGNING_KEY_FILE \(.*hex\.key\): must hold a PKCS#8 PEM private key \(-----BEGIN PRIVATE KEY-----\), e\.g\. from: openssl genpkey -algorithm ed25519/,
    );
    const rsa = await file(
      'rsa.pem',
      generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string,
    );
    expect(signingProblems({ ...production, SIGNING_KEY_FILE: rsa })[0]).to.match(
      /^SIGNING_KEY_FILE \(.*rsa\.pem\): holds a key of type rsa; a signing key is Ed25519 \(openssl genpkey -algorithm ed25519\) or P-256/,
    );
    const broken = await file('broken.pem', '-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n');
    expect(signingProblems({ ...production, SIGNING_KEY_FILE: broken })[0]).to.match(/holds a PEM private key that does not parse/);
    for (const problem of signingProblems({ ...production, SIGNING_KEY_FILE: open })) expect(problem).not.to.contain(pem.split('\n')[1]);
  });

  it('takes earlier public keys in SIGNING_PREVIOUS_KEYS_FILE, and refuses a private key or no key there', async () => {
    const publicOf = (pem: string) => createPublicKey(pem).export({ format: 'pem', type: 'spki' }) as string;
    const previous = await file('previous.pem', publicOf(generateSigningKeyPem()) + publicOf(generateSigningKeyPem()));
    expect(signingProblems({ SIGNING_PREVIOUS_KEYS_FILE: previous })).to.deep.equal([]);
    const privateOne = await file('previous-private.pem', generateSigningKeyPem());
    expect(signingProblems({ SIGNING_PREVIOUS_KEYS_FILE: privateOne })).to.deep.equal([
      `SIGNING_PREVIOUS_KEYS_FILE (${privateOne}): holds a private key; list only the public keys of earlier signing keys (openssl pkey -in old-key.pem -pubout >> previous-keys.pem)`,
    ]);
    const empty = await file('previous-empty.pem', 'nothing here\n');
    expect(signingProblems({ SIGNING_PREVIOUS_KEYS_FILE: empty })).to.deep.equal([
      `SIGNING_PREVIOUS_KEYS_FILE (${empty}): must hold one or more PEM public keys (-----BEGIN PUBLIC KEY-----)`,
    ]);
  });
});
