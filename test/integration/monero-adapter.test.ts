/**
 * The Monero adapter (server/adapters/monero) against real monerod and monero-wallet-rpc in regtest: integrated
 * deposit addresses of the view-only wallet, payments seen in the pool and in blocks, a reorganisation that
 * removes one, a time-locked payment held, and payouts by cold signing (built by the view-only wallet, signed by
 * the signer, submitted by the view-only wallet): the same signed set broadcast again after a restart is the
 * same payment, never signed again, and the receiver gets exactly the amount, once.
 */
import { expect } from 'chai';
import { AmbiguousBroadcastError, type ChainScan, type NetworkAdapters, type ScanCursor } from '../../server/adapters/chain.js';
import { createMoneroAdapters, formatPiconero, parsePiconero } from '../../server/adapters/monero/index.js';
import { decodeMoneroAddress } from '../../server/domain/monero-address.js';
import type { CatalogAsset } from '../../server/domain/catalog.js';
import { moneroMissing, SIGNER_SEED, startMoneroNet, type MoneroNet } from '../support/monerod.js';
import { realNodesElsewhere } from '../support/production.js';

const XMR = { symbol: 'XMR', network: 'XMR', precision: 12 } as CatalogAsset;

describe('the Monero adapter on real monerod (regtest)', function () {
  this.timeout(300_000);
  let net: MoneroNet;
  let adapters: NetworkAdapters;
  // Every sign_transfer the signer wallet is asked for, counted at the HTTP boundary.
  let signings = 0;
  const counting: typeof fetch = async (input, init) => {
    if (typeof init?.body === 'string' && init.body.includes('"sign_transfer"')) signings++;
    return fetch(input, init);
  };
  const adaptersOf = () =>
    createMoneroAdapters({
      rpcUrl: net.viewUrl,
      signerRpcUrl: net.signerUrl,
      payoutConfirmations: 1,
      scanMs: 100,
      reorgDepth: 10,
      fetch: counting,
    });
  let cursor: ScanCursor | null = null;
  const watchAll = async (candidates: string[]) => new Set(candidates);
  const scan = async (): Promise<ChainScan> => {
    const result = await adapters.watcher.scan(cursor, watchAll);
    cursor = { tip: result.tip, position: result.position };
    return result;
  };
  const pay = async (address: string, amount: string, extra: Record<string, unknown> = {}) =>
    (await net.customer.call<{ tx_hash: string }>('transfer', { destinations: [{ address, amount: parsePiconero(amount) }], ...extra }))
      .tx_hash;

  before(async function () {
    // No database here: the suite is the same in every pass, so CI runs it once (with the other real-node tests).
    const skipped = moneroMissing ?? realNodesElsewhere();
    if (skipped) {
      console.log(`      skipped: ${skipped}`);
      this.skip();
    }
    net = await startMoneroNet({ hotBlocks: 5 });
    adapters = adaptersOf();
    await scan();
  });
  after(async () => net?.stop());

  it('gives each key its own integrated address of the view-only wallet, the same one again for the same key', async () => {
    const a = await adapters.addresses.depositAddress(XMR, { key: 'swap-a', index: async () => 0 });
    const again = await adapters.addresses.depositAddress(XMR, { key: 'swap-a', index: async () => 0 });
    const b = await adapters.addresses.depositAddress(XMR, { key: 'swap-b', index: async () => 0 });
    expect(a).to.deep.equal(again);
    expect(a.address).to.not.equal(b.address);
    expect(a.memo).to.equal(null);
    const decoded = decodeMoneroAddress(a.address);
    expect(decoded.kind).to.equal('integrated');
    expect(Buffer.from(decoded.spendPublicKey).equals(Buffer.from(decodeMoneroAddress(net.hotAddress).spendPublicKey))).to.equal(true);
  });

  it('sees a payment in the pool, then in its block, with no sender', async () => {
    const { address } = await adapters.addresses.depositAddress(XMR, { key: 'swap-pay', index: async () => 0 });
    const txHash = await pay(address, '1.25');
    // The wallet reads the daemon's pool on its own schedule: a moment may pass before it lists the payment.
    let seen: ChainScan['outputs'][number] | undefined;
    for (let tries = 0; !seen && tries < 50; tries++) {
      seen = (await scan()).outputs.find((o) => o.txHash === txHash);
      if (!seen) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(seen).to.include({ address, amount: '1.25', asset: 'XMR', fromAddress: null, outputIndex: 0, block: null });
    await net.mine(1);
    const mined = await scan();
    const inBlock = mined.outputs.find((o) => o.txHash === txHash)!;
    expect(inBlock.block!.height).to.equal(mined.tip.height);
    expect(inBlock.amount).to.equal('1.25');
    // Nothing new: not reported again.
    expect((await scan()).outputs.map((o) => o.txHash)).to.not.include(txHash);
  });

  it('reports a payment a reorganisation took out of the chain as removed', async () => {
    const { address } = await adapters.addresses.depositAddress(XMR, { key: 'swap-reorg', index: async () => 0 });
    const txHash = await pay(address, '0.5');
    await net.mine(1);
    expect((await scan()).outputs.map((o) => o.txHash)).to.include(txHash);
    await net.popBlocks(1);
    await net.mine(2);
    const after = await scan();
    expect(after.removed).to.deep.include({ txHash, outputIndex: 0 });
    expect(after.outputs.map((o) => o.txHash)).to.not.include(txHash);
  });

  it('holds a time-locked payment: recorded with its reason, never credited', async () => {
    const { address } = await adapters.addresses.depositAddress(XMR, { key: 'swap-locked', index: async () => 0 });
    const height = await net.height();
    const txHash = await pay(address, '0.3', { unlock_time: height + 500 });
    await net.mine(1);
    const seen = (await scan()).outputs.find((o) => o.txHash === txHash)!;
    expect(seen.heldReason).to.match(/unlock_time set/);
  });

  it('pays by cold signing: signed once, the same signed set broadcast again after a restart, the receiver paid exactly once', async () => {
    const before = new Set(
      (await net.customer.call<{ in?: Array<{ txid: string }> }>('get_transfers', { in: true })).in?.map((t) => t.txid),
    );
    const spendable = await adapters.sender.spendable(XMR);
    expect(parsePiconero(spendable) > parsePiconero('10')).to.equal(true);
    const order = {
      key: 'swap-payout:payout',
      swapId: null,
      asset: XMR,
      address: net.customerAddress,
      memo: null,
      amount: '2.345678901234',
    };
    signings = 0;
    const signed = await adapters.sender.prepare(order);
    expect(signings).to.equal(1);
    expect(signed.txHash).to.match(/^[0-9a-f]{64}$/);
    expect(await adapters.sender.broadcast(order, signed)).to.deep.equal({ kind: 'accepted' });
    // A restart between broadcasts: a new adapter submits the committed set again; nothing is signed again.
    adapters = adaptersOf();
    expect(await adapters.sender.broadcast(order, signed)).to.deep.equal({ kind: 'accepted' });
    expect(signings).to.equal(1);
    const pooled = await scan();
    expect(pooled.payouts).to.deep.include({ txHash: signed.txHash, block: null });
    await net.mine(1);
    const mined = await scan();
    expect(mined.payouts.find((p) => p.txHash === signed.txHash)!.block!.height).to.equal(mined.tip.height);
    await net.customer.call('refresh', {});
    const received = (
      (await net.customer.call<{ in?: Array<{ txid: string; amount: bigint }> }>('get_transfers', { in: true })).in ?? []
    ).filter((t) => !before.has(t.txid) && t.txid === signed.txHash);
    expect(received.map((t) => formatPiconero(t.amount))).to.deep.equal(['2.345678901234']);
    // Broadcast once more after it was mined: still the same payment.
    expect(await adapters.sender.broadcast(order, signed)).to.deep.equal({ kind: 'accepted' });
    // The change is locked for 10 blocks: the unlocked balance fell by more than the payout and its fee.
    const after = parsePiconero(await adapters.sender.spendable(XMR));
    expect(after < parsePiconero(spendable) - parsePiconero(order.amount)).to.equal(true);
  });

  it('learns spends made without it (by another wallet of the same keys) from the signer’s key images: its balance is the truth', async () => {
    // An operator spends from an online wallet restored from the signer's seed; the full wallet's unlocked
    // balance afterwards is the truth the view-only wallet's must match.
    await net.customer.call('close_wallet', {});
    await net.customer.call('restore_deterministic_wallet', {
      filename: 'operator',
      password: '',
      seed: SIGNER_SEED,
      restore_height: 0,
      language: 'English',
    });
    await net.customer.call('refresh', {});
    await net.customer.call('transfer', { destinations: [{ address: net.customerAddress, amount: parsePiconero('3') }] });
    await net.mine(11);
    await net.customer.call('refresh', {});
    const truth = (await net.customer.call<{ unlocked_balance: bigint }>('get_balance', { account_index: 0 })).unlocked_balance;
    await net.customer.call('close_wallet', {});
    await net.customer.call('open_wallet', { filename: 'customer', password: '' });
    await net.view.call('refresh', {});
    const learned = parsePiconero(await adapters.sender.spendable(XMR));
    expect(formatPiconero(learned)).to.equal(formatPiconero(truth));
    expect(parsePiconero(await adapters.sender.feeEstimate(XMR)) > 0n).to.equal(true);
  });

  it('never reports paid, nor rejected for good, a signed set the daemon refused (its inputs spent by another payout)', async () => {
    const order = (key: string) => ({ key, swapId: null, asset: XMR, address: net.customerAddress, memo: null, amount: '0.1' });
    // Both built before either is submitted: the view-only wallet reserves nothing, so they take the same inputs
    // when one output can pay either.
    const first = await adapters.sender.prepare(order('conflict-1'));
    const second = await adapters.sender.prepare(order('conflict-2'));
    expect(await adapters.sender.broadcast(order('conflict-1'), first)).to.deep.equal({ kind: 'accepted' });
    // The wallet answers one code for a refusal and for a relay that timed out: a refused set it does not have
    // is of unknown outcome (held for an operator), never "rejected" (which would let the payout be built again).
    const outcome = await adapters.sender.broadcast(order('conflict-2'), second).catch((err: Error) => err);
    if (outcome instanceof Error) {
      expect(outcome).to.be.instanceOf(AmbiguousBroadcastError);
      expect(outcome.message).to.match(/the wallet does not have it/);
    } else {
      // The wallet chose other inputs for the second: it is a payment of its own, in the pool.
      expect(outcome).to.deep.equal({ kind: 'accepted' });
      expect((await scan()).payouts.map((p) => p.txHash)).to.include(second.txHash);
    }
  });
});
