/**
 * Sandbox operations (mounted only in sandbox mode): pay a deposit address (a swap's or a permanent route's),
 * decide a review, arm a provider failure, and move a swap's deadlines to now, so a partner reaches every
 * status through HTTP alone. Route orders are swaps too: review decisions and failures apply to them.
 */
import type { Knex } from 'knex';
import { validateAddress, validateMemo } from '../domain/addresses.js';
import { assetKey, findAsset } from '../domain/catalog.js';
import { AppError, invalidRequest } from '../domain/errors.js';
import { toAmount } from '../domain/money.js';
import type { SwapStatus } from '../domain/swap-lifecycle.js';
import { toSwapBody, type SwapRecord } from '../domain/swap-view.js';
import type { Handlers } from '../http/handler-types.js';
import { transaction } from '../store/after-commit.js';
import type { AdvanceResult } from '../services/swaps.js';
import { hasUnsentPayouts } from '../store/payouts.js';
import { armSandboxFailure, createAddressOwnerReader } from '../store/sandbox-chain.js';
import { createSwapReader, failureArmed, lockSwap, updateSwapFields } from '../store/swaps.js';
import type { HandlerDeps } from './deps.js';
import { requirePartner } from './partner.js';

// Statuses from which each armed failure can still fire.
const FAILURE_STAGES = {
  exchange: ['waiting', 'overdue', 'confirming', 'review', 'exchanging'],
  payout: ['waiting', 'overdue', 'confirming', 'review', 'exchanging', 'sending'],
} as const;
// How long a sandbox action waits for the payout or refund it caused to be broadcast, and how often it looks.
const OUTBOX_WAIT_MS = 10_000;
const OUTBOX_POLL_MS = 100;
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
  // A payment's address lookup is grouped with those of concurrent payments (store/sandbox-chain.ts).
  const readAddressOwners = createAddressOwnerReader(deps.knex);
  const readSwap = createSwapReader(deps.knex);
  const invalidState = (swap: SwapRecord, wanted: string) =>
    new AppError(409, 'invalid_state', `The swap is in status ${swap.status}, not ${wanted}.`, { status: swap.status });
  const chain = () => {
    if (!deps.sandbox) throw new Error('sandbox operations need the simulated chain');
    return deps.sandbox;
  };

  // Runs `change` on the partner's locked swap, which must be in status `wanted` (checked first on a plain
  // read: a refusal takes no lock), then moves the swap on at once and answers with it as it is then.
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
    // Refused from a grouped read when it is not in `wanted` (a partner's test repeating an action): no
    // transaction for a refusal.
    const read = await readSwap(id);
    inStatus(read?.partnerId === partnerId ? read : undefined);
    const swap = await transaction(deps.knex, async (trx) => {
      const changed = await change(trx, inStatus(await lockSwap(trx, id, partnerId)));
      // A worker carries the swap on should this instance stop before the steps below.
      await deps.jobs.scheduleAdvance(id, undefined, trx);
      return changed;
    });
    return advanceNow(swap);
  }

  // Runs the steps of `swap`, changed just now, and queues its next look; answers with the swap as it is
  // then. A step that committed a payout or refund waits (up to OUTBOX_WAIT_MS) for the outbox's sender to
  // broadcast it, and then runs the steps that follows, so the answer shows the decision done (a refund
  // `refunded`), as a partner expects of a sandbox action.
  async function advanceNow(swap: SwapRecord) {
    const deadline = Date.now() + OUTBOX_WAIT_MS;
    let advanced: AdvanceResult;
    for (;;) {
      // The outbox is looked at before the steps, so that they run after the last broadcast it saw (with one
      // look after the steps only, a broadcast between the two left the answer at the swap as it was before
      // it: a refund decided in review answered `review`), and after them, for a payout they committed.
      const unsentBefore = await hasUnsentPayouts(deps.knex, swap.id);
      [advanced] = await deps.jobs.advance([swap.id]);
      if (!unsentBefore && !(await hasUnsentPayouts(deps.knex, swap.id))) break;
      if (Date.now() >= deadline) break;
      await changeOf(swap.id, Math.min(OUTBOX_POLL_MS, deadline - Date.now()));
    }
    return { status: 200 as const, body: { order: toSwapBody(advanced.swap ?? swap) } };
  }

  // Resolves at the next committed change of swap `swapId`, or after `ms`.
  const changeOf = (swapId: string, ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        unsubscribe();
        clearTimeout(timer);
        resolve();
      };
      const unsubscribe = deps.hub.subscribe(swapId, done);
      const timer = setTimeout(done, ms);
    });

  // The swap or permanent route of the partner's that owns a deposit address, and what it accepts.
  async function findPayee(partnerId: string, address: string) {
    const { swap, route } = await readAddressOwners(address);
    if (swap && swap.partnerId === partnerId) {
      return {
        memo: swap.depositMemo,
        // Any asset of its network, as a real chain takes it: one the swap does not take is listed in its
        // deposits and returned to its sender (or held), never converted.
        takes: (asset: string, network: string) => network === swap.sourceNetwork && findAsset(deps.catalog, asset, network) !== undefined,
        wrongAsset: `This address is on ${swap.sourceNetwork}: pay it an asset of ${swap.sourceNetwork} (the swap takes ${swap.sourceAsset}).`,
      };
    }
    if (route && route.partnerId === partnerId) {
      return {
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
      const sender = body.fromAddress === undefined ? undefined : validateAddress(asset.network, body.fromAddress);
      if (sender && !sender.ok) throw invalidRequest(`fromAddress: ${sender.reason}`, { field: 'fromAddress' });
      // The payment goes on the simulated chain; its watcher, woken, records it in the ledger and wakes the
      // swap or route it pays, as a node's would.
      const tx = await chain().pay({
        network: asset.network,
        asset: asset.symbol,
        address: body.address,
        memo: memo.value,
        amount: body.amount,
        ...(sender?.ok ? { fromAddress: sender.value } : {}),
      });
      deps.watching.wake(asset.network);
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
          requiredConfirmations: deps.catalog.networks[asset.network].confirmations,
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
      // A failure armed already (a partner's test run again) is answered from a grouped read, with no write.
      const read = await readSwap(path.id);
      const repeat = read && read.partnerId === partnerId && failureArmed(read, body.stage, allowed);
      // What fires the failure is armed in the same transaction: the sandbox's exchange venue refuses the
      // conversion, or its chain refuses the payout's broadcast.
      const result = repeat
        ? { swap: read, armed: true, newly: false }
        : await transaction(deps.knex, (trx) => armSandboxFailure(trx, partnerId, path.id, body.stage, allowed, deps.now()));
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
          // The later deadlines keep their distance from the deposit deadline.
          const after = (later: Date) => new Date(at.getTime() + later.getTime() - swap.quoteExpiresAt.getTime());
          return updateSwapFields(
            trx,
            swap.id,
            {
              quoteExpiresAt: at,
              expiresAt: after(swap.expiresAt),
              ...(swap.confirmationDeadline ? { confirmationDeadline: after(swap.confirmationDeadline) } : {}),
            },
            at,
          );
        }
        return updateSwapFields(trx, swap.id, { expiresAt: at }, at);
      });
    },

    async reorganizeSandboxChain({ path, body }) {
      if (!deps.catalog.networks[path.network]) {
        throw invalidRequest(`Unknown network ${path.network}: GET /assets lists the networks.`, { field: 'network' });
      }
      const reorganized = await chain().reorganize(path.network, body.blocks);
      // The watcher reads the removals at once: the swaps and routes they touch move on from there.
      await deps.watching.scanNow(path.network);
      return { status: 200, body: reorganized };
    },
  };
}
