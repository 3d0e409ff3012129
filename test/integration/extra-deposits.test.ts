import { expect } from 'chai';
import type { SwapUpdatedEvent } from '../../sdk/src/webhooks.js';
import type { RatesAdapter } from '../../server/adapters/rates.js';
import { loadSandboxCatalog } from '../../server/adapters/sandbox/catalog.js';
import { findAsset } from '../../server/domain/catalog.js';
import { formatUp, Money } from '../../server/domain/money.js';
import { expectError, readJson } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { signedFetch } from '../support/signer.js';
import type { SandboxPayment } from '../support/chain.js';
import { openStream } from '../support/sse.js';
import { btcToUsdt, swapClient, type Swap, type SwapEvent } from '../support/swaps.js';
import { createReceiver, LOCAL_RECEIVER_ENV, type Receiver } from '../support/webhook-receiver.js';

// Blocks slow enough that a payment is seen confirming before it is refunded (BTC: 2 confirmations, LTC: 6).
const BLOCK_SECONDS = '0.2';
const BTC_REFUND_ADDRESS = 'bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh';
const XRP_REFUND_ADDRESS = 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh';
// Prices fixed at the catalogue's reference, so a refund's amount is known: the payment less its network's
// payout fee at that price, rounded up to the asset's places (LTC 0.10 USD at 81.30: 0.00123002 LTC; BTC 2.00
// USD at 68250: 0.00002931 BTC; XRP 0.05 USD at 0.552: 0.09058 XRP).
const catalog = loadSandboxCatalog();
const fixedRates: RatesAdapter = { priceUsd: async (symbol, network) => new Money(findAsset(catalog, symbol, network)!.priceUsd) };

/** A sandbox server with `blockSeconds` blocks, a partner of its own, and a local receiver of its webhooks. */
async function startWithReceiver(blockSeconds: string, partnerName: string) {
  const server = await startTestServer({
    env: { ...LOCAL_RECEIVER_ENV, SANDBOX_BLOCK_SECONDS: blockSeconds },
    deps: { rates: fixedRates },
  });
  const signer = await server.createSigner(partnerName);
  const receiver = await createReceiver();
  await receiver.listen();
  const res = await readJson(signedFetch(server.origin, signer, 'PUT', '/api/v1/partner/webhook', { url: receiver.url }));
  expect(res.status, res.text).to.equal(200);
  return { server, client: swapClient(server.origin, signer), receiver };
}

// docs/architecture.md#every-payment-accounted-for: every payment to a swap's deposit address is accounted for. A payment other than the swap's
// own is an extra deposit: listed in `deposits`, returned once confirmed, the swap's status unchanged, and
// `retryable` false while it is unresolved; each change is announced by `swap.updated`.
describe('extra deposits: every payment to a swap address is listed and returned', function () {
  this.timeout(60_000);
  let server: TestServer;
  let client: ReturnType<typeof swapClient>;
  let receiver: Receiver;

  before(async () => {
    ({ server, client, receiver } = await startWithReceiver(BLOCK_SECONDS, 'Extra deposits'));
  });
  after(async () => {
    await receiver.close();
    await server.close();
  });

  const paid = async (order: Swap, amount?: string) => (await client.pay(order, amount)).body as SandboxPayment;
  const sandbox = (path: string, body: unknown) => client.send<{ order: Swap }>('POST', `/api/v1/sandbox/swaps/${path}`, body);
  const extraOf = (order: Swap, txHash: string) => order.deposits?.find((d) => d.txHash === txHash);

  // The swap.updated orders the receiver got for swap `id`.
  const announced = (id: string) =>
    receiver.received
      .map((d) => JSON.parse(d.body) as SwapUpdatedEvent)
      .filter((e) => e.type === 'swap.updated' && e.data.order.id === id)
      .map((e) => e.data.order as Swap);

  // Waits until the extra payment `txHash` is refunded, then checks what every such payment must show: in
  // `deposits` as an extra, refunded with the refund's hash and `refunded` (the payment less the network fee);
  // the refund on the chain once, of that amount, to `destination`; webhooks that carried it unresolved (with
  // retryable false) and refunded.
  async function expectRefundedExtra(
    order: Swap,
    payment: SandboxPayment,
    destination: { address: string; memo: string | null } | 'sender',
    refunded: string,
  ) {
    const { order: after, events } = await client.waitFor(order.id, (o) => extraOf(o, payment.txHash)?.status === 'refunded');
    const extra = extraOf(after, payment.txHash)!;
    expect(extra).to.include({ role: 'extra', status: 'refunded', amount: payment.amount, refundAmount: refunded, outputIndex: 0 });
    expect(extra.refundTxHash).to.match(/^[0-9a-zA-Z]+$/);

    const refunds = await server.knex('sandbox_payouts').where({ idempotency_key: `${order.id}:extra:${payment.txHash}:0` });
    expect(refunds.map((r) => r.tx_hash)).to.deep.equal([extra.refundTxHash]);
    expect(new Money(refunds[0].amount).toFixed()).to.equal(refunded);
    const expected =
      destination === 'sender'
        ? {
            address: (await server.knex('sandbox_transactions').where({ tx_hash: payment.txHash }).first()).from_address as string,
            memo: null,
          }
        : destination;
    expect({ address: refunds[0].address, memo: refunds[0].memo }).to.deep.equal(expected);

    await receiver.waitFor(() => announced(order.id).some((o) => extraOf(o, payment.txHash)?.status === 'refunded'));
    const unresolved = announced(order.id).filter((o) => ['confirming', 'refunding'].includes(extraOf(o, payment.txHash)?.status ?? ''));
    expect(unresolved, 'a swap.updated while the extra was unresolved').to.not.be.empty;
    for (const o of unresolved) expect(o.retryable).to.equal(false);
    return { after, events };
  }

  // Every payment the sandbox chain holds for the swap's address is listed in its deposits.
  async function expectNoPaymentLost(id: string) {
    const { order } = await client.get(id);
    const payments = await server.knex('sandbox_transactions').where({ address: order.depositAddress });
    expect(payments).to.not.be.empty;
    expect(order.deposits!.map((d) => d.txHash)).to.include.members(payments.map((p) => p.tx_hash as string));
  }

  it('lists a second payment made before the swap credited its deposit as an extra and returns it to the sender', async () => {
    const { order } = await client.create(btcToUsdt('1', { sourceAsset: 'LTC', sourceNetwork: 'LTC', rateType: 'fixed' }));
    const first = await paid(order);
    // At once: the first payment needs 6 blocks (1.2 s) before the swap credits it.
    const second = await paid(order, '0.3');
    const { order: meanwhile } = await client.get(order.id);
    expect(meanwhile.status).to.be.oneOf(['waiting', 'confirming']);
    // 0.3 LTC less 0.00123002.
    await expectRefundedExtra(order, second, 'sender', '0.29876998');
    const { order: done } = await client.waitFor(order.id, (o) => o.terminal);
    expect(done).to.include({ status: 'finished', sourceTxHash: first.txHash, actualOutputAmount: order.expectedOutputAmount });
    expect(done.deposits!.map((d) => [d.txHash, d.role, d.status])).to.deep.equal([
      [first.txHash, 'swap', 'credited'],
      [second.txHash, 'extra', 'refunded'],
    ]);
    await expectNoPaymentLost(order.id);
  });

  it('lists payments of other assets to a token swap address with their asset, and returns each to its sender in it', async () => {
    const { order } = await client.create(
      btcToUsdt('250', { sourceAsset: 'USDT', sourceNetwork: 'ETH', destinationAsset: 'BTC', destinationNetwork: 'BTC' }),
      {
        destinationAddress: BTC_REFUND_ADDRESS,
      },
    );
    const ready = await client.waitFor(order.id, (o) => !!o.depositAddress);
    const pay = async (asset: string, amount: string) => {
      const res = await client.send('POST', '/api/v1/sandbox/deposits', {
        address: ready.order.depositAddress,
        asset,
        network: 'ETH',
        amount,
      });
      expect(res.status, res.text).to.equal(202);
      return res.body as SandboxPayment;
    };
    const usdc = await pay('USDC', '40');
    const eth = await pay('ETH', '0.5');
    // Each less ETH's network payout fee (1.50 USD) at its own price: 1.5 USDC; 1.50 / 3410.50 ETH, rounded up.
    const ethFee = formatUp(new Money('1.50').div('3410.50'), findAsset(catalog, 'ETH', 'ETH')!.precision);
    await expectRefundedExtra(order, usdc, 'sender', '38.5');
    await expectRefundedExtra(order, eth, 'sender', new Money('0.5').minus(ethFee).toFixed());
    const { order: after } = await client.get(order.id);
    expect(after.status, 'the swap never took them for its deposit').to.be.oneOf(['waiting', 'overdue']);
    expect(after.deposits!.map((d) => [d.asset, d.network, d.role, d.status])).to.deep.equal([
      ['USDC', 'ETH', 'extra', 'refunded'],
      ['ETH', 'ETH', 'extra', 'refunded'],
    ]);
    const refunds = await server.knex('sandbox_payouts').where('idempotency_key', 'like', `${order.id}:extra:%`).orderBy('amount');
    expect(refunds.map((r) => r.asset)).to.have.members(['USDC', 'ETH']);
    await expectNoPaymentLost(order.id);
  });

  it('returns a payment made after the swap expired, the swap still expired and retryable once it is refunded', async () => {
    const { order } = await client.create(btcToUsdt('0.015', { rateType: 'fixed' }));
    await client.waitFor(order.id, (o) => !!o.depositAddress);
    expect((await sandbox(`${order.id}/clock`, { deadline: 'deposit' })).body.order.status).to.equal('overdue');
    const expired = await sandbox(`${order.id}/clock`, { deadline: 'expiry' });
    expect(expired.body.order).to.include({ status: 'expired', retryable: true });
    const { events: before } = await client.get(order.id);

    const late = await paid(order);
    // 0.015 BTC less 0.00002931.
    const { after, events } = await expectRefundedExtra(order, late, 'sender', '0.01497069');
    expect(after).to.include({ status: 'expired', terminal: true, sourceTxHash: null, retryable: true });
    expect(after.deposits!.map((d) => [d.txHash, d.role, d.status])).to.deep.equal([[late.txHash, 'extra', 'refunded']]);
    // The timeline is unchanged: the extra deposit is no status change.
    expect(events.map((e) => e.id)).to.deep.equal(before.map((e) => e.id));
    // While the payment was unresolved the expired swap was not retryable; refunded, it is again.
    const announcedOrders = announced(order.id);
    expect(
      announcedOrders.some(
        (o) =>
          o.status === 'expired' && ['confirming', 'refunding'].includes(extraOf(o, late.txHash)?.status ?? '') && o.retryable === false,
      ),
    ).to.equal(true);
    expect(
      announcedOrders.some((o) => o.status === 'expired' && extraOf(o, late.txHash)?.status === 'refunded' && o.retryable === true),
    ).to.equal(true);
    await expectNoPaymentLost(order.id);
  });

  it('returns a payment made after the swap finished to its refund address, the swap still finished', async () => {
    const { order } = await client.create(
      btcToUsdt('0.015', { rateType: 'fixed', refundMode: 'address', refundAddress: BTC_REFUND_ADDRESS }),
    );
    const first = await paid(order);
    const { order: done, events: before } = await client.waitFor(order.id, (o) => o.terminal);
    expect(done.status).to.equal('finished');

    const late = await paid(order, '0.002');
    const { after, events } = await expectRefundedExtra(order, late, { address: BTC_REFUND_ADDRESS, memo: null }, '0.00197069');
    expect(after).to.include({ status: 'finished', sourceTxHash: first.txHash, settlementTxHash: done.settlementTxHash, retryable: false });
    expect(after.deposits!.map((d) => [d.txHash, d.role, d.status])).to.deep.equal([
      [first.txHash, 'swap', 'credited'],
      [late.txHash, 'extra', 'refunded'],
    ]);
    expect(events.map((e) => e.id)).to.deep.equal(before.map((e) => e.id));
    // The swap's own payout is still the only one to its destination.
    const payouts = await server.knex('sandbox_payouts').where('idempotency_key', 'like', `${order.id}:%`).orderBy('idempotency_key');
    expect(payouts.map((p) => p.idempotency_key)).to.deep.equal([`${order.id}:extra:${late.txHash}:0`, `${order.id}:payout`]);
    await expectNoPaymentLost(order.id);
  });

  it('returns an extra payment on a memo network (XRP) to the refund address with its memo', async () => {
    const { order } = await client.create(
      btcToUsdt('50', {
        sourceAsset: 'XRP',
        sourceNetwork: 'XRP',
        rateType: 'fixed',
        refundMode: 'address',
        refundAddress: XRP_REFUND_ADDRESS,
        refundMemo: '12345',
      }),
    );
    const first = await paid(order);
    await client.waitFor(order.id, (o) => o.terminal);
    const late = await paid(order, '5');
    // 5 XRP less 0.09058.
    const { after } = await expectRefundedExtra(order, late, { address: XRP_REFUND_ADDRESS, memo: '12345' }, '4.90942');
    expect(after).to.include({ status: 'finished', sourceTxHash: first.txHash });
    await expectNoPaymentLost(order.id);
  });

  // The path to an extra deposit held for an operator (no safe destination) needs refundMode sender on a memo
  // network, which the quote refuses (docs/architecture.md#every-payment-accounted-for): over HTTP no swap can reach it.
  it('cannot reach an extra in review over HTTP: refundMode sender on a memo network is refused at the quote', async () => {
    for (const network of ['XRP', 'TON']) {
      const res = await client.send(
        'POST',
        '/api/v1/quotes',
        btcToUsdt(network === 'XRP' ? '50' : '10', { sourceAsset: network, sourceNetwork: network }),
      );
      expectError(res, 400, 'invalid_refund_address');
    }
  });
});

// docs/architecture.md#lifecycle: a timeline entry records `retryable` as the swap had it, so an entry recorded while a payment
// was unresolved says false, whatever its status, in every place it is read: `GET /swaps/{id}`, the stream
// and the webhook. Slower blocks than above, so the second payment is still confirming when the swap's own
// deposit has been refunded.
describe('extra deposits: a refunded swap with an unresolved payment is not retryable, in its timeline too', function () {
  this.timeout(60_000);
  let server: TestServer;
  let client: ReturnType<typeof swapClient>;
  let receiver: Receiver;

  before(async () => {
    ({ server, client, receiver } = await startWithReceiver('1', 'Retryable entries'));
  });
  after(async () => {
    await receiver.close();
    await server.close();
  });

  it('records the refunded entry with retryable false while an extra payment confirms, and the order turns retryable once it is returned', async () => {
    const { order, accessToken } = await client.create(btcToUsdt('1', { sourceAsset: 'LTC', sourceNetwork: 'LTC', rateType: 'fixed' }));
    // Another amount than the fixed swap's: refunded (amount_mismatch) once it has its 6 confirmations.
    const own = (await client.pay(order, '0.9')).body as SandboxPayment;
    const ownOf = (o: Swap) => o.deposits?.find((d) => d.txHash === own.txHash);
    await client.waitFor(order.id, (o) => (ownOf(o)?.confirmationCount ?? 0) >= 3);
    // The second payment needs 6 blocks of its own; the swap's deposit at most 3 more.
    const extra = (await client.pay(order, '0.2')).body as SandboxPayment;
    const extraOf = (o: Swap) => o.deposits?.find((d) => d.txHash === extra.txHash);

    const { order: refunded, events } = await client.waitFor(order.id, (o) => o.status === 'refunded');
    expect(extraOf(refunded)?.status, 'the extra payment is still unresolved').to.be.oneOf(['confirming', 'refunding']);
    // 0.9 LTC less the 0.00123002 LTC network fee.
    expect(refunded).to.include({
      status: 'refunded',
      terminal: true,
      failureCode: 'amount_mismatch',
      retryable: false,
      refundAmount: '0.89876998',
    });
    const entry = events.find((e) => e.status === 'refunded')!;
    expect(entry).to.include({ terminal: true, retryable: false });

    // The stream replays the same entry (and closes after it: it is terminal).
    const stream = await openStream(`${server.origin}/api/v1/swaps/${order.id}/stream`, { authorization: `Bearer ${accessToken}` });
    expect(stream.status).to.equal(200);
    await stream.ended;
    const streamed = stream.messages.filter((m) => m.event === 'status').map((m) => JSON.parse(m.data) as SwapEvent);
    expect(streamed.find((e) => e.id === entry.id)).to.deep.equal(entry);

    // The webhook that announced the entry carries it, and an order that is not retryable.
    const announcedEntry = () =>
      receiver.received
        .map((d) => JSON.parse(d.body) as SwapUpdatedEvent)
        .find((e) => e.type === 'swap.updated' && e.data.event?.id === entry.id);
    await receiver.waitFor(() => announcedEntry() !== undefined);
    expect(announcedEntry()!.data.event).to.deep.equal(entry);
    expect(announcedEntry()!.data.order).to.include({ status: 'refunded', retryable: false });

    // Returned, the extra payment holds nothing: the order is retryable; the entry keeps what it recorded.
    const { order: after, events: later } = await client.waitFor(order.id, (o) => extraOf(o)?.status === 'refunded');
    expect(after).to.include({ status: 'refunded', retryable: true, refundAmount: '0.89876998' });
    expect(extraOf(after)).to.include({ amount: '0.2', refundAmount: '0.19876998' });
    expect(later.map((e) => e.id)).to.deep.equal(events.map((e) => e.id));
    expect(later.find((e) => e.id === entry.id)).to.include({ retryable: false });
  });
});
