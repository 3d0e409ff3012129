/**
 * The chain watcher over monero-wallet-rpc (the view-only wallet): each scan refreshes the wallet, then reads
 * `get_transfers` (incoming, pool, outgoing, pending) above the reorg window below the height the last scan
 * reached, and `get_height` for the tip.
 *
 * Deposits: an incoming transfer whose payment id rebuilds (domain/monero-address.ts) an integrated address the
 * core watches is an output, one per (tx, payment id), output index 0, its amount what the transfer brought to
 * the wallet. A transfer with `unlock_time ≠ 0` paid to a watched address is reported held (`heldReason`): the
 * ledger records it, nothing credits it, and the ops CLI lists it. The sender is unknown (Monero hides it).
 *
 * Payouts: an outgoing transfer (mined, or pending in the pool) is ours; it is reported with its block.
 *
 * Reorganisations: the wallet RPC shows no block hashes; as on Zano (adapters/zano/watcher.ts) the position
 * keeps what was reported in the window (each output and payout with its height, 0 in the pool), a scan that no
 * longer finds one reports it removed (a payout: back to no block), and one found at another height is
 * reported again with its new block. The wallet itself detects a reorganisation when it refreshes and drops the
 * transfers of the blocks it left. Block hashes in BlockRef are labels (`xmr-height-<n>`).
 */
import type { Logger } from 'pino';
import { moneroIntegratedAddress } from '../../domain/monero-address.js';
import { windowChanges, windowOutputKey, type WindowPosition } from '../wallet-window.js';
import type { BlockRef, ChainScan, ChainTip, ChainWatcher, ObservedOutput, ObservedPayout, ScanCursor, WatchFilter } from '../chain.js';
import { NO_PAYMENT_ID } from './addresses.js';
import { formatPiconero, type MoneroRpcClient } from './rpc.js';

/** One entry of get_transfers. */
export interface MoneroTransfer {
  txid: string;
  amount: bigint;
  height: bigint;
  timestamp?: bigint;
  unlock_time?: bigint;
  payment_id?: string;
  type: 'in' | 'out' | 'pending' | 'failed' | 'pool' | 'block';
}

export interface MoneroWatcherOptions {
  rpc: MoneroRpcClient;
  walletAddress: () => Promise<string>;
  /** Blocks below the last scanned tip read again for reorganisations (default 30). */
  reorgDepth?: number;
  idleScanMs: number;
  busyScanMs: number;
  now: () => Date;
  logger?: Pick<Logger, 'warn'>;
}

/** The label a block of height `height` goes by (the wallet RPC shows no block hashes). */
export const moneroBlockLabel = (height: number) => `xmr-height-${height}`;
const PAYMENT_ID = /^[0-9a-f]{16}$/;

export function createMoneroChainWatcher(options: MoneroWatcherOptions): ChainWatcher {
  const { rpc } = options;
  const reorgDepth = options.reorgDepth ?? 30;
  const surfaced = new Set<string>();
  const heightSeen = new Map<number, Date>();
  let quiet: { from: string; to: string } | undefined;

  // The tip: the height of the wallet's newest block (get_height answers the count of blocks).
  const tipHeight = async () => Number((await rpc.call<{ height: bigint }>('get_height')).height) - 1;

  async function scan(cursor: ScanCursor | null, watched: WatchFilter): Promise<ChainScan> {
    const stored = cursor?.position ?? null;
    const startFrom = stored !== null && quiet?.from === stored ? quiet.to : stored;
    const previous: WindowPosition | null = startFrom ? (JSON.parse(startFrom) as WindowPosition) : null;
    const wallet = await options.walletAddress();
    await rpc.call('refresh', {});
    // The tip and the transfers of one wallet state: a block taken in between (the wallet also refreshes on its
    // own) could move a pool payment into a block this answer does not list yet. Read again then.
    let tip = await tipHeight();
    let floor = 0;
    let answer: Partial<Record<MoneroTransfer['type'], MoneroTransfer[]>> = {};
    for (let attempt = 0; ; attempt++) {
      floor = Math.max(0, (previous ? Math.min(previous.height, tip) : tip) - reorgDepth);
      answer = await rpc.call('get_transfers', {
        in: true,
        out: true,
        pending: true,
        pool: true,
        failed: false,
        filter_by_height: true,
        // Transfers mined above this height (the pool's are always listed).
        min_height: floor,
      });
      const after = await tipHeight();
      if (after === tip) break;
      if (attempt >= 4) throw new Error('the Monero wallet kept taking blocks while its transfers were read');
      tip = after;
    }
    const blockOf = (height: bigint): BlockRef | null =>
      height > 0n ? { height: Number(height), hash: moneroBlockLabel(Number(height)) } : null;

    const incoming = [...(answer.in ?? []), ...(answer.pool ?? [])].filter((t) => {
      const pid = (t.payment_id ?? '').toLowerCase();
      return PAYMENT_ID.test(pid) && pid !== NO_PAYMENT_ID && t.amount > 0n;
    });
    const addressOf = new Map<string, string>();
    for (const t of incoming) {
      const pid = t.payment_id!.toLowerCase();
      if (!addressOf.has(pid)) addressOf.set(pid, moneroIntegratedAddress(wallet, pid));
    }
    const ours = addressOf.size > 0 ? await watched([...addressOf.values()]) : new Set<string>();

    const current = new Map<string, ObservedOutput>();
    for (const t of incoming) {
      const address = addressOf.get(t.payment_id!.toLowerCase())!;
      if (!ours.has(address)) continue;
      const unlockTime = t.unlock_time ?? 0n;
      const heldReason =
        unlockTime !== 0n
          ? `xmr deposit with unlock_time set (${unlockTime}) to a watched address: not credited, needs an operator`
          : undefined;
      if (heldReason && !surfaced.has(t.txid)) {
        surfaced.add(t.txid);
        options.logger?.warn({ txHash: t.txid, address, unlockTime: unlockTime.toString(), height: Number(t.height) }, heldReason);
      }
      const key = windowOutputKey(t.txid, 0);
      // One transfer per (tx, payment id): a second entry of the same tx (pool and mined at once) is the same payment.
      if (current.has(key) && current.get(key)!.block !== null) continue;
      current.set(key, {
        txHash: t.txid,
        outputIndex: 0,
        address,
        memo: null,
        asset: 'XMR',
        amount: formatPiconero(t.amount),
        fromAddress: null,
        block: blockOf(t.height),
        seenAt: t.timestamp && t.timestamp > 0n ? new Date(Number(t.timestamp) * 1000) : options.now(),
        ...(heldReason ? { heldReason } : {}),
      });
    }
    const currentPayouts = new Map<string, ObservedPayout>();
    for (const t of [...(answer.out ?? []), ...(answer.pending ?? [])]) {
      if (!currentPayouts.has(t.txid) || t.height > 0n) currentPayouts.set(t.txid, { txHash: t.txid, block: blockOf(t.height) });
    }

    const { outputs, removed, payouts, next } = windowChanges(previous, current, currentPayouts, { floor, tip, reorgDepth });

    const result: ChainScan = {
      tip: { height: tip, hash: moneroBlockLabel(tip) },
      position: JSON.stringify(next),
      outputs,
      removed,
      payouts,
    };
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
      const height = await tipHeight();
      let time = heightSeen.get(height);
      if (!time) {
        time = options.now();
        heightSeen.clear();
        heightSeen.set(height, time);
      }
      return { height, hash: moneroBlockLabel(height), time };
    },
  };
}
