/**
 * Payouts that always end (docs/architecture.md#money-that-ends-well, docs/payouts.md), proved on real nodes with the real server process in
 * production mode (test/support/devnet.ts): every payout ends confirmed, replaced, cancelled, or held for an
 * operator with a remedy, and no swap is finished on a transaction that paid nothing.
 *
 * - a native ETH payout to a contract wallet is paid (its gas is estimated); with native gas fixed at 21,000
 *   (the PSS_TEST_EVM_NATIVE_GAS hook) the payout reverts, is held, and the ops CLI pays it again; one to a
 *   contract that refuses payments cannot be built (its estimate reverts) and is held at once;
 * - an EVM payout stuck behind a base-fee spike is replaced at the same nonce and mined while the spike lasts;
 *   killed between storing a replacement and broadcasting it, a restart broadcasts it: one version is mined;
 * - a Litecoin payout under the mining node's -blockmintxfee is bumped until it is mined (by children that pay
 *   for it: litecoind 0.21 accepts no BIP125 replacement into its mempool);
 * - a payout held after taking a nonce has its nonce cancelled, and the next swap's payout is mined;
 * - a refusal that can pass is retried and succeeds; one that cannot holds the swap, and the ops CLI's pay
 *   again and refund each end it, the other then refused;
 * - a confirmed payout reorganised out after its swap finished raises a chain alert and is mined again, once;
 * - a credited deposit double-spent away after its swap finished (two litecoind nodes, a deeper fork) raises a
 *   chain alert, an operator item and its metric.
 *
 * Skipped, with the reason printed, where litecoind, anvil or PostgreSQL is missing.
 */
import { expect } from 'chai';
import { Decimal } from 'decimal.js';
import pg from 'pg';
import { createWalletClient, http, numberToHex, parseAbiItem, parseEther, parseGwei, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { ANVIL_KEY_1 } from '../support/anvil.js';
import { createDevnetPartner, startDevnet, startDevnetServer, type Devnet, type DevnetServer } from '../support/devnet.js';
import { deployContractWallet } from '../support/erc20.js';
import { connectNodes, disconnectNodes } from '../support/litecoind.js';
import { freePort, spawnGroup } from '../support/process.js';
import { devnetClient, DEVNET_ADMIN_URL, eventually, ltcToUsdt, skipWithoutDevnet, usdtToLtc } from '../support/production.js';
import { startRpcProxy, type RpcProxy } from '../support/rpc-proxy.js';
import { swapClient } from '../support/swaps.js';

const freshAddress = () => privateKeyToAccount(generatePrivateKey()).address;
const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
const ROOT = new URL('../..', import.meta.url).pathname;
/** The Litecoin node that mines leaves out anything paying less than this (coin per kvB). */
const BLOCK_MIN_TX_FEE = '0.0005';
/** What every server here is told: replace an unmined payout two seconds after its last broadcast. */
const SPIKE = parseGwei('100');
const FAST_REPLACEMENT = { ETH_REPLACE_AFTER_SECONDS: '2', LTC_REPLACE_AFTER_SECONDS: '2', LTC_FALLBACK_FEE_RATE: '0.001' };

interface VersionRow {
  version: number;
  kind: string;
  tx_hash: string;
  fee: string;
  created_at: Date;
  broadcast_at: Date | null;
}

describe('payouts that always end, on real nodes (the server process in production mode)', function () {
  this.timeout(240_000);
  let devnet: Devnet;
  let partner: { keyId: string; secret: string };
  let db: pg.Client;
  const servers: DevnetServer[] = [];
  const proxies: RpcProxy[] = [];

  before(async function () {
    await skipWithoutDevnet(this);
    devnet = await startDevnet({
      adminUrl: DEVNET_ADMIN_URL,
      confirmations: { LTC: 1, ETH: 1 },
      // The mining node leaves low-fee transactions out of its blocks; the customer's wallet pays above it.
      ltcNode: { args: [`-blockmintxfee=${BLOCK_MIN_TX_FEE}`], fallbackFee: '0.001' },
    });
    partner = await createDevnetPartner(devnet, 'Payout endings');
    db = new pg.Client({ connectionString: devnet.database.url });
    await db.connect();
  });

  after(async () => {
    for (const server of servers) await server.stop('SIGKILL').catch(() => undefined);
    for (const proxy of proxies) await proxy.close().catch(() => undefined);
    await db?.end().catch(() => undefined);
    await devnet?.stop();
  });

  afterEach(async function () {
    // A failed test shows what its servers logged.
    if (this.currentTest?.state === 'failed') {
      for (const server of servers) console.log(server.child.output().slice(-6000));
      const payouts = await db.query(
        'select idempotency_key, status, tx_hash, refusals, held_reason, (select count(*) from payout_versions v where v.payout_id = p.id) as versions from payouts p order by created_at',
      );
      const nonces = await db.query('select nonce, key from evm_nonces order by nonce');
      const mined = await devnet.anvil.client.getTransactionCount({ address: devnet.hotWallet, blockTag: 'latest' });
      console.log(JSON.stringify({ payouts: payouts.rows, nonces: nonces.rows, mined }, null, 1));
    }
    // Each test starts its own servers; those left running are stopped (their leases given up).
    while (servers.length > 0)
      await servers
        .pop()!
        .stop()
        .catch(() => undefined);
  });

  async function startServer(env: Record<string, string> = {}) {
    const server = await startDevnetServer(devnet, { env: { ...FAST_REPLACEMENT, ...env } });
    servers.push(server);
    return { server, client: devnetClient(server, partner) };
  }

  async function proxy(targetUrl: string) {
    const started = await startRpcProxy(targetUrl);
    proxies.push(started);
    return started;
  }

  /** Runs the ops CLI on the devnet's database; resolves with its exit code and output. */
  async function ops(...args: string[]): Promise<{ code: number | null; output: string }> {
    const child = spawnGroup(
      process.execPath,
      ['--import', 'tsx', 'scripts/ops.ts', ...args],
      { ...devnet.env(0), ...FAST_REPLACEMENT },
      ROOT,
    );
    const code = await new Promise<number | null>((resolve) => child.process.once('exit', resolve));
    return { code, output: child.output() };
  }

  /** The open chain alert of swap `swapId`, as `ops alerts list --json` shows it, once there is one. */
  const chainAlertOf = (swapId: string, timeoutMs: number) =>
    eventually(async () => {
      const listed = await ops('alerts', 'list', '--json');
      const alerts = JSON.parse(listed.output.slice(listed.output.indexOf('['))) as Array<{ id: string; kind: string; swapId: string }>;
      return alerts.find((a) => a.swapId === swapId);
    }, timeoutMs);

  const payoutsOf = async (swapId: string) =>
    (
      await db.query<{
        id: string;
        idempotency_key: string;
        status: string;
        tx_hash: string | null;
        held_reason: string | null;
        refusals: number;
      }>('select id, idempotency_key, status, tx_hash, held_reason, refusals from payouts where swap_id = $1 order by created_at', [swapId])
    ).rows;
  const versionsOf = async (payoutId: string) =>
    (
      await db.query<VersionRow>(
        'select version, kind, tx_hash, fee, created_at, broadcast_at from payout_versions where payout_id = $1 order by version',
        [payoutId],
      )
    ).rows;
  const receiptOf = (hash: string) => devnet.anvil.client.getTransactionReceipt({ hash: hash as Hex }).catch(() => null);
  const transfersTo = (to: string, fromBlock: bigint) =>
    devnet.anvil.client.getLogs({ address: devnet.usdt, event: TRANSFER, args: { to: to as Hex }, fromBlock: fromBlock + 1n });
  const ended = (client: ReturnType<typeof swapClient>, id: string, timeoutMs = 90_000) =>
    client.waitFor(
      id,
      (o) => o.status === 'finished' || o.status === 'review' || o.status === 'refunded' || o.status === 'failed',
      timeoutMs,
    );

  /** An LTC -> `destinationAsset` swap paid and mined; resolves with the order once its payout is signed or it ended. */
  async function ltcSwap(client: ReturnType<typeof swapClient>, destinationAsset: 'USDT' | 'ETH', destination: string, amount = '0.5') {
    const { order, quote } = await client.create(
      { ...ltcToUsdt(amount, devnet.wallets.customerAddress), destinationAsset },
      { destinationAddress: destination },
    );
    const ready = await client.waitFor(order.id, (o) => typeof o.depositAddress === 'string', 30_000);
    await devnet.payLtc(ready.order.depositAddress!, amount);
    await devnet.mineLtc(1);
    return { order, quote, depositAddress: ready.order.depositAddress! };
  }

  /**
   * Mines an anvil block every `ms` while `baseFee()` is not undefined, its base fee set to it first (null:
   * anvil's own); no block while it is undefined.
   */
  function ethMiner(baseFee: () => bigint | null | undefined, ms = 300) {
    let stopped = false;
    const loop = (async () => {
      await devnet.anvil.rpc('evm_setAutomine', [false]);
      while (!stopped) {
        const fee = baseFee();
        if (fee !== undefined) {
          if (fee !== null) await devnet.anvil.rpc('anvil_setNextBlockBaseFeePerGas', [numberToHex(fee)]);
          await devnet.anvil.rpc('evm_mine', []);
        }
        await new Promise((resolve) => setTimeout(resolve, ms));
      }
      await devnet.anvil.rpc('evm_setAutomine', [true]);
    })();
    return async () => {
      stopped = true;
      await loop;
    };
  }

  /**
   * An LTC -> USDT swap whose first payout version the node accepts at the fees of now, after which every block
   * has a base fee of 100 gwei: the version stays in the pool (anvil refuses a transaction below the base fee
   * of the block it would join, so the spike starts once it is in).
   */
  async function stuckBehindSpike(eth: RpcProxy, client: ReturnType<typeof swapClient>, destination: string) {
    let spike: bigint | null | undefined = null;
    const stopMiner = ethMiner(() => spike);
    const release = eth.hold('eth_sendRawTransaction');
    const { order } = await ltcSwap(client, 'USDT', destination);
    const payout = await eventually(async () => (await payoutsOf(order.id)).find((p) => p.tx_hash !== null), 60_000);
    // No block while the first version goes in.
    spike = undefined;
    await new Promise((resolve) => setTimeout(resolve, 400));
    release();
    await eventually(async () => ((await versionsOf(payout.id))[0]?.broadcast_at ? true : undefined), 30_000);
    spike = SPIKE;
    return { order, payout, stopMiner };
  }

  const printVersions = (label: string, versions: VersionRow[], mined: string, unit: string) =>
    console.log(
      `      ${label}: ${versions.length} versions; ${versions
        .map((v) => `v${v.version} ${v.kind} ${v.fee} ${unit}${v.tx_hash === mined ? ' (mined)' : ''}`)
        .join(', ')}`,
    );

  it('pays a contract wallet in ETH (gas estimated); with 21,000 gas the payout reverts, is held, and is paid again; one that refuses payments is held', async () => {
    const deployer = createWalletClient({
      account: privateKeyToAccount(ANVIL_KEY_1),
      chain: { ...foundry, id: devnet.anvil.chainId },
      transport: http(devnet.anvil.url),
    });
    const wallet = await deployContractWallet(deployer, devnet.anvil.client);
    const payments = () =>
      devnet.anvil.client.readContract({
        address: wallet,
        abi: [{ type: 'function', name: 'payments', inputs: [], outputs: [{ type: 'uint256' }], stateMutability: 'view' }],
        functionName: 'payments',
      });

    const normal = await startServer();
    const first = await ltcSwap(normal.client, 'ETH', wallet);
    const paid = await ended(normal.client, first.order.id);
    expect(paid.order.status, JSON.stringify(paid.order)).to.equal('finished');
    expect(await payments()).to.equal(1n);
    expect(await devnet.anvil.client.getBalance({ address: wallet })).to.equal(parseEther(first.quote.receiveAmount));
    const receipt = await receiptOf(paid.order.settlementTxHash!);
    expect(receipt!.status).to.equal('success');
    console.log(`      contract wallet paid: ${first.quote.receiveAmount} ETH, gas used ${receipt!.gasUsed} (> 21,000)`);
    await normal.server.stop();

    // Native payouts sent with a fixed 21,000 gas, as before: the transfer to the contract reverts.
    const hooked = await startServer({ PSS_TEST_EVM_NATIVE_GAS: '21000' });
    const second = await ltcSwap(hooked.client, 'ETH', wallet);
    const held = await ended(hooked.client, second.order.id);
    expect(held.order).to.include({ status: 'review', failureCode: 'payout_failed', settlementTxHash: null });
    expect(held.events.map((e) => e.status)).to.not.include('finished');
    const [reverted] = await payoutsOf(second.order.id);
    expect(reverted).to.include({ status: 'reverted' });
    expect(reverted!.held_reason).to.match(/reverted/);
    expect((await receiptOf(reverted!.tx_hash!))!.status).to.equal('reverted');
    expect(await payments()).to.equal(1n);
    console.log(`      with 21,000 gas: payout ${reverted!.tx_hash} reverted; swap ${held.order.status} (${held.order.failureCode})`);
    await hooked.server.stop();

    const listed = await ops('payouts', 'held');
    expect(listed.code, listed.output).to.equal(0);
    expect(listed.output).to.contain(second.order.id).and.contain('reverted').and.contain('--pay-again');
    const normalAgain = await startServer();
    const again = await ops('review', 'decide', second.order.id, '--pay-again', '--reason', 'reverted payout to a contract wallet');
    expect(again.code, again.output).to.equal(0);
    const done = await ended(normalAgain.client, second.order.id);
    expect(done.order.status, JSON.stringify(done.order)).to.equal('finished');
    expect(await payments()).to.equal(2n);
    const rows = await payoutsOf(second.order.id);
    expect(rows.map((r) => r.idempotency_key)).to.deep.equal([`${second.order.id}:payout`, `${second.order.id}:payout#2`]);
    expect(done.order.settlementTxHash).to.equal(rows[1]!.tx_hash);
    // Paid once: a refund now is refused (the swap is finished).
    const refund = await ops('review', 'decide', second.order.id, '--refund', '--reason', 'too late');
    expect(refund.code, refund.output).to.equal(4);

    // A destination that refuses every payment: the gas estimate reverts, so the payout can never be built. It
    // is held at once with the node's reason (never re-queued forever), and the deposit goes back.
    const refusing = await deployContractWallet(deployer, devnet.anvil.client, 'RefusingWallet');
    const third = await ltcSwap(normalAgain.client, 'ETH', refusing);
    const unbuildable = await ended(normalAgain.client, third.order.id);
    expect(unbuildable.order).to.include({ status: 'review', failureCode: 'payout_failed', settlementTxHash: null });
    const [never] = await payoutsOf(third.order.id);
    expect(never).to.include({ status: 'failed', tx_hash: null });
    expect(never!.held_reason)
      .to.match(/reverts in the node's estimate/)
      .and.match(/payments refused/);
    expect(await versionsOf(never!.id)).to.deep.equal([]);
    console.log(`      unbuildable payout held: ${never!.held_reason}`);
    const back = await ops('review', 'decide', third.order.id, '--refund', '--reason', 'the destination refuses payments');
    expect(back.code, back.output).to.equal(0);
    await devnet.mineLtc(1);
    expect((await ended(normalAgain.client, third.order.id)).order.status).to.equal('refunded');
  });

  it('replaces an EVM payout stuck behind a base-fee spike within ETH_REPLACE_AFTER_SECONDS; it is mined while the spike lasts', async () => {
    const eth = await proxy(devnet.anvil.url);
    const { client } = await startServer({ ETH_RPC_URL: eth.url });
    const destination = freshAddress();
    const startBlock = await devnet.anvil.client.getBlockNumber();
    const { order, payout, stopMiner } = await stuckBehindSpike(eth, client, destination);
    try {
      const done = await ended(client, order.id);
      expect(done.order.status, JSON.stringify(done.order)).to.equal('finished');
      const versions = await versionsOf(payout.id);
      expect(versions.length).to.be.at.least(2);
      const mined = done.order.settlementTxHash!;
      expect(versions.map((v) => v.tx_hash)).to.include(mined);
      expect(mined).to.not.equal(payout.tx_hash);
      // Replaced within the window (plus a sweep's period), at the same nonce; only the mined version has a receipt.
      expect(versions[1]!.created_at.getTime() - versions[0]!.broadcast_at!.getTime()).to.be.below(2_000 + 2_500);
      const receipts = await Promise.all(versions.map((v) => receiptOf(v.tx_hash)));
      expect(receipts.filter((r) => r !== null).map((r) => r!.transactionHash)).to.deep.equal([mined]);
      const minedBlock = await devnet.anvil.client.getBlock({ blockNumber: receipts.find((r) => r)!.blockNumber });
      expect(minedBlock.baseFeePerGas).to.equal(SPIKE);
      const transfers = await transfersTo(destination, startBlock);
      expect(transfers.map((t) => t.transactionHash)).to.deep.equal([mined]);
      printVersions('base-fee spike to 100 gwei', versions, mined, 'gwei');
    } finally {
      await stopMiner();
    }
  });

  it('killed between storing a replacement and broadcasting it: a restart broadcasts it, and exactly one version is mined', async () => {
    const eth = await proxy(devnet.anvil.url);
    const first = await startServer({ ETH_RPC_URL: eth.url });
    const destination = freshAddress();
    const startBlock = await devnet.anvil.client.getBlockNumber();
    const { order, payout, stopMiner } = await stuckBehindSpike(eth, first.client, destination);
    try {
      // The first version went out (ETH_REPLACE_AFTER_SECONDS ago at most); the next broadcast, the replacement,
      // kills the server before the node sees it.
      await eth.arm('eth_sendRawTransaction', 'before', () => first.server.stop('SIGKILL'));
      const left = await versionsOf(payout.id);
      expect(left).to.have.length(2);
      expect(left[1]!.broadcast_at).to.equal(null);
      expect(await receiptOf(left[1]!.tx_hash)).to.equal(null);
      await db.query("update chain_watch_leases set expires_at = now() - interval '1 second'");

      const second = await startServer({ ETH_RPC_URL: eth.url });
      const done = await ended(second.client, order.id);
      expect(done.order.status, JSON.stringify(done.order)).to.equal('finished');
      const versions = await versionsOf(payout.id);
      const receipts = (await Promise.all(versions.map((v) => receiptOf(v.tx_hash)))).filter((r) => r !== null);
      expect(receipts).to.have.length(1);
      expect(receipts[0]!.transactionHash).to.equal(done.order.settlementTxHash);
      expect(versions.map((v) => v.tx_hash)).to.include(left[1]!.tx_hash);
      expect((await transfersTo(destination, startBlock)).map((t) => t.transactionHash)).to.deep.equal([done.order.settlementTxHash]);
      printVersions('killed before the replacement broadcast', versions, done.order.settlementTxHash!, 'gwei');
    } finally {
      await stopMiner();
    }
  });

  it('bumps a Litecoin payout left out of blocks by -blockmintxfee until it is mined (CPFP: litecoind takes no replacement)', async () => {
    const { client } = await startServer({ LTC_FALLBACK_FEE_RATE: '0.0003', LTC_MAX_FEE_RATE: '0.01' });
    const destination = await devnet.litecoin.call<string>('getnewaddress', ['', 'bech32'], devnet.wallets.customer);
    const { order, quote } = await client.create(usdtToLtc('40'), { destinationAddress: destination });
    const ready = await client.waitFor(order.id, (o) => typeof o.depositAddress === 'string', 30_000);
    await devnet.payUsdt(ANVIL_KEY_1, ready.order.depositAddress!, '40');
    const miner = setInterval(() => void devnet.mineLtc(1).catch(() => undefined), 1_000);
    try {
      const done = await ended(client, order.id, 120_000);
      expect(done.order.status, JSON.stringify(done.order)).to.equal('finished');
      const [payout] = await payoutsOf(order.id);
      const versions = await versionsOf(payout!.id);
      const mined = done.order.settlementTxHash!;
      // One payment, and the children that paid for it: the swap names the payment.
      expect(versions.filter((v) => v.kind === 'payment').map((v) => v.tx_hash)).to.deep.equal([mined]);
      expect(versions.filter((v) => v.kind === 'boost').length).to.be.at.least(1);
      expect(new Decimal(versions[0]!.fee).lessThan(BLOCK_MIN_TX_FEE)).to.equal(true);
      expect(new Decimal(versions.at(-1)!.fee).greaterThanOrEqualTo(BLOCK_MIN_TX_FEE)).to.equal(true);
      // The package was mined together: every version is in the chain, each a step on from the one before.
      const fees: string[] = [];
      for (const version of versions) {
        const tx = await devnet.litecoin.call<{ confirmations: number; fee: string }>(
          'gettransaction',
          [version.tx_hash, true],
          devnet.wallets.watch,
        );
        expect(tx.confirmations, version.tx_hash).to.be.above(0);
        fees.push(new Decimal(tx.fee).abs().toFixed());
      }
      const received = await devnet.litecoin.call<Array<{ txids: string[]; amount: string }>>(
        'listreceivedbyaddress',
        [1, true, false, destination],
        devnet.wallets.customer,
      );
      expect(received).to.have.length(1);
      expect(received[0]!.txids).to.deep.equal([mined]);
      expect(new Decimal(received[0]!.amount).eq(quote.receiveAmount)).to.equal(true);
      printVersions(`LTC under -blockmintxfee=${BLOCK_MIN_TX_FEE} (package rate)`, versions, mined, 'LTC/kvB');
      console.log(`      absolute fee of each: ${fees.join(', ')} LTC`);
    } finally {
      clearInterval(miner);
    }
  });

  it('cancels the nonce of a payout held after taking it: the next swap is paid, and the held one is paid again', async () => {
    const eth = await proxy(devnet.anvil.url);
    const { client } = await startServer({ ETH_RPC_URL: eth.url });
    const [a, b] = [freshAddress(), freshAddress()];
    const startBlock = await devnet.anvil.client.getBlockNumber();
    const nonce = await devnet.anvil.client.getTransactionCount({ address: devnet.hotWallet, blockTag: 'latest' });
    // The first payout's broadcast (and its client's retry) never reaches the node, and its sender hears nothing:
    // held, holding a nonce.
    const cut = eth.drop('eth_sendRawTransaction', 2);
    const first = await ltcSwap(client, 'USDT', a);
    await cut;
    const held = await ended(client, first.order.id);
    expect(held.order.status).to.equal('review');
    const second = await ltcSwap(client, 'USDT', b);
    const paid = await ended(client, second.order.id);
    expect(paid.order.status, JSON.stringify(paid.order)).to.equal('finished');

    // The held payout's nonce went to a zero-value transfer to the hot wallet itself: nothing was paid to a.
    const [cancelled] = await payoutsOf(first.order.id);
    expect(cancelled).to.include({ status: 'cancelled' });
    const versions = await versionsOf(cancelled!.id);
    expect(versions.map((v) => v.kind)).to.deep.equal(['payment', 'cancel']);
    const cancel = await devnet.anvil.client.getTransaction({ hash: versions[1]!.tx_hash as Hex });
    expect(cancel).to.include({ nonce, value: 0n });
    expect(cancel.to!.toLowerCase()).to.equal(devnet.hotWallet.toLowerCase());
    expect(await transfersTo(a, startBlock)).to.have.length(0);
    console.log(`      nonce ${nonce} cancelled by ${versions[1]!.tx_hash}; the next payout (nonce ${nonce + 1}) mined`);

    const again = await ops('review', 'decide', first.order.id, '--pay-again', '--reason', 'cancelled nonce');
    expect(again.code, again.output).to.equal(0);
    const done = await ended(client, first.order.id);
    expect(done.order.status).to.equal('finished');
    expect((await transfersTo(a, startBlock)).map((t) => t.transactionHash)).to.deep.equal([done.order.settlementTxHash]);
  });

  it('retries a refusal that can pass; holds one that cannot, and pay again or refund ends the swap, the other then refused', async () => {
    const eth = await proxy(devnet.anvil.url);
    const { client } = await startServer({ ETH_RPC_URL: eth.url });
    const startBlock = await devnet.anvil.client.getBlockNumber();

    // A full pool: the payout is built again later (backoff) and goes out.
    const c = freshAddress();
    const full = eth.refuse('eth_sendRawTransaction', { code: -32000, message: 'txpool is full' });
    const retried = await ltcSwap(client, 'USDT', c);
    await full;
    const retriedDone = await ended(client, retried.order.id);
    expect(retriedDone.order.status, JSON.stringify(retriedDone.order)).to.equal('finished');
    const [retriedPayout] = await payoutsOf(retried.order.id);
    expect(retriedPayout!.refusals).to.equal(1);
    // Signed again at the fees of then (the same bytes if nothing changed: the same version); the mined one is stored.
    expect((await versionsOf(retriedPayout!.id)).map((v) => v.tx_hash)).to.include(retriedDone.order.settlementTxHash);
    expect((await transfersTo(c, startBlock)).map((t) => t.transactionHash)).to.deep.equal([retriedDone.order.settlementTxHash]);

    // Refused for good: held; pay again pays, and a refund after it is refused.
    const d = freshAddress();
    const refusedD = eth.refuse('eth_sendRawTransaction', { code: -32000, message: 'invalid sender' });
    const payAgain = await ltcSwap(client, 'USDT', d);
    await refusedD;
    const heldD = await ended(client, payAgain.order.id);
    expect(heldD.order).to.include({ status: 'review', failureCode: 'payout_failed', settlementTxHash: null });
    const [refusedPayout] = await payoutsOf(payAgain.order.id);
    expect(refusedPayout).to.include({ status: 'failed' });
    expect(refusedPayout!.held_reason).to.match(/invalid sender/);
    const paid = await ops('review', 'decide', payAgain.order.id, '--pay-again', '--reason', 'refused by the node');
    expect(paid.code, paid.output).to.equal(0);
    expect((await ended(client, payAgain.order.id)).order.status).to.equal('finished');
    expect(await transfersTo(d, startBlock)).to.have.length(1);
    const refundAfter = await ops('review', 'decide', payAgain.order.id, '--refund', '--reason', 'pays twice');
    expect(refundAfter.code, refundAfter.output).to.equal(4);

    // Refused for good: refund returns the deposit, and pay again after it is refused.
    const e = freshAddress();
    const refusedE = eth.refuse('eth_sendRawTransaction', { code: -32000, message: 'invalid sender' });
    const refunded = await ltcSwap(client, 'USDT', e);
    await refusedE;
    expect((await ended(client, refunded.order.id)).order.status).to.equal('review');
    const refund = await ops('review', 'decide', refunded.order.id, '--refund', '--reason', 'customer asked for the deposit back');
    expect(refund.code, refund.output).to.equal(0);
    await devnet.mineLtc(1);
    const back = await ended(client, refunded.order.id);
    expect(back.order.status, JSON.stringify(back.order)).to.equal('refunded');
    expect(back.order.refundTxHash).to.be.a('string');
    const tx = await devnet.litecoin.call<{ details: Array<{ address: string; amount: string; category: string }> }>(
      'gettransaction',
      [back.order.refundTxHash, true],
      devnet.wallets.customer,
    );
    // The 0.5 deposit less Litecoin's 0.10 USD network fee at the market's LTC price, 80.05 USD (the median of the
    // fake providers' 80.10, 80.00 x 1.00005 and 80.05): 0.00124922 LTC, rounded up.
    expect(back.order.refundAmount).to.equal('0.49875078');
    expect(
      tx.details.some((d) => d.category === 'receive' && new Decimal(d.amount).eq('0.49875078')),
      JSON.stringify(tx.details),
    ).to.equal(true);
    const payAfter = await ops('review', 'decide', refunded.order.id, '--pay-again', '--reason', 'pays twice');
    expect(payAfter.code, payAfter.output).to.equal(4);
    expect(await transfersTo(e, startBlock)).to.have.length(0);
  });

  it('raises a chain alert when a confirmed payout leaves the chain after its swap finished, and pays it again, once', async () => {
    const { client } = await startServer();
    const destination = freshAddress();
    const startBlock = await devnet.anvil.client.getBlockNumber();
    const { order } = await ltcSwap(client, 'USDT', destination);
    const done = await ended(client, order.id);
    expect(done.order.status, JSON.stringify(done.order)).to.equal('finished');
    const mined = (await receiptOf(done.order.settlementTxHash!))!;
    // The payout's block and the one after it are replaced by empty blocks: the payout is in no block.
    await devnet.anvil.mine(1);
    const depth = Number((await devnet.anvil.client.getBlockNumber()) - mined.blockNumber) + 1;
    await devnet.anvil.reorg(depth);
    expect(await receiptOf(done.order.settlementTxHash!)).to.equal(null);
    const alert = await chainAlertOf(order.id, 60_000);
    expect(alert.kind).to.equal('payout_removed');
    // Followed again: the same payment (the same nonce, replaced at a higher fee if it waits) is mined, once.
    const again = await eventually(async () => {
      const [payout] = await payoutsOf(order.id);
      return payout && payout.tx_hash && (await receiptOf(payout.tx_hash)) ? payout : undefined;
    }, 60_000);
    expect((await transfersTo(destination, startBlock)).map((t) => t.transactionHash)).to.deep.equal([again.tx_hash]);
    expect((await client.get(order.id)).order.status).to.equal('finished');
    console.log(
      `      payout ${done.order.settlementTxHash} reorganised out after finished: chain alert ${alert.kind}; mined again as ${again.tx_hash}`,
    );
  });

  it('raises a chain alert when a credited deposit is double-spent away after its swap finished (a deeper fork)', async () => {
    const metricsPort = await freePort();
    const { client } = await startServer({ METRICS_PORT: String(metricsPort) });
    const { order } = await client.create(ltcToUsdt('0.5', devnet.wallets.customerAddress), { destinationAddress: freshAddress() });
    const ready = await client.waitFor(order.id, (o) => typeof o.depositAddress === 'string', 30_000);
    const customer = devnet.wallets.customer;
    // Two spends of one coin of the customer's: the deposit, and one back to the customer.
    const coin = (await devnet.litecoin.call<Array<{ txid: string; vout: number; amount: string }>>('listunspent', [1], customer)).find(
      (u) => new Decimal(u.amount).greaterThan(1),
    )!;
    const back = await devnet.litecoin.call<string>('getnewaddress', ['', 'bech32'], customer);
    const sign = async (outputs: Record<string, string>) => {
      const raw = await devnet.litecoin.call<string>('createrawtransaction', [[{ txid: coin.txid, vout: coin.vout }], outputs]);
      return (await devnet.litecoin.call<{ hex: string }>('signrawtransactionwithwallet', [raw], customer)).hex;
    };
    const rest = (fee: string, less = '0') => new Decimal(coin.amount).minus(less).minus(fee).toFixed(8);
    const deposit = await sign({ [ready.order.depositAddress!]: '0.5', [back]: rest('0.001', '0.5') });
    const conflict = await sign({ [back]: rest('0.002') });

    await disconnectNodes(devnet.litecoin, devnet.signerNode);
    await devnet.litecoin.call('sendrawtransaction', [deposit]);
    await devnet.mineLtc(1);
    const done = await ended(client, order.id);
    expect(done.order.status, JSON.stringify(done.order)).to.equal('finished');
    // The other node mines the conflicting spend into a longer chain; the service's node follows it.
    await devnet.signerNode.call('sendrawtransaction', [conflict]);
    await devnet.signerNode.call('generatetoaddress', [3, back]);
    await connectNodes(devnet.litecoin, devnet.signerNode);

    const alert = await chainAlertOf(order.id, 90_000);
    expect(alert.kind).to.equal('deposit_removed');
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(metrics).to.match(/pss_chain_alerts_open\{network="LTC",kind="deposit_removed"\} 1/);
    console.log(
      `      chain alert ${alert.id}: ${alert.kind} of swap ${order.id}; pss_chain_alerts_open{network="LTC",kind="deposit_removed"} 1`,
    );
    const resolved = await ops('alerts', 'resolve', alert.id, '--reason', 'customer contacted');
    expect(resolved.code, resolved.output).to.equal(0);
    expect((await ops('alerts', 'list')).output).to.not.contain(alert.id);
    // The money already sent stays recorded; nothing moved by itself.
    expect((await payoutsOf(order.id)).map((p) => p.status)).to.deep.equal(['confirmed']);
  });
});
