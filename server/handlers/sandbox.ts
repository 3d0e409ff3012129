/**
 * Sandbox operations (mounted only in sandbox mode): pay a deposit address (a swap's or a permanent route's),
 * decide a review, arm a provider failure, and move a swap's deadlines to now, so a partner reaches every
 * status through HTTP alone. Route orders are swaps too: review decisions and failures apply to them.
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { seedOf } from '../adapters/sandbox/chain.js';
import { sandboxAddress, sandboxTxHash, validateMemo } from '../domain/addresses.js';
import { assetKey, findAsset } from '../domain/catalog.js';
import { AppError, invalidRequest } from '../domain/errors.js';
import { toAmount } from '../domain/money.js';
import type { SwapStatus } from '../domain/swap-lifecycle.js';
import { toSwapBody, type SwapRecord } from '../domain/swap-view.js';
import type { Handlers } from '../http/handler-types.js';
import { transaction } from '../store/after-commit.js';
import { createAddressOwnerReader, createSandboxTransactionWriter, insertSandboxTransaction } from '../store/sandbox-chain.js';
import { armSwapFailure, findSwap, lockSwap, updateSwapFields } from '../store/swaps.js';
import type { HandlerDeps } from './deps.js';
import { requirePartner } from './partner.js';

// Statuses from which each armed failure can still fire.
const FAILURE_STAGES = {
  exchange: ['waiting', 'overdue', 'confirming', 'review', 'exchanging'],
  payout: ['waiting', 'overdue', 'confirming', 'review', 'exchanging', 'sending'],
} as const;
// The status in which each armed failure fires.
const FAILURE_STAGE_STATUS = { exchange: 'exchanging', payout: 'sending' } as const;

/** Handlers for the sandbox operations. */
export function createSandboxHandlers(
  deps: HandlerDeps,
): Pick<
  Handlers,
  'createSandboxDeposit' | 'decideSandboxReview' | 'injectSandboxFailure' | 'advanceSandboxSwapClock' | 'reorganizeSandboxChain'
> {
  const notFound = () => new AppError(404, 'not_found', 'No such swap.');
  // A payment's address lookup and a route payment's insert are each grouped with those of concurrent
  // payments (store/sandbox-chain.ts).
  const readAddressOwners = createAddressOwnerReader(deps.knex);
  const writeTransaction = createSandboxTransactionWriter(deps.knex);
  const invalidState = (swap: SwapRecord, wanted: string) =>
    new AppError(409, 'invalid_state', `The swap is in status ${swap.status}, not ${wanted}.`, { status: swap.status });

  // Runs `change` on the partner's locked swap and, in the same transaction, the swap's next step. The swap
  // must be in status `wanted`, checked first on a plain read (a refusal takes no lock, so it neither waits
  // behind a step in progress nor costs a transaction) and again under the lock. A change that leaves the
  // swap waiting (a deadline still ahead) costs that one transaction and the swap's timer job (one per
  // wake-up time, however often it is queued). A step that moves the swap commits with a job queued for it,
  // so a worker carries the swap on if what follows fails, and the rest of the steps run at once. A step that
  // throws rolls the action back with it (the partner gets a 500 and may send the action again), so no change
  // is left committed without the step that should follow it.
  async function withSwap(
    partnerId: string,
    id: string,
    wanted: SwapStatus,
    change: (trx: Knex.Transaction, swap: SwapRecord) => Promise<SwapRecord>,
  ) {
    // Another partner's swap is neither locked nor told apart from a missing one.
    const inStatus = (swap: SwapRecord | undefined) => {
      if (!swap) throw notFound();
      if (swap.status !== wanted) throw invalidState(swap, wanted);
      return swap;
    };
    inStatus(await findSwap(deps.knex, id, partnerId));
    const { swap, moved } = await transaction(deps.knex, async (trx) => {
      const changed = await change(trx, inStatus(await lockSwap(trx, id, partnerId)));
      const outcome = await deps.lifecycle.stepLocked(trx, changed, deps.now());
      if ('wakeAt' in outcome) {
        if (outcome.wakeAt) await deps.jobs.scheduleAdvance(id, outcome.wakeAt, trx);
        return { swap: changed, moved: false };
      }
      await deps.jobs.scheduleAdvance(id, undefined, trx);
      return { swap: outcome.swap, moved: true };
    });
    if (!moved) return { status: 200 as const, body: { order: toSwapBody(swap) } };
    return advanceNow(swap);
  }

  // Runs the steps of `swap`, changed just now, and queues its next look; answers with the swap as it is then.
  async function advanceNow(swap: SwapRecord) {
    const advanced = await deps.lifecycle.advance(swap.id);
    if (advanced.nextRunAt) await deps.jobs.scheduleAdvance(swap.id, advanced.nextRunAt);
    return { status: 200 as const, body: { order: toSwapBody(advanced.swap ?? swap) } };
  }

  // The swap or permanent route of the partner's that owns a deposit address, and what it accepts.
  async function findPayee(partnerId: string, address: string) {
    const { swap, route } = await readAddressOwners(address);
    if (swap && swap.partnerId === partnerId) {
      return {
        swapId: swap.id as string | null,
        memo: swap.depositMemo,
        takes: (asset: string, network: string) => asset === swap.sourceAsset && network === swap.sourceNetwork,
        wrongAsset: `This address takes ${swap.sourceAsset} on ${swap.sourceNetwork}.`,
      };
    }
    if (route && route.partnerId === partnerId) {
      return {
        swapId: null,
        memo: null,
        takes: (asset: string, network: string) => route.assetKeys.includes(assetKey({ symbol: asset, network })),
        wrongAsset: `This route address takes ${route.assetKeys.join(', ')}.`,
      };
    }
    throw new AppError(404, 'not_found', 'No swap or permanent route of yours uses this deposit address.');
  }

  return {
    async createSandboxDeposit({ partner, body }) {
      const { partnerId } = requirePartner(partner);
      const payee = await findPayee(partnerId, body.address);
      if (!payee.takes(body.asset, body.network)) {
        throw invalidRequest(payee.wrongAsset, { field: 'asset' });
      }
      const asset = findAsset(deps.catalog, body.asset, body.network)!;
      const memo = validateMemo(asset, body.memo);
      if (!memo.ok || (asset.memoNeeded && memo.value !== payee.memo)) {
        throw invalidRequest(`Attach the swap's depositMemo (${payee.memo}) to this payment.`, { field: 'memo' });
      }
      if (toAmount(body.amount).decimalPlaces() > asset.precision) {
        throw invalidRequest(`amount has more than ${asset.precision} decimal places, the precision of ${asset.symbol}.`, {
          field: 'amount',
        });
      }
      const nonce = randomBytes(16).toString('hex');
      const payment = {
        txHash: sandboxTxHash(asset.network, seedOf(`deposit:${nonce}`)),
        network: asset.network,
        asset: asset.symbol,
        address: body.address,
        memo: memo.value,
        fromAddress: sandboxAddress(asset.network, seedOf(`sender:${nonce}`)),
        amount: body.amount,
        outputIndex: 0,
        createdAt: deps.now(),
      };
      // A swap's payment and the job that notices it commit together. A route's payment is the insert alone
      // (grouped with concurrent ones): it waits for the route's polling, as a real one would (expect-deposit
      // makes that sooner).
      const { swapId } = payee;
      const tx = swapId
        ? await transaction(deps.knex, async (trx) => {
            const recorded = await insertSandboxTransaction(trx, payment);
            await deps.jobs.scheduleAdvance(swapId, undefined, trx);
            return recorded;
          })
        : await writeTransaction(payment);
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
          confirmationsRequired: deps.catalog.networks[asset.network].confirmations,
          createdAt: tx.createdAt.toISOString(),
        },
      };
    },

    async decideSandboxReview({ partner, path, body }) {
      return withSwap(
        requirePartner(partner).partnerId,
        path.id,
        'review',
        async (trx, swap) => (await deps.lifecycle.decideReview(trx, swap, body.decision, deps.now())).swap,
      );
    },

    async injectSandboxFailure({ partner, path, body }) {
      const { partnerId } = requirePartner(partner);
      const allowed = FAILURE_STAGES[body.stage];
      // Arming moves nothing before the stage: the swap's own next step (already queued) fires the failure when
      // the swap gets there, so one conditional update is the whole change. A swap already at the stage is
      // stepped at once, as the spec promises ("or at once if the swap is already there").
      const result = await armSwapFailure(deps.knex, partnerId, path.id, body.stage, allowed, deps.now());
      if (!result) throw notFound();
      const { swap, armed } = result;
      if (!armed) throw invalidState(swap, `one before the ${body.stage} (${allowed.join(', ')})`);
      if (swap.status !== FAILURE_STAGE_STATUS[body.stage]) return { status: 200, body: { order: toSwapBody(swap) } };
      return advanceNow(swap);
    },

    async advanceSandboxSwapClock({ partner, path, body }) {
      const wanted = body.deadline === 'deposit' ? 'waiting' : 'overdue';
      return withSwap(requirePartner(partner).partnerId, path.id, wanted, async (trx, swap) => {
        const at = deps.now();
        if (body.deadline === 'deposit') {
          const graceMs = swap.expiresAt.getTime() - swap.quoteExpiresAt.getTime();
          return updateSwapFields(trx, swap.id, { quoteExpiresAt: at, expiresAt: new Date(at.getTime() + graceMs) }, at);
        }
        return updateSwapFields(trx, swap.id, { expiresAt: at }, at);
      });
    },

    // Temporary: the chain ledger that reorganisations act on is being built (DESIGN 10).
    async reorganizeSandboxChain() {
      throw new AppError(501, 'not_implemented', 'Reorganisations are being built.');
    },
  };
}
