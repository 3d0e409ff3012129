/**
 * `make demo-route`: a permanent route from start to finish through the SDK, against a running sandbox
 * (`make run`). Generates a Zano wallet key, proves ownership of its address (the wallet's signature of the
 * challenge, made here with that key), sets a 0.5 % markup first, opens an expect-deposit window, pays three
 * small BTC deposits that accumulate below the route minimum and then convert together in one order,
 * follows that order to the payout, and prints the partner's earnings. Exits 0 only if all of that happened.
 *
 *   PSS_SECRET=<the demo partner's secret, printed by make run> make demo-route
 *
 * The server is found as it reads its own address (scripts/demo-target.ts): PORT (8080) and PUBLIC_ORIGIN, or
 * PSS_BASE_URL and PSS_AUDIENCE (its PUBLIC_ORIGIN) for one elsewhere. Optional: PSS_KEY_ID (default demo).
 */
import { demoTarget, explainUnreachable } from './demo-target.js';
import { createHash, randomBytes } from 'node:crypto';
import { hexToBytes } from '@noble/hashes/utils.js';
import { encodeZanoAddress, ZANO_ADDRESS_TAGS } from '../server/domain/zano-address.js';
import { signZanoMessage, zanoPublicKey } from '../server/domain/zano-proof.js';
import {
  createPartnerClient,
  type PartnerApiError,
  type PermanentDeposit,
  type PermanentDepositList,
  type PermanentRoute,
} from '../sdk/src/index.js';

const POLL_INTERVAL_MS = 500;
const STEP_TIMEOUT_MS = 3 * 60_000;
const USER = `route-demo-${randomBytes(3).toString('hex')}`;
// About 6.8, 8.9 and 10.9 USD of BTC (two confirmations each): the first two wait, the third completes 25 USD.
const DEPOSITS = ['0.0001', '0.00013', '0.00016'];

function fail(reason: string, error?: PartnerApiError): never {
  const detail = error
    ? `: ${error.code}: ${error.message}${'requestId' in error && error.requestId ? ` (request ${error.requestId})` : ''}`
    : '';
  process.stderr.write(`demo-route failed: ${reason}${detail}\n`);
  process.exit(1);
}

const secret = process.env.PSS_SECRET;
if (!secret) fail("PSS_SECRET is not set. `make run` prints the demo partner's secret; run PSS_SECRET=<it> make demo-route");

const target = demoTarget();
explainUnreachable('demo-route', target.baseUrl);
const client = createPartnerClient({
  ...target,
  keyId: process.env.PSS_KEY_ID || 'demo',
  secret,
  userId: USER,
});

// A scalar below the group order: 32 random bytes hashed, top bits cleared.
const scalar = () => {
  const bytes = createHash('sha256').update(randomBytes(32)).digest();
  bytes[31] &= 0x0f;
  return new Uint8Array(bytes);
};

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) fail(`${what} did not happen within ${STEP_TIMEOUT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}

// 1. A wallet: spend key (its secret signs) and view key, as a standard Zano address.
const spendSecret = scalar();
const keys = new Uint8Array(64);
keys.set(hexToBytes(zanoPublicKey(spendSecret)), 0);
keys.set(hexToBytes(zanoPublicKey(scalar())), 32);
const address = encodeZanoAddress(ZANO_ADDRESS_TAGS.standard, keys);
console.log(`wallet    ${address}`);

// 2. The markup applies to routes created afterwards.
const markup = await client.setMarkup(0.5);
if (markup.error) fail('could not set the markup', markup.error);
console.log(`markup    ${markup.data.percent} %`);

// 3. Challenge, wallet signature, route.
const created = await client.routes.createVerified({
  target: { destinationAsset: 'ZANO', destinationNetwork: 'ZANO', destinationAddress: address, label: 'demo wallet' },
  sign: (text) => signZanoMessage(spendSecret, text, scalar(), 'v2'),
});
if (created.error) fail('could not create the route', created.error);
console.log(
  `route     ${created.data.route_id}: fee ${created.data.fee.percent} % (at least ${created.data.fee.floor_usd} USD), converts from ${created.data.min_swap_usd} USD`,
);
const route = await until<PermanentRoute>(
  'the allocation of the route addresses',
  async () => {
    const read = await client.routes.get(created.data.route_id);
    if (read.error) fail('could not read the route', read.error);
    return read.data;
  },
  (r) => Boolean(r.addresses['BTC/BTC']),
);
const payTo = route.addresses['BTC/BTC']!;
console.log(`address   BTC: ${payTo}`);

// 4. Expect the deposits, then pay three small ones.
const window = await client.routes.expectDeposit(route.route_id);
if (window.error) fail('could not open the expect-deposit window', window.error);
console.log(`expect    faster polling until ${window.data.expect_deposit_until}`);
const readDeposits = async (): Promise<PermanentDepositList> => {
  const page = await client.routes.deposits(route.route_id);
  if (page.error) fail('could not read the deposits', page.error);
  return page.data;
};
const line = (d: PermanentDeposit) =>
  `${d.txHash.slice(0, 12)}… ${d.amountBaseUnits} base units  ${d.status}${d.orderId ? `  order ${d.orderId}` : ''}`;
for (const [i, amount] of DEPOSITS.entries()) {
  const paid = await client.sandbox.deposit({ address: payTo, asset: 'BTC', network: 'BTC', amount });
  if (paid.error) fail('the sandbox deposit was refused', paid.error);
  console.log(`paid      ${amount} BTC (${paid.data.txHash.slice(0, 12)}…)`);
  if (i < DEPOSITS.length - 1) {
    const waiting = await until(
      'the accumulation',
      readDeposits,
      (l) => l.deposits.length === i + 1 && l.deposits.every((d) => d.status === 'accumulating'),
    );
    const [bucket] = waiting.accumulations;
    console.log(`bucket    ${bucket.accumulated_usd} of ${bucket.threshold_usd} USD: ${bucket.message}`);
  }
}

// 5. The bucket converts in one order, which pays out.
const done = await until(
  'the conversion',
  readDeposits,
  (l) => l.deposits.length === DEPOSITS.length && l.deposits.every((d) => d.terminal),
);
for (const d of done.deposits) console.log(`deposit   ${line(d)}`);
const orderIds = [...new Set(done.deposits.map((d) => d.orderId))];
if (orderIds.length !== 1 || !orderIds[0]) fail(`the deposits were not converted in one order: ${orderIds.join(', ')}`);
const order = await client.swaps.get(orderIds[0]);
if (order.error) fail('could not read the order', order.error);
console.log(`order     ${order.data.order.id}: ${order.data.events.map((e) => e.status).join(' -> ')}`);
if (order.data.order.status !== 'finished') fail(`the order ended ${order.data.order.status}`);
console.log(
  `payout    ${order.data.order.depositAmount} BTC -> ${order.data.order.actualOutputAmount} ZANO (fee ${order.data.order.feeUsd} USD), tx ${order.data.order.settlementTxHash}`,
);

// 6. The markup earned on it.
const earnings = await client.earnings.list();
if (earnings.error) fail('could not list the earnings', earnings.error);
const entry = earnings.data.earnings.find((e) => e.orderId === order.data.order.id);
if (!entry) fail('the order has no earnings entry');
console.log(`earning   ${entry.amount} ${entry.asset} (${entry.amountUsd} USD) at ${entry.markupPercent} %`);
for (const t of earnings.data.totals) console.log(`total     ${t.amount} ${t.asset} on ${t.network} (${t.amountUsd} USD)`);
process.exit(0);
