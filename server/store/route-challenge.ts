/**
 * The challenge rule of a permanent route: when a create may spend an ownership challenge. It is held here
 * once, as an ordered table of conditions, and everything that applies it is derived from the table: the
 * SQL that spends a challenge (CHALLENGE_SPENDABLE, in pss_create_routes, store/statement-functions.ts, and
 * in the read of a refused group, store/routes.ts) and the reason a refused create is given
 * (challengeRefusal, in handlers/routes.ts). A change to the rule is a change to this table: the deployed
 * function is replaced at start-up when its text differs (deployStatementFunctions), so it needs no migration.
 *
 * The table is in store/ because it holds SQL; its predicates are pure and a unit test reads them without a
 * database.
 */
import type { ChallengeRecord } from './routes.js';

/**
 * What a create brings to the challenge it names: its target, the moment of the create and the text its
 * wallet signed. In SQL these are the columns of the `input` row of the same names (`created_at`, `message`).
 */
export interface ChallengeSpend {
  partnerId: string;
  externalUser: string;
  destinationAsset: string;
  destinationNetwork: string;
  destinationAddress: string;
  /** When the route is created: the challenge must be unexpired then, and is spent at that moment. */
  createdAt: Date;
  /** The challenge text the wallet signed. */
  message: string;
}

/** One condition of the rule, in SQL and in TypeScript, and what a create it refuses is told. */
export interface ChallengeCondition {
  /** The condition in SQL, over `c` (a route_challenges row) and `input` (the create's row). */
  sql: string;
  /** The same condition over the stored challenge and the create; true when it holds. */
  holds: (challenge: ChallengeRecord, spend: ChallengeSpend) => boolean;
  /** The public reason of a create this condition refuses first (completes "The challenge cannot be used: ..."). */
  reason: string;
}

/**
 * Why a challenge that does not exist is refused; also the reason for another partner's, so that a partner
 * cannot learn which challenge ids exist.
 */
export const UNKNOWN_CHALLENGE_REASON = 'it is unknown';

/**
 * The rule, in the order the spec lists the checks: a refused create is told the first condition that fails.
 * The challenge's own id is not a condition here: the SQL joins on it, and a challenge not found is unknown.
 */
export const CHALLENGE_CONDITIONS: readonly ChallengeCondition[] = Object.freeze([
  {
    sql: 'c.partner_id = input.partner_id',
    holds: (c, spend) => c.partnerId === spend.partnerId,
    reason: UNKNOWN_CHALLENGE_REASON,
  },
  {
    sql: 'c.used_at is null',
    holds: (c) => c.usedAt === null,
    reason: 'it was already used',
  },
  {
    sql: 'c.expires_at > input.created_at',
    holds: (c, spend) => c.expiresAt.getTime() > spend.createdAt.getTime(),
    reason: 'it has expired',
  },
  {
    sql: 'c.external_user = input.external_user',
    holds: (c, spend) => c.externalUser === spend.externalUser,
    reason: 'it was issued to another user',
  },
  {
    sql: `c.destination_asset = input.destination_asset and c.destination_network = input.destination_network
       and c.destination_address = input.destination_address`,
    holds: (c, spend) =>
      c.destinationAsset === spend.destinationAsset &&
      c.destinationNetwork === spend.destinationNetwork &&
      c.destinationAddress === spend.destinationAddress,
    reason: 'it was issued for another settlement target',
  },
  {
    sql: 'c.text = input.message',
    holds: (c, spend) => c.text === spend.message,
    reason: 'message differs from the challenge text',
  },
]);

/**
 * The rule as a SQL `where` fragment over `c` and `input`: every condition of the table, each parenthesised
 * so that one written with `or` keeps its meaning.
 */
export const CHALLENGE_SPENDABLE = CHALLENGE_CONDITIONS.map((condition) => `(${condition.sql})`).join('\n       and ');

/**
 * Why `challenge` (undefined: not found) cannot be spent by `spend`: the reason of the first condition of the
 * table that fails, or undefined when it may be spent.
 */
export function challengeRefusal(challenge: ChallengeRecord | undefined, spend: ChallengeSpend): string | undefined {
  if (!challenge) return UNKNOWN_CHALLENGE_REASON;
  return CHALLENGE_CONDITIONS.find((condition) => !condition.holds(challenge, spend))?.reason;
}
