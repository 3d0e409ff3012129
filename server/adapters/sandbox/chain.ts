/**
 * The sandbox's simulated chain, behind the same three roles as a real node (adapters/chain.ts), so the swap
 * and route code cannot tell it from one (docs/architecture.md#sandbox).
 *
 * - Blocks: every network makes one every SANDBOX_BLOCK_SECONDS, counted from a fixed epoch on the service's
 *   clock; a block's hash is derived from the network, its height, and how many reorganisations replaced it.
 * - Transactions: a payment (POST /sandbox/deposits) or a payout is mined in the block after the one current
 *   when it was made, and is reported with that block at once (its confirmations count from 0 when the block
 *   is still ahead). Outputs have indexes.
 * - Reorganisations on request: the last N blocks are replaced; the payments mined in them leave the chain
 *   (the simulator does not mine them again) and the watcher reports them removed.
 * - Failure injection: a payout whose failure a partner armed (the sandbox operation arms it in
 *   store/sandbox-chain.ts) is refused at broadcast, as a node refuses a transaction it proves invalid.
 *
 * Its state lives in its own tables (store/sandbox-chain.ts), shared by every instance. The watcher reads
 * what committed since its last position (the oldest transaction then still running), so a payment that
 * commits late is read late, never skipped.
 */
import { hash, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { sandboxAddress, sandboxMemo, sandboxTxHash } from '../../domain/addresses.js';
import type { Catalog } from '../../domain/catalog.js';
import { transaction } from '../../store/after-commit.js';
import {
  committedHorizon,
  countReorgsCovering,
  hasWrittenSince,
  insertPayoutOnce,
  insertReorg,
  createSandboxTransactionWriter,
  isPayoutFailureArmed,
  listPayoutsWritten,
  listTransactionsRemoved,
  listTransactionsWritten,
  type SandboxTransaction,
} from '../../store/sandbox-chain.js';
import { createAdapterRegistry, type AdapterRegistry, type BlockRef, type ChainWatcher, type NetworkAdapters } from '../chain.js';

/**
 * 32 bytes derived from a label: the seed of a simulated address or hash (SHA-256 of its UTF-8, in one call:
 * a route's allocation derives ten, and a Hash object per seed cost the main thread about twice as much).
 */
export const seedOf = (label: string): Uint8Array => hash('sha256', label, 'buffer');

/** Height 0 of every simulated chain. */
const EPOCH_MS = Date.UTC(2026, 0, 1);
/** The first position: before every database transaction. */
const START = '0';
/**
 * Scans while nothing is pending: payments reach the simulated chain only through the sandbox operation,
 * which wakes its instance's watcher itself, so an idle scan only catches what another instance was told.
 */
const IDLE_SCAN_MS = 15_000;
/** What the sandbox's hot wallet can pay in any asset: more than the largest quote. */
const SANDBOX_SPENDABLE = '1000000000000';
/** Scans never follow each other closer than this, whatever the block time. */
const MIN_SCAN_MS = 20;

/** A customer's payment to a deposit address (POST /sandbox/deposits). */
export interface SandboxPayment {
  network: string;
  asset: string;
  address: string;
  memo: string | null;
  amount: string;
  /** The sender the transaction names; absent: a fresh address of the network. */
  fromAddress?: string;
}

/** A reorganisation done. */
export interface Reorganization {
  network: string;
  removedBlocks: number;
  tip: BlockRef;
  removedTransactions: Array<{ txHash: string; outputIndex: number }>;
}

/** The simulated chain: its adapters, and the sandbox operations that act on it. */
export interface SimulatedChain {
  registry: AdapterRegistry;
  /** Records a payment; it is mined in the next block. */
  pay(payment: SandboxPayment): Promise<SandboxTransaction>;
  /** Replaces the last `blocks` blocks of `network`: the payments mined in them leave the chain. */
  reorganize(network: string, blocks: number): Promise<Reorganization>;
}

/** The simulated chain over its tables in `knex`, one block every `blockSeconds`, on the clock `now`. */
export function createSimulatedChain(deps: { knex: Knex; catalog: Catalog; blockSeconds: number; now: () => Date }): SimulatedChain {
  const { knex } = deps;
  // Payments made while one is written are written together by the next statement (store/group-commit.ts).
  const writePayment = createSandboxTransactionWriter(knex);
  const blockMs = deps.blockSeconds * 1000;
  const heightAt = (at: Date) => Math.max(0, Math.floor((at.getTime() - EPOCH_MS) / blockMs));
  // The block a transaction made at `at` is mined in, and the time its block starts.
  const minedHeight = (at: Date) => heightAt(at) + 1;
  const blockStart = (height: number) => new Date(EPOCH_MS + height * blockMs);
  // A block hash is 32 bytes of lowercase hex on every simulated network (what the sandbox operations answer).
  const blockHash = (network: string, height: number, replaced: number) =>
    Buffer.from(seedOf(`block:${network}:${height}:${replaced}`)).toString('hex');

  async function blocksOf(network: string, heights: number[]): Promise<Map<number, BlockRef>> {
    const replaced = await countReorgsCovering(knex, network, heights);
    return new Map(heights.map((height) => [height, { height, hash: blockHash(network, height, replaced.get(height) ?? 0) }]));
  }

  function watcherOf(network: string): ChainWatcher {
    return {
      idleScanMs: IDLE_SCAN_MS,
      busyScanMs: Math.max(MIN_SCAN_MS, Math.round(blockMs)),
      async tip() {
        const height = heightAt(deps.now());
        const block = (await blocksOf(network, [height])).get(height)!;
        return { ...block, time: blockStart(height) };
      },
      // Every payment the simulated chain holds is to an address of ours: nothing to filter.
      async scan(cursor) {
        // The horizon first: every row below it is committed, and is read below whenever it committed.
        const horizon = await committedHorizon(knex);
        const tipHeight = heightAt(deps.now());
        const from = cursor?.position ?? START;
        const [written, removed, payouts] = await Promise.all([
          listTransactionsWritten(knex, network, from, horizon),
          listTransactionsRemoved(knex, network, from, horizon),
          listPayoutsWritten(knex, network, from, horizon),
        ]);
        // Rows past the horizon (written while an older database transaction still ran, on any database of
        // the cluster) are read by a later scan: the watcher is told to come back soon.
        const behind = await hasWrittenSince(knex, network, horizon);
        const heights = new Set<number>([tipHeight]);
        if (cursor) heights.add(cursor.tip.height);
        for (const tx of written) heights.add(minedHeight(tx.createdAt));
        for (const payout of payouts) heights.add(minedHeight(payout.createdAt));
        const blocks = await blocksOf(network, [...heights]);
        // A cursor whose block was replaced: the removed payments are in `removed` (the reorganisation's rows).
        return {
          tip: blocks.get(tipHeight)!,
          position: horizon,
          outputs: written
            .filter((tx) => !tx.removed)
            .map((tx) => ({
              txHash: tx.txHash,
              outputIndex: tx.outputIndex,
              address: tx.address,
              memo: tx.memo,
              asset: tx.asset,
              amount: tx.amount,
              fromAddress: tx.fromAddress,
              block: blocks.get(minedHeight(tx.createdAt))!,
              seenAt: tx.createdAt,
            })),
          removed: [...written.filter((tx) => tx.removed), ...removed].map((tx) => ({ txHash: tx.txHash, outputIndex: tx.outputIndex })),
          payouts: payouts.map((payout) => ({ txHash: payout.txHash, block: blocks.get(minedHeight(payout.createdAt))! })),
          behind,
        };
      },
    };
  }

  function adaptersOf(network: string): NetworkAdapters {
    return {
      addresses: {
        async depositAddress(asset, { key }) {
          return {
            address: sandboxAddress(asset.network, seedOf(`deposit-address:${key}`)),
            memo: sandboxMemo(asset, seedOf(`deposit-memo:${key}`)),
          };
        },
      },
      watcher: watcherOf(network),
      sender: {
        // "Signing" fixes the bytes (with a nonce, as a real wallet picks its inputs): the hash is theirs.
        async prepare(order) {
          const bytes = Buffer.from(
            JSON.stringify({
              network,
              asset: order.asset.symbol,
              address: order.address,
              memo: order.memo,
              amount: order.amount,
              nonce: randomBytes(8).toString('hex'),
            }),
          ).toString('base64');
          return { txHash: sandboxTxHash(network, seedOf(`payout:${bytes}`)), bytes };
        },
        async broadcast(order, signed) {
          if (order.key.endsWith(':payout') && order.swapId !== null && (await isPayoutFailureArmed(knex, order.swapId))) {
            return { kind: 'rejected', reason: 'the sandbox refused this payout (a payout failure was armed)', passing: false };
          }
          const stored = await insertPayoutOnce(knex, {
            idempotencyKey: order.key,
            txHash: signed.txHash,
            network,
            asset: order.asset.symbol,
            address: order.address,
            memo: order.memo,
            amount: order.amount,
            signedBytes: signed.bytes,
            createdAt: deps.now(),
          });
          // Other bytes for the same payment would spend the same funds: the chain refuses them.
          if (stored.txHash !== signed.txHash) {
            return { kind: 'rejected', reason: `another transaction (${stored.txHash}) already pays ${order.key}`, passing: false };
          }
          return { kind: 'accepted' };
        },
        // The sandbox's hot wallet holds whatever a payout needs, and its fees are the catalogue's.
        spendable: async () => SANDBOX_SPENDABLE,
        feeEstimate: async () => '0',
      },
      payoutConfirmations: 1,
    };
  }

  return {
    registry: createAdapterRegistry(
      Object.fromEntries(Object.keys(deps.catalog.networks).map((network) => [network, adaptersOf(network)])),
    ),
    async pay(payment) {
      const nonce = randomBytes(16).toString('hex');
      return writePayment({
        ...payment,
        txHash: sandboxTxHash(payment.network, seedOf(`deposit:${nonce}`)),
        fromAddress: payment.fromAddress ?? sandboxAddress(payment.network, seedOf(`sender:${nonce}`)),
        outputIndex: 0,
        createdAt: deps.now(),
      });
    },
    async reorganize(network, blocks) {
      const at = deps.now();
      const tipHeight = heightAt(at);
      const fromHeight = Math.max(1, tipHeight - blocks + 1);
      // Blocks fromHeight..tipHeight hold the transactions made from the start of the block before.
      const removed = await transaction(knex, (trx) =>
        insertReorg(trx, {
          network,
          fromHeight,
          toHeight: tipHeight,
          minedFrom: blockStart(fromHeight - 1),
          minedUntil: blockStart(tipHeight),
          at,
        }),
      );
      const tip = (await blocksOf(network, [tipHeight])).get(tipHeight)!;
      return {
        network,
        removedBlocks: tipHeight - fromHeight + 1,
        tip,
        removedTransactions: removed.map((tx) => ({ txHash: tx.txHash, outputIndex: tx.outputIndex })),
      };
    },
  };
}
