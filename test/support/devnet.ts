/**
 * A local production network (docs/architecture.md#production): two Litecoin Core regtest nodes, the service's (its watch-only
 * wallet, and a customer's wallet) and a signer's (the wallet that holds the key and only signs), anvil with an ERC-20 USDT, local servers that speak Kraken's, Binance's and
 * Coinbase's ticker formats, a PostgreSQL database of its own, and the server started in production mode on
 * all of it. `make devnet` keeps one running; `make devnet-demo` and the production tests start their own.
 *
 * The hot wallets are funded: the LTC watch-only wallet holds 10 LTC in five coins on its change address (1/0),
 * so a payout in flight (its change unconfirmed, which a watch-only wallet does not count as trusted) never
 * leaves the wallet with nothing spendable, and the ETH
 * hot wallet (anvil's first development key) holds 10,000 ETH and the whole USDT supply. Every key here is a
 * published test key: nothing here is for real money.
 */
import { HDKey } from '@scure/bip32';
import { Decimal } from 'decimal.js';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createWalletClient, erc20Abi, formatUnits, http, parseUnits, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { createWatchImporter } from '../../server/adapters/bitcoin/addresses.js';
import { parseAccountKey } from '../../server/adapters/bitcoin/keys.js';
import { parseBitcoinParams } from '../../server/adapters/bitcoin/params.js';
import { createRpcClient } from '../../server/adapters/bitcoin/rpc.js';
import { ANVIL_KEY_0, anvilUnavailable, startAnvil, type Anvil } from './anvil.js';
import { deployToken } from './erc20.js';
import {
  connectNodes,
  createWallets,
  litecoindMissing,
  startLitecoind,
  testAccount,
  type LitecoinNode,
  type TestWallets,
} from './litecoind.js';
import { startFakeProvider, type FakeProvider } from './market-data.js';
import { createScratchDatabase, postgresMissing, type ScratchDatabase } from './postgres.js';
import { freePort, spawnGroup, waitForHttp, type Child } from './process.js';
import { generateSigningKeyPem } from '../../server/signing-keys.js';
import { startMoneroNet, type MoneroNet } from './monerod.js';
import { FUSD_ASSET_ID, SPENDABLE_AGE, startZanoWallet, ZANO_ASSET_ID, type ZanoWallet } from './zano-wallet.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The server's PUBLIC_ORIGIN on a devnet: the audience partners sign for. */
export const DEVNET_ORIGIN = 'https://devnet.swap.test';
/** The seed of the ETH deposit account (m/44'/60'/0'): a test seed, never a real one. */
const ETH_DEPOSIT_SEED = '0f0e0d0c0b0a09080706050403020100';
/** What the LTC hot wallet is funded with, in LTC_HOT_WALLET_COINS equal coins. */
export const LTC_HOT_WALLET_FUNDS = '10';
const LTC_HOT_WALLET_COINS = 5;
/** What the Zano hot wallet holds, in atomic units: 10,000 fUSD (4 decimals) and 100 ZANO (12). */
const ZANO_HOT_WALLET_FUSD = 100_000_000n;
const ZANO_HOT_WALLET_ZANO = 100_000_000_000_000n;
/** The USDT supply, all of it in the ETH hot wallet. */
export const USDT_SUPPLY = '1000000';

/** Prices the fake providers quote, by their market names (pairs.ts). */
const MARKET_PRICES: Record<'kraken' | 'binance' | 'coinbase' | 'bitfinex', Record<string, string>> = {
  kraken: { XLTCZUSD: '80.10', XETHZUSD: '3000.00', USDTZUSD: '1.0000', USDCUSD: '1.0000', XXMRZUSD: '160.00' },
  binance: { LTCUSDT: '80.00', ETHUSDT: '3001.00', USDCUSDT: '0.9999' },
  coinbase: { 'LTC-USD': '80.05', 'ETH-USD': '3000.50', 'USDT-USD': '1.0001', 'USDC-USD': '1.0000' },
  // Kraken and Bitfinex are XMR's two sources (Binance and Coinbase do not list it).
  bitfinex: { tXMRUSD: '160.20' },
};

/** Why a devnet cannot start here (a missing node or PostgreSQL), or null when it can. */
export async function devnetUnavailable(adminUrl: string): Promise<string | null> {
  return litecoindMissing ?? anvilUnavailable() ?? (await postgresMissing(adminUrl));
}

/** Options of startDevnet. */
export interface DevnetOptions {
  /** PostgreSQL to make the devnet's database on (default DATABASE_URL, else the local server). */
  adminUrl?: string;
  /** Deposit confirmations on LTC (default 2), ETH (default 1), ZANO (default 10, the catalogue's) and XMR (default 10). */
  confirmations?: { LTC?: number; ETH?: number; ZANO?: number; XMR?: number };
  /** Seconds between blocks mined by themselves: none (the default) mines only when asked. */
  blockSeconds?: { LTC?: number; ETH?: number; ZANO?: number; XMR?: number };
  /**
   * Serves XMR too, on real Monero (test/support/monerod.ts): `monerod --regtest --offline`, the service's
   * view-only wallet (XMR_RPC_URL) and offline signer (XMR_SIGNER_RPC_URL), and a customer's wallet; the hot
   * wallet holds `hotBlocks` unlocked coinbases (default 5).
   */
  monero?: boolean | { hotBlocks?: number };
  /**
   * Serves ZANO too: two stand-ins of the Zano wallet RPC (test/support/zano-wallet.ts: no Zano software
   * installs here), the watch-only hot wallet holding 10,000 fUSD and 100 ZANO, unlocked, and its signer;
   * fUSD is priced at its 1 USD peg (RATES_PEGGED). Permanent routes are then served.
   */
  zano?: boolean;
  /** Writes the ETH deposit account's xprv to a file and sets ETH_DEPOSIT_KEY_FILE: the server sweeps ETH deposits. */
  sweepEth?: boolean;
  /** Deploys a USDC ERC-20 too (1,000,000, all in the hot wallet) and serves it (ETH_TOKENS). */
  usdc?: boolean;
  /**
   * The service's Litecoin node (the one that mines) starts with these arguments too, and its wallets (the
   * customer's) pay this fee rate (coin per kvB): e.g. `-blockmintxfee` to leave low-fee payouts unmined.
   */
  ltcNode?: { args?: string[]; fallbackFee?: string };
}

/** A running devnet, without the server (startServer starts one or more). */
export interface Devnet {
  /** The service's node: the watch-only wallet, and the customer's. */
  litecoin: LitecoinNode;
  /** The signer's node: only the signer wallet. */
  signerNode: LitecoinNode;
  wallets: TestWallets;
  anvil: Anvil;
  /** The USDT contract on anvil. */
  usdt: Hex;
  /** The USDC contract on anvil, with the `usdc` option. */
  usdc?: Hex;
  /** The ETH hot wallet's address. */
  hotWallet: Hex;
  /** The file holding the ETH deposit account's xprv (ETH_DEPOSIT_KEY_FILE), with `sweepEth`. */
  ethDepositKeyFile?: string;
  /** With `zano`: the watch-only hot wallet's and the signer's wallet RPC stand-ins. */
  zano?: { hot: ZanoWallet; signer: ZanoWallet };
  /** With `monero`: the regtest daemon and its wallets. */
  monero?: MoneroNet;
  market: Record<'kraken' | 'binance' | 'coinbase' | 'bitfinex', FakeProvider>;
  database: ScratchDatabase;
  /** The server's environment (production mode on this devnet), listening on `port`. */
  env(port: number): Record<string, string>;
  /** The customer pays `amount` LTC to `address` (not mined yet); returns the txid. */
  payLtc(address: string, amount: string): Promise<string>;
  /** Mines `blocks` LTC blocks. */
  mineLtc(blocks?: number): Promise<string[]>;
  /** The USDT balance of `address`, as a decimal string. */
  usdtBalance(address: string): Promise<string>;
  /** Sends `amount` USDT from the account of private key `from` to `to`; resolves once it is mined. */
  moveUsdt(from: Hex, to: string, amount: string): Promise<Hex>;
  /** Sends `amount` of the 6-decimal token at `token` (USDT, USDC) from the account of key `from` to `to`; resolves once mined. */
  moveToken(token: Hex, from: Hex, to: string, amount: string): Promise<Hex>;
  /** The balance of `address` in the 6-decimal token at `token`, as a decimal string. */
  tokenBalance(token: Hex, address: string): Promise<string>;
  /** A customer pays USDT: sends ETH for gas and `amount` USDT from the hot wallet to `from`'s account first, then from it. */
  payUsdt(from: Hex, to: string, amount: string): Promise<Hex>;
  stop(): Promise<void>;
}

/** Starts the nodes, funds the hot wallets, starts the market servers and makes the database. */
export async function startDevnet(options: DevnetOptions = {}): Promise<Devnet> {
  const adminUrl = options.adminUrl ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const stops: Array<() => Promise<unknown>> = [];
  const stop = async () => {
    for (const step of stops.reverse()) await step().catch(() => undefined);
  };
  try {
    // Two nodes, as production keeps them: the service's node with the watch-only wallet (and here the
    // customer's), and a signer node that holds the key and only signs. They are peers on regtest.
    const [litecoin, signerNode] = await Promise.all([startLitecoind(options.ltcNode), startLitecoind()]);
    stops.push(
      () => litecoin.stop(),
      () => signerNode.stop(),
    );
    await connectNodes(litecoin, signerNode);
    const account = testAccount();
    const wallets = await createWallets(litecoin, account, { signerNode });
    await litecoin.mine(101, wallets.customerAddress);
    // The watch-only wallet's change address holds the LTC hot wallet's funds: it is imported (as the
    // adapter imports it) before it is paid, so the wallet sees the payment without a rescan.
    const change = parseAccountKey(account.tpub, parseBitcoinParams('LTC', 'regtest')).derive(1, 0);
    await createWatchImporter(createRpcClient({ url: litecoin.url(wallets.watch) }))(change, { internal: true });
    const coin = new Decimal(LTC_HOT_WALLET_FUNDS).dividedBy(LTC_HOT_WALLET_COINS).toFixed();
    for (let n = 0; n < LTC_HOT_WALLET_COINS; n++) await litecoin.call('sendtoaddress', [change.address, coin], wallets.customer);
    await litecoin.mine(1, wallets.customerAddress);

    const anvil = await startAnvil({ blockSeconds: options.blockSeconds?.ETH });
    stops.push(() => anvil.stop());
    const hot = privateKeyToAccount(ANVIL_KEY_0);
    const deployer = createWalletClient({ account: hot, chain: { ...foundry, id: anvil.chainId }, transport: http(anvil.url) });
    const ethChainId = await anvil.client.getChainId();
    const usdt = await deployToken(deployer, { symbol: 'USDT', decimals: 6, supply: USDT_SUPPLY }, anvil.client);
    const usdc = options.usdc ? await deployToken(deployer, { symbol: 'USDC', decimals: 6, supply: USDT_SUPPLY }, anvil.client) : undefined;

    const market = {} as Devnet['market'];
    for (const source of ['kraken', 'binance', 'coinbase', 'bitfinex'] as const) {
      market[source] = await startFakeProvider(source);
      stops.push(() => market[source].close());
      for (const [name, price] of Object.entries(MARKET_PRICES[source])) market[source].markets.set(name, { price });
    }

    const database = await createScratchDatabase(adminUrl, 'pss_devnet');
    stops.push(() => database.drop());
    const keyDir = await mkdtemp(path.join(os.tmpdir(), 'pss-devnet-'));
    stops.push(() => rm(keyDir, { recursive: true, force: true }));
    const keyFile = path.join(keyDir, 'eth-hot-wallet.key');
    await writeFile(keyFile, ANVIL_KEY_0, { mode: 0o600 });
    const signingKeyFile = path.join(keyDir, 'signing-key.pem');
    await writeFile(signingKeyFile, generateSigningKeyPem(), { mode: 0o600 });
    const ethAccount = HDKey.fromMasterSeed(Buffer.from(ETH_DEPOSIT_SEED, 'hex')).derive("m/44'/60'/0'");
    const ethDepositKeyFile = options.sweepEth ? path.join(keyDir, 'eth-deposit.xprv') : undefined;
    if (ethDepositKeyFile) await writeFile(ethDepositKeyFile, ethAccount.privateExtendedKey, { mode: 0o600 });
    const secretsKey = randomBytes(32).toString('hex');

    const moveToken = async (token: Hex, from: Hex, to: string, amount: string): Promise<Hex> => {
      const wallet = createWalletClient({
        account: privateKeyToAccount(from),
        chain: { ...foundry, id: anvil.chainId },
        transport: http(anvil.url),
      });
      const hash = await wallet.writeContract({
        address: token,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [to as Hex, parseUnits(amount, 6)],
      });
      await anvil.client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      return hash;
    };
    const moveUsdt = (from: Hex, to: string, amount: string) => moveToken(usdt, from, to, amount);

    let zano: Devnet['zano'];
    if (options.zano) {
      const hotZano = await startZanoWallet({ watchOnly: true });
      stops.push(() => hotZano.close());
      const signerZano = await startZanoWallet({ watchOnly: false, account: hotZano.control.account });
      stops.push(() => signerZano.close());
      const top = hotZano.control.height();
      hotZano.control.receive({ assetId: FUSD_ASSET_ID, amount: ZANO_HOT_WALLET_FUSD, height: top });
      hotZano.control.receive({ assetId: ZANO_ASSET_ID, amount: ZANO_HOT_WALLET_ZANO, height: top });
      // Received outputs unlock ten blocks after their own.
      hotZano.control.mine(SPENDABLE_AGE);
      zano = { hot: hotZano, signer: signerZano };
      if (options.blockSeconds?.ZANO) {
        const zanoMiner = setInterval(() => hotZano.control.mine(1), options.blockSeconds.ZANO * 1000);
        stops.push(async () => clearInterval(zanoMiner));
      }
    }

    let monero: MoneroNet | undefined;
    if (options.monero) {
      monero = await startMoneroNet({ hotBlocks: typeof options.monero === 'object' ? options.monero.hotBlocks : undefined });
      stops.push(() => monero!.stop());
      // Rings of 16 pick their decoys among unlocked outputs: a young regtest chain needs a few more blocks.
      await monero.mine(20);
      if (options.blockSeconds?.XMR) {
        const xmrMiner = setInterval(() => void monero!.mine(1).catch(() => undefined), options.blockSeconds.XMR * 1000);
        stops.push(async () => clearInterval(xmrMiner));
      }
    }

    let miner: NodeJS.Timeout | undefined;
    if (options.blockSeconds?.LTC) {
      miner = setInterval(() => void litecoin.mine(1, wallets.customerAddress).catch(() => undefined), options.blockSeconds.LTC * 1000);
      stops.push(async () => clearInterval(miner));
    }

    return {
      litecoin,
      signerNode,
      wallets,
      anvil,
      usdt,
      usdc,
      hotWallet: hot.address,
      ethDepositKeyFile,
      zano,
      monero,
      market,
      database,
      env: (port) => ({
        SERVICE_MODE: 'production',
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: database.url,
        SECRETS_KEY: secretsKey,
        SIGNING_KEY_FILE: signingKeyFile,
        PUBLIC_ORIGIN: DEVNET_ORIGIN,
        PRINT_BANNER: 'false',
        NETWORKS: ['LTC', 'ETH', ...(zano ? ['ZANO'] : []), ...(monero ? ['XMR'] : [])].join(','),
        ...(monero
          ? {
              XMR_RPC_URL: monero.viewUrl,
              XMR_SIGNER_RPC_URL: monero.signerUrl,
              XMR_CONFIRMATIONS: String(options.confirmations?.XMR ?? 10),
              XMR_SCAN_SECONDS: '1',
              XMR_MAX_TIP_AGE_SECONDS: '86400',
            }
          : {}),
        ...(zano
          ? {
              ZANO_RPC_URL: zano.hot.url,
              ZANO_SIGNER_RPC_URL: zano.signer.url,
              ZANO_CONFIRMATIONS: String(options.confirmations?.ZANO ?? 10),
              ZANO_SCAN_SECONDS: '1',
              ZANO_MAX_TIP_AGE_SECONDS: '86400',
              RATES_PEGGED: 'fUSD:1',
            }
          : {}),
        LTC_CHAIN: 'regtest',
        LTC_RPC_URL: litecoin.url(wallets.watch),
        LTC_SIGNER_RPC_URL: signerNode.url(wallets.signer),
        LTC_XPUB: account.tpub,
        LTC_CONFIRMATIONS: String(options.confirmations?.LTC ?? 2),
        LTC_SCAN_SECONDS: '1',
        // A devnet mines only when asked (or every few seconds): its tip may be old.
        LTC_MAX_TIP_AGE_SECONDS: '86400',
        ETH_RPC_URL: anvil.url,
        // anvil's chain id: the node must report it, and payouts are signed for it.
        ETH_CHAIN_ID: String(ethChainId),
        ETH_XPUB: ethAccount.publicExtendedKey,
        ETH_HOT_WALLET_KEY_FILE: keyFile,
        ...(ethDepositKeyFile ? { ETH_DEPOSIT_KEY_FILE: ethDepositKeyFile } : {}),
        ETH_TOKENS: usdc ? `USDT:${usdt},USDC:${usdc}` : `USDT:${usdt}`,
        ETH_CONFIRMATIONS: String(options.confirmations?.ETH ?? 1),
        ETH_SCAN_SECONDS: '1',
        ETH_MAX_TIP_AGE_SECONDS: '86400',
        KRAKEN_URL: market.kraken.url,
        BINANCE_URL: market.binance.url,
        COINBASE_URL: market.coinbase.url,
        BITFINEX_URL: market.bitfinex.url,
      }),
      payLtc: (address, amount) => litecoin.call<string>('sendtoaddress', [address, amount], wallets.customer),
      mineLtc: (blocks = 1) => litecoin.mine(blocks, wallets.customerAddress),
      moveUsdt: (from, to, amount) => moveUsdt(from, to, amount),
      moveToken,
      tokenBalance: async (token, address) =>
        formatUnits(
          await anvil.client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [address as Hex] }),
          6,
        ),
      payUsdt: async (from, to, amount) => {
        await moveUsdt(ANVIL_KEY_0, privateKeyToAccount(from).address, amount);
        return moveUsdt(from, to, amount);
      },
      usdtBalance: async (address) =>
        formatUnits(
          await anvil.client.readContract({ address: usdt, abi: erc20Abi, functionName: 'balanceOf', args: [address as Hex] }),
          6,
        ),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** A server process on a devnet, and the partner the operator CLI made on it. */
export interface DevnetServer {
  child: Child;
  port: number;
  /** The API's base URL (…/api/v1). */
  baseUrl: string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts server/main.ts in production mode on `devnet`; resolves when /health answers 200. */
export async function startDevnetServer(
  devnet: Devnet,
  options: { env?: Record<string, string>; port?: number } = {},
): Promise<DevnetServer> {
  const port = options.port ?? (await freePort());
  const child = spawnGroup(
    process.execPath,
    ['--import', 'tsx', 'server/main.ts'],
    { LOG_LEVEL: 'warn', ...devnet.env(port), ...options.env },
    ROOT,
  );
  const baseUrl = `http://127.0.0.1:${port}/api/v1`;
  const status = await waitForHttp(`${baseUrl}/health`, 60_000, child);
  if (status !== 200) {
    await child.stop('SIGKILL');
    throw new Error(`the devnet server did not start (health ${status}):\n${child.output()}`);
  }
  return { child, port, baseUrl, stop: (signal) => child.stop(signal) };
}

/** Makes a partner with the operator CLI (as production does); returns its key id and secret. */
export async function createDevnetPartner(devnet: Devnet, name: string): Promise<{ keyId: string; secret: string }> {
  const created = spawnGroup(
    process.execPath,
    ['--import', 'tsx', 'scripts/partners.ts', 'create', '--name', name, '--json'],
    devnet.env(0),
    ROOT,
  );
  const code = await new Promise<number | null>((resolve) => created.process.once('exit', resolve));
  const output = created.output();
  if (code !== 0) throw new Error(`partners create exited ${code}:\n${output}`);
  const credentials = JSON.parse(output.slice(output.indexOf('{')));
  return { keyId: credentials.keyId, secret: credentials.secret };
}
