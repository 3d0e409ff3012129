/**
 * `make devnet-demo`: a real LTC -> USDT swap in production mode, through the SDK. Uses the devnet `make devnet`
 * keeps running (.tmp/devnet.json), or starts one of its own for the demo and removes it afterwards.
 *
 * Quotes 0.5 LTC to USDT on Ethereum, creates the swap, pays its deposit address from the customer's regtest
 * wallet, and prints each timeline entry as the blocks confirm it, until USDT is paid on anvil. Exits 0 only
 * if the swap finished and the destination holds exactly the quoted USDT.
 */
import { readFile } from 'node:fs/promises';
import { createPublicClient, erc20Abi, formatUnits, http, parseUnits, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createPartnerClient, type PartnerApiError, type SwapEvent } from '../sdk/src/index.js';
import { createRpcClient } from '../server/adapters/bitcoin/rpc.js';
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

async function demo(info: DevnetInfo): Promise<void> {
  const fail = (reason: string, error?: Pick<PartnerApiError, 'code' | 'message'>): never => {
    throw new Error(`${reason}${error ? `: ${error.code}: ${error.message}` : ''}`);
  };
  const client = createPartnerClient({
    baseUrl: info.baseUrl,
    audience: info.audience,
    keyId: info.keyId,
    secret: info.secret,
    userId: 'devnet-customer',
  });
  const ltc = createRpcClient({ url: info.ltcCustomerRpcUrl });
  const eth = createPublicClient({ transport: http(info.ethRpcUrl), cacheTime: 0 });
  const destination = privateKeyToAccount(info.ethCustomerKey as Hex).address;
  // In the token's smallest unit (6 decimals): amounts are compared exactly, never as floating point.
  const usdtOf = () => eth.readContract({ address: info.usdt as Hex, abi: erc20Abi, functionName: 'balanceOf', args: [destination] });

  // 1. Quote, with the customer's own regtest address for a refund.
  const refundAddress = await ltc.call<string>('getnewaddress', ['', 'bech32']);
  const pair = {
    sourceAsset: 'LTC',
    sourceNetwork: 'LTC',
    destinationAsset: 'USDT',
    destinationNetwork: 'ETH',
    sourceAmount: AMOUNT,
    refundMode: 'address',
    refundAddress,
  } as const;
  const quoted = await client.quotes.create(pair);
  if (quoted.error) fail('could not get a quote', quoted.error);
  const { quote } = quoted.data!;
  console.log(`quote     ${quote.sourceAmount} LTC -> ${quote.receiveAmount} USDT at ${quote.rate} (market median), ${quote.rateType}`);

  // 2. The swap.
  const created = await client.swaps.create({ ...pair, quoteId: quote.id, rateType: quote.rateType, destinationAddress: destination });
  if (created.error) fail('could not create the swap', created.error);
  const { order } = created.data!;
  console.log(`swap      ${order.id} (${order.status}), paying out to ${destination} on anvil`);
  const ready = await client.swaps.waitForDepositAddress(order.id, { timeoutMs: 60_000 });
  if (ready.error) fail('no deposit address', ready.error);
  const depositAddress = ready.data!.order.depositAddress!;
  console.log(`deposit   ${depositAddress}: a BIP84 address of the service's xpub, watched by the node's watch-only wallet`);

  // 3. The customer pays from their regtest wallet; the devnet mines.
  const before = await usdtOf();
  const txid = await ltc.call<string>('sendtoaddress', [depositAddress, AMOUNT]);
  console.log(`paid      ${AMOUNT} LTC in ${txid}`);

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
