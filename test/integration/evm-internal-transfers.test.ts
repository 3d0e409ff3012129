/**
 * Native value that arrives without a transaction of its own, on anvil (its `trace_block` and
 * `debug_traceBlockByNumber` are real):
 * - the EVM watcher reads the call traces of each block and reports a contract's internal transfer, or its
 *   SELFDESTRUCT, to a watched address as an output from that contract (index 900,000 + its position), by either
 *   trace method; a node that serves no traces (a proxy refuses both methods) is told once in the log;
 * - the sweep job reconciles each address with the ledger those scans wrote before it sweeps: what the ledger
 *   explains moves, what it cannot (an untraced internal transfer, value with no frame at all) is recorded as a
 *   held output and stays on the address, in that sweep and the next; an address that sent a transaction the
 *   ledger does not know is left for an operator.
 *
 * Skipped, with the reason printed, where anvil is missing.
 */
import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { HDKey } from '@scure/bip32';
import pino from 'pino';
import { bytesToHex, createPublicClient, createWalletClient, http, parseEther, type Hex, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { anvil as anvilChain } from 'viem/chains';
import type { ChainScan, ChainWatcher, ObservedOutput, ScanCursor } from '../../server/adapters/chain.js';
import { deriveDepositAddress } from '../../server/adapters/ethereum/addresses.js';
import { createAssetBook } from '../../server/adapters/ethereum/context.js';
import { createEthereumSweeper } from '../../server/adapters/ethereum/index.js';
import type { TraceChoice } from '../../server/adapters/ethereum/traces.js';
import { createEvmChainWatcher, INTERNAL_OUTPUT_BASE } from '../../server/adapters/ethereum/watcher.js';
import { loadSandboxCatalog } from '../../server/adapters/sandbox/catalog.js';
import { startEvmSweeping, type EvmSweeping } from '../../server/jobs/evm-sweep.js';
import { migrate, openDatabase, type Database } from '../../server/store/database.js';
import { createEvmNonceAllocator } from '../../server/store/evm-nonces.js';
import { listSweeps, type EvmSweepRecord } from '../../server/store/evm-sweeps.js';
import { listHeldOutputs } from '../../server/store/held-outputs.js';
import { ANVIL_KEY_0, ANVIL_KEY_1, anvilUnavailable, startAnvil, type Anvil } from '../support/anvil.js';
import { scanIntoLedger } from '../support/evm-ledger.js';
import { deployForwarder, selfDestructTo, type EthForwarder } from '../support/internal-transfers.js';
import { startRpcProxy } from '../support/rpc-proxy.js';

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const account = HDKey.fromMasterSeed(pbkdf2Sync(MNEMONIC.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512')).derive("m/44'/60'/0'");
const HOT = privateKeyToAccount(ANVIL_KEY_0).address;
/** Long enough that only the test's sweepNow() runs passes. */
const INTERVAL_MS = 3_600_000;
const NOT_FOUND = { code: -32601, message: 'Method not found' };

/** A logger whose lines the test reads. */
function capturingLogger() {
  const lines: Array<{ level: number; msg: string } & Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

describe('native value without a transaction of its own (anvil)', function () {
  this.timeout(120_000);
  const reason = anvilUnavailable();
  let anvil: Anvil;
  let payer: ReturnType<typeof createWalletClient<ReturnType<typeof http>, typeof anvilChain, ReturnType<typeof privateKeyToAccount>>>;
  let forwarder: EthForwarder;

  before(async function () {
    if (reason) {
      console.log(`      skipped: ${reason}`);
      this.skip();
    }
    anvil = await startAnvil();
    payer = createWalletClient({ account: privateKeyToAccount(ANVIL_KEY_1), chain: anvilChain, transport: http(anvil.url) });
    forwarder = await deployForwarder(payer, anvil.client);
  });

  after(async () => {
    await anvil?.stop();
  });

  /** The addresses the watcher tests watch (not the forwarder, whose calls carry value too). */
  const watched = new Set<string>();
  const stranger = () => {
    const address = privateKeyToAccount(`0x${randomBytes(32).toString('hex')}`).address;
    watched.add(address);
    return address;
  };
  const blockOf = async (hash: Hex) => {
    const receipt = await anvil.client.getTransactionReceipt({ hash });
    return { height: Number(receipt.blockNumber), hash: receipt.blockHash };
  };
  const payEth = async (to: string, value: bigint) => {
    const hash = await payer.sendTransaction({ to: to as Hex, value });
    await anvil.client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    return hash;
  };
  const watcherOf = (traces: TraceChoice, options: { client?: PublicClient; startHeight?: number; logger?: pino.Logger } = {}) => {
    const client = options.client ?? anvil.client;
    return createEvmChainWatcher({
      client,
      assets: createAssetBook(client, 'ETH', {}),
      hotWallet: HOT,
      blockSeconds: 1,
      traces,
      logger: options.logger,
      network: 'ETH',
      startHeight: options.startHeight,
    });
  };

  describe('the watcher', () => {
    /** A watcher's scans from `startHeight`, of the addresses in `watched`; `scan()` reads on to the tip. */
    function scanning(watcher: ChainWatcher) {
      let cursor: ScanCursor | null = null;
      return async (): Promise<ChainScan> => {
        const all: ChainScan = { tip: { height: 0, hash: '' }, position: '', outputs: [], removed: [], payouts: [] };
        for (;;) {
          const scan = await watcher.scan(cursor, async (candidates) => new Set(candidates.filter((c) => watched.has(c))));
          cursor = { tip: scan.tip, position: scan.position };
          Object.assign(all, { tip: scan.tip, position: scan.position });
          all.outputs.push(...scan.outputs);
          all.removed.push(...scan.removed);
          if (!scan.behind) return all;
        }
      };
    }
    const internalOf = (outputs: ObservedOutput[]) => outputs.filter((o) => o.outputIndex >= INTERNAL_OUTPUT_BASE);
    let start: number;
    /** What the trace_block watcher reported from `start`: the debug_traceBlockByNumber one must report the same. */
    const traced: ObservedOutput[] = [];

    before(async () => {
      start = Number(await anvil.client.getBlockNumber()) + 1;
    });
    let scanTraced: () => Promise<ChainScan>;
    before(() => {
      scanTraced = scanning(watcherOf('trace_block', { startHeight: start }));
    });
    const scanAndKeep = async () => {
      const scan = await scanTraced();
      traced.push(...scan.outputs);
      return scan;
    };

    it('reports an internal transfer to a watched address as an output from the contract that sent it (trace_block)', async () => {
      const deposit = stranger();
      const txHash = await forwarder.forward(deposit, parseEther('0.3'));
      const scan = await scanAndKeep();
      expect(scan.outputs).to.deep.equal([
        {
          txHash,
          outputIndex: INTERNAL_OUTPUT_BASE,
          address: deposit,
          memo: null,
          asset: 'ETH',
          amount: '0.3',
          fromAddress: forwarder.address,
          block: await blockOf(txHash),
          seenAt: scan.outputs[0]!.seenAt,
        },
      ]);
    });

    it('numbers two internal transfers of one transaction 900000 and 900001, and reports none of a transaction that reverted', async () => {
      const [a, b] = [stranger(), stranger()];
      const split = await forwarder.split(a, b, 10n);
      const reverted = await forwarder.forwardAndRevert(a, parseEther('1'));
      expect((await anvil.client.getTransactionReceipt({ hash: reverted })).status).to.equal('reverted');
      const scan = await scanAndKeep();
      expect(scan.outputs.map((o) => [o.txHash, o.outputIndex, o.address, o.amount])).to.deep.equal([
        [split, INTERNAL_OUTPUT_BASE, a, '0.000000000000000005'],
        [split, INTERNAL_OUTPUT_BASE + 1, b, '0.000000000000000005'],
      ]);
      expect(await anvil.client.getBalance({ address: a })).to.equal(5n);
    });

    it('reports a SELFDESTRUCT to a watched address, from the destroyed contract', async () => {
      const deposit = stranger();
      const { contract, txHash } = await selfDestructTo(payer, anvil.client, deposit, parseEther('0.5'));
      const scan = await scanAndKeep();
      expect(scan.outputs.map((o) => [o.txHash, o.outputIndex, o.address, o.amount, o.fromAddress])).to.deep.equal([
        [txHash, INTERNAL_OUTPUT_BASE, deposit, '0.5', contract],
      ]);
      expect(await anvil.client.getBalance({ address: deposit })).to.equal(parseEther('0.5'));
    });

    it('reports the same outputs, with the same indexes, from debug_traceBlockByNumber', async () => {
      const scan = await scanning(watcherOf('debug_traceBlockByNumber', { startHeight: start }))();
      const key = (o: ObservedOutput) => JSON.stringify({ ...o, seenAt: undefined });
      expect(internalOf(scan.outputs).map(key)).to.deep.equal(internalOf(traced).map(key));
      expect(traced).to.have.length(4);
    });

    it('reports an internal transfer removed when a reorganisation takes its block out of the chain', async () => {
      const deposit = stranger();
      const txHash = await forwarder.forward(deposit, parseEther('0.1'));
      expect((await scanAndKeep()).outputs.map((o) => o.outputIndex)).to.deep.equal([INTERNAL_OUTPUT_BASE]);
      await anvil.mine(1);
      await anvil.reorg(2);
      const after = await scanAndKeep();
      expect(after.removed).to.deep.equal([{ txHash, outputIndex: INTERNAL_OUTPUT_BASE }]);
    });

    it('says once in the log that a node serves no call traces, and reports top-level payments only', async () => {
      const proxy = await startRpcProxy(anvil.url);
      try {
        const client = createPublicClient({ transport: http(proxy.url, { retryCount: 0 }), cacheTime: 0 });
        const { logger, lines } = capturingLogger();
        const scan = scanning(watcherOf('auto', { client, startHeight: Number(await anvil.client.getBlockNumber()) + 1, logger }));
        // The node answers both trace methods "not found", as geth without the debug namespace or a provider does.
        const refused = proxy.refuse('trace_block', NOT_FOUND).then(() => proxy.refuse('debug_traceBlockByNumber', NOT_FOUND));
        const deposit = stranger();
        await forwarder.forward(deposit, parseEther('0.1'));
        const paid = await payEth(deposit, parseEther('0.2'));
        expect((await scan()).outputs.map((o) => [o.txHash, o.outputIndex])).to.deep.equal([[paid, 0]]);
        await refused;
        await forwarder.forward(deposit, parseEther('0.1'));
        expect((await scan()).outputs).to.deep.equal([]);
        const told = lines.filter((l) => /serves no call traces/.test(l.msg));
        expect(told).to.have.length(1);
        expect(told[0]).to.include({ level: 40, network: 'ETH' });
        // Asked once each, and never again.
        expect(proxy.calls.filter((c) => c.method.startsWith('trace_') || c.method.startsWith('debug_'))).to.have.length(2);
      } finally {
        await proxy.close();
      }
    });
  });

  describe('the sweep job, reconciling each address with the ledger first', () => {
    const schema = `reconcile_${randomBytes(4).toString('hex')}`;
    let db: Database;
    let sweeping: EvmSweeping;
    const log = capturingLogger();
    let ledgerStart: number;

    before(async () => {
      db = await openDatabase(process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL, schema } : {});
      await migrate(db.knex);
      const sweeper = await createEthereumSweeper({
        network: 'ETH',
        rpcUrl: anvil.url,
        nativeSymbol: 'ETH',
        xpub: account.publicExtendedKey,
        xprv: account.privateExtendedKey,
        hotWalletKey: ANVIL_KEY_0,
        tokens: {},
        nonces: createEvmNonceAllocator(db.knex, 'ETH'),
        payoutConfirmations: 1,
        blockSeconds: 1,
      });
      sweeping = startEvmSweeping({
        knex: db.knex,
        catalog: loadSandboxCatalog(),
        networks: { ETH: { sweeper, intervalMs: INTERVAL_MS } },
        holder: 'test',
        now: () => new Date(),
        logger: log.logger,
      });
      ledgerStart = Number(await anvil.client.getBlockNumber()) + 1;
      await new Promise((resolve) => setTimeout(resolve, 1_100));
    });

    after(async () => {
      await sweeping?.stop();
      if (db) {
        if (process.env.DATABASE_URL) await db.knex.raw('drop schema ?? cascade', [schema]);
        await db.close();
      }
    });

    /** Scans into the ledger with a watcher reading `traces` (a new one each time, from the stored cursor). */
    const scanLedger = (traces: TraceChoice) => scanIntoLedger(db.knex, 'ETH', watcherOf(traces, { startHeight: ledgerStart }));
    const addSweep = async (index: number, txHash: string, outputIndex = 0) => {
      const at = new Date();
      await db.knex('evm_sweeps').insert({
        network: 'ETH',
        tx_hash: txHash,
        output_index: outputIndex,
        address: deriveDepositAddress(account, index),
        derivation_index: index,
        asset: 'ETH',
        state: 'pending',
        next_attempt_at: at,
        created_at: at,
        updated_at: at,
      });
    };
    const sweepOf = async (txHash: string): Promise<EvmSweepRecord> => (await listSweeps(db.knex, 'ETH')).find((s) => s.txHash === txHash)!;
    const pass = () => sweeping.sweepNow('ETH');
    const balanceOf = (address: string) => anvil.client.getBalance({ address: address as Hex });
    const feeOf = async (hash: string) => {
      const receipt = await anvil.client.getTransactionReceipt({ hash: hash as Hex });
      return receipt.gasUsed * receipt.effectiveGasPrice;
    };
    const heldOn = async (address: string) => (await listHeldOutputs(db.knex)).filter((o) => o.address === address);

    it('sweeps a traced internal transfer with the deposit it joins: the ledger explains both, nothing is held', async () => {
      const address = deriveDepositAddress(account, 20);
      const paid = await payEth(address, parseEther('0.2'));
      const internal = await forwarder.forward(address, parseEther('0.1'));
      await scanLedger('auto');
      const recorded = await db.knex('chain_outputs').where({ address }).orderBy('output_index');
      expect(recorded.map((o) => [o.tx_hash, o.output_index, o.from_address, o.held_reason])).to.deep.equal([
        [paid, 0, payer.account.address, null],
        [internal, INTERNAL_OUTPUT_BASE, forwarder.address, null],
      ]);
      await addSweep(20, paid);
      await pass();
      const swept = await sweepOf(paid);
      expect(swept.state).to.equal('swept');
      expect(parseEther(swept.amount!) + (await feeOf(swept.sweepTxHash!)) + (await balanceOf(address))).to.equal(parseEther('0.3'));
      expect((await balanceOf(address)) < parseEther('0.001')).to.equal(true);
      expect(await heldOn(address)).to.deep.equal([]);
    });

    it('holds an internal transfer a node without traces hid, sweeps only the deposit, and leaves the rest on the address', async () => {
      const address = deriveDepositAddress(account, 21);
      // Paid first, then the deposit: the scan that records the deposit has read the block of the transfer too.
      await forwarder.forward(address, parseEther('0.1'));
      const paid = await payEth(address, parseEther('0.2'));
      const scan = await scanLedger('off');
      expect(await db.knex('chain_outputs').where({ address }).pluck('tx_hash')).to.deep.equal([paid]);
      await addSweep(21, paid);
      await pass();

      const [held] = await heldOn(address);
      const ledgerBlock = JSON.parse(scan.position).next - 1;
      expect(held).to.deep.include({
        network: 'ETH',
        txHash: `unexplained-${ledgerBlock}-${address}`,
        outputIndex: 0,
        asset: 'ETH',
        amount: '0.1',
        fromAddress: null,
        resolvedAt: null,
      });
      expect(held!.reason)
        .to.match(/no recorded transaction explains/)
        .and.to.match(/balance at block \d+ .* was 0\.3 and the ledger explains 0\.2/);
      expect(log.lines.find((l) => /held for an operator, not swept/.test(l.msg))).to.include({ level: 50, address, amount: '0.1' });

      const swept = await sweepOf(paid);
      expect(swept.state).to.equal('swept');
      const left = await balanceOf(address);
      // The deposit, less its gas, went; the transfer no transaction explains is still there (with the gas held back).
      expect(parseEther(swept.amount!) + (await feeOf(swept.sweepTxHash!)) + left).to.equal(parseEther('0.3'));
      expect(left - parseEther('0.1') < parseEther('0.001')).to.equal(true);
      expect(left >= parseEther('0.1')).to.equal(true);

      // Confirmed; a later deposit to the same address is swept without the held value, which is not held twice.
      await pass();
      expect((await sweepOf(paid)).state).to.equal('confirmed');
      const again = await payEth(address, parseEther('0.05'));
      await scanLedger('off');
      await addSweep(21, again);
      await pass();
      const second = await sweepOf(again);
      expect(second.state).to.equal('swept');
      expect(await heldOn(address)).to.have.length(1);
      const after = await balanceOf(address);
      expect(after >= parseEther('0.1')).to.equal(true);
      expect(after - parseEther('0.1') < parseEther('0.001')).to.equal(true);
      await pass();
      expect((await sweepOf(again)).state).to.equal('confirmed');
    });

    it('holds value that came with no frame at all (as a withdrawal does), even with traces on', async () => {
      const address = deriveDepositAddress(account, 22);
      await anvil.rpc('anvil_setBalance', [address, `0x${parseEther('0.4').toString(16)}`]);
      const paid = await payEth(address, parseEther('0.2'));
      await scanLedger('auto');
      await addSweep(22, paid);
      await pass();
      expect((await heldOn(address)).map((o) => o.amount)).to.deep.equal(['0.4']);
      const swept = await sweepOf(paid);
      expect(parseEther(swept.amount!) < parseEther('0.2')).to.equal(true);
      expect((await balanceOf(address)) >= parseEther('0.4')).to.equal(true);
    });

    it('leaves for an operator, moving nothing, an address that sent a transaction the ledger does not know', async () => {
      const address = deriveDepositAddress(account, 23);
      const paid = await payEth(address, parseEther('0.2'));
      const owner = privateKeyToAccount(bytesToHex(account.deriveChild(0).deriveChild(23).privateKey!));
      const other = createWalletClient({ account: owner, chain: anvilChain, transport: http(anvil.url) });
      await anvil.client.waitForTransactionReceipt({ hash: await other.sendTransaction({ to: stranger(), value: parseEther('0.05') }) });
      await scanLedger('auto');
      await addSweep(23, paid);
      const before = await balanceOf(address);
      await pass();
      const sweep = await sweepOf(paid);
      expect(sweep).to.include({ state: 'failed', sweepTxHash: null });
      expect(sweep.lastError).to.match(/has sent 1 transaction\(s\) .* the ledger knows 0/);
      expect(await balanceOf(address)).to.equal(before);
      expect(await heldOn(address)).to.deep.equal([]);
    });
  });
});
