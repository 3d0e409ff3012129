/**
 * The sweep job (jobs/evm-sweep.ts) on anvil with mining by hand: a token sweep waits for its gas top-up to be
 * mined before it sends the tokens, and the sweep transaction is committed before its broadcast, so a step that
 * died after the broadcast is followed to confirmation (even when the transaction was mined meanwhile and the
 * address is empty) and one that died before it broadcasts the same bytes. The deposits are scanned into the
 * ledger by the real watcher (each sweep reconciles its address with it first); the sweeps are written straight
 * into `evm_sweeps` (test/integration/production-sweep.test.ts finds them from swaps, through the server process).
 *
 * Skipped, with the reason printed, where anvil is missing.
 */
import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { HDKey } from '@scure/bip32';
import pino from 'pino';
import { bytesToHex, createWalletClient, erc20Abi, http, keccak256, parseEther, parseUnits, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { anvil as anvilChain } from 'viem/chains';
import { createEthereumAdapters, createEthereumSweeper, type EvmSweeper } from '../../server/adapters/ethereum/index.js';
import { deriveDepositAddress } from '../../server/adapters/ethereum/addresses.js';
import { loadSandboxCatalog } from '../../server/adapters/sandbox/catalog.js';
import { MAX_SWEEP_REFUSALS, startEvmSweeping, type EvmSweeping } from '../../server/jobs/evm-sweep.js';
import { migrate, openDatabase, type Database } from '../../server/store/database.js';
import { createEvmNonceAllocator } from '../../server/store/evm-nonces.js';
import { listSweeps, updateSweep, type EvmSweepRecord } from '../../server/store/evm-sweeps.js';
import { ANVIL_KEY_0, ANVIL_KEY_1, anvilUnavailable, startAnvil, type Anvil } from '../support/anvil.js';
import { deployToken } from '../support/erc20.js';
import { scanIntoLedger } from '../support/evm-ledger.js';

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const account = HDKey.fromMasterSeed(pbkdf2Sync(MNEMONIC.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512')).derive("m/44'/60'/0'");
const HOT = privateKeyToAccount(ANVIL_KEY_0).address;
/** Long enough that only the test's sweepNow() runs passes (the first one runs within a second of the start). */
const INTERVAL_MS = 3_600_000;

describe('the sweep job (anvil, mining by hand)', function () {
  this.timeout(60_000);
  const reason = anvilUnavailable();
  const schema = `sweep_${randomBytes(4).toString('hex')}`;
  let anvil: Anvil;
  let db: Database;
  let usdt: Hex;
  let sweeper: EvmSweeper;
  let sweeping: EvmSweeping | undefined;
  /** The customer's payment to each deposit address, by derivation index. */
  const payments = new Map<number, Hex>();
  /** The transactions the real sweeper broadcast (top-ups and sweeps), those it handed to `record`, and the bytes rebroadcast. */
  const broadcast: string[] = [];
  const recorded: string[] = [];
  const rebroadcast: string[] = [];
  /** Each gas top-up as it was about to be broadcast: whether its sweep already held it, and whether the node knew it. */
  const fundings: Array<{ txHash: string; stored: boolean; nodeKnewIt: boolean }> = [];
  /**
   * Where the next step dies, as a killed process would: after the sweep transaction was committed and before it
   * was broadcast, or after the broadcast and before the step's result was handled.
   */
  let crash: 'before-broadcast' | 'after-broadcast' | undefined;
  /** Runs between the sweep transaction's commit and its broadcast, once. */
  let beforeBroadcast: (() => Promise<void>) | undefined;

  before(async function () {
    if (reason) {
      console.log(`      skipped: ${reason}`);
      this.skip();
    }
    anvil = await startAnvil();
    const payer = createWalletClient({ account: privateKeyToAccount(ANVIL_KEY_1), chain: anvilChain, transport: http(anvil.url) });
    usdt = await deployToken(payer, { symbol: 'USDT', decimals: 6, supply: '1000000' }, anvil.client);
    db = await openDatabase(process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL, schema } : {});
    await migrate(db.knex);
    sweeper = await createEthereumSweeper({
      network: 'ETH',
      rpcUrl: anvil.url,
      nativeSymbol: 'ETH',
      xpub: account.publicExtendedKey,
      xprv: account.privateExtendedKey,
      hotWalletKey: ANVIL_KEY_0,
      tokens: { USDT: { address: usdt } },
      nonces: createEvmNonceAllocator(db.knex, 'ETH'),
      payoutConfirmations: 1,
      blockSeconds: 1,
    });
    const recording: EvmSweeper = {
      ...sweeper,
      async sweep(request, record, hold, recordFunding) {
        const step = await sweeper.sweep(
          request,
          async (signed) => {
            await record(signed);
            recorded.push(signed.txHash);
            const hook = beforeBroadcast;
            beforeBroadcast = undefined;
            await hook?.();
            if (crash === 'before-broadcast') {
              crash = undefined;
              throw new Error('the process died before the broadcast');
            }
          },
          hold,
          async (txHash) => {
            await recordFunding(txHash);
            // What the database and the node held when the top-up was about to be broadcast.
            const sweep = (await listSweeps(db.knex, 'ETH')).find((w) => w.address.toLowerCase() === request.address?.toLowerCase());
            const known = await anvil.client.request({ method: 'eth_getTransactionByHash', params: [txHash as Hex] });
            fundings.push({ txHash, stored: sweep?.state === 'funding' && sweep.fundingTxHash === txHash, nodeKnewIt: known !== null });
          },
        );
        if (step.kind === 'funding' || step.kind === 'swept') broadcast.push(step.txHash);
        if (crash === 'after-broadcast') {
          crash = undefined;
          throw new Error('the process died after the broadcast');
        }
        return step;
      },
      async rebroadcast(signed) {
        rebroadcast.push(signed.bytes);
        return sweeper.rebroadcast(signed);
      },
    };
    // The customer's payments are mined at once, and scanned into the ledger; from then on, blocks come only when
    // the test mines them.
    const firstPayment = Number(await anvil.client.getBlockNumber()) + 1;
    const pay = async (index: number, hash: Hex) => {
      await anvil.client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      payments.set(index, hash);
    };
    await pay(1, await payer.sendTransaction({ to: deriveDepositAddress(account, 1) as Hex, value: parseEther('2') }));
    await pay(3, await payer.sendTransaction({ to: deriveDepositAddress(account, 3) as Hex, value: parseEther('1') }));
    await pay(4, await payer.sendTransaction({ to: deriveDepositAddress(account, 4) as Hex, value: parseEther('1') }));
    await pay(5, await payer.sendTransaction({ to: deriveDepositAddress(account, 5) as Hex, value: parseEther('1') }));
    await pay(
      2,
      await payer.writeContract({
        address: usdt,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [deriveDepositAddress(account, 2) as Hex, parseUnits('7', 6)],
      }),
    );
    const { watcher } = await createEthereumAdapters({
      network: 'ETH',
      rpcUrl: anvil.url,
      nativeSymbol: 'ETH',
      xpub: account.publicExtendedKey,
      hotWalletKey: ANVIL_KEY_0,
      tokens: { USDT: { address: usdt } },
      nonces: createEvmNonceAllocator(db.knex, 'ETH'),
      payoutConfirmations: 1,
      blockSeconds: 1,
      startHeight: firstPayment,
    });
    await scanIntoLedger(db.knex, 'ETH', watcher);
    await anvil.rpc('evm_setAutomine', [false]);
    sweeping = startEvmSweeping({
      knex: db.knex,
      catalog: loadSandboxCatalog(),
      networks: { ETH: { sweeper: recording, intervalMs: INTERVAL_MS } },
      holder: 'test',
      now: () => new Date(),
      logger: pino({ level: 'silent' }),
    });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
  });

  after(async () => {
    await sweeping?.stop();
    await anvil?.stop();
    if (db) {
      if (process.env.DATABASE_URL) await db.knex.raw('drop schema ?? cascade', [schema]);
      await db.close();
    }
  });

  // The sweep of the customer's payment to 0/`index` (its ledger output: index 0 for ETH, 1 for the USDT log).
  const addSweep = async (index: number, asset: string): Promise<string> => {
    const txHash = payments.get(index)!;
    const at = new Date();
    const address = deriveDepositAddress(account, index);
    await db.knex('evm_sweeps').insert({
      network: 'ETH',
      tx_hash: txHash,
      output_index: asset === 'ETH' ? 0 : 1,
      address,
      derivation_index: index,
      asset,
      state: 'pending',
      next_attempt_at: at,
      created_at: at,
      updated_at: at,
    });
    return txHash;
  };
  const sweepOf = async (txHash: string): Promise<EvmSweepRecord> => (await listSweeps(db.knex, 'ETH')).find((s) => s.txHash === txHash)!;
  const pass = () => sweeping!.sweepNow('ETH');
  const nonceOf = (index: number) => anvil.client.getTransactionCount({ address: deriveDepositAddress(account, index) as Hex });

  const knownToNode = async (hash: string) =>
    (await anvil.client.request({ method: 'eth_getTransactionByHash', params: [hash as Hex] })) !== null;

  it('commits the sweep transaction before its broadcast: killed after it and mined meanwhile, the sweep is confirmed, not empty', async () => {
    const deposit = await addSweep(1, 'ETH');
    const hotBefore = await anvil.client.getBalance({ address: HOT });
    crash = 'after-broadcast';
    await pass();
    expect(broadcast).to.have.length(1);
    expect(recorded).to.deep.equal(broadcast);
    const left = await sweepOf(deposit);
    expect(left).to.include({ state: 'swept', attempts: 0, sweepTxHash: broadcast[0] });
    expect(keccak256(left.sweepTxBytes as Hex)).to.equal(broadcast[0]);

    // Mined while the process was down: the address is empty now, and the sweep follows the recorded transaction.
    await anvil.mine(1);
    await pass();
    expect(await sweepOf(deposit)).to.include({ state: 'confirmed', sweepTxHash: broadcast[0], amount: left.amount });
    expect(broadcast).to.have.length(1);
    expect(await nonceOf(1)).to.equal(1);
    expect((await anvil.client.getBalance({ address: HOT })) - hotBefore).to.equal(parseEther(left.amount!));
  });

  it('broadcasts the same bytes again when it was killed between the commit and the broadcast', async () => {
    const deposit = await addSweep(3, 'ETH');
    const hotBefore = await anvil.client.getBalance({ address: HOT });
    const broadcastBefore = broadcast.length;
    crash = 'before-broadcast';
    await pass();
    expect(broadcast).to.have.length(broadcastBefore);
    const left = await sweepOf(deposit);
    expect(left).to.include({ state: 'swept', sweepTxHash: recorded.at(-1) });
    expect(await knownToNode(left.sweepTxHash!)).to.equal(false);

    // The next pass finds the node does not know it, and sends the recorded bytes (nothing is signed again).
    const recordedBefore = recorded.length;
    await pass();
    expect(rebroadcast).to.deep.equal([left.sweepTxBytes]);
    expect(recorded).to.have.length(recordedBefore);
    expect(await knownToNode(left.sweepTxHash!)).to.equal(true);
    expect(await sweepOf(deposit)).to.include({ state: 'swept', sweepTxHash: left.sweepTxHash, attempts: 1 });
    await anvil.mine(1);
    await db.knex('evm_sweeps').where({ tx_hash: deposit }).update({ next_attempt_at: new Date() });
    await pass();
    expect(await sweepOf(deposit)).to.include({ state: 'confirmed', sweepTxHash: left.sweepTxHash, attempts: 1 });
    expect(await nonceOf(3)).to.equal(1);
    expect((await anvil.client.getBalance({ address: HOT })) - hotBefore).to.equal(parseEther(left.amount!));
  });

  it('signs again, its nonce released, when the node refuses the first broadcast (the transaction went nowhere)', async () => {
    const deposit = await addSweep(5, 'ETH');
    const address = deriveDepositAddress(account, 5) as Hex;
    const key = `sweep:${deposit}:0:sweep`;
    // The address is emptied between the commit and the broadcast: the node refuses it for insufficient funds.
    beforeBroadcast = () => anvil.rpc('anvil_setBalance', [address, '0x0']).then(() => undefined);
    await pass();
    const refused = await sweepOf(deposit);
    expect(refused).to.include({ state: 'pending', attempts: 1, sweepTxHash: null, sweepTxBytes: null, amount: null });
    expect(refused.lastError).to.match(/insufficient funds/i);
    expect(await db.knex('evm_nonces').where({ key }).first()).to.equal(undefined);

    await anvil.rpc('anvil_setBalance', [address, `0x${parseEther('1').toString(16)}`]);
    await db.knex('evm_sweeps').where({ tx_hash: deposit }).update({ next_attempt_at: new Date() });
    await pass();
    const again = await sweepOf(deposit);
    expect(again).to.include({ state: 'swept', attempts: 1 });
    await anvil.mine(1);
    await pass();
    expect(await sweepOf(deposit)).to.include({ state: 'confirmed', sweepTxHash: again.sweepTxHash });
    expect(await nonceOf(5)).to.equal(1);
  });

  it('keeps a recorded transaction the node refuses when broadcast again, and leaves it for an operator with its hash', async () => {
    const deposit = await addSweep(4, 'ETH');
    crash = 'before-broadcast';
    await pass();
    const left = await sweepOf(deposit);
    expect(left).to.include({ state: 'swept', attempts: 0 });
    // Another transaction from the address takes the recorded one's nonce: the node refuses those bytes now. It
    // cannot tell whether they went out before, so they stay the sweep's, and nothing is signed again.
    const owner = privateKeyToAccount(bytesToHex(account.deriveChild(0).deriveChild(4).privateKey!));
    const other = createWalletClient({ account: owner, chain: anvilChain, transport: http(anvil.url) });
    await other.sendTransaction({ to: HOT as Hex, value: parseEther('0.1'), nonce: 0 });
    await anvil.mine(1);

    const recordedBefore = recorded.length;
    for (let attempt = 1; attempt <= MAX_SWEEP_REFUSALS; attempt++) {
      await db.knex('evm_sweeps').where({ tx_hash: deposit }).update({ next_attempt_at: new Date() });
      await pass();
      const sweep = await sweepOf(deposit);
      expect(sweep).to.include({ attempts: attempt, sweepTxHash: left.sweepTxHash, sweepTxBytes: left.sweepTxBytes, amount: left.amount });
      expect(sweep.state).to.equal(attempt < MAX_SWEEP_REFUSALS ? 'swept' : 'failed');
      expect(sweep.lastError).to.match(/spent by another transaction/);
    }
    expect(recorded).to.have.length(recordedBefore);
    expect(await nonceOf(4)).to.equal(1);
    // The nonce stays held by the sweep's key: the allocator gives the next key of the address the one after it.
    const held = await db
      .knex('evm_nonces')
      .where({ key: `sweep:${deposit}:0:sweep` })
      .first('nonce');
    expect(Number(held.nonce)).to.equal(0);
  });

  it('sends the tokens of a USDT deposit only once the gas top-up is mined, the top-up stored before its broadcast', async () => {
    const deposit = await addSweep(2, 'USDT');
    await pass();
    const funding = await sweepOf(deposit);
    expect(funding).to.include({ state: 'funding', attempts: 0 });
    expect(funding.fundingTxHash).to.equal(broadcast.at(-1));
    expect(fundings.at(-1)).to.deep.equal({ txHash: funding.fundingTxHash, stored: true, nodeKnewIt: false });

    // The top-up waits in the pool: the address cannot pay for a transfer yet, so none is sent.
    await pass();
    await pass();
    expect(await sweepOf(deposit)).to.include({ state: 'funding', attempts: 0, sweepTxHash: null });
    expect(await nonceOf(2)).to.equal(0);

    await anvil.mine(1);
    await pass();
    const swept = await sweepOf(deposit);
    expect(swept).to.include({ state: 'swept', attempts: 0, fundingTxHash: funding.fundingTxHash });
    expect(Number(swept.amount)).to.equal(7);
    await anvil.mine(1);
    await pass();
    expect(await sweepOf(deposit)).to.include({ state: 'confirmed' });
    const balance = await anvil.client.readContract({
      address: usdt,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [deriveDepositAddress(account, 2) as Hex],
    });
    expect(balance).to.equal(0n);
    expect(await nonceOf(2)).to.equal(1);
  });

  it("keeps a node's error text with its URL redacted: no provider key in the database", async () => {
    const [sweep] = await listSweeps(db.knex, 'ETH');
    const key = '0123456789abcdef0123456789abcdef';
    const message = `HTTP request failed.\n\nURL: https://user:pw@mainnet.infura.io/v3/${key}\nRequest body: {"method":"eth_sendRawTransaction"}`;
    expect(await updateSweep(db.knex, sweep, { lastError: message }, new Date())).to.equal(true);
    const stored = (await sweepOf(sweep.txHash)).lastError!;
    expect(stored).to.contain('URL: https://mainnet.infura.io/v3/***');
    for (const secret of [key, 'user', 'pw@']) expect(stored).not.to.contain(secret);
  });
});
