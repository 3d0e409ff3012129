/**
 * Monero in regtest for tests: `monerod --regtest --offline --fixed-difficulty 1` and three monero-wallet-rpc
 * processes on free loopback ports, each in a temporary directory and a process group of its own (stopped with
 * the whole group): the service's view-only wallet (XMR_RPC_URL), its signer (XMR_SIGNER_RPC_URL, --offline:
 * it never talks to the daemon) restored from a fixed test seed, and a customer's wallet to pay deposits from.
 * Regtest uses mainnet addresses. Coinbase outputs unlock after 60 blocks.
 *
 * Where monerod is not installed, `moneroMissing` says why, and tests skip with it printed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createMoneroRpcClient, type MoneroRpcClient } from '../../server/adapters/monero/index.js';
import { freePort } from './process.js';

export const MONEROD = process.env.MONEROD ?? '/usr/bin/monerod';
export const MONERO_WALLET_RPC = process.env.MONERO_WALLET_RPC ?? '/usr/bin/monero-wallet-rpc';

/** Why the tests that need Monero cannot run here, or null when they can. */
export const moneroMissing: string | null =
  existsSync(MONEROD) && existsSync(MONERO_WALLET_RPC)
    ? null
    : `no monerod and monero-wallet-rpc at ${MONEROD}, ${MONERO_WALLET_RPC} (make nodes installs Debian's monero with apt-get as root)`;

/** The signer's seed: a test wallet's, never a real one (it is in this file). */
export const SIGNER_SEED =
  'sequence atlas unveil summon pebbles tuesday beer rudely snake rockets different fuselage woven tagged bested dented vegan hover rapid fawns obvious muppet randomly seasons randomly';

const START_TIMEOUT_MS = 60_000;

interface Group {
  child: ChildProcess;
  exited: Promise<void>;
}

function start(command: string, args: string[]): Group {
  const child = spawn(command, args, { detached: true, stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, exited };
}

async function stopGroup(group: Group): Promise<void> {
  const pid = group.child.pid;
  if (!pid || group.child.exitCode !== null || group.child.signalCode !== null) return;
  try {
    process.kill(-pid, 'SIGTERM');
  } catch {
    return;
  }
  const stopped = await Promise.race([group.exited.then(() => true), sleep(15_000).then(() => false)]);
  if (!stopped) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // gone
    }
    await group.exited;
  }
}

async function waitUntil(what: string, ready: () => Promise<unknown>, group: Group): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (group.child.exitCode !== null) throw new Error(`${what} exited while starting`);
    try {
      await ready();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`${what} did not answer within ${START_TIMEOUT_MS} ms`, { cause: err });
      await sleep(200);
    }
  }
}

/** A running regtest daemon with the service's two wallets and a customer's. */
export interface MoneroNet {
  daemonUrl: string;
  /** The view-only wallet (XMR_RPC_URL) and the signer (XMR_SIGNER_RPC_URL). */
  viewUrl: string;
  signerUrl: string;
  view: MoneroRpcClient;
  signer: MoneroRpcClient;
  customer: MoneroRpcClient;
  /** The customer's wallet RPC (json_rpc URL). */
  customerUrl: string;
  /** The hot wallet's (view-only and signer's) and the customer's primary addresses. */
  hotAddress: string;
  customerAddress: string;
  /** Mines `blocks` blocks paying `address` (default the customer's). */
  mine(blocks: number, address?: string): Promise<void>;
  /** Takes the top `blocks` blocks off the chain and empties the pool (their transactions go with it). */
  popBlocks(blocks: number): Promise<void>;
  /** The daemon's chain height (the count of blocks). */
  height(): Promise<number>;
  stop(): Promise<void>;
}

/** Starts the daemon and the wallets; the hot wallet gets `hotBlocks` coinbases, unlocked (60 blocks mined after them). */
export async function startMoneroNet(options: { hotBlocks?: number } = {}): Promise<MoneroNet> {
  if (moneroMissing) throw new Error(moneroMissing);
  const dir = await mkdtemp(join(tmpdir(), 'pss-monero-'));
  const [rpcPort, p2pPort, viewPort, signerPort, customerPort] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  const groups: Group[] = [];
  const stop = async () => {
    await Promise.all(groups.reverse().map(stopGroup));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const daemon = start(MONEROD, [
      '--regtest',
      '--offline',
      '--fixed-difficulty',
      '1',
      `--data-dir=${join(dir, 'daemon')}`,
      '--rpc-bind-ip=127.0.0.1',
      `--rpc-bind-port=${rpcPort}`,
      '--p2p-bind-ip=127.0.0.1',
      `--p2p-bind-port=${p2pPort}`,
      '--no-igd',
      '--no-zmq',
      '--non-interactive',
      '--log-level=0',
    ]);
    groups.push(daemon);
    const daemonUrl = `http://127.0.0.1:${rpcPort}`;
    const daemonRpc = createMoneroRpcClient({ url: daemonUrl });
    await waitUntil('monerod', () => daemonRpc.call('get_info'), daemon);
    const wallet = (port: number, name: string, offline: boolean) => {
      const group = start(MONERO_WALLET_RPC, [
        ...(offline ? ['--offline'] : [`--daemon-address=127.0.0.1:${rpcPort}`, '--trusted-daemon']),
        '--rpc-bind-ip=127.0.0.1',
        `--rpc-bind-port=${port}`,
        '--disable-rpc-login',
        `--wallet-dir=${join(dir, name)}`,
        '--non-interactive',
        '--log-level=0',
      ]);
      groups.push(group);
      return group;
    };
    const viewGroup = wallet(viewPort, 'view', false);
    const signerGroup = wallet(signerPort, 'signer', true);
    const customerGroup = wallet(customerPort, 'customer', false);
    const [viewUrl, signerUrl] = [`http://127.0.0.1:${viewPort}/json_rpc`, `http://127.0.0.1:${signerPort}/json_rpc`];
    const view = createMoneroRpcClient({ url: viewUrl, timeoutMs: 60_000 });
    const signer = createMoneroRpcClient({ url: signerUrl, timeoutMs: 60_000 });
    const customerUrl = `http://127.0.0.1:${customerPort}/json_rpc`;
    const customer = createMoneroRpcClient({ url: customerUrl, timeoutMs: 60_000 });
    await Promise.all([
      waitUntil('the view-only wallet', () => view.call('get_version'), viewGroup),
      waitUntil('the signer wallet', () => signer.call('get_version'), signerGroup),
      waitUntil('the customer wallet', () => customer.call('get_version'), customerGroup),
    ]);
    const restored = await signer.call<{ address: string }>('restore_deterministic_wallet', {
      filename: 'signer',
      password: '',
      seed: SIGNER_SEED,
      restore_height: 0,
      language: 'English',
    });
    const { key: viewKey } = await signer.call<{ key: string }>('query_key', { key_type: 'view_key' });
    await view.call('generate_from_keys', {
      filename: 'view',
      address: restored.address,
      viewkey: viewKey,
      password: '',
      restore_height: 0,
    });
    await customer.call('create_wallet', { filename: 'customer', password: '', language: 'English' });
    const { address: customerAddress } = await customer.call<{ address: string }>('get_address', { account_index: 0 });
    const mine = async (blocks: number, address = customerAddress) => {
      await daemonRpc.call('generateblocks', { amount_of_blocks: blocks, wallet_address: address });
    };
    const net: MoneroNet = {
      daemonUrl,
      viewUrl,
      signerUrl,
      view,
      signer,
      customer,
      customerUrl,
      hotAddress: restored.address,
      customerAddress,
      mine,
      async popBlocks(blocks) {
        // pop_blocks is one of the daemon's plain JSON endpoints; the popped blocks' transactions return to the pool.
        const res = await fetch(`${daemonUrl}/pop_blocks`, { method: 'POST', body: JSON.stringify({ nblocks: blocks }) });
        if (!res.ok) throw new Error(`pop_blocks: HTTP ${res.status}`);
        await daemonRpc.call('flush_txpool', {});
      },
      async height() {
        return Number((await daemonRpc.call<{ height: bigint }>('get_info')).height);
      },
      stop,
    };
    // The customer's coinbases first (10 of them unlock below), then the hot wallet's, then 60 to unlock them.
    await mine(10);
    await mine(options.hotBlocks ?? 5, restored.address);
    await mine(60);
    await Promise.all([view.call('refresh', {}), customer.call('refresh', {})]);
    return net;
  } catch (err) {
    await stop();
    throw err;
  }
}
