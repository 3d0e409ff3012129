/**
 * `make devnet-demo`: production mode on local nodes, through the SDK. Uses the devnet `make devnet` keeps
 * running (.tmp/devnet.json), or starts one of its own for the demo and removes it afterwards.
 *
 * 1. A swap: quotes 0.5 LTC to USDT on Ethereum, creates the swap, pays its deposit address from the
 *    customer's regtest wallet, and prints each timeline entry as the blocks confirm it, until USDT is paid on
 *    anvil.
 * 2. The same from Monero: 0.5 XMR to USDT, paid from the customer's wallet on monerod regtest to the swap's
 *    integrated address (where monerod is installed; otherwise said and skipped).
 * 3. A permanent route to fUSD on Zano: a wallet key made here proves its address, 0.5 LTC is paid to the
 *    route's LTC address, and the deposit converts and is paid in fUSD by the Zano wallet (the wallet RPC
 *    stand-in: no Zano software installs here).
 *
 * Exits 0 only if each swap finished with exactly its USDT at the destination, and the route's deposit finished
 * with its fUSD payout.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hexToBytes } from '@noble/hashes/utils.js';
import { createPublicClient, erc20Abi, formatUnits, http, parseUnits, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createPartnerClient, type PartnerApiError, type SwapEvent } from '../sdk/src/index.js';
import { createRpcClient } from '../server/adapters/bitcoin/rpc.js';
import { createMoneroRpcClient, parsePiconero } from '../server/adapters/monero/rpc.js';
import { encodeZanoAddress, ZANO_ADDRESS_TAGS } from '../server/domain/zano-address.js';
import { signZanoMessage, zanoPublicKey } from '../server/domain/zano-proof.js';
import { DEVNET_INFO, startMiningDevnet, type DevnetInfo } from './devnet.js';

const SWAP_TIMEOUT_MS = 3 * 60_000;
const AMOUNT = '0.5';

/** The running devnet's description, when one answers. */
async function runningDevnet(): Promise<DevnetInfo | undefined> {
  try {
    const info = JSON.parse(await readFile(DEVNET_INFO, 'utf8')) as DevnetInfo;
    const health = await fetch(`${info.baseUrl}/health`, { signal: AbortSignal.timeout(2_000) });
    return health.ok ? info : undefined;
  } catch {
    return undefined;
  }
}

const fail = (reason: string, error?: Pick<PartnerApiError, 'code' | 'message'>): never => {
  throw new Error(`${reason}${error ? `: ${error.code}: ${error.message}` : ''}`);
};

/** Where a demo swap's deposit comes from: the asset, the customer's refund address, and how they pay. */
interface DemoSource {
  asset: 'LTC' | 'XMR';
  /** What the deposit address is, for the printout. */
  depositNote: string;
  refundAddress(): Promise<string>;
  /** Pays `amount` to `address` from the customer's wallet; the transaction's hash. */
  pay(address: string, amount: string): Promise<string>;
}

async function demo(info: DevnetInfo): Promise<void> {
  const ltc = createRpcClient({ url: info.ltcCustomerRpcUrl });
  await swapDemo(info, {
    asset: 'LTC',
    depositNote: "a BIP84 address of the service's xpub, watched by the node's watch-only wallet",
    refundAddress: () => ltc.call<string>('getnewaddress', ['', 'bech32']),
    pay: (address, amount) => ltc.call<string>('sendtoaddress', [address, amount]),
  });
  if (info.xmrCustomerRpcUrl) {
    const xmr = createMoneroRpcClient({ url: info.xmrCustomerRpcUrl, timeoutMs: 60_000 });
    await swapDemo(info, {
      asset: 'XMR',
      depositNote: "an integrated address of the service's view-only wallet (its own payment id)",
      refundAddress: async () => info.xmrCustomerAddress!,
      pay: async (address, amount) => {
        await xmr.call('refresh', {});
        const paid = await xmr.call<{ tx_hash: string }>('transfer', { destinations: [{ address, amount: parsePiconero(amount) }] });
        return paid.tx_hash;
      },
    });
  } else {
    console.log('--- a swap: XMR -> USDT: skipped, this devnet serves no XMR (no monerod here: make nodes installs it)');
  }
  await routeDemo(info);
}

async function swapDemo(info: DevnetInfo, source: DemoSource): Promise<void> {
  console.log(`--- a swap: ${source.asset} -> USDT on Ethereum`);
  const client = createPartnerClient({
    baseUrl: info.baseUrl,
    audience: info.audience,
    keyId: info.keyId,
    secret: info.secret,
    userId: 'devnet-customer',
  });
  const eth = createPublicClient({ transport: http(info.ethRpcUrl), cacheTime: 0 });
  const destination = privateKeyToAccount(info.ethCustomerKey as Hex).address;
  // In the token's smallest unit (6 decimals): amounts are compared exactly, never as floating point.
  const usdtOf = () => eth.readContract({ address: info.usdt as Hex, abi: erc20Abi, functionName: 'balanceOf', args: [destination] });

  // 1. Quote, with the customer's own regtest address for a refund.
  const refundAddress = await source.refundAddress();
  const pair = {
    sourceAsset: source.asset,
    sourceNetwork: source.asset,
    destinationAsset: 'USDT',
    destinationNetwork: 'ETH',
    sourceAmount: AMOUNT,
    refundMode: 'address',
    refundAddress,
  } as const;
  const quoted = await client.quotes.create(pair);
  if (quoted.error) fail('could not get a quote', quoted.error);
  const { quote } = quoted.data!;
  console.log(
    `quote     ${quote.sourceAmount} ${source.asset} -> ${quote.receiveAmount} USDT at ${quote.rate} (market median), ${quote.rateType}`,
  );

  // 2. The swap.
  const created = await client.swaps.create({ ...pair, quoteId: quote.id, rateType: quote.rateType, destinationAddress: destination });
  if (created.error) fail('could not create the swap', created.error);
  const { order } = created.data!;
  console.log(`swap      ${order.id} (${order.status}), paying out to ${destination} on anvil`);
  const ready = await client.swaps.waitForDepositAddress(order.id, { timeoutMs: 60_000 });
  if (ready.error) fail('no deposit address', ready.error);
  const depositAddress = ready.data!.order.depositAddress!;
  console.log(`deposit   ${depositAddress}: ${source.depositNote}`);

  // 3. The customer pays from their regtest wallet; the devnet mines.
  const before = await usdtOf();
  const txid = await source.pay(depositAddress, AMOUNT);
  console.log(`paid      ${AMOUNT} ${source.asset} in ${txid}`);

  // 4. The timeline, each entry once, until terminal.
  const printed = new Set<string>();
  const line = (e: SwapEvent) =>
    [
      `${e.occurredAt}  ${e.status.padEnd(10)} ${e.reasonCode}`,
      e.confirmationCount != null ? `confirmations ${e.confirmationCount}/${e.requiredConfirmations}` : '',
      e.sourceTxHash ? `deposit ${e.sourceTxHash}` : '',
      e.settlementTxHash ? `payout ${e.settlementTxHash}` : '',
    ]
      .filter(Boolean)
      .join('  ');
  const deadline = Date.now() + SWAP_TIMEOUT_MS;
  for (;;) {
    const read = await client.swaps.get(order.id);
    if (read.error) fail('could not read the swap', read.error);
    for (const event of read.data!.events.filter((e) => !printed.has(e.id))) {
      printed.add(event.id);
      console.log(`timeline  ${line(event)}`);
    }
    const swap = read.data!.order;
    if (swap.terminal) {
      if (swap.status !== 'finished') fail(`the swap ended ${swap.status} (failure ${swap.failureCode ?? 'none'})`);
      const received = (await usdtOf()) - before;
      const receipt = await eth.getTransactionReceipt({ hash: swap.settlementTxHash as Hex });
      console.log(`on chain  payout ${swap.settlementTxHash} in block ${receipt.blockNumber} (${receipt.status})`);
      console.log(`finished  ${swap.actualOutputAmount} USDT sent; the destination's balance grew by ${formatUnits(received, 6)}`);
      if (received !== parseUnits(swap.actualOutputAmount!, 6)) fail('the destination did not receive the amount the swap reports');
      return;
    }
    if (Date.now() > deadline) fail(`the swap is still ${swap.status} after ${SWAP_TIMEOUT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** A scalar below the group order: 32 random bytes hashed, top bits cleared (a fresh Zano key). */
const scalar = () => {
  const bytes = createHash('sha256').update(randomBytes(32)).digest();
  bytes[31] &= 0x0f;
  return new Uint8Array(bytes);
};

async function routeDemo(info: DevnetInfo): Promise<void> {
  console.log('--- a permanent route: LTC -> fUSD on Zano');
  const user = `devnet-route-${randomBytes(3).toString('hex')}`;
  const client = createPartnerClient({
    baseUrl: info.baseUrl,
    audience: info.audience,
    keyId: info.keyId,
    secret: info.secret,
    userId: user,
  });
  const ltc = createRpcClient({ url: info.ltcCustomerRpcUrl });

  // The customer's Zano wallet: its spend key signs the challenge that proves the address is theirs.
  const spendSecret = scalar();
  const keys = new Uint8Array(64);
  keys.set(hexToBytes(zanoPublicKey(spendSecret)), 0);
  keys.set(hexToBytes(zanoPublicKey(scalar())), 32);
  const address = encodeZanoAddress(ZANO_ADDRESS_TAGS.standard, keys);
  const created = await client.routes.createVerified({
    target: { destinationAsset: 'fUSD', destinationNetwork: 'ZANO', destinationAddress: address, label: 'devnet wallet' },
    sign: (text) => signZanoMessage(spendSecret, text, scalar(), 'v2'),
  });
  if (created.error) fail('could not create the route', created.error);
  console.log(`route     ${created.data!.route_id} to ${address.slice(0, 16)}… (fUSD on Zano)`);
  let payTo: string | undefined;
  const deadline = Date.now() + SWAP_TIMEOUT_MS;
  while (!payTo) {
    const read = await client.routes.get(created.data!.route_id);
    if (read.error) fail('could not read the route', read.error);
    payTo = read.data!.addresses['LTC/LTC'] || undefined;
    if (Date.now() > deadline) fail('the route got no LTC address');
    if (!payTo) await new Promise((resolve) => setTimeout(resolve, 500));
  }
  console.log(`address   LTC: ${payTo} (from the service's LTC xpub, watched by the watch-only wallet)`);
  const txid = await ltc.call<string>('sendtoaddress', [payTo, AMOUNT]);
  console.log(`paid      ${AMOUNT} LTC in ${txid}`);

  let last = '';
  for (;;) {
    const page = await client.routes.deposits(created.data!.route_id);
    if (page.error) fail('could not read the deposits', page.error);
    const deposit = page.data!.deposits.find((d) => d.txHash === txid);
    const state = deposit
      ? `${deposit.status}  confirmations ${deposit.confirmationCount}/${deposit.requiredConfirmations}${deposit.settlementTxHash ? `  payout ${deposit.settlementTxHash}` : ''}`
      : 'not seen yet';
    if (state !== last) console.log(`deposit   ${state}`);
    last = state;
    if (deposit?.terminal) {
      if (deposit.status !== 'finished') fail(`the route's deposit ended ${deposit.status}`);
      console.log(`finished  ${deposit.actualOutputAmount} fUSD paid on Zano in ${deposit.settlementTxHash} (order ${deposit.orderId})`);
      return;
    }
    if (Date.now() > deadline) fail(`the route's deposit is still ${deposit?.status ?? 'unseen'} after ${SWAP_TIMEOUT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

const running = await runningDevnet();
let exitCode = 0;
if (running) {
  console.log(`devnet    using the running devnet at ${running.baseUrl}`);
  await demo(running).catch((err) => {
    console.error(`devnet-demo failed: ${(err as Error).message}`);
    exitCode = 1;
  });
} else {
  console.log('devnet    none running (make devnet): starting one for this demo ...');
  const { devnet, server, info } = await startMiningDevnet(undefined);
  try {
    await demo(info);
  } catch (err) {
    console.error(`devnet-demo failed: ${(err as Error).message}\n--- server output ---\n${server.child.output().slice(-4000)}`);
    exitCode = 1;
  } finally {
    await server.stop();
    await devnet.stop();
  }
}
process.exit(exitCode);
