/**
 * `make devnet`: production mode on local real nodes, for trying the service as it runs for real money.
 * Starts two Litecoin Core regtest nodes (the service's, with its watch-only wallet and a customer's wallet,
 * and a signer's, with the wallet that holds the key), two stand-ins of the Zano wallet RPC (watch-only and
 * signer: no Zano software installs here; fUSD priced at its 1 USD peg),
 * Monero (monerod --regtest with the service's view-only wallet, its offline signer and a customer's wallet; where
 * Debian's monero is installed), anvil with an ERC-20 USDT, local servers that answer in Kraken's, Binance's,
 * Coinbase's and Bitfinex's formats,
 * a PostgreSQL database of its own, and the server in `SERVICE_MODE=production` on all of it. Blocks are
 * mined by themselves (LTC every 5 s, ETH and XMR every 2 s). The hot wallets are funded from published test keys
 * (XMR: coinbases of the signer's test seed).
 *
 * It writes what a client needs to .tmp/devnet.json (the API's URL, a partner's key id and secret, the
 * customer's wallets), which `make devnet-demo` reads, and runs until interrupted, then removes everything.
 *
 *   make devnet          # PORT=8090 by default; DATABASE_URL picks the PostgreSQL server
 */
import { createWriteStream } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ANVIL_KEY_1 } from '../test/support/anvil.js';
import { moneroMissing } from '../test/support/monerod.js';
import {
  createDevnetPartner,
  devnetUnavailable,
  DEVNET_ORIGIN,
  startDevnet,
  startDevnetServer,
  type Devnet,
  type DevnetServer,
} from '../test/support/devnet.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Where a running devnet describes itself (read by scripts/devnet-demo.ts). */
export const DEVNET_INFO = path.join(ROOT, '.tmp/devnet.json');

/** What .tmp/devnet.json holds. */
export interface DevnetInfo {
  baseUrl: string;
  audience: string;
  keyId: string;
  secret: string;
  /** The customer's Litecoin wallet (RPC URL with credentials), to pay deposits from. */
  ltcCustomerRpcUrl: string;
  /** Mined to by the devnet (a customer's address). */
  ltcCustomerAddress: string;
  ethRpcUrl: string;
  usdt: string;
  /** A customer's Ethereum key (anvil's second development key: 10,000 ETH, a published test key). */
  ethCustomerKey: string;
  /** The customer's Monero wallet RPC and address (absent: no monerod here, the devnet serves no XMR). */
  xmrCustomerRpcUrl?: string;
  xmrCustomerAddress?: string;
  serverLog: string;
}

/** Starts a devnet that mines by itself and its server; resolves with both and what a client needs. */
export async function startMiningDevnet(
  port: number | undefined,
  serverLog?: string,
): Promise<{ devnet: Devnet; server: DevnetServer; info: DevnetInfo }> {
  const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const missing = await devnetUnavailable(adminUrl);
  if (missing) throw new Error(`the devnet cannot start here: ${missing}`);
  if (moneroMissing) console.log(`devnet: no XMR (${moneroMissing})`);
  const devnet = await startDevnet({
    adminUrl,
    confirmations: { LTC: 2, ETH: 2, ZANO: 3, XMR: 2 },
    blockSeconds: { LTC: 5, ETH: 2, ZANO: 2, XMR: 2 },
    sweepEth: true,
    zano: true,
    monero: !moneroMissing,
  });
  try {
    // Routes are polled every 2 s (60 s by default): the demo's route converts within seconds.
    const server = await startDevnetServer(devnet, { port, env: { LOG_LEVEL: 'info', ROUTE_POLL_SECONDS: '2' } });
    if (serverLog) {
      const log = createWriteStream(serverLog);
      log.write(server.child.output());
      server.child.process.stdout?.pipe(log);
      server.child.process.stderr?.pipe(log);
    }
    const partner = await createDevnetPartner(devnet, 'Devnet partner');
    const info: DevnetInfo = {
      baseUrl: server.baseUrl,
      audience: DEVNET_ORIGIN,
      keyId: partner.keyId,
      secret: partner.secret,
      ltcCustomerRpcUrl: devnet.litecoin.url(devnet.wallets.customer),
      ltcCustomerAddress: devnet.wallets.customerAddress,
      ethRpcUrl: devnet.anvil.url,
      usdt: devnet.usdt,
      ethCustomerKey: ANVIL_KEY_1,
      ...(devnet.monero ? { xmrCustomerRpcUrl: devnet.monero.customerUrl, xmrCustomerAddress: devnet.monero.customerAddress } : {}),
      serverLog: serverLog ?? '',
    };
    return { devnet, server, info };
  } catch (err) {
    await devnet.stop();
    throw err;
  }
}

async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 8090);
  await mkdir(path.dirname(DEVNET_INFO), { recursive: true });
  const serverLog = path.join(ROOT, '.tmp/devnet-server.log');
  console.log('devnet: starting litecoind and monerod (regtest), anvil, the market servers, a PostgreSQL database and the server ...');
  const { devnet, server, info } = await startMiningDevnet(port, serverLog);
  await writeFile(DEVNET_INFO, JSON.stringify(info, null, 2), { mode: 0o600 });
  console.log(`
devnet: running (production mode on real nodes; every key is a published test key)
  API            ${info.baseUrl}   (signed for audience ${info.audience})
  partner        key id ${info.keyId}, secret ${info.secret}
  Litecoin       regtest RPC ${devnet.litecoin.url()}  (wallets: watch, customer; a block every 5 s)
  LTC signer     regtest RPC ${devnet.signerNode.url()}  (wallet: signer; a peer of the node above)
  Ethereum       anvil ${info.ethRpcUrl}  (chain ${devnet.anvil.chainId}; a block every 2 s), USDT at ${info.usdt}
  Zano           wallet RPC stand-ins: watch-only ${devnet.zano!.hot.url}, signer ${devnet.zano!.signer.url} (a block every 2 s)
  Monero         ${devnet.monero ? `monerod regtest ${devnet.monero.daemonUrl}; wallet RPC: view-only ${devnet.monero.viewUrl}, signer (offline) ${devnet.monero.signerUrl}, customer ${devnet.monero.customerUrl} (a block every 2 s)` : 'not served (no monerod here)'}
  hot wallets    LTC: the watch-only wallet; ETH: ${devnet.hotWallet} (ETH deposits are swept to it); Zano: 10,000 fUSD, 100 ZANO
  server log     ${serverLog}
  database       ${devnet.database.url}
  described in   ${path.relative(ROOT, DEVNET_INFO)}

Run \`make devnet-demo\` in another terminal for real LTC -> USDT and XMR -> USDT swaps and an LTC -> fUSD route. Ctrl-C stops everything.
`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    console.log('devnet: stopping ...');
    await server.stop();
    await devnet.stop();
    await rm(DEVNET_INFO, { force: true });
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  server.child.process.once('exit', (code) => {
    if (stopping) return;
    console.error(`devnet: the server exited (${code}); see ${serverLog}`);
    void stop();
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(`devnet: ${(err as Error).message}`);
    process.exit(1);
  });
}
