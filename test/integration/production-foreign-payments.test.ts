/**
 * Every output to a swap's address is recorded and answered, whatever its asset (issue 52, the chain boundary),
 * on real nodes through the server process in production mode:
 * - anvil: native ETH sent to a USDT swap's deposit address is listed in the swap's deposits with asset ETH and
 *   returned to its sender in ETH, less ETH's network payout fee; the swap still waits for its USDT;
 * - anvil: USDC sent to a USDT swap's deposit address is listed with asset USDC and returned to its sender in
 *   USDC (a token transfer from the hot wallet), less the payout fee; the swap still waits for its USDT;
 * - litecoind: a payment to a swap's address after the swap was refunded is listed (asset LTC) and returned to
 *   the refund address, the swap still refunded.
 *
 * Skipped, with the reason printed, where litecoind, anvil or PostgreSQL is missing.
 */
import { expect } from 'chai';
import { Decimal } from 'decimal.js';
import { createWalletClient, decodeEventLog, erc20Abi, formatEther, formatUnits, http, parseEther, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { ANVIL_KEY_0 } from '../support/anvil.js';
import { createDevnetPartner, startDevnet, startDevnetServer, type Devnet, type DevnetServer } from '../support/devnet.js';
import { devnetClient, DEVNET_ADMIN_URL, ltcToUsdt, skipWithoutDevnet, usdtToLtc } from '../support/production.js';

describe('payments of any asset to a swap address, on real nodes (the server process in production mode)', function () {
  this.timeout(180_000);
  let devnet: Devnet;
  let server: DevnetServer;
  let client: ReturnType<typeof devnetClient>;

  before(async function () {
    await skipWithoutDevnet(this);
    devnet = await startDevnet({ adminUrl: DEVNET_ADMIN_URL, confirmations: { LTC: 1, ETH: 1 }, usdc: true });
    const partner = await createDevnetPartner(devnet, 'Foreign payments');
    server = await startDevnetServer(devnet);
    client = devnetClient(server, partner);
  });

  after(async () => {
    await server?.stop().catch(() => undefined);
    await devnet?.stop();
  });

  afterEach(function () {
    if (this.currentTest?.state === 'failed') console.log(server.child.output().slice(-6000));
  });

  it('returns native ETH sent to a USDT swap address to its sender in ETH, less the fee; the swap still waits for USDT', async () => {
    const destination = await devnet.litecoin.call<string>('getnewaddress', ['', 'bech32'], devnet.wallets.customer);
    const { order } = await client.create(usdtToLtc('25'), { destinationAddress: destination });
    const ready = await client.waitFor(order.id, (o) => typeof o.depositAddress === 'string', 30_000);
    // A customer's wallet with 1 ETH sends 0.2 ETH to the USDT address.
    const customer = privateKeyToAccount(generatePrivateKey());
    await devnet.anvil.rpc('anvil_setBalance', [customer.address, `0x${parseEther('1').toString(16)}`]);
    const wallet = createWalletClient({
      account: customer,
      chain: { ...foundry, id: devnet.anvil.chainId },
      transport: http(devnet.anvil.url),
    });
    const sent = await wallet.sendTransaction({ to: ready.order.depositAddress as Hex, value: parseEther('0.2') });
    await devnet.anvil.client.waitForTransactionReceipt({ hash: sent });

    const { order: after } = await client.waitFor(
      order.id,
      (o) => o.deposits?.some((d) => d.txHash === sent && d.status === 'refunded') === true,
      60_000,
    );
    const payment = after.deposits!.find((d) => d.txHash === sent)!;
    expect(payment).to.include({ asset: 'ETH', network: 'ETH', role: 'extra', amount: '0.2', status: 'refunded' });
    // Less ETH's network payout fee (1.50 USD at about 3000 USD: about 0.0005 ETH).
    const refunded = new Decimal(payment.refundAmount!);
    expect(refunded.lessThan('0.2') && refunded.greaterThan('0.1994'), payment.refundAmount!).to.equal(true);
    // On the chain: one transaction from the hot wallet to the sender, of exactly that amount.
    const refund = await devnet.anvil.client.getTransaction({ hash: payment.refundTxHash as Hex });
    expect(refund.from.toLowerCase()).to.equal(devnet.hotWallet.toLowerCase());
    expect(refund.to?.toLowerCase()).to.equal(customer.address.toLowerCase());
    expect(formatEther(refund.value)).to.equal(refunded.toFixed());
    expect((await devnet.anvil.client.getTransactionReceipt({ hash: refund.hash })).status).to.equal('success');
    expect(after.status, 'an ETH payment is never the USDT deposit').to.equal('waiting');
    console.log(`      0.2 ETH to USDT swap ${order.id}: returned ${payment.refundAmount} ETH to ${customer.address} in ${refund.hash}`);
  });

  it('returns USDC sent to a USDT swap address to its sender in USDC, less the fee; the swap still waits for USDT', async () => {
    const usdc = devnet.usdc!;
    const destination = await devnet.litecoin.call<string>('getnewaddress', ['', 'bech32'], devnet.wallets.customer);
    const { order } = await client.create(usdtToLtc('25'), { destinationAddress: destination });
    const ready = await client.waitFor(order.id, (o) => typeof o.depositAddress === 'string', 30_000);
    // A customer's wallet with gas and 30 USDC sends 20 USDC to the USDT address.
    const customerKey = generatePrivateKey();
    const customer = privateKeyToAccount(customerKey);
    await devnet.anvil.rpc('anvil_setBalance', [customer.address, `0x${parseEther('1').toString(16)}`]);
    await devnet.moveToken(usdc, ANVIL_KEY_0, customer.address, '30');
    const hotBefore = new Decimal(await devnet.tokenBalance(usdc, devnet.hotWallet));
    const sent = await devnet.moveToken(usdc, customerKey, ready.order.depositAddress!, '20');

    const { order: after } = await client.waitFor(
      order.id,
      (o) => o.deposits?.some((d) => d.txHash === sent && d.status === 'refunded') === true,
      60_000,
    );
    const payment = after.deposits!.find((d) => d.txHash === sent)!;
    expect(payment).to.include({ asset: 'USDC', network: 'ETH', role: 'extra', amount: '20', status: 'refunded' });
    // Less the network payout fee in USDC (about 1.50 USD at 1 USD).
    const refunded = new Decimal(payment.refundAmount!);
    expect(refunded.lessThan('20') && refunded.greaterThan('18'), payment.refundAmount!).to.equal(true);
    // On the chain: one USDC transfer from the hot wallet to the sender of exactly that amount; nothing in USDT.
    const receipt = await devnet.anvil.client.getTransactionReceipt({ hash: payment.refundTxHash as Hex });
    expect(receipt.status).to.equal('success');
    const transfers = receipt.logs.map((log) => ({ token: log.address.toLowerCase(), ...decodeEventLog({ abi: erc20Abi, ...log }) }));
    expect(transfers).to.have.length(1);
    expect(transfers[0].token).to.equal(usdc.toLowerCase());
    const args = transfers[0].args as { from: string; to: string; value: bigint };
    expect(args.from.toLowerCase()).to.equal(devnet.hotWallet.toLowerCase());
    expect(args.to.toLowerCase()).to.equal(customer.address.toLowerCase());
    expect(formatUnits(args.value, 6)).to.equal(refunded.toFixed());
    expect(await devnet.tokenBalance(usdc, customer.address)).to.equal(new Decimal(10).plus(refunded).toFixed());
    expect(new Decimal(await devnet.tokenBalance(usdc, devnet.hotWallet)).toFixed()).to.equal(hotBefore.minus(refunded).toFixed());
    expect(after.status, 'a USDC payment is never the USDT deposit').to.equal('waiting');
    console.log(
      `      20 USDC to USDT swap ${order.id}: returned ${payment.refundAmount} USDC to ${customer.address} in ${receipt.transactionHash}`,
    );
  });

  it('returns a payment to a swap address after the swap was refunded, listed with its asset; the swap still refunded', async () => {
    const refundAddress = await devnet.litecoin.call<string>('getnewaddress', ['', 'bech32'], devnet.wallets.customer);
    const fixed = { ...ltcToUsdt('0.5', refundAddress), rateType: 'fixed' };
    const { order } = await client.create(fixed as ReturnType<typeof ltcToUsdt>, {
      destinationAddress: privateKeyToAccount(generatePrivateKey()).address,
    });
    const ready = await client.waitFor(order.id, (o) => typeof o.depositAddress === 'string', 30_000);
    const address = ready.order.depositAddress!;
    // Another amount than the fixed deposit: refunded (amount_mismatch).
    await devnet.payLtc(address, '0.4');
    await devnet.mineLtc(1);
    const { order: refunded } = await client.waitFor(order.id, (o) => o.status === 'refunded', 60_000);
    expect(refunded.failureCode).to.equal('amount_mismatch');

    const late = await devnet.payLtc(address, '0.3');
    await devnet.mineLtc(1);
    const { order: after } = await client.waitFor(
      order.id,
      (o) => o.deposits?.some((d) => d.txHash === late && d.status === 'refunded') === true,
      60_000,
    );
    const payment = after.deposits!.find((d) => d.txHash === late)!;
    expect(payment).to.include({ asset: 'LTC', network: 'LTC', role: 'extra', amount: '0.3', status: 'refunded' });
    expect(after.status).to.equal('refunded');
    // The refund address got both refunds, each less LTC's network fee.
    await devnet.mineLtc(1);
    const received = await devnet.litecoin.call<string | number>('getreceivedbyaddress', [refundAddress, 0], devnet.wallets.customer);
    expect(new Decimal(received).toFixed()).to.equal(new Decimal(refunded.refundAmount!).plus(payment.refundAmount!).toFixed());
    console.log(`      0.3 LTC after the swap was refunded: listed (asset LTC) and returned, ${payment.refundAmount} LTC`);
  });
});
