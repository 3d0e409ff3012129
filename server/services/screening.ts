/**
 * Address screening around the swap lifecycle (docs/screening.md): destination and refund addresses are
 * screened at quote, swap and route creation (403 `address_denied` for one denied or held for review), and
 * the senders of payments to a swap's address before its step decides (swap-decision.ts holds the swap, and
 * never refunds to a sender that is not allowed), and the sender of each payment to a permanent route's
 * addresses before the route poll (route-poll.ts converts a held one alone, into review). The provider is
 * asked outside every transaction; a verdict and its operator-trail entry commit together afterwards (a
 * route deposit's with the poll that records it). Every verdict that denies or holds is in
 * the operator action trail as `screening.verdict`, by the actor `screening`.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Screening } from '../adapters/screening.js';
import { AppError } from '../domain/errors.js';
import type { SenderStanding } from '../domain/route-poll.js';
import { namesSender, screeningKeyOf, type ScreeningSubject, type ScreeningVerdict } from '../domain/screening.js';
import type { SwapRecord } from '../domain/swap-view.js';
import { transaction } from '../store/after-commit.js';
import { listOutputsTo, listOutputsToAddresses } from '../store/chain-ledger.js';
import { insertOperatorAction } from '../store/operator-actions.js';
import type { DepositRecord } from '../store/route-deposits.js';
import { listRouteAddresses } from '../store/routes.js';
import {
  insertRouteDepositVerdicts,
  insertSenderVerdict,
  listRouteDepositVerdicts,
  listScreenedRouteOutputs,
  listSenderVerdicts,
  type RouteDepositVerdictRecord,
} from '../store/screening-verdicts.js';

/** The actor of the trail entries screening writes. */
export const SCREENING_ACTOR = 'screening';

/** What the gate needs. */
export interface ScreeningGateDeps {
  knex: Knex;
  screening: Screening;
  now: () => Date;
  /** Where a provider's failure is reported (a verdict of SCREENING_FAIL_MODE's; none: not logged). */
  logger?: Pick<Logger, 'warn'>;
}

/** The verdicts taken before a route poll, by output (`txHash:outputIndex`). */
export type RouteScreened = ReadonlyMap<string, { subject: ScreeningSubject; verdict: ScreeningVerdict }>;

/** An address a request names, with the request field it came from. */
export type RequestAddress = ScreeningSubject & { field: string };

/** Creates the gate. */
export function createScreeningGate(deps: ScreeningGateDeps) {
  const { knex, screening, logger } = deps;
  // Screens `subject`, reporting a provider's failure: an outage decides every verdict until it ends.
  const screen = async (subject: ScreeningSubject): Promise<ScreeningVerdict> => {
    const verdict = await screening.screen(subject);
    if (verdict.failure)
      logger?.warn(
        { role: subject.role, network: subject.network, failure: verdict.failure, decision: verdict.decision },
        'screening provider failed',
      );
    return verdict;
  };

  // The trail entry of a verdict that denies or holds (an allowed address is not recorded).
  const trailEntry = (target: string, subject: ScreeningSubject, verdict: ScreeningVerdict, extra: Record<string, unknown>) => ({
    actor: SCREENING_ACTOR,
    action: 'screening.verdict',
    target,
    reason: verdict.reason,
    outcome: 'succeeded' as const,
    details: {
      ...extra,
      network: subject.network,
      address: subject.address,
      role: subject.role,
      decision: verdict.decision,
      provider: verdict.provider,
      ...(verdict.failure ? { failure: verdict.failure } : {}),
    },
    actedAt: deps.now(),
  });

  return {
    /** Whether any screening is configured. */
    enabled: screening.enabled,

    /**
     * Screens the addresses a creating request names, together; 403 `address_denied` (`details.field`,
     * `details.role`) for the first that is denied or held for review (a destination held for review is not
     * one money may be promised to), each such verdict recorded in the trail. Call before any transaction.
     */
    async requireAllowed(addresses: RequestAddress[], context: { operation: string; partnerId: string }): Promise<void> {
      if (!screening.enabled || addresses.length === 0) return;
      const verdicts = await Promise.all(addresses.map(screen));
      const refused = addresses
        .map((a, i) => ({ address: a, verdict: verdicts[i]! }))
        .filter(({ verdict }) => verdict.decision !== 'allow');
      if (refused.length === 0) return;
      for (const { address, verdict } of refused) {
        await insertOperatorAction(
          knex,
          trailEntry(`${address.network}:${address.address}`, address, verdict, {
            operation: context.operation,
            partnerId: context.partnerId,
          }),
        );
      }
      const first = refused[0]!.address;
      throw new AppError(
        403,
        'address_denied',
        `${first.field} cannot be used: address screening does not allow this ${first.network} address. Ask the customer for another address.`,
        { field: first.field, role: first.role, network: first.network },
      );
    },

    /**
     * Screens each sender of a payment to `swap`'s address that has no verdict yet (on a network that names
     * senders), and stores each verdict, with its trail entry when it denies or holds. Reads the ledger
     * outside any transaction; the step's own transaction reads the verdicts back (listSenderVerdicts).
     */
    async screenSenders(swap: SwapRecord): Promise<void> {
      if (!screening.enabled || swap.routeId !== null || swap.depositAddress === null || !namesSender(swap.sourceNetwork)) return;
      const [outputs, known] = await Promise.all([
        // Every output to the address (a memo network's shared address too): screening a few senders more is harmless.
        listOutputsTo(knex, swap.sourceNetwork, swap.depositAddress, null),
        listSenderVerdicts(knex, [swap.id]),
      ]);
      const screened = new Set(known.map((v) => v.addressKey));
      const senders = new Map<string, string>();
      for (const output of outputs) {
        if (!output.fromAddress) continue;
        const key = screeningKeyOf(output.fromAddress);
        if (!screened.has(key) && !senders.has(key)) senders.set(key, output.fromAddress);
      }
      for (const [addressKey, address] of senders) {
        const subject: ScreeningSubject = { network: swap.sourceNetwork, address, role: 'sender' };
        const verdict = await screen(subject);
        await transaction(knex, async (trx) => {
          const stored = await insertSenderVerdict(trx, {
            swapId: swap.id,
            network: subject.network,
            address,
            addressKey,
            decision: verdict.decision,
            reason: verdict.reason,
            // 'none' only comes from screening that is off, which returned above.
            provider: verdict.provider === 'none' ? 'denylist' : verdict.provider,
            failure: verdict.failure ?? null,
            screenedAt: deps.now(),
          });
          // Another instance's step stored this sender's verdict first: its entry is the one in the trail.
          if (stored && verdict.decision !== 'allow') await insertOperatorAction(trx, trailEntry(swap.id, subject, verdict, {}));
        });
      }
    },

    /**
     * Screens the sender of each payment to route `routeId`'s addresses (on networks that name senders) that
     * has no verdict yet: one not recorded as a deposit, or recorded without one (screening was off then).
     * Reads outside any transaction; the poll's transaction stores the verdicts with the deposits
     * (recordRouteVerdicts). A sender of several payments is asked once.
     */
    async screenRouteSenders(routeId: string): Promise<RouteScreened> {
      const screened = new Map<string, { subject: ScreeningSubject; verdict: ScreeningVerdict }>();
      if (!screening.enabled) return screened;
      const addresses = (await listRouteAddresses(knex, [routeId])).filter((a) => namesSender(a.network));
      if (addresses.length === 0) return screened;
      const outputs = await listOutputsToAddresses(knex, [...new Set(addresses.map((a) => a.address))]);
      const done = await listScreenedRouteOutputs(
        knex,
        routeId,
        outputs.map((o) => o.txHash),
      );
      const asked = new Map<string, Promise<ScreeningVerdict>>();
      await Promise.all(
        outputs
          .filter((o) => !o.removed && o.fromAddress && namesSender(o.network) && !done.has(`${o.txHash}:${o.outputIndex}`))
          .map(async (o) => {
            const subject: ScreeningSubject = { network: o.network, address: o.fromAddress!, role: 'sender' };
            const key = `${o.network}:${screeningKeyOf(subject.address)}`;
            if (!asked.has(key)) asked.set(key, screen(subject));
            screened.set(`${o.txHash}:${o.outputIndex}`, { subject, verdict: await asked.get(key)! });
          }),
      );
      return screened;
    },

    /**
     * In the route poll's transaction: stores the verdicts `screened` took on `deposits` that have none (with
     * the trail entry of each that denies or holds, its target the route), and tells how each deposit's
     * sender stands. A deposit on a network that names no sender, or whose payment named none, is cleared.
     */
    async recordRouteVerdicts(
      trx: Knex.Transaction,
      routeId: string,
      deposits: readonly DepositRecord[],
      screened: RouteScreened,
    ): Promise<Map<string, SenderStanding>> {
      const standing = new Map<string, SenderStanding>();
      if (!screening.enabled || deposits.length === 0) return standing;
      const stored = await listRouteDepositVerdicts(
        trx,
        deposits.map((d) => d.id),
      );
      const fresh: RouteDepositVerdictRecord[] = [];
      for (const deposit of deposits) {
        if (!namesSender(deposit.network) || !deposit.fromAddress) continue;
        const taken = screened.get(`${deposit.txHash}:${deposit.outputIndex}`);
        if (!stored.has(deposit.id) && taken) {
          const verdict: RouteDepositVerdictRecord = {
            depositId: deposit.id,
            network: deposit.network,
            address: deposit.fromAddress,
            addressKey: screeningKeyOf(deposit.fromAddress),
            decision: taken.verdict.decision,
            reason: taken.verdict.reason,
            // 'none' only comes from screening that is off, which returned above.
            provider: taken.verdict.provider === 'none' ? 'denylist' : taken.verdict.provider,
            failure: taken.verdict.failure ?? null,
            screenedAt: deps.now(),
          };
          stored.set(deposit.id, verdict);
          fresh.push(verdict);
        }
        const decision = stored.get(deposit.id)?.decision;
        standing.set(deposit.id, decision === undefined ? 'pending' : decision === 'allow' ? 'cleared' : 'held');
      }
      const written = new Set(await insertRouteDepositVerdicts(trx, fresh));
      for (const verdict of fresh) {
        if (!written.has(verdict.depositId) || verdict.decision === 'allow') continue;
        const deposit = deposits.find((d) => d.id === verdict.depositId)!;
        const subject: ScreeningSubject = { network: verdict.network, address: verdict.address, role: 'sender' };
        const taken = screened.get(`${deposit.txHash}:${deposit.outputIndex}`)!;
        await insertOperatorAction(
          trx,
          trailEntry(routeId, subject, taken.verdict, { depositId: deposit.id, txHash: deposit.txHash, outputIndex: deposit.outputIndex }),
        );
      }
      return standing;
    },
  };
}

/** The gate's operations. */
export type ScreeningGate = ReturnType<typeof createScreeningGate>;
