/**
 * The sandbox chain simulator: deposit addresses in each network's real format (derived from the swap id, so
 * allocation is repeatable), deposits recorded by POST /sandbox/deposits and confirmed one block every
 * SANDBOX_BLOCK_SECONDS, and payouts recorded once per idempotency key with a transaction hash.
 */
import { hash } from 'node:crypto';
import { sandboxAddress, sandboxMemo, sandboxTxHash } from '../../domain/addresses.js';
import { findFirstTransaction, insertPayoutOnce, listTransactionsTo } from '../../store/sandbox-chain.js';
import type { ChainAdapter } from '../chain.js';

/**
 * 32 bytes derived from a label: the seed of a simulated address or hash (SHA-256 of its UTF-8, in one call:
 * a route's allocation derives ten, and a Hash object per seed cost the main thread about twice as much).
 */
export const seedOf = (label: string): Uint8Array => hash('sha256', label, 'buffer');

/** Creates the simulator with one block every `blockSeconds` on every network. */
export function createSandboxChain(blockSeconds: number): ChainAdapter {
  const confirmationsSince = (sentAt: Date, at: Date) => Math.max(0, Math.floor((at.getTime() - sentAt.getTime()) / (blockSeconds * 1000)));
  return {
    async allocateDepositAddress(_db, asset, swapId) {
      return {
        address: sandboxAddress(asset.network, seedOf(`deposit-address:${swapId}`)),
        memo: sandboxMemo(asset, seedOf(`deposit-memo:${swapId}`)),
      };
    },
    async findDeposit(db, asset, address, memo, since, at) {
      const tx = await findFirstTransaction(db, address, asset.memoNeeded ? memo : null, since);
      if (!tx) return undefined;
      return {
        txHash: tx.txHash,
        amount: tx.amount,
        fromAddress: tx.fromAddress,
        seenAt: tx.createdAt,
        confirmations: confirmationsSince(tx.createdAt, at),
      };
    },
    async listAddressDeposits(db, addresses, since, at) {
      const transactions = await listTransactionsTo(db, addresses, since, at);
      return transactions.map((tx) => ({
        txHash: tx.txHash,
        outputIndex: tx.outputIndex,
        address: tx.address,
        asset: tx.asset,
        network: tx.network,
        amount: tx.amount,
        fromAddress: tx.fromAddress,
        seenAt: tx.createdAt,
        confirmations: confirmationsSince(tx.createdAt, at),
      }));
    },
    confirmationsSince,
    confirmationTime: (sentAt, confirmations) => new Date(sentAt.getTime() + Math.ceil(confirmations * blockSeconds * 1000)),
    async send(db, request) {
      const payout = await insertPayoutOnce(db, {
        idempotencyKey: request.idempotencyKey,
        txHash: sandboxTxHash(request.asset.network, seedOf(`payout:${request.idempotencyKey}`)),
        network: request.asset.network,
        asset: request.asset.symbol,
        address: request.address,
        memo: request.memo,
        amount: request.amount,
      });
      return { txHash: payout.txHash };
    },
  };
}
