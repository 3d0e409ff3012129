/**
 * The adapters of an EVM network (DESIGN 10): Ethereum with its ERC-20 tokens, or BSC with its BEP-20 ones (the
 * same JSON-RPC; only the configuration differs). Deposit addresses derive from the account xpub; one watcher
 * reads blocks and token logs; payouts are signed locally by the hot wallet's key.
 */
import { createPublicClient, http, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { NetworkAdapters } from '../chain.js';
import { createEvmAddressSource } from './addresses.js';
import { createAssetBook } from './context.js';
import type { NonceAllocator } from './nonces.js';
import { createEvmPayoutSender } from './sender.js';
import { createEvmSweeper, type EvmSweeper } from './sweeper.js';
import type { TokenConfig } from './tokens.js';
import { createEvmChainWatcher } from './watcher.js';

export type { NonceAllocator, NonceRequest } from './nonces.js';
export { parseTokens, type TokenConfig } from './tokens.js';
export { classifyBroadcastRefusal } from './broadcast-errors.js';
export type { EvmSweeper, SignedSweep, SweepRequest, SweepStep, SweepTransactionState } from './sweeper.js';

/** How long one JSON-RPC call may take before it counts as failed. */
const RPC_TIMEOUT_MS = 15_000;

/** What an EVM network's adapters need. */
export interface EthereumAdapterOptions {
  /** The network code (ETH, BSC), for messages. */
  network: string;
  /** The node's JSON-RPC URL. */
  rpcUrl: string;
  /** The chain id signed into payouts; read from the node when absent (and then checked once). */
  chainId?: number;
  /** The symbol of the native asset (ETH; BNB on BSC). */
  nativeSymbol: string;
  /** The account extended public key (m/44'/60'/0'): deposit addresses are its `0/<index>`. */
  xpub: string;
  /** The hot wallet's private key (0x and 64 hex digits), read by the caller from `<NET>_HOT_WALLET_KEY_FILE`. */
  hotWalletKey: string;
  /** ERC-20 tokens by symbol (`parseTokens` reads `<NET>_TOKENS`). */
  tokens: Record<string, TokenConfig>;
  /** The shared nonce allocator (store/evm-nonces.ts: createEvmNonceAllocator). */
  nonces: NonceAllocator;
  /** Confirmations a payout needs before its swap is finished. */
  payoutConfirmations: number;
  /** Seconds between blocks (12 on Ethereum, 3 on BSC). */
  blockSeconds: number;
  /** How often the watcher scans, idle or busy, overriding the pace from the block time (devnets). */
  scanMs?: number;
  /** Blocks one scan reads at most (default 50). */
  blocksPerScan?: number;
  /** Blocks the watcher remembers to tell reorganisations (default 64). */
  reorgDepth?: number;
  /** Where a watcher that never scanned starts (default: the tip). */
  startHeight?: number;
  /** A client to use instead of one over `rpcUrl` (tests). */
  client?: PublicClient;
  /** Seconds an unmined payout waits before it is replaced (default 180). */
  replaceAfterSeconds?: number;
  /** The most a payout may offer per gas, in gwei (default 500). */
  maxFeeGwei?: string;
  /** A test hook: native payouts' gas limit instead of an estimate (EvmSenderOptions.fixedNativeGas). */
  fixedNativeGas?: bigint;
}

/** A JSON-RPC client over `rpcUrl` that never caches a block number (a scan always sees the tip). */
export function createEvmClient(rpcUrl: string): PublicClient {
  return createPublicClient({ transport: http(rpcUrl, { timeout: RPC_TIMEOUT_MS, retryCount: 1 }), cacheTime: 0 });
}

/**
 * The adapters of one EVM network. Calls no node: the chain id signed into payouts is asked of the node when
 * the first payout is signed (a node down at start makes the network unhealthy, not the process fail).
 */
export async function createEthereumAdapters(options: EthereumAdapterOptions): Promise<NetworkAdapters> {
  const client = options.client ?? createEvmClient(options.rpcUrl);
  const chainId = chainIdOf(client, options);
  const account = privateKeyToAccount(options.hotWalletKey.trim() as `0x${string}`);
  const assets = createAssetBook(client, options.nativeSymbol, options.tokens);
  return {
    addresses: createEvmAddressSource(options.xpub),
    watcher: createEvmChainWatcher({
      client,
      assets,
      hotWallet: account.address,
      blockSeconds: options.blockSeconds,
      idleScanMs: options.scanMs,
      busyScanMs: options.scanMs,
      blocksPerScan: options.blocksPerScan,
      reorgDepth: options.reorgDepth,
      startHeight: options.startHeight,
    }),
    sender: createEvmPayoutSender({
      client,
      chainId,
      account,
      assets,
      nonces: options.nonces,
      maxFeeGwei: options.maxFeeGwei ?? '500',
      fixedNativeGas: options.fixedNativeGas,
    }),
    payoutConfirmations: options.payoutConfirmations,
    replaceAfterSeconds: options.replaceAfterSeconds ?? 180,
    revertible: true,
  };
}

/**
 * The node's chain id, asked once it is first needed and kept (asked again after a failure). A node on another
 * chain than the configured one is refused at every signing: nothing is signed for the wrong chain.
 */
function chainIdOf(client: PublicClient, options: EthereumAdapterOptions): () => Promise<number> {
  let known: Promise<number> | undefined;
  return () => {
    known ??= client.getChainId().then((nodeChainId) => {
      if (options.chainId !== undefined && options.chainId !== nodeChainId) {
        throw new Error(`${options.network}: the node at the RPC URL is on chain ${nodeChainId}, not the configured ${options.chainId}`);
      }
      return nodeChainId;
    });
    known.catch(() => (known = undefined));
    return known;
  };
}

/**
 * The sweeper of one EVM network (adapters/ethereum/sweeper.ts): moves credited deposits to the hot wallet,
 * signing with the keys below the account extended private key `xprv` (jobs/evm-sweep.ts drives it).
 */
export async function createEthereumSweeper(options: EthereumAdapterOptions & { xprv: string }): Promise<EvmSweeper> {
  const client = options.client ?? createEvmClient(options.rpcUrl);
  return createEvmSweeper({
    client,
    chainId: chainIdOf(client, options),
    hotWallet: privateKeyToAccount(options.hotWalletKey.trim() as `0x${string}`),
    xprv: options.xprv,
    assets: createAssetBook(client, options.nativeSymbol, options.tokens),
    nonces: options.nonces,
  });
}
