/**
 * `make demo`: a first swap from start to finish through the SDK, against a running sandbox (`make run`).
 * Quotes 0.015 BTC to USDT on Ethereum, creates the swap, waits for its deposit address, pays it with a
 * simulated deposit, and prints each timeline entry until the swap is terminal. Exits 0 only if it finished.
 *
 *   PSS_SECRET=<the demo partner's secret, printed by make run> make demo
 *
 * The server is found as it reads its own address (scripts/demo-target.ts): PORT (8080) and PUBLIC_ORIGIN, or
 * PSS_BASE_URL and PSS_AUDIENCE (its PUBLIC_ORIGIN) for one elsewhere. Optional: PSS_KEY_ID (default demo).
 */
import { demoTarget, explainUnreachable } from './demo-target.js';
import { createPartnerClient, type PartnerApiError, type SwapEvent, type WaitTimeoutError } from '../sdk/src/index.js';

const POLL_INTERVAL_MS = 1_000;
const SWAP_TIMEOUT_MS = 5 * 60_000;
const DESTINATION = '0x71C7656EC7ab88b098defB751B7401B5f6d8976F';

function fail(reason: string, error?: PartnerApiError | WaitTimeoutError): never {
  const detail = error
    ? `: ${error.code}: ${error.message}${'requestId' in error && error.requestId ? ` (request ${error.requestId})` : ''}`
    : '';
  process.stderr.write(`demo failed: ${reason}${detail}\n`);
  process.exit(1);
}

const secret = process.env.PSS_SECRET;
if (!secret)
  fail(
    'PSS_SECRET is not set. `make run` prints the demo partner\'s secret ("demo partner ... secret=pss_sk_..."); run PSS_SECRET=<it> make demo',
  );

const target = demoTarget();
explainUnreachable('demo', target.baseUrl);
const client = createPartnerClient({
  ...target,
  keyId: process.env.PSS_KEY_ID || 'demo',
  secret,
  userId: 'demo-customer',
});

// 1. Quote.
const pair = {
  sourceAsset: 'BTC',
  sourceNetwork: 'BTC',
  destinationAsset: 'USDT',
  destinationNetwork: 'ETH',
  sourceAmount: '0.015',
  refundMode: 'sender',
} as const;
const quoted = await client.quotes.create(pair);
if (quoted.error) fail('could not get a quote', quoted.error);
const { quote } = quoted.data;
console.log(
  `quote     ${quote.id}: ${quote.sourceAmount} BTC -> ${quote.receiveAmount} USDT (${quote.rateType}), valid until ${quote.expiresAt}`,
);

// 2. Create the swap. The SDK generated the Idempotency-Key; a real integration stores it with its order.
const created = await client.swaps.create({ ...pair, quoteId: quote.id, rateType: quote.rateType, destinationAddress: DESTINATION });
console.log(`key       Idempotency-Key ${created.idempotencyKey}`);
if (created.error) fail('could not create the swap', created.error);
const { order, accessToken } = created.data;
console.log(`swap      ${order.id} (${order.status})`);
console.log(`token     ${accessToken} (reads this one swap, e.g. from your frontend's backend)`);

// 3. Wait for the deposit address, then pay exactly the deposit amount (simulated in the sandbox).
const ready = await client.swaps.waitForDepositAddress(order.id, { timeoutMs: 60_000 });
if (ready.error) fail('no deposit address', ready.error);
const { depositAddress, depositAmount, depositMemo } = ready.data.order;
console.log(`deposit   pay ${depositAmount} ${order.sourceAsset} to ${depositAddress}${depositMemo ? ` with memo ${depositMemo}` : ''}`);
const paid = await client.sandbox.deposit({
  address: depositAddress!,
  asset: order.sourceAsset,
  network: order.sourceNetwork,
  amount: depositAmount ?? order.sourceAmount,
  memo: depositMemo ?? undefined,
});
if (paid.error) fail('the sandbox deposit was refused', paid.error);
console.log(`paid      ${paid.data.txHash}, ${paid.data.requiredConfirmations} confirmations required`);

// 4. Follow the timeline until the swap is terminal, printing each entry once.
const timelineLine = (e: SwapEvent) =>
  [
    `${e.occurredAt}  ${e.status.padEnd(10)} ${e.reasonCode}`,
    e.confirmationCount != null ? `confirmations ${e.confirmationCount}/${e.requiredConfirmations}` : '',
    e.sourceTxHash ? `deposit tx ${e.sourceTxHash}` : '',
    e.settlementTxHash ? `payout tx ${e.settlementTxHash}` : '',
    e.refundTxHash ? `refund tx ${e.refundTxHash}` : '',
  ]
    .filter(Boolean)
    .join('  ');
const printed = new Set<string>();
const deadline = Date.now() + SWAP_TIMEOUT_MS;
for (;;) {
  const { data, error } = await client.swaps.get(order.id);
  if (error) fail('could not read the swap', error);
  for (const event of data.events.filter((e) => !printed.has(e.id))) {
    printed.add(event.id);
    console.log(`timeline  ${timelineLine(event)}`);
  }
  const swap = data.order;
  if (swap.terminal) {
    if (swap.status !== 'finished')
      fail(`the swap ended ${swap.status} (reason ${swap.reasonCode}, failure ${swap.failureCode ?? 'none'})`);
    console.log(`finished  ${swap.actualOutputAmount} ${swap.destinationAsset} sent to ${swap.destination}`);
    process.exit(0);
  }
  if (Date.now() > deadline) fail(`the swap is still ${swap.status} after ${SWAP_TIMEOUT_MS / 1000} s`);
  await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
}
