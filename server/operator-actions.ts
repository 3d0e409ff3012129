/**
 * The operator action trail (issue 33): what a person does through the CLIs (partners, ops) is recorded in
 * operator_actions with the actor, the action, its target, the reason, the time and the outcome.
 *
 * A success is recorded in the action's own transaction: the change and its record commit together, or
 * neither does, so no record claims an action that rolled back. A refusal (the service said no: unknown
 * target, wrong state, invalid input) or an unexpected failure is recorded afterwards, in a statement of its
 * own, once the action's transaction has rolled back: an attempt is worth knowing about (someone tried to
 * rotate the secret of a key that does not exist), and it cannot share a transaction that did not commit.
 * Recording a refusal is best effort: when the database cannot take it either, the original error is what
 * the operator sees.
 */
import type { Knex } from 'knex';
import { AppError } from './domain/errors.js';
import { transaction } from './store/after-commit.js';
import { insertOperatorAction, type OperatorActionOutcome, type OperatorActionRecord } from './store/operator-actions.js';

/** Longest actor name kept. */
export const ACTOR_MAX_CHARS = 200;
/** Longest reason kept. */
export const REASON_MAX_CHARS = 2000;
// Longest error message kept with a refused or failed action.
const ERROR_MESSAGE_MAX_CHARS = 500;

/**
 * The actions the trail records, and whether each needs a reason. Switching a partner's access off or on,
 * deciding a held swap and returning a held payment need one: these are judgements someone will ask about. Creating a partner (its name
 * says what), rotating a secret (routine, and what the server's own hints tell an operator to run) and
 * redelivering a webhook (harmless, repeatable) take one optionally.
 */
export const OPERATOR_ACTIONS = {
  'partner.create': { reasonRequired: false },
  'partner.rotate_secret': { reasonRequired: false },
  'partner.disable': { reasonRequired: true },
  'partner.enable': { reasonRequired: true },
  'webhook.redeliver': { reasonRequired: false },
  'review.decide': { reasonRequired: true },
  'payment.return': { reasonRequired: true },
  'alert.resolve': { reasonRequired: true },
  'cold.release': { reasonRequired: true },
  'output.resolve': { reasonRequired: true },
  // Written by screening itself (actor `screening`, services/screening.ts), not by a CLI: a verdict that
  // denies an address or holds a deposit, with the provider's reason.
  'screening.verdict': { reasonRequired: false },
} as const satisfies Record<string, { reasonRequired: boolean }>;

/** An action the trail records. */
export type OperatorAction = keyof typeof OPERATOR_ACTIONS;

/** Who acts and why (the CLIs' --actor and --reason). */
export interface Acting {
  actor: string;
  reason?: string;
}

/** What an action returns to its caller, and what its record keeps about it (never a secret). */
export interface ActionOutcome<T> {
  value: T;
  details: Record<string, unknown>;
  /** The time the action stamped on what it changed, so its record shows the same; else the database's now(). */
  at?: Date;
}

/**
 * Runs `act` in a transaction that also appends its succeeded record; on a refusal or failure, appends that
 * record on its own after the rollback and rethrows. 400 (nothing recorded) for an actor or reason outside
 * its bounds, or a reason missing where the action needs one.
 */
export async function runOperatorAction<T>(
  knex: Knex,
  acting: Acting,
  action: OperatorAction,
  target: string,
  act: (trx: Knex.Transaction) => Promise<ActionOutcome<T>>,
): Promise<{ value: T; record: OperatorActionRecord }> {
  const { actor, reason } = checkActing(acting, action);
  const entry = { actor, action, target, reason };
  try {
    return await transaction(knex, async (trx) => {
      const { value, details, at } = await act(trx);
      const record = await insertOperatorAction(trx, { ...entry, outcome: 'succeeded', details, actedAt: at });
      return { value, record };
    });
  } catch (err) {
    const outcome: OperatorActionOutcome = err instanceof AppError && err.status < 500 ? 'refused' : 'failed';
    const error =
      err instanceof AppError
        ? { status: err.status, code: err.code, message: err.message }
        : { message: String((err as Error)?.message ?? err).slice(0, ERROR_MESSAGE_MAX_CHARS) };
    await insertOperatorAction(knex, { ...entry, outcome, details: { error } }).catch(() => undefined);
    throw err;
  }
}

/** The actor and reason, trimmed and checked; 400 when outside their bounds or when a needed reason is missing. */
export function checkActing(acting: Acting, action: OperatorAction): { actor: string; reason: string | null } {
  const actor = acting.actor.trim();
  if (!actor || actor.length > ACTOR_MAX_CHARS || /[\p{Cc}]/u.test(actor)) {
    throw new AppError(400, 'invalid_request', `An actor is 1-${ACTOR_MAX_CHARS} characters without control characters.`);
  }
  const reason = acting.reason?.trim() || null;
  if (reason === null && OPERATOR_ACTIONS[action].reasonRequired) {
    throw new AppError(400, 'invalid_request', `${action} needs a reason; say why, for whoever reads the record later.`);
  }
  if (reason !== null && reason.length > REASON_MAX_CHARS) {
    throw new AppError(400, 'invalid_request', `A reason is at most ${REASON_MAX_CHARS} characters.`);
  }
  return { actor, reason };
}
