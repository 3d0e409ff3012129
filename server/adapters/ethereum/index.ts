/**
 * The adapters of an EVM network (docs/architecture.md#production): Ethereum with its ERC-20 tokens, or BSC with its BEP-20 ones (the
 * same JSON-RPC; only the configuration differs). Deposit addresses derive from the account xpub; one watcher
 * reads blocks and token logs; payouts are signed locally by the hot wallet's key.
 *
 * The node is held to `chainId` (`<NET>_CHAIN_ID`): every tip and scan asks its chain id first, and a node on
 * another chain fails them with ChainIdMismatchError (the network is unhealthy, `chain id mismatch`); nothing is
 * signed for any other id. Its answers are bounded and checked (transport.ts) before viem reads them.
 */
import { createPublicClient, http, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { Logger } from 'pino';
import { ChainIdMismatchError, MAX_BULK_ANSWER_BYTES } from '../boundary.js';
import type { ChainWatcher, NetworkAdapters } from '../chain.js';
import { createEvmAddressSource } from './addresses.js';
import { createAssetBook } from './context.js';
import type { NonceAllocator } from './nonces.js';
import { createEvmPayoutSender } from './sender.js';
import { createCheckedFetch, type FetchFn } from './transport.js';
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
  /**
   * The chain id the node must be on (`<NET>_CHAIN_ID`): payouts are signed for it, and tips and scans of a node
   * on another chain fail (ChainIdMismatchError). Absent (tests): the node's own id is signed for.
   */
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
  /** Where the watcher tells, once, which call-trace method it reads internal transfers with (or that the node has none). */
  logger?: Pick<Logger, 'info' | 'warn'>;
}

/**
 * A JSON-RPC client over `rpcUrl` that never caches a block number (a scan always sees the tip), whose answers
 * are bounded and checked (transport.ts; viem's own body limit is set to the largest answer allowed, as a second bound).
 */
export function createEvmClient(rpcUrl: string, fetchFn?: FetchFn): PublicClient {
  return createPublicClient({
    transport: http(rpcUrl, {
      timeout: RPC_TIMEOUT_MS,
      retryCount: 1,
      fetchFn: createCheckedFetch(fetchFn),
      maxResponseBodySize: MAX_BULK_ANSWER_BYTES,
    }),
    cacheTime: 0,
  });
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
    watcher: onChain(
      client,
      options,
      createEvmChainWatcher({
        client,
        assets,
        hotWallet: account.address,
        blockSeconds: options.blockSeconds,
        idleScanMs: options.scanMs,
        busyScanMs: options.scanMs,
        blocksPerScan: options.blocksPerScan,
        reorgDepth: options.reorgDepth,
        startHeight: options.startHeight,
        network: options.network,
        logger: options.logger,
      }),
    ),
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
        throw new ChainIdMismatchError(options.network, options.chainId, nodeChainId);
      }
      return nodeChainId;
    });
    known.catch(() => (known = undefined));
    return known;
  };
}

/**
 * `watcher` held to `options.chainId`: its tip and each scan first ask the node's chain id (not kept: a node
 * behind a load balancer may change), and a node on another chain fails them with ChainIdMismatchError, so
 * nothing of another chain is recorded and the board shows `chain id mismatch`. Without a configured id, as is.
 */
function onChain(client: PublicClient, options: EthereumAdapterOptions, watcher: ChainWatcher): ChainWatcher {
  const configured = options.chainId;
  if (configured === undefined) return watcher;
  const check = async () => {
    const reported = await client.getChainId();
    if (reported !== configured) throw new ChainIdMismatchError(options.network, configured, reported);
  };
  return {
    ...watcher,
    async tip() {
      await check();
      return watcher.tip();
    },
    async scan(cursor, watched) {
      await check();
      return watcher.scan(cursor, watched);
    },
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
