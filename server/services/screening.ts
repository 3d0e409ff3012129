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
import { listOutputsTo } from '../store/chain-ledger.js';
import { insertOperatorAction } from '../store/operator-actions.js';
import type { DepositRecord } from '../store/route-deposits.js';
import {
  insertRouteDepositVerdicts,
  insertSenderVerdict,
  listRouteDepositVerdicts,
  listRouteSenderDecisions,
  listSenderVerdicts,
  listUnscreenedOrderDeposits,
  listUnscreenedRouteDeposits,
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

/** The verdicts taken before a route poll, by deposit id. */
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

  // A sender's verdict as it is stored, taken now. ('none' comes only from screening that is off, which stores nothing.)
  const stored = (subject: ScreeningSubject, verdict: ScreeningVerdict): Omit<RouteDepositVerdictRecord, 'depositId'> => ({
    network: subject.network,
    address: subject.address,
    addressKey: screeningKeyOf(subject.address),
    decision: verdict.decision,
    reason: verdict.reason,
    provider: verdict.provider === 'none' ? 'denylist' : verdict.provider,
    failure: verdict.failure ?? null,
    screenedAt: deps.now(),
  });

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

  // A route order's deposits without a verdict (the order was made while screening was off): each sender
  // screened, its verdict and trail entry stored, so no refund of the order goes to a sender nobody screened.
  const screenOrderSenders = async (orderId: string, routeId: string): Promise<void> => {
    const deposits = await listUnscreenedOrderDeposits(knex, orderId);
    for (const deposit of deposits) {
      const subject: ScreeningSubject = { network: deposit.network, address: deposit.fromAddress, role: 'sender' };
      const verdict = await screen(subject);
      await transaction(knex, async (trx) => {
        const [written] = await insertRouteDepositVerdicts(trx, [{ depositId: deposit.id, ...stored(subject, verdict) }]);
        const details = { depositId: deposit.id, txHash: deposit.txHash, outputIndex: deposit.outputIndex, orderId };
        if (written && verdict.decision !== 'allow') await insertOperatorAction(trx, trailEntry(routeId, subject, verdict, details));
      });
    }
  };

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
      if (!screening.enabled || !namesSender(swap.sourceNetwork)) return;
      if (swap.routeId !== null) return screenOrderSenders(swap.id, swap.routeId);
      if (swap.depositAddress === null) return;
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
          const written = await insertSenderVerdict(trx, { swapId: swap.id, ...stored(subject, verdict), addressKey });
          // Another instance's step stored this sender's verdict first: its entry is the one in the trail.
          if (written && verdict.decision !== 'allow') await insertOperatorAction(trx, trailEntry(swap.id, subject, verdict, {}));
        });
      }
    },

    /**
     * Screens the sender of each of route `routeId`'s deposits without an order that has no verdict yet (on
     * networks that name senders): recorded by an earlier poll, or while screening was off. Reads outside any
     * transaction; the poll's transaction stores the verdicts (recordRouteVerdicts). A sender of several
     * deposits is asked once. A deposit the poll records is screened by the next one (it is `pending` until then).
     */
    async screenRouteSenders(routeId: string): Promise<RouteScreened> {
      const screened = new Map<string, { subject: ScreeningSubject; verdict: ScreeningVerdict }>();
      if (!screening.enabled) return screened;
      const deposits = (await listUnscreenedRouteDeposits(knex, routeId)).filter((d) => namesSender(d.network));
      const asked = new Map<string, Promise<ScreeningVerdict>>();
      await Promise.all(
        deposits.map(async (d) => {
          const subject: ScreeningSubject = { network: d.network, address: d.fromAddress, role: 'sender' };
          const key = `${d.network}:${screeningKeyOf(d.fromAddress)}`;
          if (!asked.has(key)) asked.set(key, screen(subject));
          screened.set(d.id, { subject, verdict: await asked.get(key)! });
        }),
      );
      return screened;
    },

    /**
     * In the route poll's transaction: stores the verdicts `screened` took on `deposits` that have none (with
     * the trail entry of each that denies or holds, its target the route), and tells how each deposit's
     * sender stands: the worst of every verdict the route holds on that sender (allowed once and denied since
     * is held). A deposit on a network that names no sender, or whose payment named none, is cleared.
     */
    async recordRouteVerdicts(
      trx: Knex.Transaction,
      routeId: string,
      deposits: readonly DepositRecord[],
      screened: RouteScreened,
    ): Promise<Map<string, SenderStanding>> {
      const standing = new Map<string, SenderStanding>();
      const judged = deposits.filter((d) => namesSender(d.network) && d.fromAddress !== '');
      if (!screening.enabled || judged.length === 0) return standing;
      const fresh: RouteDepositVerdictRecord[] = judged.flatMap((deposit) => {
        const taken = screened.get(deposit.id);
        if (!taken) return [];
        return [{ depositId: deposit.id, ...stored(taken.subject, taken.verdict) }];
      });
      // Another worker's poll stored a verdict first: its own entry is the one in the trail.
      const written = new Set(await insertRouteDepositVerdicts(trx, fresh));
      for (const verdict of fresh) {
        if (!written.has(verdict.depositId) || verdict.decision === 'allow') continue;
        const deposit = judged.find((d) => d.id === verdict.depositId)!;
        await insertOperatorAction(
          trx,
          trailEntry(routeId, screened.get(deposit.id)!.subject, screened.get(deposit.id)!.verdict, {
            depositId: deposit.id,
            txHash: deposit.txHash,
            outputIndex: deposit.outputIndex,
          }),
        );
      }
      const [known, decisions] = await Promise.all([
        listRouteDepositVerdicts(
          trx,
          judged.map((d) => d.id),
        ),
        listRouteSenderDecisions(
          trx,
          routeId,
          judged.map((d) => ({ network: d.network, addressKey: screeningKeyOf(d.fromAddress) })),
        ),
      ]);
      for (const deposit of judged) {
        const all = decisions.get(`${deposit.network}:${screeningKeyOf(deposit.fromAddress)}`) ?? [];
        if (!known.has(deposit.id)) standing.set(deposit.id, 'pending');
        else standing.set(deposit.id, all.every((d) => d === 'allow') ? 'cleared' : 'held');
      }
      return standing;
    },
  };
}

/** The gate's operations. */
export type ScreeningGate = ReturnType<typeof createScreeningGate>;
