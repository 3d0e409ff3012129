import { expect } from 'chai';
import { Decimal } from 'decimal.js';
import type { AddressRequest, ChainScan, NetworkAdapters, ScanCursor } from '../../server/adapters/chain.js';
import { createBitcoinAdapters, parseBitcoinParams } from '../../server/adapters/bitcoin/index.js';
import { parseAccountKey } from '../../server/adapters/bitcoin/keys.js';
import { parseRpcBody, RpcError } from '../../server/adapters/bitcoin/rpc.js';
import type { CatalogAsset } from '../../server/domain/catalog.js';
import {
  connectNodes,
  createWallets,
  disconnectNodes,
  litecoindMissing,
  startLitecoind,
  testAccount,
  waitForSameTip,
  type LitecoinNode,
  type TestWallets,
} from '../support/litecoind.js';

const LTC: CatalogAsset = {
  symbol: 'LTC',
  name: 'Litecoin',
  network: 'LTC',
  precision: 8,
  priceUsd: '80',
  driftPercent: '0',
  dustFloor: '0.0001',
  fixedRate: true,
};
const REGTEST = parseBitcoinParams('LTC', 'regtest');
const FALLBACK_FEE_RATE = '0.0001';
const account = testAccount();
const requestOf = (key: string, index: number): AddressRequest => ({ key, index: async () => index });
const cursorOf = (scan: ChainScan): ScanCursor => ({ tip: scan.tip, position: scan.position });

function skipWithoutLitecoind(this: Mocha.Context) {
  if (litecoindMissing) {
    console.log(`      skipped: ${litecoindMissing}`);
    this.skip();
  }
}

/** A node with the three wallets, 101 blocks mined to the customer (50 LTC spendable), and adapters over it. */
async function startFunded(options: { fetch?: typeof fetch } = {}) {
  const node = await startLitecoind();
  const wallets = await createWallets(node, account);
  await node.mine(101, wallets.customerAddress);
  return { node, wallets, adapters: adaptersOf(node, wallets, options) };
}

function adaptersOf(node: LitecoinNode, wallets: TestWallets, options: { fetch?: typeof fetch } = {}): NetworkAdapters {
  return createBitcoinAdapters({
    network: 'LTC',
    rpcUrl: node.url(wallets.watch),
    signerRpcUrl: node.url(wallets.signer),
    xpub: account.tpub,
    params: REGTEST,
    payoutConfirmations: 1,
    fallbackFeeRate: FALLBACK_FEE_RATE,
    fetch: options.fetch,
  });
}

describe('bitcoin adapters: keys and parsing (no node)', () => {
  it('derives the first BIP84 receive and change addresses of the published "abandon ... about" zpub', () => {
    const zpub = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
    const key = parseAccountKey(zpub, parseBitcoinParams('BTC'));
    const receive = key.derive(0, 0);
    expect(receive.address).to.equal('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    expect(Buffer.from(receive.publicKey).toString('hex')).to.equal('0330d54fd0dd420a6e5f8d3624f5f3482cae350f79d5f0753bf5beef9c2d91af3c');
    expect(key.derive(1, 0).address).to.equal('bc1q8c6fshw2dlwun7ekn9qwf37cu2rn755upcp6el');
  });

  it('refuses a mainnet key on regtest and a private key anywhere', () => {
    const zpub = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
    expect(() => parseAccountKey(zpub, REGTEST)).to.throw(/not a public key of this chain/);
    expect(() => parseAccountKey(account.tprv, REGTEST)).to.throw(/not a public key of this chain/);
  });

  it('reads amounts as exact decimal strings and integers as numbers', () => {
    const body = parseRpcBody('{"result":{"amount":20999999.99999999,"fee":-0.00001410,"confirmations":3},"error":null}');
    expect(body).to.deep.equal({ result: { amount: '20999999.99999999', fee: '-0.00001410', confirmations: 3 }, error: null });
  });
});

describe('bitcoin adapters against litecoind (regtest)', function () {
  this.timeout(120_000);

  describe('one funded node', () => {
    let node: LitecoinNode;
    let wallets: TestWallets;
    let adapters: NetworkAdapters;
    let rpcCalls = 0;
    const countingFetch: typeof fetch = (input, init) => {
      rpcCalls++;
      return fetch(input, init);
    };

    before(async function () {
      skipWithoutLitecoind.call(this);
      ({ node, wallets, adapters } = await startFunded({ fetch: countingFetch }));
    });
    after(async () => node?.stop());

    const customerPays = (address: string, amount: string) => node.call<string>('sendtoaddress', [address, amount], wallets.customer);
    const mine = (blocks = 1) => node.mine(blocks, wallets.customerAddress);

    it('gives the address the signer derives from the tprv, imported watch-only, and asks the node nothing the second time', async () => {
      const { address, memo } = await adapters.addresses.depositAddress(LTC, requestOf('swap-a', 7));
      expect(memo).to.equal(null);
      expect(address).to.match(/^rltc1q/);
      const watched = await node.call<{ iswatchonly: boolean; ismine: boolean; pubkey: string }>(
        'getaddressinfo',
        [address],
        wallets.watch,
      );
      expect(watched.iswatchonly).to.equal(true);
      expect(watched.pubkey).to.equal(Buffer.from(parseAccountKey(account.tpub, REGTEST).derive(0, 7).publicKey).toString('hex'));
      const signed = await node.call<{ ismine: boolean; hdkeypath?: string }>('getaddressinfo', [address], wallets.signer);
      expect(signed.ismine).to.equal(true);

      const before = rpcCalls;
      expect((await adapters.addresses.depositAddress(LTC, requestOf('swap-a', 7))).address).to.equal(address);
      expect(rpcCalls).to.equal(before);
      // Another instance (nothing cached): one getaddressinfo, no second import.
      const fresh = adaptersOf(node, wallets, { fetch: countingFetch });
      const beforeFresh = rpcCalls;
      expect((await fresh.addresses.depositAddress(LTC, requestOf('swap-a', 7))).address).to.equal(address);
      expect(rpcCalls - beforeFresh).to.equal(1);
    });

    it('sees a payment unconfirmed, then in its block, with confirmations counted from heights', async () => {
      const { address } = await adapters.addresses.depositAddress(LTC, requestOf('swap-b', 8));
      const start = await adapters.watcher.scan(null, async () => new Set());
      const txid = await customerPays(address, '1.25');

      const unconfirmed = await adapters.watcher.scan(cursorOf(start), async () => new Set());
      const seen = unconfirmed.outputs.find((o) => o.txHash === txid);
      expect(seen).to.include({ address, amount: '1.25', asset: 'LTC', block: null, memo: null, fromAddress: null });

      const [blockHash] = await mine(1);
      const mined = await adapters.watcher.scan(cursorOf(unconfirmed), async () => new Set());
      const inBlock = mined.outputs.find((o) => o.txHash === txid)!;
      expect(inBlock.block).to.deep.equal({ height: unconfirmed.tip.height + 1, hash: blockHash });
      expect(mined.tip).to.deep.equal(inBlock.block);
      expect(mined.position).to.equal(blockHash);
      expect(mined.removed).to.deep.equal([]);

      await mine(2);
      const later = await adapters.watcher.scan(cursorOf(mined), async () => new Set());
      expect(later.outputs.map((o) => o.txHash)).not.to.include(txid);
      expect(later.tip.height - inBlock.block!.height + 1).to.equal(3);
      const tip = await adapters.watcher.tip();
      expect(tip).to.include({ height: later.tip.height, hash: later.tip.hash });
      expect(tip.time).to.be.instanceOf(Date);
    });

    it('tells spendable from the watch-only balance and the fee from the fallback rate while regtest has no estimate', async () => {
      const balances = await node.call<{ watchonly: { trusted: string } }>('getbalances', [], wallets.watch);
      expect(balances.watchonly.trusted).to.equal('1.25000000');
      expect(await adapters.sender.spendable(LTC)).to.equal('1.25');
      // 0.0001 LTC per 1000 vB times a 209 vB payout.
      expect(await adapters.sender.feeEstimate(LTC)).to.equal('0.0000209');
    });

    it('pays out once: prepare, broadcast, mined, the same bytes again accepted (-27) and no second payment', async () => {
      const to = await node.call<string>('getnewaddress', ['', 'bech32'], wallets.customer);
      const order = { key: 'swap-b:payout', swapId: 'swap-b', asset: LTC, address: to, memo: null, amount: '0.5' };
      const signed = await adapters.sender.prepare(order);
      const decoded = await node.call<{ txid: string }>('decoderawtransaction', [signed.bytes]);
      expect(decoded.txid).to.equal(signed.txHash);
      expect(await node.call<unknown[]>('listlockunspent', [], wallets.watch)).to.have.length(1);

      expect(await adapters.sender.broadcast(order, signed)).to.deep.equal({ kind: 'accepted' });
      // Again while in the mempool.
      expect(await adapters.sender.broadcast(order, signed)).to.deep.equal({ kind: 'accepted' });
      const before = await adapters.watcher.scan(null, async () => new Set());
      expect(before.payouts.find((p) => p.txHash === signed.txHash)).to.deep.equal({ txHash: signed.txHash, block: null });

      const [blockHash] = await mine(1);
      const after = await adapters.watcher.scan(cursorOf(before), async () => new Set());
      expect(after.payouts).to.deep.equal([{ txHash: signed.txHash, block: { height: before.tip.height + 1, hash: blockHash } }]);
      // The change (1/0, imported as internal) is no deposit.
      expect(after.outputs).to.deep.equal([]);

      // The node's answer now: an output of it is in the UTXO set.
      const again = await node.call('sendrawtransaction', [signed.bytes]).catch((err: unknown) => err);
      expect(again).to.be.instanceOf(RpcError).and.to.include({ code: -27 });
      expect(await adapters.sender.broadcast(order, signed)).to.deep.equal({ kind: 'accepted' });
      await mine(1);
      expect(await node.call<string>('getreceivedbyaddress', [to, 0], wallets.customer)).to.equal('0.50000000');
    });

    it('calls a payout whose inputs another payout spent rejected, in the mempool and once mined, and releases its locks', async () => {
      const to = await node.call<string>('getnewaddress', ['', 'bech32'], wallets.customer);
      const first = { key: 'swap-c:payout', swapId: 'swap-c', asset: LTC, address: to, memo: null, amount: '0.1' };
      const loser = await adapters.sender.prepare(first);
      // Another payout that needs every coin the wallet has, the first one's included.
      await node.call('lockunspent', [true], wallets.watch);
      const all = await adapters.sender.spendable(LTC);
      const second = { ...first, key: 'swap-d:payout', swapId: 'swap-d', amount: new Decimal(all).minus('0.01').toFixed() };
      const winner = await adapters.sender.prepare(second);
      expect(await adapters.sender.broadcast(second, winner)).to.deep.equal({ kind: 'accepted' });

      const inMempool = await adapters.sender.broadcast(first, loser);
      expect(inMempool.kind).to.equal('rejected');
      expect(inMempool)
        .to.have.property('reason')
        .that.matches(/txn-mempool-conflict/);

      await mine(1);
      const mined = await adapters.sender.broadcast(first, loser);
      expect(mined.kind).to.equal('rejected');
      expect(mined)
        .to.have.property('reason')
        .that.matches(/inputs missing or spent/);
      expect(await node.call<unknown[]>('listlockunspent', [], wallets.watch)).to.deep.equal([]);
    });
  });

  describe('a reorganisation on two nodes', () => {
    let a: LitecoinNode;
    let b: LitecoinNode;

    before(async function () {
      skipWithoutLitecoind.call(this);
    });
    after(async () => Promise.all([a?.stop(), b?.stop()]));

    it('reports a deposit removed when a double-spend on a longer branch replaces its block', async () => {
      const started = await startFunded();
      a = started.node;
      const { wallets, adapters } = started;
      b = await startLitecoind();
      await connectNodes(a, b);

      const { address } = await adapters.addresses.depositAddress(LTC, requestOf('swap-r', 1));
      const [coin] = await a.call<Array<{ txid: string; vout: number; amount: string }>>('listunspent', [], wallets.customer);
      const change = await a.call<string>('getnewaddress', ['', 'bech32'], wallets.customer);
      const signedSpend = async (outputs: Array<Record<string, string>>) => {
        const raw = await a.call<string>('createrawtransaction', [[{ txid: coin!.txid, vout: coin!.vout }], outputs]);
        return (await a.call<{ hex: string }>('signrawtransactionwithwallet', [raw], wallets.customer)).hex;
      };
      const deposit = await signedSpend([{ [address]: '1' }, { [change]: '48.999' }]);
      const doubleSpend = await signedSpend([{ [change]: '49.999' }]);

      await disconnectNodes(a, b);
      const depositTxid = await a.call<string>('sendrawtransaction', [deposit]);
      await a.mine(1, wallets.customerAddress);
      const seen = await adapters.watcher.scan(null, async () => new Set());
      expect(seen.outputs.find((o) => o.txHash === depositTxid)?.block).to.not.equal(null);

      await b.call('sendrawtransaction', [doubleSpend]);
      await b.mine(2, wallets.customerAddress);
      await connectNodes(a, b);
      await waitForSameTip(a, b);

      const after = await adapters.watcher.scan(cursorOf(seen), async () => new Set());
      expect(after.removed).to.deep.include({ txHash: depositTxid, outputIndex: 0 });
      expect(after.outputs.map((o) => o.txHash)).not.to.include(depositTxid);
      expect(after.tip.height).to.equal(seen.tip.height + 1);
    });
  });
});
