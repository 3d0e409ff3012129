/**
 * The Zano adapter (server/adapters/zano) against two local wallet RPC servers (test/support/zano-wallet.ts):
 * a watch-only wallet (the service's) and a signer wallet of the same account. Zano software cannot be installed
 * here; the stand-in follows the zano-docs and always runs.
 */
import { expect } from 'chai';
import type { Logger } from 'pino';
import {
  AmbiguousBroadcastError,
  type AddressRequest,
  type ChainScan,
  type NetworkAdapters,
  type ObservedOutput,
  type ScanCursor,
  type WatchFilter,
} from '../../server/adapters/chain.js';
import { loadSandboxCatalog } from '../../server/adapters/sandbox/catalog.js';
import { createZanoAdapters, depositPaymentId, ZanoRpcTransportError } from '../../server/adapters/zano/index.js';
import type { CatalogAsset } from '../../server/domain/catalog.js';
import { decodeZanoAddress } from '../../server/domain/zano-address.js';
import { FUSD_ASSET_ID, startZanoWallet, ZANO_ASSET_ID, type ZanoWallet } from '../support/zano-wallet.js';

const catalog = loadSandboxCatalog();
const asset = (symbol: string) => catalog.assets.find((a) => a.symbol === symbol && a.network === 'ZANO')!;
const ZANO = asset('ZANO');
const FUSD = asset('fUSD');
const CONFIRMATIONS = catalog.networks.ZANO!.confirmations;
const COIN = 1_000_000_000_000n;
const FUSD_UNIT = 10_000n;

const request = (key: string): AddressRequest => ({
  key,
  index: () => {
    throw new Error('a Zano address source never allocates an index');
  },
});

/** The core's side of scanning, reduced: the cursor, the watched addresses, confirmations from heights. */
class Core {
  cursor: ScanCursor | null = null;
  readonly watched = new Set<string>();
  readonly filter: WatchFilter = async (candidates) => new Set(candidates.filter((c) => this.watched.has(c)));
  constructor(private readonly adapters: NetworkAdapters) {}
  async scan(): Promise<ChainScan> {
    const scan = await this.adapters.watcher.scan(this.cursor, this.filter);
    this.cursor = { tip: scan.tip, position: scan.position };
    return scan;
  }
  confirmations(output: { block: { height: number } | null }): number {
    return output.block ? this.cursor!.tip.height - output.block.height + 1 : 0;
  }
  async address(symbol: CatalogAsset, key: string): Promise<string> {
    const { address, memo } = await this.adapters.addresses.depositAddress(symbol, request(key));
    expect(memo).to.equal(null);
    this.watched.add(address);
    return address;
  }
}

describe('Zano adapter (wallet RPC stand-in)', function () {
  let hot: ZanoWallet;
  let signer: ZanoWallet;
  let adapters: NetworkAdapters;
  let warnings: Array<{ details: Record<string, unknown>; message: string }>;
  let core: Core;

  const make = () =>
    createZanoAdapters({
      rpcUrl: hot.url,
      signerRpcUrl: signer.url,
      payoutConfirmations: CONFIRMATIONS,
      scanMs: 100,
      logger: {
        warn: (details: Record<string, unknown>, message: string) => warnings.push({ details, message }),
      } as unknown as Pick<Logger, 'warn'>,
    });

  beforeEach(async function () {
    hot = await startZanoWallet({ watchOnly: true, height: 1000 });
    signer = await startZanoWallet({ watchOnly: false, account: hot.control.account });
    warnings = [];
    adapters = make();
    core = new Core(adapters);
  });
  afterEach(async function () {
    await Promise.all([hot.close(), signer.close()]);
  });

  const calls = (wallet: ZanoWallet, method: string) => wallet.control.calls.filter((c) => c.method === method);
  const payoutOrder = (symbol: CatalogAsset, address: string, amount: string, key = 'payout-1') => ({
    key,
    swapId: 'swap-1',
    asset: symbol,
    address,
    memo: null,
    amount,
  });
  /** A recipient elsewhere: another wallet's integrated address. */
  async function recipient(): Promise<string> {
    const other = await startZanoWallet({});
    try {
      const answer = await fetch(other.url, {
        method: 'POST',
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'make_integrated_address', params: { payment_id: '0102030405060708' } }),
      });
      return ((await answer.json()) as { result: { integrated_address: string } }).result.integrated_address;
    } finally {
      await other.close();
    }
  }
  /** Funds the hot wallet with unlocked outputs. */
  function fund(amounts: Array<{ amount: bigint; assetId?: string }>): void {
    for (const a of amounts) hot.control.receive({ amount: a.amount, assetId: a.assetId, height: hot.control.height() });
    hot.control.mine(10);
  }

  describe('deposit addresses', function () {
    it('gives the same integrated address for the same request, its payment id derived from the key', async function () {
      const key = 'swap:6f1c2a9e-4c7d-4d0a-9a55-0b7c3e0c9f11';
      const first = await adapters.addresses.depositAddress(ZANO, request(key));
      const again = await adapters.addresses.depositAddress(ZANO, request(key));
      const other = await adapters.addresses.depositAddress(FUSD, request('swap:0d6a1f6e-8d63-4a43-b1b1-2f1e3c1e2a77'));
      expect(again).to.deep.equal(first);
      expect(first.memo).to.equal(null);
      expect(other.address).to.not.equal(first.address);
      const decoded = decodeZanoAddress(first.address);
      expect(decoded.kind).to.equal('integrated');
      expect(Buffer.from(decoded.paymentId!).toString('hex')).to.equal(depositPaymentId(hot.control.address, key));
      expect(Buffer.from(decoded.spendPublicKey)).to.deep.equal(Buffer.from(hot.control.account.spendPublicKey));
      expect(calls(hot, 'assets_whitelist_add').map((c) => c.params)).to.deep.equal([{ asset_id: FUSD_ASSET_ID }]);
      for (const call of calls(hot, 'make_integrated_address'))
        expect((call.params as { payment_id: string }).payment_id).to.match(/^[0-9a-f]{16}$/);
    });

    it('refuses an asset of another network', async function () {
      const ltc = { ...ZANO, symbol: 'LTC', network: 'LTC' };
      const error = await adapters.addresses.depositAddress(ltc, request('k')).then(
        () => undefined,
        (err: Error) => err,
      );
      expect(error?.message).to.match(/asked for LTC\/LTC/);
    });
  });

  describe('watcher', function () {
    it('sees an integrated-address deposit with confirmations growing as blocks are mined; another payment id is not reported', async function () {
      const address = await core.address(ZANO, 'swap:a');
      const fusdAddress = await core.address(FUSD, 'swap:b');
      const pid = depositPaymentId(hot.control.address, 'swap:a');
      const fusdPid = depositPaymentId(hot.control.address, 'swap:b');
      expect((await core.scan()).outputs).to.deep.equal([]);

      const tx = hot.control.receive({ paymentId: pid, amount: 5n * COIN + 1n });
      const stranger = hot.control.receive({ paymentId: 'ffeeddccbbaa9988', amount: 7n * COIN });
      const fusdTx = hot.control.receive({ paymentId: fusdPid, assetId: FUSD_ASSET_ID, amount: 12n * FUSD_UNIT + 5n });
      let scan = await core.scan();
      expect(scan.outputs.map((o) => o.txHash)).to.have.members([tx, fusdTx]);
      const pooled = scan.outputs.find((o) => o.txHash === tx)!;
      expect(pooled).to.include({ address, asset: 'ZANO', amount: '5.000000000001', memo: null, fromAddress: null, block: null });
      expect(scan.outputs.find((o) => o.txHash === fusdTx)).to.include({
        address: fusdAddress,
        asset: 'fUSD',
        amount: '12.0005',
        block: null,
      });
      expect(scan.outputs.some((o) => o.txHash === stranger)).to.equal(false);

      const minedAt = hot.control.mine();
      scan = await core.scan();
      const mined = scan.outputs.find((o) => o.txHash === tx)!;
      expect(mined.block?.height).to.equal(minedAt);
      expect(mined.outputIndex).to.equal(pooled.outputIndex);
      expect(core.confirmations(mined)).to.equal(1);
      expect(scan.tip.height).to.equal(minedAt);

      hot.control.mine(CONFIRMATIONS - 2);
      scan = await core.scan();
      expect(scan.outputs).to.deep.equal([]); // nothing new: the block is the same, confirmations come from the tip
      expect(core.confirmations(mined)).to.equal(CONFIRMATIONS - 1);
      hot.control.mine();
      await core.scan();
      expect(core.confirmations(mined)).to.equal(CONFIRMATIONS);
      // The wallet agrees: the output unlocks at the same count.
      expect(hot.control.balance().unlocked).to.equal(5n * COIN + 1n + 7n * COIN);
      expect(warnings).to.deep.equal([]);
      // Only the integrated addresses with a known payment id were asked about, and never the …2 or older history calls.
      for (const method of ['get_recent_txs_and_info2', 'get_recent_txs_and_info', 'search_for_transactions']) {
        expect(calls(hot, method), method).to.have.length(0);
      }
    });

    it('reports an unknown asset and an unlock_time transfer held (never to credit), and tells an operator', async function () {
      await core.address(ZANO, 'swap:c');
      const pid = depositPaymentId(hot.control.address, 'swap:c');
      await core.scan();
      const unknownAsset = 'ab'.repeat(32);
      const odd = hot.control.receive({ paymentId: pid, assetId: unknownAsset, amount: 3n * COIN, height: hot.control.height() });
      const locked = hot.control.receive({ paymentId: pid, amount: 2n * COIN, unlockTime: 5000, height: hot.control.height() });
      const fine = hot.control.receive({ paymentId: pid, amount: 1n * COIN, height: hot.control.height() });
      const scan = await core.scan();
      expect(scan.outputs.map((o) => o.txHash)).to.have.members([odd, locked, fine]);
      const reported = (hash: string) => scan.outputs.find((o) => o.txHash === hash)!;
      expect(reported(fine).heldReason).to.equal(undefined);
      expect(reported(odd)).to.deep.include({ asset: `zano-asset:${unknownAsset}`, amount: String(3n * COIN) });
      expect(reported(odd).heldReason).to.match(/unknown asset.*not credited/);
      expect(reported(locked)).to.deep.include({ asset: 'ZANO', amount: '2' });
      expect(reported(locked).heldReason).to.match(/unlock_time.*not credited/);
      await core.scan(); // surfaced once, not on every scan
      expect(warnings.map((w) => w.details.txHash)).to.have.members([odd, locked]);
      expect(warnings.find((w) => w.details.txHash === odd)!.message).to.match(/unknown asset/);
      expect(warnings.find((w) => w.details.txHash === odd)!.details.assetId).to.equal(unknownAsset);
      expect(warnings.find((w) => w.details.txHash === locked)!.message).to.match(/unlock_time/);
    });

    it('reports a deposit a reorganisation took out as removed, and one sent back to the pool as unconfirmed', async function () {
      await core.address(ZANO, 'swap:d');
      const pid = depositPaymentId(hot.control.address, 'swap:d');
      const gone = hot.control.receive({ paymentId: pid, amount: 4n * COIN });
      const back = hot.control.receive({ paymentId: pid, amount: 6n * COIN });
      hot.control.mine(3);
      let scan = await core.scan();
      const reported = new Map(scan.outputs.map((o) => [o.txHash, o]));
      expect([...reported.keys()]).to.have.members([gone, back]);

      hot.control.reorg(gone);
      hot.control.reorg(back, { toPool: true });
      scan = await core.scan();
      expect(scan.removed).to.deep.equal([{ txHash: gone, outputIndex: reported.get(gone)!.outputIndex }]);
      expect(scan.outputs.map((o) => [o.txHash, o.block])).to.deep.equal([[back, null]]);
      hot.control.mine();
      scan = await core.scan();
      expect(scan.removed).to.deep.equal([]);
      expect(scan.outputs.map((o) => [o.txHash, o.block?.height])).to.deep.equal([[back, hot.control.height()]]);
    });

    it('finds a deposit from a cursor the core left in place over quiet scans, and reports it once', async function () {
      await core.address(ZANO, 'swap:quiet');
      const pid = depositPaymentId(hot.control.address, 'swap:quiet');
      await core.scan();
      const kept = core.cursor;
      for (let i = 0; i < 3; i++) {
        hot.control.mine(20);
        expect((await core.scan()).outputs).to.deep.equal([]);
        core.cursor = kept; // quiet and nothing pending: the core does not store the cursor
      }
      const tx = hot.control.receive({ paymentId: pid, amount: 1n * COIN, height: hot.control.height() - 2 });
      const scan = await core.scan();
      expect(scan.outputs.map((o) => [o.txHash, core.confirmations(o)])).to.deep.equal([[tx, 3]]);
      expect((await core.scan()).outputs).to.deep.equal([]);
    });

    it('reads every transfer since the last scan across pages, and tells the tip', async function () {
      const small = createZanoAdapters({ rpcUrl: hot.url, signerRpcUrl: signer.url, payoutConfirmations: 1 });
      const pager = new Core(small);
      const addresses = [];
      for (let i = 0; i < 5; i++) addresses.push(await pager.address(ZANO, `swap:page-${i}`));
      await pager.scan();
      const txs: string[] = [];
      for (let i = 0; i < 250; i++) {
        const pid = depositPaymentId(hot.control.address, `swap:page-${i % 5}`);
        txs.push(hot.control.receive({ paymentId: pid, amount: BigInt(i + 1), height: hot.control.height() }));
        if (i % 50 === 49) hot.control.mine();
      }
      const seen: ObservedOutput[] = (await pager.scan()).outputs;
      expect(seen.map((o) => o.txHash)).to.have.members(txs);
      expect(seen.find((o) => o.txHash === txs[0])!.amount).to.equal('0.000000000001');
      const tip = await small.watcher.tip();
      expect(tip.height).to.equal(hot.control.height());
      expect(tip.time).to.be.instanceOf(Date);
    });
  });

  describe('payout sender', function () {
    it('pays ZANO: transfer on the watch-only wallet, sign on the signer, submit the same bytes; again is accepted', async function () {
      fund([{ amount: 100n * COIN }]);
      const to = await recipient();
      const order = payoutOrder(ZANO, to, '10.5');
      const signed = await adapters.sender.prepare(order);
      expect(signed.txHash).to.match(/^[0-9a-f]{64}$/);
      const transfer = calls(hot, 'transfer')[0]!.params as { destinations: Array<Record<string, unknown>>; fee: bigint; mixin: bigint };
      expect(transfer.destinations).to.deep.equal([{ address: to, amount: 10_500_000_000_000n, asset_id: ZANO_ASSET_ID }]);
      expect(transfer.fee).to.equal(10_000_000_000n);
      expect(transfer.mixin).to.equal(15n);
      expect(calls(signer, 'sign_transfer')).to.have.length(1);
      expect(hot.control.submissions).to.have.length(0); // nothing broadcast by prepare

      expect(await adapters.sender.broadcast(order, signed)).to.deep.equal({ kind: 'accepted' });
      expect(await adapters.sender.broadcast(order, signed)).to.deep.equal({ kind: 'accepted' });
      expect(hot.control.submissions.map((s) => [s.txHash, s.accepted])).to.deep.equal([
        [signed.txHash, true],
        [signed.txHash, true],
      ]);

      // The watcher reports it as our payout, with its block once mined.
      let scan = await core.scan();
      expect(scan.payouts).to.deep.equal([{ txHash: signed.txHash, block: null }]);
      const height = hot.control.mine();
      scan = await core.scan();
      expect(scan.payouts).to.deep.equal([{ txHash: signed.txHash, block: { height, hash: `zano-height-${height}` } }]);
      // Mined: the same bytes again are KEY_IMAGE_ALREADY_SPENT, and the wallet has it: accepted.
      expect(await adapters.sender.broadcast(order, signed)).to.deep.equal({ kind: 'accepted' });
      expect(hot.control.submissions.at(-1)).to.include({ txHash: signed.txHash, accepted: false });
      hot.control.reorg(signed.txHash);
      scan = await core.scan();
      expect(scan.payouts).to.deep.equal([{ txHash: signed.txHash, block: null }]);
    });

    it('pays fUSD, whitelisting it once', async function () {
      fund([{ amount: 1n * COIN }, { amount: 500n * FUSD_UNIT, assetId: FUSD_ASSET_ID }]);
      const to = await recipient();
      const first = payoutOrder(FUSD, to, '120.25', 'p-1');
      const signed = await adapters.sender.prepare(first);
      expect((calls(hot, 'transfer')[0]!.params as { destinations: unknown[] }).destinations).to.deep.equal([
        { address: to, amount: 1_202_500n, asset_id: FUSD_ASSET_ID },
      ]);
      expect(await adapters.sender.broadcast(first, signed)).to.deep.equal({ kind: 'accepted' });
      expect(hot.control.submissions.map((s) => s.txHash)).to.deep.equal([signed.txHash]);
      expect(await adapters.sender.spendable(FUSD)).to.equal('0'); // its only output is spent, the change locked
      hot.control.mine(10);
      expect(await adapters.sender.spendable(FUSD)).to.equal('379.75');
      const second = payoutOrder(FUSD, to, '1', 'p-2');
      expect(await adapters.sender.broadcast(second, await adapters.sender.prepare(second))).to.deep.equal({ kind: 'accepted' });
      expect(calls(hot, 'assets_whitelist_add').map((c) => c.params)).to.deep.equal([{ asset_id: FUSD_ASSET_ID }]);
    });

    it('never signs the same unsigned tx twice: a prepare after a failed signing builds a new one', async function () {
      fund([{ amount: 50n * COIN }]); // one output: the failed transfer reserved it
      const order = payoutOrder(ZANO, await recipient(), '1');
      signer.control.failNext('sign_transfer', { code: -4, message: 'WALLET_RPC_ERROR_CODE_GENERIC_TRANSFER_ERROR: signer busy' });
      const failed = await adapters.sender.prepare(order).then(
        () => undefined,
        (err: Error) => err,
      );
      expect(failed?.message).to.match(/signer busy/);
      const signed = await adapters.sender.prepare(order);
      const unsigned = calls(signer, 'sign_transfer').map((c) => (c.params as { tx_unsigned_hex: string }).tx_unsigned_hex);
      expect(unsigned).to.have.length(2);
      expect(new Set(unsigned).size).to.equal(2);
      expect(calls(hot, 'clear_utxo_cold_sig_reservation')).to.have.length(1);
      expect(warnings.map((w) => w.message)).to.deep.equal([
        'zano: inputs reserved by unsent transfers; clearing the cold-signing reservations',
      ]);
      expect(await adapters.sender.broadcast(order, signed)).to.deep.equal({ kind: 'accepted' });
    });

    it('after a kill between prepare (committed) and broadcast, one broadcast makes exactly one submission of that hash', async function () {
      fund([{ amount: 20n * COIN }]);
      const order = payoutOrder(ZANO, await recipient(), '3');
      const committed = await adapters.sender.prepare(order); // the core commits { txHash, bytes } here; then the process dies
      const restarted = make();
      expect(await restarted.sender.broadcast(order, committed)).to.deep.equal({ kind: 'accepted' });
      expect(hot.control.submissions.map((s) => [s.txHash, s.accepted])).to.deep.equal([[committed.txHash, true]]);
      expect(calls(signer, 'sign_transfer')).to.have.length(1);
      const height = hot.control.mine();
      const scan = await new Core(restarted).scan();
      expect(scan.payouts).to.deep.equal([{ txHash: committed.txHash, block: { height, hash: `zano-height-${height}` } }]);
    });

    it('rejects a signed tx whose inputs another tx spent (in the pool, then mined)', async function () {
      fund([{ amount: 20n * COIN }]);
      const to = await recipient();
      const a = await adapters.sender.prepare(payoutOrder(ZANO, to, '2', 'a'));
      // The only output is reserved by `a`: `b` clears the reservation and spends the same inputs.
      const b = await adapters.sender.prepare(payoutOrder(ZANO, to, '3', 'b'));
      expect(await adapters.sender.broadcast(payoutOrder(ZANO, to, '2', 'a'), a)).to.deep.equal({ kind: 'accepted' });
      const inPool = await adapters.sender.broadcast(payoutOrder(ZANO, to, '3', 'b'), b);
      expect(inPool.kind).to.equal('rejected');
      hot.control.mine();
      const mined = await adapters.sender.broadcast(payoutOrder(ZANO, to, '3', 'b'), b);
      expect(mined.kind).to.equal('rejected');
      expect(mined.kind === 'rejected' && mined.reason).to.match(/spent by another transaction/);
    });

    it('tells an unknown broadcast outcome from a refusal that proves nothing went out', async function () {
      fund([{ amount: 20n * COIN }]);
      const order = payoutOrder(ZANO, await recipient(), '1');
      const signed = await adapters.sender.prepare(order);
      hot.control.failNext('submit_transfer', { code: -1, message: 'WALLET_RPC_ERROR_CODE_UNKNOWN_ERROR: something' });
      const unknown = await adapters.sender.broadcast(order, signed).then(
        () => undefined,
        (err: Error) => err,
      );
      expect(unknown).to.be.instanceOf(AmbiguousBroadcastError);
      const garbled = await adapters.sender.broadcast(order, { txHash: signed.txHash, bytes: 'abcd' });
      expect(garbled.kind).to.equal('rejected');
      const closed = await startZanoWallet({ watchOnly: true });
      const url = closed.url;
      await closed.close();
      const offline = createZanoAdapters({ rpcUrl: url, signerRpcUrl: url, payoutConfirmations: 1 });
      const refused = await offline.sender.broadcast(order, signed).then(
        () => undefined,
        (err: Error) => err,
      );
      expect(refused).to.be.instanceOf(ZanoRpcTransportError);
      expect(refused).to.not.be.instanceOf(AmbiguousBroadcastError);
      expect(await adapters.sender.broadcast(order, signed)).to.deep.equal({ kind: 'accepted' });
      expect(hot.control.submissions.filter((s) => s.accepted).map((s) => s.txHash)).to.deep.equal([signed.txHash]);
    });

    it('spendable is the unlocked balance: change stays out for 10 blocks; the fee estimate is 0.01 ZANO', async function () {
      fund([{ amount: 100n * COIN }]);
      expect(await adapters.sender.spendable(ZANO)).to.equal('100');
      expect(await adapters.sender.feeEstimate(ZANO)).to.equal('0.01');
      const order = payoutOrder(ZANO, await recipient(), '10');
      await adapters.sender.broadcast(order, await adapters.sender.prepare(order));
      expect(await adapters.sender.spendable(ZANO)).to.equal('0');
      hot.control.mine(9);
      expect(await adapters.sender.spendable(ZANO)).to.equal('0');
      hot.control.mine();
      expect(await adapters.sender.spendable(ZANO)).to.equal('89.99');
    });

    it('refuses an amount finer than the asset and a memo before calling the wallet', async function () {
      const to = await recipient();
      const fine = await adapters.sender.prepare(payoutOrder(FUSD, to, '1.00001')).then(
        () => undefined,
        (err: Error) => err,
      );
      expect(fine?.message).to.match(/more than 4 decimals/);
      const memo = await adapters.sender.prepare({ ...payoutOrder(ZANO, to, '1'), memo: 'x' }).then(
        () => undefined,
        (err: Error) => err,
      );
      expect(memo?.message).to.match(/no memo/);
      expect(calls(hot, 'transfer')).to.have.length(0);
    });
  });
});
