/**
 * Whole swaps in production mode, through HTTP, on real nodes (test/support/devnet.ts: Litecoin Core in
 * regtest, anvil with an ERC-20 USDT, the market servers, a PostgreSQL database of the run's own): an LTC
 * deposit confirmed by mined blocks and paid out in USDT on anvil, and back; an LTC deposit a double spend
 * on a longer branch replaces, and a USDT deposit anvil reorganises away; and quotes bounded by the hot wallet.
 *
 * Skipped, with the reason printed, where litecoind, anvil or PostgreSQL is missing.
 */
import { expect } from 'chai';
import { privateKeyToAccount } from 'viem/accounts';
import { ANVIL_KEY_0, ANVIL_KEY_1 } from '../support/anvil.js';
import { connectNodes, disconnectNodes, startLitecoind } from '../support/litecoind.js';
import { createDevnetPartner, startDevnet, startDevnetServer, type Devnet, type DevnetServer } from '../support/devnet.js';
import { devnetClient, DEVNET_ADMIN_URL, eventually, ltcToUsdt, skipWithoutDevnet, usdtToLtc } from '../support/production.js';
import { swapClient, type Swap, type SwapEvent } from '../support/swaps.js';

/** Where the customer receives USDT: anvil's second development account. */
const CUSTOMER_ETH = privateKeyToAccount(ANVIL_KEY_1).address;

describe('production swaps on real nodes (the server process)', function () {
  this.timeout(180_000);
  let devnet: Devnet;
  let server: DevnetServer;
  let client: ReturnType<typeof swapClient>;

  before(async function () {
    await skipWithoutDevnet(this);
    devnet = await startDevnet({ adminUrl: DEVNET_ADMIN_URL, confirmations: { LTC: 2, ETH: 2 } });
    server = await startDevnetServer(devnet);
    client = devnetClient(server, await createDevnetPartner(devnet, 'Production swaps'));
  });

  after(async () => {
    await server?.stop();
    await devnet?.stop();
  });

  const statuses = (events: SwapEvent[]) => events.map((e) => e.status);
  // The statuses a swap went through: a confirmation count's progress (confirming -> confirming) is one entry
  // more when a scan saw the deposit in the mempool before its block, which the test cannot rule out.
  const path = (events: SwapEvent[]) => statuses(events).filter((status, i, all) => i === 0 || all[i - 1] !== status);
  const waitForAddress = (order: Swap) => client.waitFor(order.id, (o) => typeof o.depositAddress === 'string', 30_000);

  it('swaps LTC to USDT: the deposit confirms in mined blocks, USDT is paid on anvil, and the swap finishes', async () => {
    const request = ltcToUsdt('0.5', devnet.wallets.customerAddress);
    const { order, quote } = await client.create(request, { destinationAddress: CUSTOMER_ETH });
    const ready = await waitForAddress(order);
    expect(ready.order.depositAddress).to.match(/^rltc1q/);

    const txid = await devnet.payLtc(ready.order.depositAddress!, '0.5');
    // In the mempool: seen, not yet confirmed.
    const seen = await client.waitFor(order.id, (o) => o.status === 'confirming', 30_000);
    expect(seen.order.sourceTxHash).to.equal(txid);
    await devnet.mineLtc(2);
    // The payout is mined in a block of its own; a second block makes the two confirmations it needs.
    await client.waitFor(order.id, (o) => o.status === 'sending', 60_000);
    await devnet.anvil.mine(1);

    const done = await client.waitFor(order.id, (o) => o.status === 'finished' || o.status === 'review' || o.status === 'refunded', 90_000);
    expect(done.order.status, JSON.stringify(done)).to.equal('finished');
    expect(statuses(done.events)).to.deep.equal(['waiting', 'confirming', 'exchanging', 'sending', 'finished']);
    expect(done.order.actualOutputAmount).to.equal(quote.receiveAmount);
    // The USDT arrived on chain, exactly.
    expect(await devnet.usdtBalance(CUSTOMER_ETH)).to.equal(quote.receiveAmount.replace(/\.?0+$/, ''));
    const payoutTx = done.order.settlementTxHash;
    expect(payoutTx).to.match(/^0x[0-9a-f]{64}$/);
    const receipt = await devnet.anvil.client.getTransactionReceipt({ hash: payoutTx as `0x${string}` });
    expect(receipt.status).to.equal('success');
  });

  it('takes an LTC deposit back to waiting when a reorganisation replaces it with a double spend, and never credits it', async () => {
    const { order } = await client.create(ltcToUsdt('0.3', devnet.wallets.customerAddress), { destinationAddress: CUSTOMER_ETH });
    const ready = await waitForAddress(order);
    // Two transactions spend one coin of the customer's: the deposit, and one paying the customer back.
    const { customer } = devnet.wallets;
    const [coin] = (await devnet.litecoin.call<Array<{ txid: string; vout: number; amount: string }>>('listunspent', [1], customer)).filter(
      (u) => Number(u.amount) >= 1,
    );
    const sign = async (outputs: Record<string, string>) => {
      const raw = await devnet.litecoin.call<string>('createrawtransaction', [[{ txid: coin.txid, vout: coin.vout }], outputs], customer);
      return (await devnet.litecoin.call<{ hex: string }>('signrawtransactionwithwallet', [raw], customer)).hex;
    };
    const back = await devnet.litecoin.call<string>('getnewaddress', ['', 'bech32'], customer);
    const keep = (Number(coin.amount) - 0.3 - 0.001).toFixed(8);
    const deposit = await sign({ [ready.order.depositAddress!]: '0.3', [back]: keep });
    const doubleSpend = await sign({ [back]: (Number(coin.amount) - 0.001).toFixed(8) });

    // A miner on another node, cut off, mines the double spend into a longer branch.
    const miner = await startLitecoind();
    try {
      await connectNodes(devnet.litecoin, miner);
      await disconnectNodes(devnet.litecoin, miner);
      await miner.call('sendrawtransaction', [doubleSpend]);
      await miner.mine(3, devnet.wallets.customerAddress);

      const txid = await devnet.litecoin.call<string>('sendrawtransaction', [deposit]);
      await devnet.mineLtc(1);
      const confirming = await client.waitFor(
        order.id,
        (o) => o.status === 'confirming' && o.deposits?.[0]?.confirmationCount === 1,
        30_000,
      );
      expect(confirming.order.sourceTxHash).to.equal(txid);

      // The branches meet: the node follows the longer one, where the deposit's coin is spent elsewhere.
      await connectNodes(devnet.litecoin, miner);
      const reverted = await client.waitFor(order.id, (o) => o.status === 'waiting', 30_000);
      expect(path(reverted.events)).to.deep.equal(['waiting', 'confirming', 'waiting']);
      expect(reverted.order.deposits?.map((d) => d.status)).to.deep.equal(['removed']);
      await devnet.mineLtc(3);
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect((await client.get(order.id)).order.status).to.equal('waiting');
    } finally {
      await miner.stop();
    }
  });

  it('takes a USDT deposit back to waiting when anvil reorganises its block away', async () => {
    const { order } = await client.create(usdtToLtc('50'), {
      destinationAddress: devnet.wallets.customerAddress,
    });
    const ready = await waitForAddress(order);
    expect(ready.order.depositAddress).to.match(/^0x[0-9a-fA-F]{40}$/);
    await devnet.payUsdt(ANVIL_KEY_1, ready.order.depositAddress!, '50');
    // Mined in a block of its own: one confirmation of the two needed.
    await client.waitFor(order.id, (o) => o.status === 'confirming', 30_000);
    await devnet.anvil.reorg(1);
    const reverted = await client.waitFor(order.id, (o) => o.status === 'waiting', 30_000);
    expect(reverted.order.deposits?.map((d) => d.status)).to.deep.equal(['removed']);
    await devnet.anvil.mine(3);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect((await client.get(order.id)).order.status).to.equal('waiting');
  });

  it('swaps USDT to LTC: the deposit confirms on anvil, and the watch-only wallet pays LTC signed by the signer', async () => {
    const { order, quote } = await client.create(usdtToLtc('40'), {
      destinationAddress: await devnet.litecoin.call<string>('getnewaddress', ['', 'bech32'], devnet.wallets.customer),
    });
    const ready = await waitForAddress(order);
    await devnet.payUsdt(ANVIL_KEY_1, ready.order.depositAddress!, '40');
    await devnet.anvil.mine(1);
    const sending = await client.waitFor(order.id, (o) => o.status === 'sending', 60_000);
    const payout = sending.order.settlementTxHash!;
    const tx = await devnet.litecoin.call<{ details: Array<{ address: string; amount: string; category: string }> }>(
      'gettransaction',
      [payout, true],
      devnet.wallets.customer,
    );
    expect(tx.details.find((d) => d.category === 'receive')).to.include({ address: order.destination, amount: quote.receiveAmount });
    await devnet.mineLtc(2);
    const done = await client.waitFor(order.id, (o) => o.status === 'finished', 60_000);
    expect(statuses(done.events)).to.deep.equal(['waiting', 'confirming', 'exchanging', 'sending', 'finished']);
  });

  it('holds a fixed rate for a deposit confirmed inside the confirmation grace, and refunds one confirmed after it (late_deposit)', async () => {
    // A second instance on the same devnet makes swaps with a deposit window of 8 s and a grace of 4 s; the
    // deadlines are the swap's, so whichever instance steps it decides alike.
    const short = await startDevnetServer(devnet, { env: { DEPOSIT_WINDOW_SECONDS: '8', FIXED_RATE_CONFIRMATION_GRACE_SECONDS: '4' } });
    try {
      const hurried = devnetClient(short, await createDevnetPartner(devnet, 'Confirmation deadlines'));
      const fixed = (amount: string) => ({ ...ltcToUsdt(amount, devnet.wallets.customerAddress), rateType: 'fixed' });

      // Confirmed at once: the fixed rate holds.
      const onTime = await hurried.create(fixed('0.3'), { destinationAddress: CUSTOMER_ETH });
      const created = new Date(onTime.order.createdAt).getTime();
      expect(new Date(onTime.order.confirmationDeadline!).getTime() - created).to.equal(12_000);
      const ready = await hurried.waitFor(onTime.order.id, (o) => typeof o.depositAddress === 'string', 30_000);
      await devnet.payLtc(ready.order.depositAddress!, '0.3');
      await hurried.waitFor(onTime.order.id, (o) => o.status === 'confirming', 30_000);
      await devnet.mineLtc(2);
      const paid = await hurried.waitFor(onTime.order.id, (o) => o.actualOutputAmount !== null, 60_000);
      expect(paid.order.actualOutputAmount).to.equal(onTime.quote.receiveAmount);

      // Seen in time, confirmed only after the confirmation deadline: late, and refunded.
      const slow = await hurried.create(fixed('0.3'), { destinationAddress: CUSTOMER_ETH });
      const waiting = await hurried.waitFor(slow.order.id, (o) => typeof o.depositAddress === 'string', 30_000);
      await devnet.payLtc(waiting.order.depositAddress!, '0.3');
      await hurried.waitFor(slow.order.id, (o) => o.status === 'confirming', 30_000);
      const deadline = new Date(slow.order.confirmationDeadline!).getTime();
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now()) + 1_500));
      await devnet.mineLtc(2);
      const late = await hurried.waitFor(slow.order.id, (o) => o.terminal === true || o.status === 'review', 60_000);
      expect(late.order.status, JSON.stringify(late.order)).to.equal('refunded');
      expect(late.order.failureCode).to.equal('late_deposit');
      expect(late.order.actualOutputAmount).to.equal(null);
      // The deposit less Litecoin's 0.10 USD network fee at the market's LTC price, 80.05 USD (the median of
      // the fake providers' 80.10, 80.00 x 1.00005 and 80.05): 0.00124922 LTC, rounded up.
      expect(late.order.refundAmount).to.equal('0.29875078');
      expect(late.order.deposits![0]).to.include({ amount: '0.3', status: 'refunded', refundAmount: '0.29875078' });
      await devnet.mineLtc(1);
      await devnet.anvil.mine(1);
    } finally {
      await short.stop();
    }
  });

  it('bounds quotes by the hot wallet: a smaller USDT balance is a smaller maximum, none is 409 pair_unavailable', async () => {
    const before = await client.quote(ltcToUsdt('0.5', devnet.wallets.customerAddress));
    const balance = await devnet.usdtBalance(devnet.hotWallet);
    // The hot wallet keeps 2,000 USDT: about 25 LTC at 80 USD.
    await devnet.moveUsdt(ANVIL_KEY_0, privateKeyToAccount(ANVIL_KEY_1).address, (Number(balance) - 2000).toFixed(6));
    const bounded = await eventually(async () => {
      const quote = await client.quote(ltcToUsdt('0.5', devnet.wallets.customerAddress));
      return Number(quote.maximumSourceAmount) < 25 ? quote : undefined;
    });
    expect(Number(bounded.maximumSourceAmount)).to.be.lessThan(Number(before.maximumSourceAmount));
    const tooMuch = await client.send('POST', '/api/v1/quotes', ltcToUsdt('30', devnet.wallets.customerAddress));
    expect(tooMuch.status, tooMuch.text).to.equal(409);
    expect((tooMuch.body as { error: { code: string } }).error.code).to.equal('amount_above_maximum');

    await devnet.moveUsdt(ANVIL_KEY_0, privateKeyToAccount(ANVIL_KEY_1).address, '2000');
    const refused = await eventually(async () => {
      const res = await client.send('POST', '/api/v1/quotes', ltcToUsdt('0.5', devnet.wallets.customerAddress));
      return res.status === 409 ? res : undefined;
    });
    expect((refused.body as { error: { code: string } }).error.code).to.equal('pair_unavailable');
  });
});
