/**
 * No payout lost or sent twice (docs/architecture.md#production, the payout outbox), proved on real nodes with the real server
 * process in production mode (test/support/devnet.ts). A JSON-RPC proxy (test/support/rpc-proxy.ts) stands
 * between the server and the node and SIGKILLs the server's process group at the exact moment of the
 * broadcast: before forwarding it (killed between signing and commit, and broadcast) or after the node took it
 * (killed before the server could record it). A restart on the same database then finishes the swap with
 * the committed bytes: one transaction on the chain, the one the proxy saw. And two server instances on one
 * database paying out at once use distinct, contiguous nonces, one payout per swap; when one is killed, the
 * other takes its chain watcher lease and finishes everything.
 *
 * Skipped, with the reason printed, where litecoind, anvil or PostgreSQL is missing.
 */
import { expect } from 'chai';
import { Decimal } from 'decimal.js';
import pg from 'pg';
import { erc20Abi, keccak256, parseAbiItem, parseTransaction, parseUnits, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { LEASE_MS, LEASE_RETRY_MS } from '../../server/jobs/chain-watch.js';
import { ANVIL_KEY_1 } from '../support/anvil.js';
import { createDevnetPartner, startDevnet, startDevnetServer, type Devnet, type DevnetServer } from '../support/devnet.js';
import {
  devnetClient,
  DEVNET_ADMIN_URL,
  eventually,
  expireLeasesOf as expireLeasesOfServer,
  ltcToUsdt,
  skipWithoutDevnet,
  usdtToLtc,
} from '../support/production.js';
import { startRpcProxy, type RpcProxy } from '../support/rpc-proxy.js';
import { swapClient, type Swap } from '../support/swaps.js';

/** A fresh EVM address nobody else pays: its balance is what the swap paid it. */
const freshAddress = () => privateKeyToAccount(generatePrivateKey()).address;

const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

interface PayoutRow {
  id: string;
  swap_id: string;
  purpose: string;
  status: string;
  tx_hash: string | null;
  amount: string;
}

describe('payouts across a killed server, on real nodes (the server process in production mode)', function () {
  this.timeout(180_000);
  let devnet: Devnet;
  let partner: { keyId: string; secret: string };
  let db: pg.Client;
  const servers: DevnetServer[] = [];
  const proxies: RpcProxy[] = [];

  before(async function () {
    await skipWithoutDevnet(this);
    // One confirmation for deposits and payouts on both chains (the last test asks more of its payouts): fast swaps.
    devnet = await startDevnet({ adminUrl: DEVNET_ADMIN_URL, confirmations: { LTC: 1, ETH: 1 } });
    partner = await createDevnetPartner(devnet, 'Payout crashes');
    db = new pg.Client({ connectionString: devnet.database.url });
    await db.connect();
  });

  after(async () => {
    for (const server of servers) await server.stop('SIGKILL').catch(() => undefined);
    for (const proxy of proxies) await proxy.close().catch(() => undefined);
    await db?.end().catch(() => undefined);
    await devnet?.stop();
  });

  async function startServer(env: Record<string, string> = {}) {
    const server = await startDevnetServer(devnet, { env });
    servers.push(server);
    const client = devnetClient(server, partner);
    return { server, client };
  }

  async function proxy(targetUrl: string) {
    const started = await startRpcProxy(targetUrl);
    proxies.push(started);
    return started;
  }

  /**
   * Expires the chain watcher leases a killed process held, as LEASE_MS passing would: a restart then watches
   * at once instead of LEASE_MS later (the takeover itself, on time, is the last test's).
   */
  const expireLeasesOf = (server: DevnetServer) => expireLeasesOfServer(db, server);

  const leasesOf = (server: DevnetServer) =>
    db.query("select network from chain_watch_leases where split_part(holder, ':', 2) = $1", [String(server.child.process.pid)]);

  const payoutsOf = async (swapId: string) =>
    (await db.query<PayoutRow>('select id, swap_id, purpose, status, tx_hash, amount::text from payouts where swap_id = $1', [swapId]))
      .rows;

  const nonceOf = (blockTag: 'latest' | 'pending') => devnet.anvil.client.getTransactionCount({ address: devnet.hotWallet, blockTag });

  const usdtUnits = (address: string) =>
    devnet.anvil.client.readContract({ address: devnet.usdt, abi: erc20Abi, functionName: 'balanceOf', args: [address as Hex] });

  /** The hot wallet's transactions in blocks after `fromBlock`. */
  async function hotWalletTransactions(fromBlock: bigint) {
    const latest = await devnet.anvil.client.getBlockNumber();
    const found: Array<{ hash: Hex; nonce: number; to: string | null }> = [];
    for (let n = fromBlock + 1n; n <= latest; n++) {
      const block = await devnet.anvil.client.getBlock({ blockNumber: n, includeTransactions: true });
      for (const tx of block.transactions) {
        if (tx.from.toLowerCase() === devnet.hotWallet.toLowerCase()) found.push({ hash: tx.hash, nonce: tx.nonce, to: tx.to });
      }
    }
    return found;
  }

  /** USDT Transfer logs to `to` in blocks after `fromBlock`. */
  const transfersTo = (to: string, fromBlock: bigint) =>
    devnet.anvil.client.getLogs({ address: devnet.usdt, event: TRANSFER, args: { to: to as Hex }, fromBlock: fromBlock + 1n });

  const finished = (client: ReturnType<typeof swapClient>, id: string, timeoutMs = 60_000) =>
    client.waitFor(id, (o) => o.status === 'finished' || o.status === 'review' || o.status === 'refunded', timeoutMs);

  /**
   * An LTC to USDT swap whose payout broadcast the proxy intercepts at `point` and kills the server there;
   * then a restart finishes it. Asserts one transaction on the chain, the one the proxy saw.
   */
  async function ethPayoutKilledAt(point: 'before' | 'after') {
    const eth = await proxy(devnet.anvil.url);
    const first = await startServer({ ETH_RPC_URL: eth.url });
    const destination = freshAddress();
    const startBlock = await devnet.anvil.client.getBlockNumber();
    const nonceBefore = await nonceOf('latest');

    const { order, quote } = await first.client.create(ltcToUsdt('0.5', devnet.wallets.customerAddress), {
      destinationAddress: destination,
    });
    const ready = await first.client.waitFor(order.id, (o) => typeof o.depositAddress === 'string', 30_000);
    const killed = eth.arm('eth_sendRawTransaction', point, () => first.server.stop('SIGKILL'));
    await devnet.payLtc(ready.order.depositAddress!, '0.5');
    await devnet.mineLtc(1);
    const broadcast = await killed;
    const raw = broadcast.params[0] as Hex;
    const hash = keccak256(raw);
    expect(first.server.child.process.signalCode).to.equal('SIGKILL');

    // What the kill left: the payout signed and committed with the bytes the proxy saw, not recorded as broadcast.
    const [left] = await payoutsOf(order.id);
    expect(left).to.include({ status: 'signed', tx_hash: hash });
    if (point === 'before') {
      // The node never saw it.
      expect(await nonceOf('pending')).to.equal(nonceBefore);
      expect(await devnet.anvil.client.getTransaction({ hash }).catch(() => null)).to.equal(null);
    } else {
      // The node took it (and anvil mined it at once): only the server does not know.
      expect((await devnet.anvil.client.getTransactionReceipt({ hash })).status).to.equal('success');
    }

    await expireLeasesOf(first.server);
    const second = await startServer({ ETH_RPC_URL: eth.url });
    const done = await finished(second.client, order.id);
    expect(done.order.status, JSON.stringify(done)).to.equal('finished');
    expect(done.order.settlementTxHash).to.equal(hash);
    expect(done.order.actualOutputAmount).to.equal(quote.receiveAmount);

    // One payout, one transaction from the hot wallet (the one signed before the kill), one nonce.
    const payouts = await payoutsOf(order.id);
    expect(payouts).to.have.length(1);
    expect(payouts[0]!.tx_hash).to.equal(hash);
    const sent = await hotWalletTransactions(startBlock);
    expect(sent.map((t) => t.hash)).to.deep.equal([hash]);
    expect(sent[0]!.nonce).to.equal(nonceBefore);
    expect(await nonceOf('latest')).to.equal(nonceBefore + 1);
    expect(await nonceOf('pending')).to.equal(nonceBefore + 1);
    // The customer received the quoted amount, once.
    expect(await usdtUnits(destination)).to.equal(parseUnits(quote.receiveAmount, 6));
    const transfers = await transfersTo(destination, startBlock);
    expect(transfers.map((log) => log.transactionHash)).to.deep.equal([hash]);
    // Every broadcast the proxy saw was of these bytes (the restart broadcast them again when it was killed after).
    const broadcasts = eth.calls.filter((c) => c.method === 'eth_sendRawTransaction').map((c) => keccak256(c.params[0] as Hex));
    expect(new Set(broadcasts)).to.deep.equal(new Set([hash]));
    expect(broadcasts.length).to.be.at.least(2);
    // Stopped (not killed), it gives its watcher leases up: the next instance watches at once.
    expect(await second.server.stop()).to.equal(0);
    expect((await leasesOf(second.server)).rows).to.deep.equal([]);
  }

  it('ETH/USDT payout, killed before broadcast: a restart broadcasts the committed bytes; one transaction, one nonce', async () => {
    await ethPayoutKilledAt('before');
  });

  it('ETH/USDT payout, killed after the node took the broadcast: the rebroadcast is harmless; no second transaction', async () => {
    await ethPayoutKilledAt('after');
  });

  it('LTC payout, killed before broadcast: a restart broadcasts the committed transaction; one pays the destination', async () => {
    const ltc = await proxy(devnet.litecoin.url(devnet.wallets.watch));
    const first = await startServer({ LTC_RPC_URL: ltc.url });
    const destination = await devnet.litecoin.call<string>('getnewaddress', ['', 'bech32'], devnet.wallets.customer);
    const startHash = await devnet.litecoin.call<string>('getbestblockhash');
    const { order, quote } = await first.client.create(usdtToLtc('40'), { destinationAddress: destination });
    const ready = await first.client.waitFor(order.id, (o) => typeof o.depositAddress === 'string', 30_000);
    const killed = ltc.arm('sendrawtransaction', 'before', () => first.server.stop('SIGKILL'));
    // Mined at once by anvil: one confirmation, all it needs.
    await devnet.payUsdt(ANVIL_KEY_1, ready.order.depositAddress!, '40');
    const broadcast = await killed;
    const { txid } = await devnet.litecoin.call<{ txid: string }>('decoderawtransaction', [broadcast.params[0]]);

    const [left] = await payoutsOf(order.id);
    expect(left).to.include({ status: 'signed', tx_hash: txid });
    expect(await devnet.litecoin.call<string[]>('getrawmempool')).to.not.include(txid);

    await expireLeasesOf(first.server);
    const second = await startServer({ LTC_RPC_URL: ltc.url });
    await second.client.waitFor(order.id, (o) => o.status === 'sending', 30_000);
    await eventually(async () => ((await devnet.litecoin.call<string[]>('getrawmempool')).includes(txid) ? true : undefined));
    await devnet.mineLtc(1);
    const done = await finished(second.client, order.id);
    expect(done.order.status, JSON.stringify(done)).to.equal('finished');
    expect(done.order.settlementTxHash).to.equal(txid);

    const payouts = await payoutsOf(order.id);
    expect(payouts).to.have.length(1);
    expect(payouts[0]!.tx_hash).to.equal(txid);
    // Exactly one transaction pays the destination, the one the proxy saw, with the quoted amount.
    const received = await devnet.litecoin.call<Array<{ address: string; amount: number | string; txids: string[] }>>(
      'listreceivedbyaddress',
      [0, true, false, destination],
      devnet.wallets.customer,
    );
    expect(received).to.have.length(1);
    expect(received[0]!.txids).to.deep.equal([txid]);
    expect(new Decimal(String(received[0]!.amount)).eq(quote.receiveAmount), `${received[0]!.amount} LTC`).to.equal(true);
    // And the hot wallet (the watch-only wallet) sent that one transaction and no other since the swap began.
    const since = await devnet.litecoin.call<{ transactions: Array<{ category: string; txid: string }> }>(
      'listsinceblock',
      [startHash, 1, true],
      devnet.wallets.watch,
    );
    expect([...new Set(since.transactions.filter((t) => t.category === 'send').map((t) => t.txid))]).to.deep.equal([txid]);
    expect(new Set(ltc.calls.filter((c) => c.method === 'sendrawtransaction').map((c) => c.params[0]))).to.deep.equal(
      new Set([broadcast.params[0]]),
    );
    await second.server.stop();
  });

  it('two instances paying out at once: distinct contiguous nonces, one payout per swap; one killed, the other finishes', async () => {
    // Payouts need eight confirmations here (six payouts make six blocks): all six are broadcast, none is final,
    // when one instance is killed.
    const env = { ETH_CONFIRMATIONS: '8' };
    const [ethA, ethB] = await Promise.all([proxy(devnet.anvil.url), proxy(devnet.anvil.url)]);
    const [a, b] = await Promise.all([startServer({ ...env, ETH_RPC_URL: ethA.url }), startServer({ ...env, ETH_RPC_URL: ethB.url })]);
    const startBlock = await devnet.anvil.client.getBlockNumber();
    const nonceBefore = await nonceOf('latest');

    const amounts = ['0.3', '0.35', '0.4', '0.45', '0.5', '0.55'];
    const created = await Promise.all(
      amounts.map(async (amount, i) => {
        const { client } = i % 2 === 0 ? a : b;
        const destination = freshAddress();
        const { order, quote } = await client.create(ltcToUsdt(amount, devnet.wallets.customerAddress), {
          destinationAddress: destination,
        });
        const ready = await client.waitFor(order.id, (o) => typeof o.depositAddress === 'string', 30_000);
        return { order: ready.order, quote, destination, amount };
      }),
    );
    // Both instances' broadcasts are held (not answered) until each instance has one waiting, a few seconds at most
    // (the server gives a broadcast 10 s): an instance sends a batch of at most four payouts at a time, so while
    // one waits on its batch the other takes the rest. Both sign, at once, with the chain's nonce unmoved.
    const broadcastsTo = (proxy: RpcProxy) => proxy.calls.filter((c) => c.method === 'eth_sendRawTransaction');
    const releases = [ethA.hold('eth_sendRawTransaction'), ethB.hold('eth_sendRawTransaction')];
    for (const swap of created) await devnet.payLtc(swap.order.depositAddress!, swap.amount);
    await devnet.mineLtc(1);
    await eventually(async () => (broadcastsTo(ethA).length + broadcastsTo(ethB).length > 0 ? true : undefined), 60_000);
    const holdUntil = Date.now() + 6_000;
    while (Date.now() < holdUntil && !(broadcastsTo(ethA).length > 0 && broadcastsTo(ethB).length > 0)) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const held = [...broadcastsTo(ethA), ...broadcastsTo(ethB)].map((c) => c.params[0] as Hex);
    const pendingWhileHeld = await nonceOf('pending');
    for (const release of releases) release();
    expect(broadcastsTo(ethA), 'instance A was sending a payout').to.not.be.empty;
    expect(broadcastsTo(ethB), 'instance B was sending a payout').to.not.be.empty;
    expect(pendingWhileHeld).to.equal(nonceBefore);
    const heldNonces = held.map((raw) => parseTransaction(raw).nonce!);
    expect(new Set(heldNonces).size, `nonces ${heldNonces.join(', ')}`).to.equal(held.length);
    for (const nonce of heldNonces) expect(nonce).to.be.within(nonceBefore, nonceBefore + created.length - 1);

    // Both instances pay out; wait until the chain holds all six payouts (one block each, on anvil) and each swap
    // has taken the step its signed payout wakes (to sending): the kill then comes with every swap mid-way.
    const hashes = await eventually(
      async () => {
        const rows = (await Promise.all(created.map((s) => payoutsOf(s.order.id)))).flat();
        if (rows.length !== created.length || !rows.every((r) => r.status === 'broadcast')) return undefined;
        const swaps = await db.query("select id from swaps where id = any($1::uuid[]) and status <> 'sending'", [
          created.map((s) => s.order.id),
        ]);
        return swaps.rows.length === 0 ? rows.map((r) => r.tx_hash as Hex) : undefined;
      },
      60_000,
      async () => {
        const swaps = await db.query('select id, status from swaps where id = any($1::uuid[])', [created.map((s) => s.order.id)]);
        const payouts = await db.query('select swap_id, status, tx_hash, last_error, attempts from payouts');
        return (
          JSON.stringify({ swaps: swaps.rows, payouts: payouts.rows }, null, 1) +
          a.server.child.output().slice(-3000) +
          b.server.child.output().slice(-3000)
        );
      },
    );

    // Mid-way (paid, no swap finished): the instance holding the ETH watcher lease is killed.
    const lease = await db.query<{ holder: string }>("select holder from chain_watch_leases where network = 'ETH'");
    const holderPid = Number(lease.rows[0]!.holder.split(':')[1]);
    const [victim, survivor] = a.server.child.process.pid === holderPid ? [a, b] : [b, a];
    expect(victim.server.child.process.pid).to.equal(holderPid);
    await victim.server.stop('SIGKILL');
    const killedAt = Date.now();
    expect(
      (await db.query("select id from swaps where id = any($1::uuid[]) and status <> 'sending'", [created.map((s) => s.order.id)])).rows,
    ).to.deep.equal([]);
    await devnet.anvil.mine(8);

    // Watched in the database (six swaps polled over HTTP would pass the partner's rate limit), then read over HTTP.
    const ids = created.map((s) => s.order.id);
    await eventually(
      async () => {
        const { rows } = await db.query<{ status: string }>('select status from swaps where id = any($1::uuid[])', [ids]);
        return rows.every((r) => ['finished', 'review', 'refunded'].includes(r.status)) ? true : undefined;
      },
      LEASE_MS + LEASE_RETRY_MS + 30_000,
    );
    const tookMs = Date.now() - killedAt;
    const done = await Promise.all(ids.map((id) => survivor.client.get(id)));
    expect(tookMs, 'the survivor took the lease within LEASE_MS and its retry period').to.be.below(LEASE_MS + LEASE_RETRY_MS + 20_000);
    for (const [i, detail] of done.entries()) {
      expect(detail.order.status, JSON.stringify(detail)).to.equal('finished');
      expect(detail.order.actualOutputAmount).to.equal(created[i]!.quote.receiveAmount);
    }

    // One payout per swap, its hash the swap's settlement transaction.
    for (const [i, swap] of created.entries()) {
      const payouts = await payoutsOf(swap.order.id);
      expect(payouts).to.have.length(1);
      expect(payouts[0]!.tx_hash).to.equal((done[i]!.order as Swap).settlementTxHash);
    }
    // The hot wallet sent six transactions, these, with distinct contiguous nonces; nothing waits in the pool.
    const sent = await hotWalletTransactions(startBlock);
    expect(new Set(sent.map((t) => t.hash))).to.deep.equal(new Set(hashes));
    expect(sent.map((t) => t.nonce).sort((x, y) => x - y)).to.deep.equal(created.map((_, i) => nonceBefore + i));
    expect(await nonceOf('latest')).to.equal(nonceBefore + created.length);
    expect(await nonceOf('pending')).to.equal(nonceBefore + created.length);
    // Whatever either instance broadcast was one of the six: no payout was ever signed twice.
    const broadcasts = [...ethA.calls, ...ethB.calls]
      .filter((c) => c.method === 'eth_sendRawTransaction')
      .map((c) => keccak256(c.params[0] as Hex));
    expect(new Set(broadcasts)).to.deep.equal(new Set(hashes));
    // Each destination holds its quoted amount, paid once; together the sum of the quotes.
    let total = 0n;
    for (const swap of created) {
      expect(await usdtUnits(swap.destination)).to.equal(parseUnits(swap.quote.receiveAmount, 6));
      expect(await transfersTo(swap.destination, startBlock)).to.have.length(1);
      total += await usdtUnits(swap.destination);
    }
    expect(total).to.equal(created.reduce((sum, s) => sum + parseUnits(s.quote.receiveAmount, 6), 0n));
    console.log(
      `      broadcasts by instance: A ${ethA.calls.filter((c) => c.method === 'eth_sendRawTransaction').length}, ` +
        `B ${ethB.calls.filter((c) => c.method === 'eth_sendRawTransaction').length} (${held.length} signed and held at once); ` +
        `survivor finished ${tookMs} ms after the kill`,
    );
    await survivor.server.stop();
  });
});
