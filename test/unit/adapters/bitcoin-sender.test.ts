import { expect } from 'chai';
import { AmbiguousBroadcastError, type PayoutOrder } from '../../../server/adapters/chain.js';
import { createBitcoinAdapters, parseBitcoinParams } from '../../../server/adapters/bitcoin/index.js';
import { RpcError, RpcTransportError } from '../../../server/adapters/bitcoin/rpc.js';

const TPUB = 'tpubDDNRbZGvdA33cgpY5uy2mmphT7sK4uciRjcQScSd64S5KRyZDxHcPuzs24or84Hywugb2JbEEt2jWH8fduiN9cmZzkSj8sSSx6txXkhXyZs';
const SIGNED = { txHash: 'ab'.repeat(32), bytes: '0200' };
const ORDER = { key: 'k', swapId: 's', asset: { network: 'LTC' }, address: 'rltc1q', memo: null, amount: '1' } as unknown as PayoutOrder;

/** A sender whose node answers every call with `answer(method)`: a JSON-RPC body, or a thrown fetch error. */
function senderAnswering(answer: (method: string) => { error?: { code: number; message: string }; result?: unknown } | Error) {
  const fetch: typeof globalThis.fetch = async (_url, init) => {
    const { method } = JSON.parse(String(init!.body)) as { method: string };
    const body = answer(method);
    if (body instanceof Error) throw body;
    return new Response(JSON.stringify({ result: null, error: null, id: 1, ...body }), { status: body.error ? 500 : 200 });
  };
  return createBitcoinAdapters({
    network: 'LTC',
    rpcUrl: 'http://u:p@127.0.0.1:1/wallet/watch',
    signerRpcUrl: 'http://u:p@127.0.0.1:1/wallet/signer',
    xpub: TPUB,
    params: parseBitcoinParams('LTC', 'regtest'),
    payoutConfirmations: 1,
    fallbackFeeRate: '0.0001',
    fetch,
  }).sender;
}

const sendrawtransactionFails = (error: { code: number; message: string }, others: Record<string, unknown> = {}) =>
  senderAnswering((method) => {
    if (method === 'sendrawtransaction') return { error };
    if (method === 'decoderawtransaction') return { result: { txid: SIGNED.txHash, vin: [] } };
    if (method in others) return others[method] as { result: unknown };
    return { error: { code: -32601, message: `unexpected ${method}` } };
  });

describe('bitcoin adapters: the sender', () => {
  describe('.broadcast(order, signed)', () => {
    it('accepts a transaction the chain already has (-27)', async () => {
      const sender = sendrawtransactionFails({ code: -27, message: 'Transaction already in block chain' });
      expect(await sender.broadcast(ORDER, SIGNED)).to.deep.equal({ kind: 'accepted' });
    });

    it('accepts missing inputs when the wallet knows the transaction mined', async () => {
      const sender = sendrawtransactionFails(
        { code: -25, message: 'bad-txns-inputs-missingorspent' },
        { gettransaction: { result: { confirmations: 3 } } },
      );
      expect(await sender.broadcast(ORDER, SIGNED)).to.deep.equal({ kind: 'accepted' });
    });

    it('rejects missing inputs when the wallet does not know the transaction', async () => {
      const sender = sendrawtransactionFails(
        { code: -25, message: 'bad-txns-inputs-missingorspent' },
        { gettransaction: { error: { code: -5, message: 'Invalid or non-wallet transaction id' } } },
      );
      expect((await sender.broadcast(ORDER, SIGNED)).kind).to.equal('rejected');
    });

    it('rejects what the mempool refused (-26)', async () => {
      const sender = sendrawtransactionFails({ code: -26, message: 'min relay fee not met' });
      expect(await sender.broadcast(ORDER, SIGNED))
        .to.have.property('reason')
        .that.matches(/min relay fee not met/);
    });

    it('calls an unknown error ambiguous', async () => {
      const sender = sendrawtransactionFails({ code: -1, message: 'something else' });
      const err = await sender.broadcast(ORDER, SIGNED).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(AmbiguousBroadcastError);
    });

    it('calls a timeout ambiguous', async () => {
      const sender = senderAnswering(() => Object.assign(new Error('timed out'), { name: 'TimeoutError' }));
      const err = await sender.broadcast(ORDER, SIGNED).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(AmbiguousBroadcastError);
    });

    it('throws a refused connection as a plain transport error (nothing reached the node: retried)', async () => {
      const sender = senderAnswering(
        () => new TypeError('fetch failed', { cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) }),
      );
      const err = await sender.broadcast(ORDER, SIGNED).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(RpcTransportError).and.not.be.instanceOf(AmbiguousBroadcastError);
    });

    it('throws a node still starting (-28) as it is (retried)', async () => {
      const sender = sendrawtransactionFails({ code: -28, message: 'Loading block index...' });
      const err = await sender.broadcast(ORDER, SIGNED).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(RpcError).and.to.include({ code: -28 });
    });
  });
});
