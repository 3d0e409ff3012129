/**
 * The Bitcoin Core family (docs/architecture.md#production): Litecoin Core here, Bitcoin Core by other parameters. Deposit
 * addresses are BIP84 from the account's extended public key and watched by a watch-only wallet; payouts are
 * PSBTs that wallet funds and a separate signer wallet signs. The service never holds a private key.
 */
import type { NetworkAdapters } from '../chain.js';
import { createAddressSource, createWatchImporter } from './addresses.js';
import { parseAccountKey } from './keys.js';
import type { BitcoinParams } from './params.js';
import { createRpcClient } from './rpc.js';
import { createPayoutSender } from './sender.js';
import { createChainWatcher } from './watcher.js';

export { parseBitcoinParams, BITCOIN_PARAMS, KEY_VERSIONS, type BitcoinParams } from './params.js';
export { RpcError, RpcTransportError, createRpcClient, type RpcClient } from './rpc.js';

/** Options of createBitcoinAdapters. */
export interface BitcoinAdapterOptions {
  /** The network code (`LTC`). */
  network: string;
  /** The symbol of the native coin (default: the network code). */
  asset?: string;
  /** The watch-only wallet's RPC URL (`http://user:password@host:port/wallet/<name>`: <NET>_RPC_URL). */
  rpcUrl: string;
  /** The signer wallet's RPC URL (<NET>_SIGNER_RPC_URL). */
  signerRpcUrl: string;
  /** The account extended public key deposit addresses derive from (<NET>_XPUB). */
  xpub: string;
  /** The chain's parameters (parseBitcoinParams). */
  params: BitcoinParams;
  /** Confirmations a payout needs before its swap is finished. */
  payoutConfirmations: number;
  /** Fee rate in coin per 1000 virtual bytes while the node has no estimate (a decimal string). */
  fallbackFeeRate: string;
  /** Seconds between blocks (default: the parameters'). */
  blockSeconds?: number;
  /** Seconds an unmined payout waits before it is replaced by BIP125 (default 600). */
  replaceAfterSeconds?: number;
  /** The most a payout may pay, in coin per kvB (default 0.01). */
  maxFeeRate?: string;
  /** How often the watcher scans, idle or busy, overriding the pace from the block time (regtest). */
  scanMs?: number;
  /** The confirmation target for estimatesmartfee (default 6). */
  feeTargetBlocks?: number;
  /** How long an RPC call may take (default rpc.ts's RPC_TIMEOUT_MS). */
  timeoutMs?: number;
  /** The clock (default: the system's). */
  now?: () => Date;
  /** The fetch to use (default: the global one). */
  fetch?: typeof globalThis.fetch;
}

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

/** The three roles of a Bitcoin Core-family network. Throws when the extended key does not fit the chain. */
export function createBitcoinAdapters(options: BitcoinAdapterOptions): NetworkAdapters {
  const { params } = options;
  const account = parseAccountKey(options.xpub, params);
  const rpc = createRpcClient({ url: options.rpcUrl, timeoutMs: options.timeoutMs, fetch: options.fetch });
  const signer = createRpcClient({ url: options.signerRpcUrl, timeoutMs: options.timeoutMs, fetch: options.fetch });
  const importer = createWatchImporter(rpc);
  const blockMs = (options.blockSeconds ?? params.blockSeconds) * 1000;
  return {
    addresses: createAddressSource({ network: options.network, account, importer }),
    // A scan is one cheap call from the last block: often enough to show a payment soon after it is sent
    // (LTC: every 30 s idle, 15 s while something confirms; BTC: 120 s and 60 s).
    watcher: createChainWatcher({
      rpc,
      asset: options.asset ?? options.network,
      idleScanMs: options.scanMs ?? clamp(blockMs / 5, 10_000, 120_000),
      busyScanMs: options.scanMs ?? clamp(blockMs / 10, 5_000, 60_000),
      chain: { network: options.network, name: params.nodeChain },
    }),
    sender: createPayoutSender({
      rpc,
      signer,
      account,
      importer,
      decimals: params.decimals,
      fallbackFeeRate: options.fallbackFeeRate,
      feeTargetBlocks: options.feeTargetBlocks ?? 6,
      now: options.now ?? (() => new Date()),
      maxFeeRate: options.maxFeeRate ?? '0.01',
      minConfirmations: options.payoutConfirmations,
      bump: params.bump,
    }),
    payoutConfirmations: options.payoutConfirmations,
    replaceAfterSeconds: options.replaceAfterSeconds ?? 600,
  };
}
