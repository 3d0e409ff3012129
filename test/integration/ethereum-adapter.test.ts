import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { HDKey } from '@scure/bip32';
import { createWalletClient, erc20Abi, http, keccak256, parseEther, parseTransaction, parseUnits, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { anvil as anvilChain } from 'viem/chains';
import {
  AmbiguousBroadcastError,
  type ChainScan,
  type NetworkAdapters,
  type ObservedOutput,
  type PayoutOrder,
  type ScanCursor,
} from '../../server/adapters/chain.js';
import type { AddressLedger } from '../../server/adapters/ethereum/reconcile.js';
import { createEthereumAdapters, createEthereumSweeper, type SignedSweep } from '../../server/adapters/ethereum/index.js';
import type { CatalogAsset } from '../../server/domain/catalog.js';
import { migrate, openDatabase, type Database } from '../../server/store/database.js';
import { createEvmNonceAllocator } from '../../server/store/evm-nonces.js';
import { ANVIL_KEY_0, ANVIL_KEY_1, anvilUnavailable, startAnvil, type Anvil } from '../support/anvil.js';
import { deployToken } from '../support/erc20.js';

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
/** The account key m/44'/60'/0' of the BIP39 test mnemonic, as an xpub (and its xprv). */
const account = HDKey.fromMasterSeed(pbkdf2Sync(MNEMONIC.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512')).derive("m/44'/60'/0'");
const XPUB = account.publicExtendedKey;

const asset = (symbol: string, precision: number): CatalogAsset => ({
  symbol,
  name: symbol,
  network: 'ETH',
  precision,
  priceUsd: '1',
  driftPercent: '0',
  dustFloor: '0',
  fixedRate: true,
});
const ETH = asset('ETH', 18);
const USDT = asset('USDT', 6);

/** Opens the test database: a schema of its own on DATABASE_URL's PostgreSQL, else an embedded PGlite. */
async function openTestDatabase(schema: string): Promise<Database> {
  const db = await openDatabase(process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL, schema } : {});
  await migrate(db.knex);
  return db;
}

describe('ethereum adapters (anvil)', function () {
  const reason = anvilUnavailable();
  let anvil: Anvil;
  let db: Database;
  let adapters: NetworkAdapters;
  let usdt: Hex;
  const schema = `eth_${randomBytes(4).toString('hex')}`;
  const payerOf = (url: string) =>
    createWalletClient({ account: privateKeyToAccount(ANVIL_KEY_1), chain: anvilChain, transport: http(url) });
  let payer: ReturnType<typeof payerOf>;
  let cursor: ScanCursor | null = null;
  let indexes = 0;
  /** Every output the scans reported, as the ledger would record them. */
  const seen: ObservedOutput[] = [];

  before(async function () {
    if (reason) {
      console.log(`      skipped: ${reason}`);
      this.skip();
    }
    anvil = await startAnvil();
    payer = payerOf(anvil.url);
    usdt = await deployToken(payer, { symbol: 'USDT', decimals: 6, supply: '1000000' }, anvil.client);
    db = await openTestDatabase(schema);
    adapters = await createEthereumAdapters({
      network: 'ETH',
      rpcUrl: anvil.url,
      nativeSymbol: 'ETH',
      xpub: XPUB,
      hotWalletKey: ANVIL_KEY_0,
      tokens: { USDT: { address: usdt } },
      nonces: createEvmNonceAllocator(db.knex, 'ETH'),
      payoutConfirmations: 1,
      blockSeconds: 1,
    });
    // The watcher starts at the tip: everything before it is not ours.
    await scan();
  });
  after(async () => {
    if (db) {
      if (process.env.DATABASE_URL) await db.knex.raw('drop schema ?? cascade', [schema]);
      await db.close();
    }
    await anvil?.stop();
  });

  const watchedAll = async (candidates: string[]) => new Set(candidates);
  async function scan(watched = watchedAll): Promise<ChainScan> {
    const result = await adapters.watcher.scan(cursor, watched);
    cursor = { tip: result.tip, position: result.position };
    seen.push(...result.outputs);
    return result;
  }
  /** What the ledger says of `address` after a scan (store/evm-reconcile.ts reads the same from the database). */
  async function ledgerOf(address: string, ours: { sent?: string[]; funded?: string[] } = {}): Promise<AddressLedger> {
    await scan();
    return {
      position: cursor!.position,
      received: seen
        .filter((o) => o.address === address && o.asset === 'ETH')
        .map((o) => ({ txHash: o.txHash, outputIndex: o.outputIndex, value: parseEther(o.amount), height: o.block!.height })),
      held: 0n,
      sent: ours.sent ?? [],
      funded: ours.funded ?? [],
    };
  }
  const noHold = async () => {
    throw new Error('nothing here is unexplained');
  };
  async function depositAddress(symbol: CatalogAsset = ETH) {
    const index = indexes++;
    return (await adapters.addresses.depositAddress(symbol, { key: `swap-${index}`, index: async () => index })).address;
  }
  const order = (key: string, symbol: CatalogAsset, address: string, amount: string): PayoutOrder => ({
    key,
    swapId: key,
    asset: symbol,
    address,
    memo: null,
    amount,
  });
  const receiptOf = (hash: string) => anvil.client.waitForTransactionReceipt({ hash: hash as Hex, pollingInterval: 50 });
  const nonceOf = (bytes: string) => parseTransaction(bytes as Hex).nonce;

  describe('address source', () => {
    it('derives 0/<index> of the account xpub, checksummed: the BIP44 test vector', async () => {
      const first = await adapters.addresses.depositAddress(ETH, { key: 'vector', index: async () => 0 });
      expect(first).to.deep.equal({ address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94', memo: null });
      indexes = 1;
    });
  });

  describe('watcher', () => {
    it('reports an ETH and a USDT deposit to watched addresses, with their blocks, and ignores unwatched ones', async () => {
      const ethAddress = await depositAddress();
      const usdtAddress = await depositAddress(USDT);
      const stranger = await depositAddress();
      const ethTx = await payer.sendTransaction({ to: ethAddress as Hex, value: parseEther('1.5') });
      const usdtTx = await payer.writeContract({
        address: usdt,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [usdtAddress as Hex, parseUnits('25.5', 6)],
      });
      await payer.sendTransaction({ to: stranger as Hex, value: parseEther('1') });
      const [ethReceipt, usdtReceipt] = await Promise.all([receiptOf(ethTx), receiptOf(usdtTx)]);
      let asked: string[] = [];
      const result = await scan(async (candidates) => {
        asked = candidates;
        return new Set(candidates.filter((c) => c !== stranger));
      });
      expect(asked).to.include.members([ethAddress, usdtAddress, stranger]);
      const byHash = new Map(result.outputs.map((o) => [o.txHash, o]));
      expect(byHash.get(ethTx)).to.deep.include({
        outputIndex: 0,
        address: ethAddress,
        asset: 'ETH',
        amount: '1.5',
        memo: null,
        fromAddress: payer.account.address,
        block: { height: Number(ethReceipt.blockNumber), hash: ethReceipt.blockHash },
      });
      expect(byHash.get(usdtTx)).to.deep.include({
        // 1 + the log's position among its transaction's logs (its first), whatever its index in the block.
        outputIndex: 1,
        address: usdtAddress,
        asset: 'USDT',
        amount: '25.5',
        block: { height: Number(usdtReceipt.blockNumber), hash: usdtReceipt.blockHash },
      });
      expect(result.outputs).to.have.length(2);
      expect(result.removed).to.deep.equal([]);
      expect(result.behind).to.equal(false);
    });

    it('reports a deposit removed when a reorganisation takes its block out of the chain', async () => {
      const address = await depositAddress();
      const tx = await payer.sendTransaction({ to: address as Hex, value: parseEther('0.25') });
      await receiptOf(tx);
      const seen = await scan();
      expect(seen.outputs.map((o) => o.txHash)).to.deep.equal([tx]);
      await anvil.mine(2);
      await anvil.reorg(3);
      const after = await scan();
      expect(after.removed).to.deep.equal([{ txHash: tx, outputIndex: 0 }]);
      expect(after.outputs.map((o) => o.txHash)).to.not.include(tx);
    });

    it('reads a long stretch in bounded batches, telling the core it is behind', async () => {
      await anvil.mine(120);
      const first = await scan();
      expect(first.behind).to.equal(true);
      let last = first;
      while (last.behind) last = await scan();
      expect(last.tip.height).to.equal(Number(await anvil.client.getBlockNumber()));
    });

    it('answers the tip with its block time', async () => {
      const tip = await adapters.watcher.tip();
      const block = await anvil.client.getBlock();
      expect(tip).to.deep.equal({ height: Number(block.number), hash: block.hash, time: new Date(Number(block.timestamp) * 1000) });
    });
  });

  describe('sender', () => {
    it('prepares, broadcasts and sees mined an ETH payout and a USDT payout, hashes known before broadcast', async () => {
      const to = privateKeyToAccount(`0x${randomBytes(32).toString('hex')}`).address;
      const ethOrder = order('payout-eth', ETH, to, '0.75');
      const signed = await adapters.sender.prepare(ethOrder);
      expect(await adapters.sender.broadcast(ethOrder, signed)).to.deep.equal({ kind: 'accepted' });
      const receipt = await receiptOf(signed.txHash);
      expect(receipt.status).to.equal('success');
      expect(await anvil.client.getBalance({ address: to })).to.equal(parseEther('0.75'));

      const usdtOrder = order('payout-usdt', USDT, to, '10');
      // The hot wallet holds no USDT yet.
      await receiptOf(
        await payer.writeContract({
          address: usdt,
          abi: erc20Abi,
          functionName: 'transfer',
          args: [privateKeyToAccount(ANVIL_KEY_0).address, parseUnits('100', 6)],
        }),
      );
      expect(await adapters.sender.spendable(USDT)).to.equal('100');
      const signedUsdt = await adapters.sender.prepare(usdtOrder);
      expect(await adapters.sender.broadcast(usdtOrder, signedUsdt)).to.deep.equal({ kind: 'accepted' });
      expect((await receiptOf(signedUsdt.txHash)).status).to.equal('success');
      expect(await anvil.client.readContract({ address: usdt, abi: erc20Abi, functionName: 'balanceOf', args: [to] })).to.equal(
        parseUnits('10', 6),
      );

      const result = await scan();
      const payouts = new Map(result.payouts.map((p) => [p.txHash, p]));
      expect(payouts.get(signed.txHash)).to.deep.equal({
        txHash: signed.txHash,
        block: { height: Number(receipt.blockNumber), hash: receipt.blockHash },
        nonce: nonceOf(signed.bytes),
      });
      expect(payouts.get(signedUsdt.txHash)?.block).to.not.equal(null);
      expect(payouts.get(signedUsdt.txHash)?.failed).to.equal(undefined);
    });

    it('gives the same nonce to a payout prepared again for the same key (a result dropped before it was committed)', async () => {
      const to = privateKeyToAccount(`0x${randomBytes(32).toString('hex')}`).address;
      const payout = order('payout-twice', ETH, to, '0.1');
      const first = await adapters.sender.prepare(payout);
      const second = await adapters.sender.prepare(payout);
      expect(nonceOf(second.bytes)).to.equal(nonceOf(first.bytes));
      expect(await adapters.sender.broadcast(payout, second)).to.deep.equal({ kind: 'accepted' });
      await receiptOf(second.txHash);
      // The other signature spends the same nonce: the node refuses it ("nonce too low") and has no receipt of
      // it. A lagging node could say the same of our own mined transaction, so that proves nothing: ambiguous.
      if (first.txHash !== second.txHash) {
        const other = await adapters.sender.broadcast(payout, first).catch((err: unknown) => err);
        expect(other).to.be.instanceOf(AmbiguousBroadcastError);
      }
    });

    it('accepts the same bytes broadcast again after they were mined (nonce too low, and the receipt is ours)', async () => {
      const to = privateKeyToAccount(`0x${randomBytes(32).toString('hex')}`).address;
      const payout = order('payout-again', ETH, to, '0.2');
      const signed = await adapters.sender.prepare(payout);
      expect(await adapters.sender.broadcast(payout, signed)).to.deep.equal({ kind: 'accepted' });
      await receiptOf(signed.txHash);
      await anvil.mine(1);
      expect(await adapters.sender.broadcast(payout, signed)).to.deep.equal({ kind: 'accepted' });
    });

    it('releases the nonce of a payout the node refuses (insufficient funds: a refusal that can pass), and the next payout reuses it', async () => {
      const to = privateKeyToAccount(`0x${randomBytes(32).toString('hex')}`).address;
      const tooMuch = order('payout-too-much', ETH, to, '1000000000');
      const refused = await adapters.sender.prepare(tooMuch);
      const outcome = await adapters.sender.broadcast(tooMuch, refused);
      expect(outcome).to.include({ kind: 'rejected', passing: true });
      expect(await db.knex('evm_nonces').where({ key: 'payout-too-much' })).to.have.length(0);
      const after = order('payout-after-refusal', ETH, to, '0.01');
      const next = await adapters.sender.prepare(after);
      expect(nonceOf(next.bytes)).to.equal(nonceOf(refused.bytes));
      // Sent, so no later transaction of the hot wallet waits behind a held nonce.
      expect(await adapters.sender.broadcast(after, next)).to.deep.equal({ kind: 'accepted' });
      expect((await receiptOf(next.txHash)).status).to.equal('success');
    });

    it('tells the spendable balance and a fee estimate in ETH', async () => {
      const hot = privateKeyToAccount(ANVIL_KEY_0).address;
      const balance = await anvil.client.getBalance({ address: hot });
      expect(parseEther(await adapters.sender.spendable(ETH))).to.equal(balance);
      const nativeFee = parseEther(await adapters.sender.feeEstimate(ETH));
      const tokenFee = parseEther(await adapters.sender.feeEstimate(USDT));
      expect(nativeFee > 0n).to.equal(true);
      expect(tokenFee > nativeFee).to.equal(true);
      expect(nativeFee % 21_000n).to.equal(0n);
    });
  });

  describe('sweeper', () => {
    const hot = privateKeyToAccount(ANVIL_KEY_0).address;
    const sweeperOf = () =>
      createEthereumSweeper({
        network: 'ETH',
        rpcUrl: anvil.url,
        nativeSymbol: 'ETH',
        xpub: XPUB,
        xprv: account.privateExtendedKey,
        hotWalletKey: ANVIL_KEY_0,
        tokens: { USDT: { address: usdt } },
        nonces: createEvmNonceAllocator(db.knex, 'ETH'),
        payoutConfirmations: 1,
        blockSeconds: 1,
      });

    // What the sweeper handed to `record`, each with whether the node knew the transaction at that moment.
    const recorded: Array<SignedSweep & { nodeKnewIt: boolean }> = [];
    const record = async (signed: SignedSweep) => {
      const known = await anvil.client.request({ method: 'eth_getTransactionByHash', params: [signed.txHash as Hex] });
      recorded.push({ ...signed, nodeKnewIt: known !== null });
    };
    // The gas top-ups handed to recordFunding, each with whether the node knew it at that moment.
    const fundings: Array<{ txHash: string; nodeKnewIt: boolean }> = [];
    const recordFunding = async (txHash: string) => {
      const known = await anvil.client.request({ method: 'eth_getTransactionByHash', params: [txHash as Hex] });
      fundings.push({ txHash, nodeKnewIt: known !== null });
    };

    it('moves an ETH deposit, less the gas, to the hot wallet, handing the transaction to record before its broadcast', async () => {
      const index = indexes;
      const address = await depositAddress();
      await receiptOf(await payer.sendTransaction({ to: address as Hex, value: parseEther('2') }));
      const before = await anvil.client.getBalance({ address: hot });
      recorded.length = 0;
      const step = await (
        await sweeperOf()
      ).sweep({ key: `sweep-${index}`, index, asset: ETH, ledger: await ledgerOf(address) }, record, noHold, recordFunding);
      expect(step.kind).to.equal('swept');
      if (step.kind !== 'swept') return;
      expect(recorded).to.have.length(1);
      expect(recorded[0]).to.include({ txHash: step.txHash, amount: step.amount, nodeKnewIt: false });
      expect(keccak256(recorded[0]!.bytes as Hex)).to.equal(step.txHash);
      expect((await receiptOf(step.txHash)).status).to.equal('success');
      expect((await anvil.client.getBalance({ address: hot })) - before).to.equal(parseEther(step.amount));
      expect((await anvil.client.getBalance({ address: address as Hex })) < parseEther('0.001')).to.equal(true);
    });

    it('funds the gas of a USDT deposit from the hot wallet, then moves the tokens', async () => {
      const index = indexes;
      const address = await depositAddress(USDT);
      await receiptOf(
        await payer.writeContract({ address: usdt, abi: erc20Abi, functionName: 'transfer', args: [address as Hex, parseUnits('7', 6)] }),
      );
      const sweeper = await sweeperOf();
      recorded.length = 0;
      fundings.length = 0;
      const request = { key: `sweep-${index}`, index, asset: USDT };
      const funding = await sweeper.sweep({ ...request, ledger: await ledgerOf(address) }, record, noHold, recordFunding);
      expect(funding.kind).to.equal('funding');
      if (funding.kind !== 'funding') return;
      // The gas top-up is the hot wallet's, not the sweep transaction: handed to recordFunding before its broadcast.
      expect(recorded).to.deep.equal([]);
      expect(fundings).to.deep.equal([{ txHash: funding.txHash, nodeKnewIt: false }]);
      await receiptOf(funding.txHash);
      // The top-up is mined, and the sweep knows it (evm_sweeps.funding_tx_hash) before the watcher records it.
      const swept = await sweeper.sweep(
        { ...request, ledger: { ...(await ledgerOf(address)), received: [], funded: [funding.txHash] } },
        record,
        noHold,
        recordFunding,
      );
      expect(swept).to.deep.include({ kind: 'swept', amount: '7' });
      if (swept.kind !== 'swept') return;
      expect(recorded.map((r) => [r.txHash, r.amount, r.nodeKnewIt])).to.deep.equal([[swept.txHash, '7', false]]);
      expect((await receiptOf(swept.txHash)).status).to.equal('success');
      expect(await anvil.client.readContract({ address: usdt, abi: erc20Abi, functionName: 'balanceOf', args: [address as Hex] })).to.equal(
        0n,
      );
      const ledger = await ledgerOf(address, { sent: [swept.txHash], funded: [funding.txHash] });
      expect(await sweeper.sweep({ ...request, ledger }, record, noHold, recordFunding)).to.deep.include({ kind: 'nothing' });
    });
  });

  describe('nonce allocator', () => {
    it('never gives two keys the same nonce when two instances allocate at once, filling from the chain count', async () => {
      const second = process.env.DATABASE_URL ? await openDatabase({ databaseUrl: process.env.DATABASE_URL, schema }) : db;
      try {
        const instances = [createEvmNonceAllocator(db.knex, 'ETH'), createEvmNonceAllocator(second.knex, 'ETH')];
        const address = privateKeyToAccount(`0x${randomBytes(32).toString('hex')}`).address;
        const nonces = await Promise.all(
          Array.from({ length: 40 }, (_, i) => instances[i % 2]!.nonceFor({ address, key: `k${i}`, chainNonce: 5 })),
        );
        expect([...nonces].sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 40 }, (_, i) => 5 + i));
        // The same key again, on the other instance: the same nonce.
        expect(await instances[1]!.nonceFor({ address, key: 'k0', chainNonce: 5 })).to.equal(nonces[0]);
        // A released nonce is the next key's.
        await instances[0]!.release('k7');
        expect(await instances[1]!.nonceFor({ address, key: 'k-new', chainNonce: 5 })).to.equal(nonces[7]);
        // The chain moved past them: a new key starts at its count.
        expect(await instances[0]!.nonceFor({ address, key: 'k-late', chainNonce: 100 })).to.equal(100);
      } finally {
        if (second !== db) await second.close();
      }
    });
  });
});
