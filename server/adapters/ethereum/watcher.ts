/**
 * The chain watcher of an EVM network (docs/architecture.md#production): walks blocks from the stored position to the tip, a bounded
 * batch per scan, and reports
 * - native deposits: transactions of each block whose `to` is a watched address and whose value is > 0;
 * - internal native transfers: value a contract sends a watched address by a call or a SELFDESTRUCT inside a
 *   transaction, read from the block's call traces (traces.ts: `trace_block`, else `debug_traceBlockByNumber`),
 *   its `fromAddress` the contract that sent it. A node that serves no traces is told once in the log; what it
 *   hides is found by reconciling the address's balance before a sweep (jobs/evm-sweep.ts) and held;
 * - token deposits: ERC-20 `Transfer` logs of the configured contracts (`eth_getLogs` over the batch) whose
 *   `to` is a watched address;
 * - our payouts: transactions from the hot wallet, `failed` when their receipt says reverted.
 * Output indexes: 0 for a native deposit (a transaction pays one value), 1 + the log's position among its
 * transaction's logs for a token transfer (read from the receipt: the same when a reorganisation mines the
 * transaction again at another position in a block, which the log's block index is not), and
 * INTERNAL_OUTPUT_BASE (900,000) + the transfer's position among its transaction's value-moving internal
 * frames for an internal transfer (traces.ts; the same when the transaction is mined again), so all three share
 * the ledger's (tx hash, output index) key. They cannot meet: 900,000 logs in one transaction would take more
 * than 337 M gas (a log costs at least 375), and 100,000 value-moving frames more than 500 M (a value call
 * costs 9,000 more than a call, a SELFDESTRUCT at least 5,000), beyond any block gas limit of the networks served.
 *
 * Reorganisations are found by block hash, as NBXplorer does: the position keeps the last blocks scanned (height,
 * hash, and the outputs and payouts reported in each). A scan first compares the newest of them with the chain;
 * while they differ it drops it (its outputs are reported removed, its payouts unmined) and compares the one
 * before, then rescans from the fork point. A batch is also cut where a block's parent is not the block before
 * it (the chain moved during the scan): the next scan finds the fork.
 *
 * Value that arrives with no frame at all (a beacon-chain withdrawal, a block reward) is not seen here either:
 * reconciliation finds it.
 */
import { getAddress, parseAbiItem, formatUnits, type Block, type Hex, type PublicClient } from 'viem';
import type { Logger } from 'pino';
import type { BlockRef, ChainScan, ChainWatcher, ObservedOutput, ObservedPayout, ScanCursor } from '../chain.js';
import type { AssetBook } from './context.js';
import { createTraceReader, type InternalTransfer, type TraceChoice } from './traces.js';

const TRANSFER_EVENT = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

/** The output index of a transaction's first internal transfer (the next are 1 more each). */
export const INTERNAL_OUTPUT_BASE = 900_000;
/** Internal transfers of one transaction that can have an output index (up to the ledger's 1,000,000). */
const INTERNAL_OUTPUTS_MAX = 100_000;

/** What the watcher needs. */
export interface EvmWatcherOptions {
  client: PublicClient;
  assets: AssetBook;
  /** The hot wallet: transactions from it are our payouts. */
  hotWallet: string;
  /** Seconds between blocks (the busy scan pace). */
  blockSeconds: number;
  /** Blocks one scan reads at most (default 50). */
  blocksPerScan?: number;
  /** How many scanned blocks the position remembers: the deepest reorganisation told exactly (default 64). */
  reorgDepth?: number;
  /** Where a watcher that never scanned starts (default: the tip). */
  startHeight?: number;
  /** Scan pace while nothing is pending (default 30 s). */
  idleScanMs?: number;
  /** Scan pace while something confirms (default: the block time, at least 1 s). */
  busyScanMs?: number;
  /** Which call traces attribute internal transfers (default `auto`: `trace_block`, else `debug_traceBlockByNumber`). */
  traces?: TraceChoice;
  /** Where the trace method chosen, or a node without traces, is told once. */
  logger?: Pick<Logger, 'info' | 'warn'>;
  /** The network, for log lines. */
  network?: string;
}

/** A block the position remembers, with what was reported in it. */
interface KeptBlock {
  height: number;
  hash: string;
  /** `txHash:outputIndex` of the outputs reported in it. */
  outputs: string[];
  /** Hashes of our payouts reported in it. */
  payouts: string[];
}

/** The opaque position: the next height to read and the blocks kept for reorganisations. */
interface Position {
  next: number;
  blocks: KeptBlock[];
}

const parsePosition = (position: string): Position => JSON.parse(position) as Position;

/**
 * The last block a stored position says was scanned (the ledger holds every output up to it), with its hash
 * where the position keeps it; null for a watcher that never scanned (sweeper.ts reconciles at this block).
 */
export function scannedBlockOf(position: string | null): { height: number; hash: string | null } | null {
  if (position === null) return null;
  const { next, blocks } = parsePosition(position);
  const last = blocks.at(-1);
  if (last && last.height === next - 1) return { height: last.height, hash: last.hash };
  return next > 0 ? { height: next - 1, hash: null } : null;
}

const outputId = (txHash: string, outputIndex: number) => `${txHash}:${outputIndex}`;

/** The watcher over `options.client`. */
export function createEvmChainWatcher(options: EvmWatcherOptions): ChainWatcher {
  const { client, assets } = options;
  const hotWallet = options.hotWallet.toLowerCase();
  const blocksPerScan = options.blocksPerScan ?? 50;
  const reorgDepth = options.reorgDepth ?? 64;
  // The core keeps its cursor when a scan reports nothing and nothing is confirming, so a quiet stretch would be
  // read again from the stored position each time. The position a quiet scan reached is kept here, by the
  // position it started from, and the next scan from that same position continues from it.
  let quiet: { from: string; to: string } | undefined;

  const traces = createTraceReader({ client, choice: options.traces, logger: options.logger, network: options.network });

  const blockAt = (height: number) => client.getBlock({ blockNumber: BigInt(height) });

  // The internal transfers of `blocks` (none where traces are not read), with the block hash the traces name
  // (null where they name none): the first block alone, so that the node is asked once which method it serves,
  // then the others at once.
  async function internalTransfersOf(blocks: Block<bigint, true>[]) {
    const byHeight = new Map<number, { transfers: InternalTransfer[]; blockHash: string | null }>();
    const read = async (block: Block<bigint, true>) => {
      // A block without transactions has no frames to trace.
      if (block.transactions.length === 0) return;
      const traced = await traces.transfersIn(Number(block.number));
      byHeight.set(Number(block.number), traced ?? { transfers: [], blockHash: null });
    };
    if (blocks.length === 0) return byHeight;
    const [first, ...rest] = blocks;
    await read(first!);
    if (traces.method() !== 'none') await Promise.all(rest.map(read));
    return byHeight;
  }

  // Drops the kept blocks the chain no longer has, newest first; what they reported is returned.
  async function unwind(position: Position, tipHeight: number) {
    const removed: string[] = [];
    const unmined: string[] = [];
    while (position.blocks.length > 0) {
      const last = position.blocks[position.blocks.length - 1]!;
      if (last.height <= tipHeight && (await blockAt(last.height)).hash === last.hash) break;
      position.blocks.pop();
      removed.push(...last.outputs);
      unmined.push(...last.payouts);
      position.next = last.height;
    }
    return { removed, unmined };
  }

  // Full blocks from `from` up to `to`, cut where a block's parent is not the block before it.
  async function readBlocks(from: number, to: number, parentHash: string | undefined): Promise<Block<bigint, true>[]> {
    const heights = Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
    const blocks = await Promise.all(heights.map((height) => client.getBlock({ blockNumber: BigInt(height), includeTransactions: true })));
    let parent = parentHash;
    for (let i = 0; i < blocks.length; i++) {
      if (parent !== undefined && blocks[i]!.parentHash !== parent) return blocks.slice(0, i);
      parent = blocks[i]!.hash!;
    }
    return blocks;
  }

  async function scan(cursor: ScanCursor | null, watched: Parameters<ChainWatcher['scan']>[1]): Promise<ChainScan> {
    const tipBlock = await client.getBlock({ blockTag: 'latest' });
    const tip: BlockRef = { height: Number(tipBlock.number), hash: tipBlock.hash! };
    const stored = cursor?.position ?? null;
    const startFrom = stored !== null && quiet?.from === stored ? quiet.to : stored;
    const position: Position = startFrom ? parsePosition(startFrom) : { next: options.startHeight ?? tip.height, blocks: [] };

    const { removed, unmined } = await unwind(position, tip.height);
    const last = Math.min(tip.height, position.next + blocksPerScan - 1);
    let blocks = await readBlocks(position.next, last, position.blocks.at(-1)?.hash);
    const hashAt = new Map(blocks.map((block) => [Number(block.number), block.hash!]));

    const logs =
      blocks.length > 0 && assets.contracts.length > 0
        ? await client.getLogs({
            address: assets.contracts as Hex[],
            event: TRANSFER_EVENT,
            fromBlock: blocks[0]!.number!,
            toBlock: blocks.at(-1)!.number!,
          })
        : [];
    const internal = await internalTransfersOf(blocks);
    // A log or a trace from a block other than the one read (the chain moved between the reads): the batch ends
    // before it. (A callTracer answer names no block: a trace of a block that replaced the one read is reported
    // with the block read, which the next scan finds gone, reports removed, and reads again.)
    const moved = [
      ...logs.filter((log) => hashAt.get(Number(log.blockNumber)) !== log.blockHash).map((log) => Number(log.blockNumber)),
      ...[...internal]
        .filter(([height, read]) => read.blockHash !== null && read.blockHash !== hashAt.get(height))
        .map(([height]) => height),
    ];
    if (moved.length > 0) blocks = blocks.filter((block) => Number(block.number) < Math.min(...moved));
    const scannedTo = blocks.length > 0 ? Number(blocks.at(-1)!.number) : position.next - 1;
    const tokenLogs = logs.filter((log) => Number(log.blockNumber) <= scannedTo && log.args.to !== undefined);

    // Every address this batch pays, asked about once.
    const candidates = new Set<string>();
    for (const block of blocks) for (const tx of block.transactions) if (tx.to && tx.value > 0n) candidates.add(getAddress(tx.to));
    for (const log of tokenLogs) candidates.add(getAddress(log.args.to!));
    for (const block of blocks) for (const transfer of internal.get(Number(block.number))?.transfers ?? []) candidates.add(transfer.to);
    const ours = candidates.size > 0 ? await watched([...candidates]) : new Set<string>();

    const kept = new Map<number, KeptBlock>();
    const refOf = (height: number): BlockRef => ({ height, hash: hashAt.get(height)! });
    const timeOf = new Map(blocks.map((block) => [Number(block.number), new Date(Number(block.timestamp) * 1000)]));
    const keep = (height: number) => {
      let entry = kept.get(height);
      if (!entry) kept.set(height, (entry = { height, hash: hashAt.get(height)!, outputs: [], payouts: [] }));
      return entry;
    };
    const outputs: ObservedOutput[] = [];
    const payoutTxs: Array<{ hash: Hex; height: number; nonce: number }> = [];
    const native = await assets.of(assets.nativeSymbol);
    for (const block of blocks) {
      const height = Number(block.number);
      keep(height);
      for (const tx of block.transactions) {
        if (tx.from.toLowerCase() === hotWallet) payoutTxs.push({ hash: tx.hash, height, nonce: tx.nonce });
        if (!tx.to || tx.value <= 0n || !ours.has(getAddress(tx.to))) continue;
        outputs.push({
          txHash: tx.hash,
          outputIndex: 0,
          address: getAddress(tx.to),
          memo: null,
          asset: native.symbol,
          amount: formatUnits(tx.value, native.decimals),
          fromAddress: getAddress(tx.from),
          block: refOf(height),
          seenAt: timeOf.get(height)!,
        });
        keep(height).outputs.push(outputId(tx.hash, 0));
      }
      for (const transfer of internal.get(height)?.transfers ?? []) {
        if (!ours.has(transfer.to) || transfer.position >= INTERNAL_OUTPUTS_MAX) continue;
        const outputIndex = INTERNAL_OUTPUT_BASE + transfer.position;
        outputs.push({
          txHash: transfer.txHash,
          outputIndex,
          address: transfer.to,
          memo: null,
          asset: native.symbol,
          amount: formatUnits(transfer.value, native.decimals),
          fromAddress: transfer.from,
          block: refOf(height),
          seenAt: timeOf.get(height)!,
        });
        keep(height).outputs.push(outputId(transfer.txHash, outputIndex));
      }
    }
    // A token output's index is 1 + the log's position among its transaction's logs (not the log's index in
    // its block, which changes when a reorganisation mines the same transaction at another position).
    const ourLogs: typeof tokenLogs = [];
    for (const log of tokenLogs) {
      const token = await assets.byContract(log.address);
      if (token && ours.has(getAddress(log.args.to!)) && log.args.value !== undefined && log.args.value > 0n) ourLogs.push(log);
    }
    const firstLogOf = new Map<string, number>();
    await Promise.all(
      [...new Set(ourLogs.map((log) => log.transactionHash!))].map(async (hash) => {
        const receipt = await client.getTransactionReceipt({ hash });
        firstLogOf.set(hash, Math.min(...receipt.logs.map((l) => l.logIndex!)));
      }),
    );
    for (const log of ourLogs) {
      const to = getAddress(log.args.to!);
      const token = (await assets.byContract(log.address))!;
      const height = Number(log.blockNumber);
      const outputIndex = 1 + log.logIndex! - firstLogOf.get(log.transactionHash!)!;
      outputs.push({
        txHash: log.transactionHash!,
        outputIndex,
        address: to,
        memo: null,
        asset: token.symbol,
        amount: formatUnits(log.args.value!, token.decimals),
        fromAddress: log.args.from ? getAddress(log.args.from) : null,
        block: refOf(height),
        seenAt: timeOf.get(height)!,
      });
      keep(height).outputs.push(outputId(log.transactionHash!, outputIndex));
    }

    const receipts = await Promise.all(payoutTxs.map((tx) => client.getTransactionReceipt({ hash: tx.hash })));
    const payouts: ObservedPayout[] = payoutTxs.map((tx, i) => {
      keep(tx.height).payouts.push(tx.hash);
      return { txHash: tx.hash, block: refOf(tx.height), nonce: tx.nonce, ...(receipts[i]!.status === 'reverted' ? { failed: true } : {}) };
    });
    // Payouts of removed blocks that no block read here holds again wait for one.
    const remined = new Set(payouts.map((payout) => payout.txHash));
    for (const txHash of unmined) if (!remined.has(txHash)) payouts.push({ txHash, block: null });

    const reported = new Set(outputs.map((output) => outputId(output.txHash, output.outputIndex)));
    const next: Position = {
      next: scannedTo + 1,
      blocks: [...position.blocks, ...[...kept.values()].sort((a, b) => a.height - b.height)].slice(-reorgDepth),
    };
    const result: ChainScan = {
      tip,
      position: JSON.stringify(next),
      outputs,
      // An output a removed block held and a block read here holds again is reported with its new block only.
      removed: removed
        .filter((id) => !reported.has(id))
        .map((id) => {
          const at = id.lastIndexOf(':');
          return { txHash: id.slice(0, at), outputIndex: Number(id.slice(at + 1)) };
        }),
      payouts,
      behind: scannedTo < tip.height,
    };
    const isQuiet = result.outputs.length === 0 && result.removed.length === 0 && result.payouts.length === 0;
    quiet = isQuiet && stored !== null ? { from: stored, to: result.position } : undefined;
    return result;
  }

  return {
    idleScanMs: options.idleScanMs ?? 30_000,
    busyScanMs: options.busyScanMs ?? Math.max(1_000, Math.round(options.blockSeconds * 1000)),
    scan,
    async tip() {
      const block = await client.getBlock({ blockTag: 'latest' });
      return { height: Number(block.number), hash: block.hash!, time: new Date(Number(block.timestamp) * 1000) };
    },
  };
}
