/**
 * Litecoin Core in regtest for tests: each node on free loopback ports, in a temporary data directory, in a
 * process group of its own (stopped with the whole group). Wallets are legacy ones (litecoind 0.21):
 * watch-only (no private keys) for the service, a signer that holds the test account's tprv (imported with
 * importmulti as ranged descriptors), and a customer's wallet to pay deposits from.
 *
 * Where litecoind is not installed, `litecoindMissing` says why, and tests skip with it printed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { HDKey } from '@scure/bip32';
import { createRpcClient, RpcError, type RpcClient } from '../../server/adapters/bitcoin/rpc.js';
import { KEY_VERSIONS } from '../../server/adapters/bitcoin/params.js';
import { freePort } from './process.js';

/** The litecoind binary (LITECOIND overrides). */
export const LITECOIND = process.env.LITECOIND ?? '/usr/bin/litecoind';

/** Why the tests that need litecoind cannot run here, or null when they can. */
export const litecoindMissing: string | null = existsSync(LITECOIND)
  ? null
  : `no litecoind at ${LITECOIND} (make nodes installs it with apt-get as root; LITECOIND=<path> points elsewhere)`;

/** How long a node may take to answer RPC after it starts. */
const START_TIMEOUT_MS = 60_000;
/** How long two nodes may take to agree on a tip. */
const SYNC_TIMEOUT_MS = 30_000;
const RPC_USER = 'test';
const RPC_PASSWORD = 'test-password';

/** The test account: a fixed seed, BIP84 account m/84'/1'/0' on test networks. */
export interface TestAccount {
  tprv: string;
  tpub: string;
}

/** The account of a fixed seed (never a real key: the seed is in this file). */
export function testAccount(seedHex = '000102030405060708090a0b0c0d0e0f'): TestAccount {
  const versions = { private: 0x04358394, public: KEY_VERSIONS.tpub };
  const account = HDKey.fromMasterSeed(Buffer.from(seedHex, 'hex'), versions).derive("m/84'/1'/0'");
  return { tprv: account.privateExtendedKey, tpub: account.publicExtendedKey };
}

/** A running regtest node. */
export interface LitecoinNode {
  rpcPort: number;
  p2pPort: number;
  datadir: string;
  /** The RPC URL (of `wallet`, when named), with credentials. */
  url(wallet?: string): string;
  /** Calls the node (or `wallet`). */
  call<T = unknown>(method: string, params?: unknown[], wallet?: string): Promise<T>;
  /** Mines `blocks` blocks paying `address`; returns their hashes. */
  mine(blocks: number, address: string): Promise<string[]>;
  /** Stops the node's process group and removes its data directory. */
  stop(): Promise<void>;
}

/** Starts a regtest node (with `args` too, and the wallets' `fallbackFee` in coin per kvB) and waits until it answers RPC. */
export async function startLitecoind(options: { args?: string[]; fallbackFee?: string } = {}): Promise<LitecoinNode> {
  if (litecoindMissing) throw new Error(litecoindMissing);
  const datadir = await mkdtemp(join(tmpdir(), 'pss-litecoind-'));
  const [rpcPort, p2pPort] = [await freePort(), await freePort()];
  const child: ChildProcess = spawn(
    LITECOIND,
    [
      '-regtest',
      `-datadir=${datadir}`,
      `-rpcport=${rpcPort}`,
      `-port=${p2pPort}`,
      `-rpcuser=${RPC_USER}`,
      `-rpcpassword=${RPC_PASSWORD}`,
      '-rpcbind=127.0.0.1',
      '-rpcallowip=127.0.0.1',
      '-bind=127.0.0.1',
      '-server',
      '-listen',
      '-discover=0',
      '-dnsseed=0',
      '-listenonion=0',
      '-upnp=0',
      `-fallbackfee=${options.fallbackFee ?? '0.0002'}`,
      '-keypool=10',
      '-printtoconsole=0',
      ...(options.args ?? []),
    ],
    { detached: true, stdio: 'ignore' },
  );
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  const clients = new Map<string, RpcClient>();
  const url = (wallet?: string) =>
    `http://${RPC_USER}:${RPC_PASSWORD}@127.0.0.1:${rpcPort}${wallet ? `/wallet/${encodeURIComponent(wallet)}` : '/'}`;
  const clientOf = (wallet = '') => {
    let client = clients.get(wallet);
    if (!client) clients.set(wallet, (client = createRpcClient({ url: url(wallet || undefined), timeoutMs: 30_000 })));
    return client;
  };
  const call = <T>(method: string, params: unknown[] = [], wallet?: string) => clientOf(wallet).call<T>(method, params);

  async function stop() {
    if (!exited && child.pid) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
      const killed = await Promise.race([exit.then(() => true), sleep(15_000).then(() => false)]);
      if (!killed) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
        await exit;
      }
    }
    await rm(datadir, { recursive: true, force: true });
  }

  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (exited) {
      await stop();
      throw new Error(`litecoind exited while starting (datadir ${datadir})`);
    }
    try {
      await call('getblockchaininfo');
      break;
    } catch (err) {
      // Not listening yet, or warming up (-28).
      if (err instanceof RpcError && err.code !== -28) throw err;
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`litecoind did not answer RPC within ${START_TIMEOUT_MS} ms`, { cause: err });
      }
      await sleep(100);
    }
  }
  return {
    rpcPort,
    p2pPort,
    datadir,
    url,
    call,
    mine: (blocks, address) => call<string[]>('generatetoaddress', [blocks, address]),
    stop,
  };
}

/** A descriptor with the checksum the node computes for it. */
export async function withChecksum(node: LitecoinNode, descriptor: string): Promise<string> {
  const info = await node.call<{ checksum: string }>('getdescriptorinfo', [descriptor]);
  return `${descriptor}#${info.checksum}`;
}

/** The wallets of a test: their names on `node`, and an address of the customer's to mine to. */
export interface TestWallets {
  watch: string;
  signer: string;
  customer: string;
  customerAddress: string;
}

/**
 * Creates the watch-only wallet (no private keys, blank), the signer (blank, then the account's tprv imported
 * with importmulti: `0/*` ranged over [0, 1000] for deposits and `1/0` for change) and a customer's wallet.
 * The signer is made on `options.signerNode` when given (a node of its own, as production keeps it), else on
 * `node`.
 */
export async function createWallets(
  node: LitecoinNode,
  account: TestAccount,
  options: { signerNode?: LitecoinNode } = {},
): Promise<TestWallets> {
  const names = { watch: 'watch', signer: 'signer', customer: 'customer' };
  const signerNode = options.signerNode ?? node;
  await node.call('createwallet', [names.watch, true, true]);
  await signerNode.call('createwallet', [names.signer, false, true]);
  await node.call('createwallet', [names.customer]);
  const imported = await signerNode.call<Array<{ success: boolean; error?: { message: string } }>>(
    'importmulti',
    [
      [
        { desc: await withChecksum(signerNode, `wpkh(${account.tprv}/0/*)`), range: [0, 1000], timestamp: 'now', internal: false },
        { desc: await withChecksum(signerNode, `wpkh(${account.tprv}/1/0)`), timestamp: 'now', internal: true },
      ],
      { rescan: false },
    ],
    names.signer,
  );
  const failed = imported.find((result) => !result.success);
  if (failed) throw new Error(`importmulti into the signer failed: ${failed.error?.message}`);
  const customerAddress = await node.call<string>('getnewaddress', ['', 'bech32'], names.customer);
  return { ...names, customerAddress };
}

/** Waits until `nodes` agree on the best block. */
export async function waitForSameTip(...nodes: LitecoinNode[]): Promise<string> {
  const deadline = Date.now() + SYNC_TIMEOUT_MS;
  for (;;) {
    const tips = await Promise.all(nodes.map((node) => node.call<string>('getbestblockhash')));
    if (tips.every((tip) => tip === tips[0])) return tips[0]!;
    if (Date.now() > deadline) throw new Error(`nodes did not reach the same tip within ${SYNC_TIMEOUT_MS} ms: ${tips.join(', ')}`);
    await sleep(50);
  }
}

async function waitForPeers(node: LitecoinNode, count: number): Promise<void> {
  const deadline = Date.now() + SYNC_TIMEOUT_MS;
  // Connected: at least `count` peers (a node may have others); cut off: none.
  const reached = (peers: number) => (count === 0 ? peers === 0 : peers >= count);
  while (!reached(await node.call<number>('getconnectioncount'))) {
    if (Date.now() > deadline) throw new Error(`node on ${node.p2pPort} did not reach ${count} peers`);
    await sleep(50);
  }
}

/** Connects `b` to `a` and waits until both are connected and on the same tip. */
export async function connectNodes(a: LitecoinNode, b: LitecoinNode): Promise<void> {
  await Promise.all([a.call('setnetworkactive', [true]), b.call('setnetworkactive', [true])]);
  await b.call('addnode', [`127.0.0.1:${a.p2pPort}`, 'onetry']);
  await Promise.all([waitForPeers(a, 1), waitForPeers(b, 1)]);
  await waitForSameTip(a, b);
}

/** Cuts every connection of `a` and `b`: each then mines its own branch. */
export async function disconnectNodes(a: LitecoinNode, b: LitecoinNode): Promise<void> {
  await Promise.all([a.call('setnetworkactive', [false]), b.call('setnetworkactive', [false])]);
  await Promise.all([waitForPeers(a, 0), waitForPeers(b, 0)]);
}
