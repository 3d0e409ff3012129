/**
 * The chain watcher over the wallet RPC (docs/architecture.md#production): each scan reads the wallet's history newest first with
 * `get_recent_txs_and_info3` (pool transfers come first, then mined ones), page by page, down to the reorg
 * window below the height the last scan reached. `pi.curent_height` of the same answer is the tip. The `…2`
 * and older variants and `search_for_transactions` are never used: since HF6 they lose per-output payment ids.
 *
 * Deposits: an incoming subtransfer in `subtransfers_by_pid` whose payment id rebuilds (addresses.ts) an
 * integrated address the core watches, and whose asset id is a known one, is an output: one per (tx, payment id,
 * asset), its amount the subtransfer's. Its output index is the lowest `employed_entries.receive` index of that
 * asset and payment id (stable across scans). Transfers with `unlock_time ≠ 0` or an unknown asset paid to a
 * watched address are reported held (`heldReason`; an unknown asset as `zano-asset:<id>` in atomic units): the
 * ledger records them, nothing credits them, and the ops CLI lists them (`outputs held`). Each is also logged
 * (warn), once per process.
 *
 * Payouts: a transfer with an outgoing subtransfer is ours; it is reported with its block.
 *
 * Reorganisations: the wallet RPC shows no block hashes. The position keeps what was reported in the window
 * (each output and payout with its height, 0 in the pool); a scan that no longer finds one there reports it
 * removed (a payout: back to no block), and one found at another height is reported again with its new block.
 * Block hashes in BlockRef are labels (`zano-height-<n>`), not real hashes.
 */
import type { Logger } from 'pino';
import { windowChanges, windowOutputKey, type WindowPosition } from '../wallet-window.js';
import type { BlockRef, ChainScan, ChainTip, ChainWatcher, ObservedOutput, ObservedPayout, ScanCursor, WatchFilter } from '../chain.js';
import { integratedAddressOf } from './addresses.js';
import { formatAtomic, type AssetBook } from './assets.js';
import type { ZanoRpcClient } from './rpc.js';

/** A transfer as get_recent_txs_and_info3 prints it (wallet_transfer_info); empty arrays are left out. */
export interface ZanoTransfer {
  tx_hash: string;
  height: bigint;
  unlock_time?: bigint;
  timestamp?: bigint;
  employed_entries?: { receive?: Array<{ index: bigint; asset_id: string; payment_id?: bigint }> };
  subtransfers_by_pid?: Array<{ payment_id?: string; subtransfers?: Array<{ amount: bigint; is_income: boolean; asset_id: string }> }>;
}

interface RecentTxs {
  pi?: { curent_height?: bigint };
  transfers?: ZanoTransfer[];
  total_transfers?: bigint;
  last_item_index?: bigint;
}

export interface ZanoWatcherOptions {
  rpc: ZanoRpcClient;
  assets: AssetBook;
  walletAddress: () => Promise<string>;
  /** Blocks below the last scanned tip read again for reorganisations (default 30). */
  reorgDepth?: number;
  /** Transfers per get_recent_txs_and_info3 page (default 100). */
  pageSize?: number;
  idleScanMs: number;
  busyScanMs: number;
  now: () => Date;
  logger?: Pick<Logger, 'warn'>;
}

/** The label a block of height `height` goes by (the wallet RPC shows no block hashes). */
export const blockLabel = (height: number) => `zano-height-${height}`;
const PAYMENT_ID = /^[0-9a-f]{16}$/;

/** An intrinsic payment id as the wallet's uint64 (convert_payment_id: little-endian). */
const pidAsU64 = (pid: string) => Buffer.from(pid, 'hex').readBigUInt64LE(0);

export function createZanoChainWatcher(options: ZanoWatcherOptions): ChainWatcher {
  const { rpc, assets } = options;
  const reorgDepth = options.reorgDepth ?? 30;
  const pageSize = options.pageSize ?? 100;
  const surfaced = new Set<string>();
  const heightSeen = new Map<number, Date>();
  // A quiet scan (nothing reported) may leave the core's cursor where it was: the next scan from that cursor
  // continues from where the quiet one got to (as the EVM watcher does).
  let quiet: { from: string; to: string } | undefined;

  /** Every transfer in the pool or mined above `floorOf(tip)`, and the tip, read consistently. */
  async function readHistory(floorOf: (tip: number) => number): Promise<{ tip: number; floor: number; transfers: ZanoTransfer[] }> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const transfers: ZanoTransfer[] = [];
      let tip = 0;
      let floor = 0;
      let total: bigint | undefined;
      let offset = 0;
      let consistent = true;
      for (;;) {
        const page = await rpc.call<RecentTxs>('get_recent_txs_and_info3', {
          offset,
          count: pageSize,
          exclude_mining_txs: false,
          exclude_unconfirmed: false,
          order: 'FROM_END_TO_BEGIN',
          update_provision_info: true,
        });
        const pageTotal = page.total_transfers ?? 0n;
        if (offset === 0) {
          tip = Number(page.pi?.curent_height ?? 0n);
          floor = floorOf(tip);
          total = pageTotal;
        } else if (pageTotal !== total || Number(page.pi?.curent_height ?? 0n) !== tip) {
          consistent = false; // the history moved between pages: read again
          break;
        }
        const items = page.transfers ?? [];
        const mined = items.filter((t) => t.height > 0n);
        transfers.push(...items.filter((t) => t.height === 0n || Number(t.height) > floor));
        if (mined.length === 0 || mined.some((t) => Number(t.height) <= floor)) break;
        const next = Number(page.last_item_index ?? 0n) + 1;
        if (next <= offset || BigInt(next) >= pageTotal) break;
        offset = next;
      }
      if (consistent) return { tip, floor, transfers };
    }
    throw new Error('the Zano wallet history kept changing while it was read');
  }

  function surface(key: string, details: Record<string, unknown>, message: string) {
    if (surfaced.has(key)) return;
    surfaced.add(key);
    options.logger?.warn(details, message);
  }

  async function scan(cursor: ScanCursor | null, watched: WatchFilter): Promise<ChainScan> {
    const stored = cursor?.position ?? null;
    const startFrom = stored !== null && quiet?.from === stored ? quiet.to : stored;
    const previous: WindowPosition | null = startFrom ? (JSON.parse(startFrom) as WindowPosition) : null;
    const wallet = await options.walletAddress();
    const { tip, floor, transfers } = await readHistory((top) => (previous ? Math.min(previous.height, top) : top) - reorgDepth);
    const blockOf = (height: bigint): BlockRef | null =>
      height > 0n ? { height: Number(height), hash: blockLabel(Number(height)) } : null;

    // Payment ids paid in the window, and which of their integrated addresses are ours (one question).
    const addressOf = new Map<string, string>();
    for (const tx of transfers) {
      for (const group of tx.subtransfers_by_pid ?? []) {
        const pid = (group.payment_id ?? '').toLowerCase();
        if (PAYMENT_ID.test(pid) && !addressOf.has(pid) && (group.subtransfers ?? []).some((s) => s.is_income)) {
          addressOf.set(pid, integratedAddressOf(wallet, pid));
        }
      }
    }
    const ours = addressOf.size > 0 ? await watched([...addressOf.values()]) : new Set<string>();

    const current = new Map<string, ObservedOutput>();
    const currentPayouts = new Map<string, ObservedPayout>();
    for (const tx of transfers) {
      const block = blockOf(tx.height);
      if ((tx.subtransfers_by_pid ?? []).some((g) => (g.subtransfers ?? []).some((s) => !s.is_income))) {
        currentPayouts.set(tx.tx_hash, { txHash: tx.tx_hash, block });
      }
      const receive = tx.employed_entries?.receive ?? [];
      for (const [groupIndex, group] of (tx.subtransfers_by_pid ?? []).entries()) {
        const pid = (group.payment_id ?? '').toLowerCase();
        const address = addressOf.get(pid);
        if (!address || !ours.has(address)) continue;
        for (const [subIndex, sub] of (group.subtransfers ?? []).entries()) {
          if (!sub.is_income || sub.amount <= 0n) continue;
          const asset = assets.byId(sub.asset_id);
          const unlockTime = tx.unlock_time ?? 0n;
          const indexes = receive
            .filter((e) => e.asset_id.toLowerCase() === sub.asset_id.toLowerCase() && e.payment_id === pidAsU64(pid))
            .map((e) => Number(e.index));
          const outputIndex = indexes.length > 0 ? Math.min(...indexes) : 1_000_000 + groupIndex * 1000 + subIndex;
          const seen = tx.timestamp && tx.timestamp > 0n ? new Date(Number(tx.timestamp) * 1000) : options.now();
          // An unknown asset (its decimals unknown: the amount is in atomic units, under `zano-asset:<id>`) or a
          // time-locked transfer is recorded held: no swap or route credits it, and the ops CLI lists it.
          const heldReason = !asset
            ? `zano deposit in an unknown asset (${sub.asset_id}, amount in atomic units) to a watched address: not credited, needs an operator`
            : unlockTime !== 0n
              ? `zano deposit with unlock_time set (${unlockTime}) to a watched address: not credited, needs an operator`
              : undefined;
          if (heldReason) {
            const details = {
              txHash: tx.tx_hash,
              address,
              paymentId: pid,
              assetId: sub.asset_id,
              amountAtomic: sub.amount.toString(),
              unlockTime: unlockTime.toString(),
              height: Number(tx.height),
            };
            surface(`${tx.tx_hash}:${pid}:${sub.asset_id}`, details, heldReason);
          }
          current.set(windowOutputKey(tx.tx_hash, outputIndex), {
            txHash: tx.tx_hash,
            outputIndex,
            address,
            memo: null,
            asset: asset ? asset.symbol : `zano-asset:${sub.asset_id.toLowerCase()}`,
            amount: asset ? formatAtomic(sub.amount, asset.decimals) : sub.amount.toString(),
            fromAddress: null,
            block,
            seenAt: seen,
            ...(heldReason ? { heldReason } : {}),
          });
        }
      }
    }

    // What changed against the window the position remembers (entries below the floor were not read again).
    const { outputs, removed, payouts, next } = windowChanges(previous, current, currentPayouts, { floor, tip, reorgDepth });

    const result: ChainScan = { tip: { height: tip, hash: blockLabel(tip) }, position: JSON.stringify(next), outputs, removed, payouts };
    const isQuiet = outputs.length === 0 && removed.length === 0 && payouts.length === 0;
    quiet = isQuiet && stored !== null ? { from: stored, to: result.position } : undefined;
    return result;
  }

  return {
    idleScanMs: options.idleScanMs,
    busyScanMs: options.busyScanMs,
    scan,
    // The wallet RPC tells the height, not the block's time: the time is when this process first saw that
    // height, so a wallet (or daemon) stuck at one height ages as a stale tip should.
    async tip(): Promise<ChainTip> {
      const info = await rpc.call<{ current_height: bigint }>('get_wallet_info', { collect_utxo_data: false });
      const height = Number(info.current_height);
      let time = heightSeen.get(height);
      if (!time) {
        time = options.now();
        heightSeen.clear();
        heightSeen.set(height, time);
      }
      return { height, hash: blockLabel(height), time };
    },
  };
}
