/**
 * Monero (docs/production.md#monero) over monero-wallet-rpc: deposit addresses are integrated addresses of the
 * service's view-only wallet (a payment id per request), the watcher reads that wallet's transfers, and payouts
 * are built by the view-only wallet, signed by a separate signer wallet and submitted by the view-only one. The
 * service never holds the spend key; the view-only wallet learns spends from the signer's key images.
 */
import type { Logger } from 'pino';
import type { NetworkAdapters } from '../chain.js';
import { createMoneroAddressSource, createMoneroWalletAddress } from './addresses.js';
import { createMoneroRpcClient } from './rpc.js';
import { createMoneroPayoutSender } from './sender.js';
import { createMoneroChainWatcher } from './watcher.js';

export { moneroPaymentId } from './addresses.js';
export {
  createMoneroRpcClient,
  formatPiconero,
  parsePiconero,
  MoneroRpcError,
  MoneroRpcTransportError,
  type MoneroRpcClient,
} from './rpc.js';
export { moneroBlockLabel } from './watcher.js';

export interface MoneroAdapterOptions {
  /** The network code (default XMR). */
  network?: string;
  /** The view-only wallet's RPC URL (XMR_RPC_URL), e.g. http://127.0.0.1:18088/json_rpc. */
  rpcUrl: string;
  /** The signer wallet's RPC URL (XMR_SIGNER_RPC_URL). */
  signerRpcUrl: string;
  /** Confirmations a payout needs before its swap is finished. */
  payoutConfirmations: number;
  /** Seconds between blocks (default 120). */
  blockSeconds?: number;
  /** How often the watcher scans, idle or busy (tests). */
  scanMs?: number;
  /** Blocks the watcher reads again for reorganisations (default 30). */
  reorgDepth?: number;
  /** Seconds a payout may stay in no block before it is held for an operator (default thirty block times). */
  holdUnminedSeconds?: number;
  timeoutMs?: number;
  now?: () => Date;
  fetch?: typeof globalThis.fetch;
  logger?: Pick<Logger, 'warn'>;
}

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

/** The three roles of the Monero network. */
export function createMoneroAdapters(options: MoneroAdapterOptions): NetworkAdapters {
  const network = options.network ?? 'XMR';
  const rpc = createMoneroRpcClient({ url: options.rpcUrl, timeoutMs: options.timeoutMs, fetch: options.fetch });
  const signer = createMoneroRpcClient({ url: options.signerRpcUrl, timeoutMs: options.timeoutMs, fetch: options.fetch });
  const walletAddress = createMoneroWalletAddress(rpc);
  const now = options.now ?? (() => new Date());
  const blockMs = (options.blockSeconds ?? 120) * 1000;
  return {
    addresses: createMoneroAddressSource({ network, rpc, walletAddress }),
    watcher: createMoneroChainWatcher({
      rpc,
      walletAddress,
      reorgDepth: options.reorgDepth,
      idleScanMs: options.scanMs ?? clamp(blockMs / 2, 10_000, 120_000),
      busyScanMs: options.scanMs ?? clamp(blockMs / 4, 5_000, 60_000),
      now,
      logger: options.logger,
    }),
    sender: createMoneroPayoutSender({ rpc, signer, now, logger: options.logger }),
    payoutConfirmations: options.payoutConfirmations,
    // Monero has no fee bumping: a payout the chain leaves out is an operator's to decide.
    holdUnminedAfterSeconds: options.holdUnminedSeconds ?? (blockMs / 1000) * 30,
  };
}
