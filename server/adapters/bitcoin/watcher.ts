/**
 * The chain watcher: one `listsinceblock` on the watch-only wallet per scan, from the block hash the last
 * scan stopped at.
 *
 * With target_confirmations 1, `lastblock` is the tip the node read the wallet at (in the same call, under
 * its locks), and the next call returns every wallet transaction mined after that block, plus every one still
 * unconfirmed or conflicted: a transaction mined in `lastblock` itself was returned by the scan that ended
 * there, so nothing falls between two scans. Unconfirmed ones come back on every scan until mined (the
 * ledger's upsert makes that harmless). When the cursor's block left the main chain, the node answers from
 * the fork point and lists the wallet transactions of the disconnected blocks in `removed`.
 */
import type { BlockRef, ChainScan, ChainTip, ChainWatcher, ObservedOutput, ObservedPayout } from '../chain.js';
import { ChainMismatchError, parseNodeAmount } from '../boundary.js';
import type { RpcClient } from './rpc.js';

/** One entry of listsinceblock (amounts are decimal strings: rpc.ts parses them losslessly). */
interface WalletEntry {
  txid: string;
  vout: number;
  address?: string;
  category: 'send' | 'receive' | 'generate' | 'immature' | 'orphan';
  amount: string | number;
  confirmations: number;
  blockhash?: string;
  blockheight?: number;
  timereceived: number;
}

interface SinceBlock {
  transactions: WalletEntry[];
  removed?: WalletEntry[];
  lastblock: string;
}

interface BlockHeader {
  hash: string;
  height: number;
  time: number;
}

/** Options of createChainWatcher. */
export interface BitcoinWatcherOptions {
  /** The watch-only wallet's RPC. */
  rpc: RpcClient;
  /** The symbol of the native coin the outputs pay. */
  asset: string;
  idleScanMs: number;
  busyScanMs: number;
  /**
   * The chain the node must be on, as getblockchaininfo names it (BitcoinParams.nodeChain), and the network for
   * the message: a tip read from another chain fails with ChainMismatchError (the network is unhealthy).
   */
  chain?: { network: string; name: string };
}

/**
 * A received output's amount as the ledger stores it: a plain decimal string without trailing zeros, with at
 * most the family's 8 places; anything else (NaN, an exponent, a negative amount) is a malformed answer. Zero
 * passes: a mined zero-value output is an output, and refusing it would stop every later scan.
 */
const decimalString = (amount: unknown): string => parseNodeAmount(amount, 'listsinceblock amount', { decimals: 8, sign: 'nonNegative' });

const outputKey = (txid: string, vout: number) => `${txid}:${vout}`;

/** The watcher over the watch-only wallet behind `options.rpc`. */
export function createChainWatcher(options: BitcoinWatcherOptions): ChainWatcher {
  const { rpc } = options;

  async function header(hash: string): Promise<BlockHeader> {
    return rpc.call<BlockHeader>('getblockheader', [hash, true]);
  }

  return {
    idleScanMs: options.idleScanMs,
    busyScanMs: options.busyScanMs,

    async tip(): Promise<ChainTip> {
      const info = await rpc.call<{ bestblockhash: string; chain?: unknown }>('getblockchaininfo');
      if (options.chain && info.chain !== options.chain.name) {
        throw new ChainMismatchError(options.chain.network, options.chain.name, String(info.chain));
      }
      const block = await header(info.bestblockhash);
      return { height: block.height, hash: block.hash, time: new Date(block.time * 1000) };
    },

    // The node knows every watched address (they were imported when given out): no filter is needed.
    async scan(cursor): Promise<ChainScan> {
      const since = await rpc.call<SinceBlock>('listsinceblock', [cursor?.position ?? null, 1, true, true]);
      // The tip this answer was read at (not getblockchaininfo's, which may be a block further already).
      const last = await header(since.lastblock);
      const tip: BlockRef = { height: last.height, hash: last.hash };
      const blockOf = (entry: WalletEntry): BlockRef | null => {
        if (entry.confirmations <= 0 || !entry.blockhash) return null;
        return { height: entry.blockheight ?? tip.height - entry.confirmations + 1, hash: entry.blockhash };
      };

      const outputs = new Map<string, ObservedOutput>();
      const conflicted = new Map<string, { txHash: string; outputIndex: number }>();
      const payouts = new Map<string, ObservedPayout>();
      for (const entry of since.transactions) {
        if (entry.category === 'send') {
          payouts.set(entry.txid, { txHash: entry.txid, block: blockOf(entry) });
        } else if (entry.category === 'receive' && entry.address) {
          // A negative count: a conflicting transaction is in the chain, so this one never will be.
          if (entry.confirmations < 0) {
            conflicted.set(outputKey(entry.txid, entry.vout), { txHash: entry.txid, outputIndex: entry.vout });
            continue;
          }
          outputs.set(outputKey(entry.txid, entry.vout), {
            txHash: entry.txid,
            outputIndex: entry.vout,
            address: entry.address,
            memo: null,
            asset: options.asset,
            amount: decimalString(entry.amount),
            fromAddress: null,
            block: blockOf(entry),
            seenAt: new Date(entry.timereceived * 1000),
          });
        }
      }
      // The disconnected blocks' transactions, unless they are back (mined again, or waiting in the mempool:
      // then they are in `outputs` with their block or none, which the ledger records instead).
      for (const entry of since.removed ?? []) {
        if (entry.category === 'send') {
          if (!payouts.has(entry.txid)) payouts.set(entry.txid, { txHash: entry.txid, block: null });
        } else if (entry.category === 'receive' && !outputs.has(outputKey(entry.txid, entry.vout))) {
          conflicted.set(outputKey(entry.txid, entry.vout), { txHash: entry.txid, outputIndex: entry.vout });
        }
      }
      return {
        tip,
        position: since.lastblock,
        outputs: [...outputs.values()],
        removed: [...conflicted.values()],
        payouts: [...payouts.values()],
      };
    },
  };
}
