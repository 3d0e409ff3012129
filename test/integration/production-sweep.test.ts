/**
 * Sweeping in production mode, through HTTP, on real nodes (test/support/devnet.ts with ETH_DEPOSIT_KEY_FILE):
 * an ETH→LTC and a USDT→LTC swap finish, and then their deposits move from the derived addresses to the hot
 * wallet (the token's after a gas top-up from the hot wallet), without a change to the swaps; a restarted
 * server sweeps nothing again; a server killed after the node took a sweep finds that transaction on restart.
 * Native value that arrives without a transaction of its own: a deposit paid through a contract (an internal
 * call) is read from anvil's call traces, credited with the contract as its sender and swept; value no recorded
 * transaction explains (one with no frame at all, and an internal transfer while the node serves no traces) is
 * held for an operator (`ops outputs held`) and left on the address, and only the deposit is swept.
 *
 * Skipped, with the reason printed, where litecoind, anvil or PostgreSQL is missing.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import pg from 'pg';
import { createWalletClient, decodeEventLog, erc20Abi, http, keccak256, parseEther, parseUnits, type Hex } from 'viem';
import { INTERNAL_OUTPUT_BASE } from '../../server/adapters/ethereum/watcher.js';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { ANVIL_KEY_1 } from '../support/anvil.js';
import { createDevnetPartner, startDevnet, startDevnetServer, type Devnet, type DevnetServer } from '../support/devnet.js';
import { devnetClient, DEVNET_ADMIN_URL, eventually, skipWithoutDevnet } from '../support/production.js';
import { deployForwarder, type EthForwarder } from '../support/internal-transfers.js';
import { spawnGroup } from '../support/process.js';
import { startRpcProxy } from '../support/rpc-proxy.js';
import { swapClient, type Swap } from '../support/swaps.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The customer's ETH account (anvil's second development key): it pays deposits and takes refunds. */
const CUSTOMER = privateKeyToAccount(ANVIL_KEY_1);

interface SweepRow {
  tx_hash: string;
  address: string;
  asset: string;
  state: string;
  funding_tx_hash: string | null;
  sweep_tx_hash: string | null;
  amount: string | null;
  attempts: number;
  updated_at: Date;
}

describe('sweeping deposits to the hot wallet on real nodes (the server process)', function () {
  this.timeout(240_000);
  let devnet: Devnet;
  let server: DevnetServer;
  let client: ReturnType<typeof swapClient>;
  let db: pg.Client;
  /** The swaps finished here, as they were when they finished, with their deposit transactions. */
  const finished: Array<{ id: string; depositTx: string; detail: Awaited<ReturnType<typeof client.get>> }> = [];

  before(async function () {
    await skipWithoutDevnet(this);
    devnet = await startDevnet({ adminUrl: DEVNET_ADMIN_URL, confirmations: { LTC: 1, ETH: 1 }, sweepEth: true });
    server = await startDevnetServer(devnet);
    client = devnetClient(server, await createDevnetPartner(devnet, 'Sweeping'));
    db = new pg.Client({ connectionString: devnet.database.url });
    await db.connect();
  });

  after(async () => {
    await db?.end();
    await server?.stop();
    await devnet?.stop();
  });

  const sweepOf = async (depositTx: string): Promise<SweepRow | undefined> =>
    (await db.query<SweepRow>('select * from evm_sweeps where network = $1 and tx_hash = $2', ['ETH', depositTx])).rows[0];
  const confirmedSweepOf = (depositTx: string) =>
    eventually(async () => {
      const sweep = await sweepOf(depositTx);
      expect(sweep?.state ?? 'pending', JSON.stringify(sweep)).to.be.oneOf(['pending', 'funding', 'swept', 'confirmed']);
      return sweep?.state === 'confirmed' ? sweep : undefined;
    });
  const ethBalance = (address: string) => devnet.anvil.client.getBalance({ address: address as Hex });
  const receiptOf = (hash: string) => devnet.anvil.client.getTransactionReceipt({ hash: hash as Hex });
  const toLtc = (sourceAsset: string, sourceAmount: string) => ({
    sourceAsset,
    sourceNetwork: 'ETH',
    destinationAsset: 'LTC',
    destinationNetwork: 'LTC',
    sourceAmount,
    refundMode: 'address',
    refundAddress: CUSTOMER.address,
  });

  // Creates a swap to LTC, has `pay` pay its deposit address, and waits until the LTC payout is confirmed.
  async function finishSwap(request: ReturnType<typeof toLtc>, pay: (depositAddress: string) => Promise<Hex>) {
    const destination = await devnet.litecoin.call<string>('getnewaddress', ['', 'bech32'], devnet.wallets.customer);
    const { order } = await client.create(request, { destinationAddress: destination });
    const ready = await client.waitFor(order.id, (o) => typeof o.depositAddress === 'string', 30_000);
    const depositTx = await pay(ready.order.depositAddress!);
    await client.waitFor(order.id, (o) => o.status === 'sending', 60_000);
    await devnet.mineLtc(1);
    const detail = await client.waitFor(order.id, (o) => ['finished', 'review', 'refunded'].includes(o.status), 60_000);
    expect(detail.order.status, JSON.stringify(detail)).to.equal('finished');
    expect(detail.events.map((e) => e.status)).to.deep.equal(['waiting', 'confirming', 'exchanging', 'sending', 'finished']);
    finished.push({ id: order.id, depositTx, detail });
    return { order: detail.order as Swap, depositTx };
  }

  /** Pays `amount` ETH from the customer's account to a deposit address, and waits until it is mined. */
  const payEth = (amount: string) => async (address: string) => {
    const payer = createWalletClient({
      account: CUSTOMER,
      chain: { ...foundry, id: devnet.anvil.chainId },
      transport: http(devnet.anvil.url),
    });
    const hash = await payer.sendTransaction({ to: address as Hex, value: parseEther(amount) });
    await devnet.anvil.client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    return hash;
  };

  it('sweeps the ETH deposit of a finished ETH→LTC swap to the hot wallet, less the gas of its transfer', async () => {
    const hotBefore = await ethBalance(devnet.hotWallet);
    const deposit = parseEther('0.05');
    const { order, depositTx } = await finishSwap(toLtc('ETH', '0.05'), payEth('0.05'));

    const sweep = await confirmedSweepOf(depositTx);
    expect(sweep).to.include({ address: order.depositAddress, asset: 'ETH', funding_tx_hash: null, attempts: 0 });
    const receipt = await receiptOf(sweep.sweep_tx_hash!);
    expect(receipt).to.include({ status: 'success', from: order.depositAddress!.toLowerCase(), to: devnet.hotWallet.toLowerCase() });
    const swept = parseEther(sweep.amount!);
    // The hot wallet got exactly what the sweep says; the deposit is that, the gas paid, and the gas held back unused.
    expect((await ethBalance(devnet.hotWallet)) - hotBefore).to.equal(swept);
    const left = await ethBalance(order.depositAddress!);
    expect(swept + receipt.gasUsed * receipt.effectiveGasPrice + left).to.equal(deposit);
    expect(left < parseEther('0.001')).to.equal(true);
  });

  it('sweeps the USDT deposit of a finished USDT→LTC swap after the hot wallet sends the address its gas', async () => {
    const hotUsdtBefore = await devnet.usdtBalance(devnet.hotWallet);
    // The customer's 40 USDT come from the hot wallet (payUsdt), and go back to it swept.
    const { order, depositTx } = await finishSwap(toLtc('USDT', '40'), (address) => devnet.payUsdt(ANVIL_KEY_1, address, '40'));

    const sweep = await confirmedSweepOf(depositTx);
    expect(sweep).to.include({ address: order.depositAddress, asset: 'USDT', attempts: 0 });
    expect(Number(sweep.amount)).to.equal(40);
    expect(await devnet.usdtBalance(order.depositAddress!)).to.equal('0');
    expect(await devnet.usdtBalance(devnet.hotWallet)).to.equal(hotUsdtBefore);

    // First the gas, from the hot wallet, mined before the token transfer was sent.
    const funding = await receiptOf(sweep.funding_tx_hash!);
    expect(funding).to.include({ status: 'success', from: devnet.hotWallet.toLowerCase(), to: order.depositAddress!.toLowerCase() });
    const transfer = await receiptOf(sweep.sweep_tx_hash!);
    expect(transfer).to.include({ status: 'success', from: order.depositAddress!.toLowerCase(), to: devnet.usdt.toLowerCase() });
    expect(transfer.blockNumber > funding.blockNumber).to.equal(true);
    const [log] = transfer.logs.map((l) => decodeEventLog({ abi: erc20Abi, data: l.data, topics: l.topics }));
    expect(log).to.deep.include({ eventName: 'Transfer' });
    expect(log!.args).to.deep.equal({ from: order.depositAddress, to: devnet.hotWallet, value: parseUnits('40', 6) });
  });

  it('leaves the swaps as they were when they finished', async () => {
    for (const swap of finished) expect(await client.get(swap.id)).to.deep.equal(swap.detail);
  });

  it('sweeps nothing again after a restart: no new transaction from the deposit addresses or the hot wallet', async () => {
    const addresses = [devnet.hotWallet, ...finished.map((s) => s.detail.order.depositAddress!)];
    const nonces = async () =>
      Promise.all(addresses.map((address) => devnet.anvil.client.getTransactionCount({ address: address as Hex })));
    const before = await nonces();
    // One transaction from each deposit address: its sweep.
    expect(before.slice(1)).to.deep.equal([1, 1]);
    const sweeps = (await db.query<SweepRow>('select * from evm_sweeps order by created_at')).rows;
    expect(sweeps.map((s) => s.state)).to.deep.equal(['confirmed', 'confirmed']);

    await server.stop();
    server = await startDevnetServer(devnet, { port: server.port });
    // The new process holds the sweep lease (the old one gave it up when it stopped), and has made a few passes.
    const pid = String(server.child.process.pid);
    await eventually(async () => {
      const { rows } = await db.query<{ holder: string }>('select holder from evm_sweep_leases where network = $1', ['ETH']);
      return rows[0]?.holder.split(':')[1] === pid ? true : undefined;
    }, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 4_000));

    expect(await nonces()).to.deep.equal(before);
    expect((await db.query<SweepRow>('select * from evm_sweeps order by created_at')).rows).to.deep.equal(sweeps);
    for (const swap of finished) expect(await client.get(swap.id)).to.deep.equal(swap.detail);
  });

  it('commits a sweep before its broadcast: killed after the node took it (and mined it), a restart confirms that transaction', async () => {
    // The server reaches anvil through a proxy, which holds the sweep's broadcast until the swap has finished, then
    // passes it on and kills the server before the answer comes back.
    const proxy = await startRpcProxy(devnet.anvil.url);
    try {
      await server.stop();
      server = await startDevnetServer(devnet, { port: server.port, env: { ETH_RPC_URL: proxy.url } });
      const firstCall = proxy.calls.length;
      const release = proxy.hold('eth_sendRawTransaction');
      const { order, depositTx } = await finishSwap(toLtc('ETH', '0.03'), payEth('0.03'));
      const killed = proxy.arm('eth_sendRawTransaction', 'after', () => server.stop('SIGKILL'));
      release();
      const hash = keccak256((await killed).params[0] as Hex);
      expect(server.child.process.signalCode).to.equal('SIGKILL');
      expect((await receiptOf(hash)).status).to.equal('success');
      // Recorded before the node saw it: what the killed process left says which transaction moved the deposit.
      expect(await sweepOf(depositTx)).to.include({ state: 'swept', sweep_tx_hash: hash });

      // The killed process's leases, expired as their time passing would; then a restart on the same database.
      await db.query("update evm_sweep_leases set expires_at = now() - interval '1 second'");
      await db.query("update chain_watch_leases set expires_at = now() - interval '1 second'");
      server = await startDevnetServer(devnet, { port: server.port, env: { ETH_RPC_URL: proxy.url } });
      const sweep = await confirmedSweepOf(depositTx);
      expect(sweep).to.include({ sweep_tx_hash: hash, attempts: 0 });
      // One transaction from the deposit address, and every broadcast was of its bytes.
      expect(await devnet.anvil.client.getTransactionCount({ address: order.depositAddress as Hex })).to.equal(1);
      const broadcasts = proxy.calls.slice(firstCall).filter((c) => c.method === 'eth_sendRawTransaction');
      expect(new Set(broadcasts.map((c) => keccak256(c.params[0] as Hex)))).to.deep.equal(new Set([hash]));
      const receipt = await receiptOf(hash);
      expect(receipt).to.include({ from: order.depositAddress!.toLowerCase(), to: devnet.hotWallet.toLowerCase() });
    } finally {
      await proxy.close();
    }
  });
  describe('native value without a transaction of its own', () => {
    let forwarder: EthForwarder;
    const NOT_FOUND = { code: -32601, message: 'Method not found' };

    before(async () => {
      // The last test left a server on a proxy it closed: a plain one again.
      await server.stop();
      server = await startDevnetServer(devnet, { port: server.port });
      const wallet = createWalletClient({
        account: CUSTOMER,
        chain: { ...foundry, id: devnet.anvil.chainId },
        transport: http(devnet.anvil.url),
      });
      forwarder = await deployForwarder(wallet, devnet.anvil.client);
    });

    async function ops(...args: string[]): Promise<{ code: number | null; output: string }> {
      const child = spawnGroup(process.execPath, ['--import', 'tsx', 'scripts/ops.ts', ...args], devnet.env(0), ROOT);
      const code = await new Promise<number | null>((resolve) => child.process.once('exit', resolve));
      return { code, output: child.output() };
    }
    const heldOn = async (address: string) => {
      const listed = await ops('outputs', 'held', '--json');
      expect(listed.code, listed.output).to.equal(0);
      return (JSON.parse(listed.output.slice(listed.output.indexOf('['))) as Array<Record<string, unknown>>).filter(
        (o) => o.address === address,
      );
    };
    const outputsTo = async (address: string) =>
      (
        await db.query<{ tx_hash: string; output_index: number; amount: string; from_address: string | null; held_reason: string | null }>(
          'select tx_hash, output_index, amount::text, from_address, held_reason from chain_outputs where network = $1 and address = $2 order by seen_at, output_index',
          ['ETH', address],
        )
      ).rows;
    const feeOf = async (hash: string) => {
      const receipt = await receiptOf(hash);
      return receipt.gasUsed * receipt.effectiveGasPrice;
    };
    const heldLogLines = (address: string) =>
      server.child
        .output()
        .split('\n')
        .filter((line) => line.includes(address) && line.includes('held for an operator, not swept'));

    it('credits an ETH deposit paid through a contract (an internal call, from the traces) with the contract as its sender, and sweeps it', async () => {
      const { order, depositTx } = await finishSwap(toLtc('ETH', '0.04'), (address) => forwarder.forward(address, parseEther('0.04')));
      expect((order.deposits ?? []).map((d) => [d.txHash, d.outputIndex, d.status])).to.deep.equal([
        [depositTx, INTERNAL_OUTPUT_BASE, 'credited'],
      ]);
      expect((await outputsTo(order.depositAddress!)).map((o) => [o.tx_hash, o.output_index, o.from_address, o.held_reason])).to.deep.equal(
        [[depositTx, INTERNAL_OUTPUT_BASE, forwarder.address, null]],
      );
      const sweep = await confirmedSweepOf(depositTx);
      const left = await ethBalance(order.depositAddress!);
      expect(parseEther(sweep.amount!) + (await feeOf(sweep.sweep_tx_hash!)) + left).to.equal(parseEther('0.04'));
      expect(left < parseEther('0.001')).to.equal(true);
      expect(await heldOn(order.depositAddress!)).to.deep.equal([]);
    });

    it('holds value that reached a deposit address with no transaction at all (as a withdrawal does), and sweeps only the deposit', async () => {
      const { order, depositTx } = await finishSwap(toLtc('ETH', '0.05'), async (address) => {
        await devnet.anvil.rpc('anvil_setBalance', [address, `0x${parseEther('0.07').toString(16)}`]);
        return payEth('0.05')(address);
      });
      const address = order.depositAddress!;
      expect((order.deposits ?? []).map((d) => d.txHash)).to.deep.equal([depositTx]);
      const sweep = await confirmedSweepOf(depositTx);
      const held = await heldOn(address);
      expect(held).to.have.length(1);
      expect(held[0]).to.include({ network: 'ETH', asset: 'ETH', amount: '0.07', fromAddress: null, resolvedAt: null });
      expect(String(held[0]!.reason)).to.match(/no recorded transaction explains/);
      expect(heldLogLines(address)).to.have.length(1);
      // The deposit, less its gas, went to the hot wallet; the 0.07 ETH is still on the address.
      const left = await ethBalance(address);
      expect(parseEther(sweep.amount!) + (await feeOf(sweep.sweep_tx_hash!)) + left).to.equal(parseEther('0.12'));
      expect(left >= parseEther('0.07') && left - parseEther('0.07') < parseEther('0.001')).to.equal(true);
      // Later passes neither move it nor hold it again.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect(await ethBalance(address)).to.equal(left);
      expect(await heldOn(address)).to.have.length(1);
      expect(await client.get(order.id)).to.deep.equal(finished.at(-1)!.detail);
    });

    it('with a node that serves no call traces, holds an internal transfer as unattributed and sweeps only the deposit', async () => {
      const proxy = await startRpcProxy(devnet.anvil.url);
      try {
        // The node answers both trace methods "not found" (geth without its debug namespace, most providers).
        const refused = proxy.refuse('trace_block', NOT_FOUND).then(() => proxy.refuse('debug_traceBlockByNumber', NOT_FOUND));
        await server.stop();
        server = await startDevnetServer(devnet, { port: server.port, env: { ETH_RPC_URL: proxy.url } });
        const { order, depositTx } = await finishSwap(toLtc('ETH', '0.03'), async (address) => {
          // First the internal transfer, then the deposit: the scan that records the deposit has read both blocks.
          await forwarder.forward(address, parseEther('0.02'));
          return payEth('0.03')(address);
        });
        await refused;
        const address = order.depositAddress!;
        expect((order.deposits ?? []).map((d) => d.txHash)).to.deep.equal([depositTx]);
        expect((await outputsTo(address)).filter((o) => o.held_reason === null).map((o) => o.tx_hash)).to.deep.equal([depositTx]);
        const sweep = await confirmedSweepOf(depositTx);
        const held = await heldOn(address);
        expect(held).to.have.length(1);
        expect(held[0]).to.include({ asset: 'ETH', amount: '0.02', fromAddress: null });
        expect(heldLogLines(address)).to.have.length(1);
        const left = await ethBalance(address);
        expect(parseEther(sweep.amount!) + (await feeOf(sweep.sweep_tx_hash!)) + left).to.equal(parseEther('0.05'));
        expect(left >= parseEther('0.02') && left - parseEther('0.02') < parseEther('0.001')).to.equal(true);
        // The watcher asked each trace method once, and then no more.
        expect(
          proxy.calls.filter((c) => c.method === 'trace_block' || c.method === 'debug_traceBlockByNumber').map((c) => c.method),
        ).to.deep.equal(['trace_block', 'debug_traceBlockByNumber']);
      } finally {
        await server.stop();
        await proxy.close();
      }
    });
  });
});
