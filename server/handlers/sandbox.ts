/**
 * Sandbox operations (mounted only in sandbox mode): pay a deposit address, decide a review, arm a provider
 * failure, and move a swap's deadlines to now, so a partner reaches every status through HTTP alone.
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { seedOf } from '../adapters/sandbox/chain.js';
import { sandboxAddress, sandboxTxHash, validateMemo } from '../domain/addresses.js';
import { findAsset } from '../domain/catalog.js';
import { AppError, invalidRequest } from '../domain/errors.js';
import { toAmount } from '../domain/money.js';
import { toSwapBody, type SwapRecord } from '../domain/swap-view.js';
import type { Handlers } from '../http/handler-types.js';
import { insertSandboxTransaction } from '../store/sandbox-chain.js';
import { findSwap, findSwapByDepositAddress, lockSwap, updateSwapFields } from '../store/swaps.js';
import type { HandlerDeps } from './deps.js';
import { requirePartner } from './partner.js';

// Statuses from which each armed failure can still fire.
const FAILURE_STAGES = {
  exchange: ['waiting', 'overdue', 'confirming', 'review', 'exchanging'],
  payout: ['waiting', 'overdue', 'confirming', 'review', 'exchanging', 'sending'],
} as const;

/** Handlers for the sandbox operations. */
export function createSandboxHandlers(
  deps: HandlerDeps,
): Pick<Handlers, 'createSandboxDeposit' | 'decideSandboxReview' | 'injectSandboxFailure' | 'advanceSandboxSwapClock'> {
  const notFound = () => new AppError(404, 'not_found', 'No such swap.');
  const invalidState = (swap: SwapRecord, wanted: string) =>
    new AppError(409, 'invalid_state', `The swap is in status ${swap.status}, not ${wanted}.`, { status: swap.status });

  // Runs `change` on the partner's locked swap, then moves the swap on at once and queues what follows.
  async function withSwap(partnerId: string, id: string, change: (trx: Knex.Transaction, swap: SwapRecord) => Promise<void>) {
    const owned = await findSwap(deps.knex, id, partnerId);
    if (!owned) throw notFound();
    await deps.knex.transaction(async (trx) => {
      await change(trx, (await lockSwap(trx, id))!);
      // Queued with the change: if the step below fails, a worker still carries the swap on.
      await deps.jobs.scheduleAdvance(id, undefined, trx);
    });
    const { swap, nextRunAt } = await deps.lifecycle.advance(id);
    if (nextRunAt) await deps.jobs.scheduleAdvance(id, nextRunAt);
    return { status: 200 as const, body: { order: toSwapBody(swap!) } };
  }

  return {
    async createSandboxDeposit({ partner, body }) {
      const { partnerId } = requirePartner(partner);
      const swap = await findSwapByDepositAddress(deps.knex, body.address);
      if (!swap || swap.partnerId !== partnerId) {
        throw new AppError(404, 'not_found', 'No swap or permanent route of yours uses this deposit address.');
      }
      if (body.asset !== swap.sourceAsset || body.network !== swap.sourceNetwork) {
        throw invalidRequest(`This address takes ${swap.sourceAsset} on ${swap.sourceNetwork}.`, { field: 'asset' });
      }
      const asset = findAsset(deps.catalog, body.asset, body.network)!;
      const memo = validateMemo(asset, body.memo);
      if (!memo.ok || (asset.memoNeeded && memo.value !== swap.depositMemo)) {
        throw invalidRequest(`Attach the swap's depositMemo (${swap.depositMemo}) to this payment.`, { field: 'memo' });
      }
      if (toAmount(body.amount).decimalPlaces() > asset.precision) {
        throw invalidRequest(`amount has more than ${asset.precision} decimal places, the precision of ${asset.symbol}.`, {
          field: 'amount',
        });
      }
      const nonce = randomBytes(16).toString('hex');
      // The payment and the job that notices it commit together.
      const tx = await deps.knex.transaction(async (trx) => {
        const recorded = await insertSandboxTransaction(trx, {
          txHash: sandboxTxHash(asset.network, seedOf(`deposit:${nonce}`)),
          network: asset.network,
          asset: asset.symbol,
          address: body.address,
          memo: memo.value,
          fromAddress: sandboxAddress(asset.network, seedOf(`sender:${nonce}`)),
          amount: body.amount,
          outputIndex: 0,
          createdAt: deps.now(),
        });
        await deps.jobs.scheduleAdvance(swap.id, undefined, trx);
        return recorded;
      });
      return {
        status: 202,
        body: {
          txHash: tx.txHash,
          address: tx.address,
          asset: tx.asset,
          network: tx.network,
          amount: tx.amount,
          memo: tx.memo,
          outputIndex: tx.outputIndex,
          confirmationsRequired: swap.requiredConfirmations,
          createdAt: tx.createdAt.toISOString(),
        },
      };
    },

    async decideSandboxReview({ partner, path, body }) {
      return withSwap(requirePartner(partner).partnerId, path.id, async (trx, swap) => {
        if (swap.status !== 'review') throw invalidState(swap, 'review');
        await deps.lifecycle.decideReview(trx, swap, body.decision, deps.now());
      });
    },

    async injectSandboxFailure({ partner, path, body }) {
      return withSwap(requirePartner(partner).partnerId, path.id, async (trx, swap) => {
        const allowed: readonly string[] = FAILURE_STAGES[body.stage];
        const paidOut = body.stage === 'payout' && swap.settlementTxHash !== null;
        if (!allowed.includes(swap.status) || paidOut) throw invalidState(swap, `one before the ${body.stage} (${allowed.join(', ')})`);
        await updateSwapFields(trx, swap.id, { armedFailure: body.stage }, deps.now());
      });
    },

    async advanceSandboxSwapClock({ partner, path, body }) {
      return withSwap(requirePartner(partner).partnerId, path.id, async (trx, swap) => {
        const at = deps.now();
        if (body.deadline === 'deposit') {
          if (swap.status !== 'waiting') throw invalidState(swap, 'waiting');
          const graceMs = swap.expiresAt.getTime() - swap.quoteExpiresAt.getTime();
          await updateSwapFields(trx, swap.id, { quoteExpiresAt: at, expiresAt: new Date(at.getTime() + graceMs) }, at);
        } else {
          if (swap.status !== 'overdue') throw invalidState(swap, 'overdue');
          await updateSwapFields(trx, swap.id, { expiresAt: at }, at);
        }
      });
    },
  };
}
