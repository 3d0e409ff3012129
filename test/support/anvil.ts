/**
 * anvil (npm @foundry-rs/anvil, a real Ethereum node) on a free loopback port, in its own process group, with
 * automine on: each transaction is mined in a block of its own as it arrives.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPublicClient, http, numberToHex, type Hex, type PublicClient } from 'viem';
import { freePort, spawnGroup, type Child } from './process.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ANVIL_BIN = path.join(ROOT, 'node_modules/.bin/anvil');
const STARTUP_TIMEOUT_MS = 15_000;

/** anvil's well-known first development key (mnemonic "test test ... junk", m/44'/60'/0'/0/0), 10,000 ETH. */
export const ANVIL_KEY_0: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
/** The second development key, 10,000 ETH. */
export const ANVIL_KEY_1: Hex = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';

/** A running anvil. */
export interface Anvil {
  url: string;
  chainId: number;
  client: PublicClient;
  /** Mines `blocks` empty blocks. */
  mine(blocks?: number): Promise<void>;
  /** Replaces the last `depth` blocks with as many empty ones: their transactions leave the chain. */
  reorg(depth: number): Promise<void>;
  /** Any JSON-RPC call. */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  stop(): Promise<void>;
}

/** Why anvil cannot run here, or null when it can. */
export function anvilUnavailable(): string | null {
  return fs.existsSync(ANVIL_BIN) ? null : `anvil is not installed (${ANVIL_BIN} is missing: npm ci installs @foundry-rs/anvil)`;
}

/**
 * Starts anvil; `chainId` defaults to anvil's 31337. With `blockSeconds`, it mines a block every that many
 * seconds instead of one per transaction.
 */
export async function startAnvil(options: { chainId?: number; blockSeconds?: number } = {}): Promise<Anvil> {
  const port = await freePort();
  const chainId = options.chainId ?? 31337;
  const args = ['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(chainId), '--silent'];
  if (options.blockSeconds) args.push('--block-time', String(options.blockSeconds));
  const child: Child = spawnGroup(ANVIL_BIN, args);
  const url = `http://127.0.0.1:${port}`;
  const client = createPublicClient({ transport: http(url, { retryCount: 0 }), cacheTime: 0 });
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  for (;;) {
    try {
      await client.getChainId();
      break;
    } catch (err) {
      if (child.process.exitCode !== null || Date.now() > deadline) {
        await child.stop('SIGKILL');
        throw new Error(`anvil did not start: ${child.output() || String(err)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
  const rpc = <T>(method: string, params: unknown[] = []) => client.request({ method, params } as never) as Promise<T>;
  return {
    url,
    chainId,
    client,
    rpc,
    mine: async (blocks = 1) => void (await rpc('anvil_mine', [numberToHex(blocks)])),
    reorg: async (depth) => void (await rpc('anvil_reorg', [depth, []])),
    stop: async () => void (await child.stop('SIGTERM', 2_000)),
  };
}
