/**
 * Zano (docs/architecture.md#production) over the wallet JSON-RPC: deposit addresses are integrated addresses of the service's
 * watch-only wallet (a payment id per request), the watcher reads that wallet's history, and payouts are built by
 * the watch-only wallet, signed by a separate signer wallet and submitted by the watch-only one. The service never
 * holds the spend key.
 *
 * Wallet RPC methods used (hyle-team/zano-docs, docs/build/rpc-api/wallet-rpc-api/ or api-reference/wallet-rpc-api/):
 * getaddress, make_integrated_address, get_recent_txs_and_info3, get_wallet_info, getbalance,
 * assets_whitelist_add, transfer, sign_transfer (signer), submit_transfer, search_for_transactions2,
 * clear_utxo_cold_sig_reservation.
 */
import type { Logger } from 'pino';
import type { NetworkAdapters } from '../chain.js';
import { createWalletAddress, createZanoAddressSource } from './addresses.js';
import { createAssetBook, DEFAULT_ZANO_ASSETS, FUSD_ASSET_ID, ZANO_NATIVE_ASSET_ID, type ZanoAsset } from './assets.js';
import { createZanoRpcClient } from './rpc.js';
import { createZanoPayoutSender } from './sender.js';
import { createZanoChainWatcher } from './watcher.js';

export { depositPaymentId, integratedAddressOf } from './addresses.js';
export { FUSD_ASSET_ID, ZANO_NATIVE_ASSET_ID, formatAtomic, parseAtomic, type ZanoAsset } from './assets.js';
export { ZanoRpcError, ZanoRpcTransportError, createZanoRpcClient, type ZanoRpcClient } from './rpc.js';
export { ZANO_PAYOUT_FEE, ZANO_MIXIN } from './sender.js';
export { blockLabel } from './watcher.js';

export interface ZanoAdapterOptions {
  /** The network code (default ZANO). */
  network?: string;
  /** The watch-only wallet's RPC URL (<NET>_RPC_URL), e.g. http://127.0.0.1:11212/json_rpc. */
  rpcUrl: string;
  /** The signer wallet's RPC URL (<NET>_SIGNER_RPC_URL). */
  signerRpcUrl: string;
  /** The fUSD asset id (default FUSD_ASSET_ID). */
  fusdAssetId?: string;
  /** Replaces the whole asset book (symbols, asset ids, decimals); default ZANO and fUSD. */
  assets?: ZanoAsset[];
  /** Confirmations a payout needs before its swap is finished. */
  payoutConfirmations: number;
  /** Seconds between blocks (default 60). */
  blockSeconds?: number;
  /** How often the watcher scans, idle or busy (tests). */
  scanMs?: number;
  /** Blocks the watcher reads again for reorganisations (default 30). */
  reorgDepth?: number;
  timeoutMs?: number;
  now?: () => Date;
  fetch?: typeof globalThis.fetch;
  /** Where deposits the watcher will not credit (unknown asset, unlock_time) are told, and reservation clean-ups. */
  logger?: Pick<Logger, 'warn'>;
}

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

/** The three roles of the Zano network. */
export function createZanoAdapters(options: ZanoAdapterOptions): NetworkAdapters {
  const network = options.network ?? 'ZANO';
  const rpc = createZanoRpcClient({ url: options.rpcUrl, timeoutMs: options.timeoutMs, fetch: options.fetch });
  const signer = createZanoRpcClient({ url: options.signerRpcUrl, timeoutMs: options.timeoutMs, fetch: options.fetch });
  const book =
    options.assets ??
    DEFAULT_ZANO_ASSETS.map((asset) =>
      asset.assetId === FUSD_ASSET_ID && options.fusdAssetId ? { ...asset, assetId: options.fusdAssetId } : asset,
    );
  if (!book.some((asset) => asset.assetId.toLowerCase() === ZANO_NATIVE_ASSET_ID))
    throw new Error('the Zano asset book needs the native coin');
  const assets = createAssetBook(rpc, book);
  const walletAddress = createWalletAddress(rpc);
  const now = options.now ?? (() => new Date());
  const blockMs = (options.blockSeconds ?? 60) * 1000;
  return {
    addresses: createZanoAddressSource({ network, rpc, assets, walletAddress }),
    watcher: createZanoChainWatcher({
      rpc,
      assets,
      walletAddress,
      reorgDepth: options.reorgDepth,
      idleScanMs: options.scanMs ?? clamp(blockMs / 2, 10_000, 120_000),
      busyScanMs: options.scanMs ?? clamp(blockMs / 4, 5_000, 60_000),
      now,
      logger: options.logger,
    }),
    sender: createZanoPayoutSender({ rpc, signer, assets, logger: options.logger }),
    payoutConfirmations: options.payoutConfirmations,
  };
}
