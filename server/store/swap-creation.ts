/**
 * POST /swaps in the store (docs/architecture.md#idempotency), in one plain read and one short transaction:
 *
 * 1. A plain read of what decides the answer: the Idempotency-Key's live binding, if any (then the request
 *    is a replay), and the partner's quote. The handler checks the quote and builds the swap and its
 *    response from it; a quote never changes but for being used, so what was read stays true if the create
 *    can still use it. A quote the instance issued itself is not read (store/quotes.ts createIssuedQuotes):
 *    the create checks everything the read would have told, and a create it refuses reads then.
 * 2. One statement (createSwaps), its own transaction: it marks the quote used, claims the key (bound at
 *    once to the response) and stores the swap. Each claim happens only when the one before it did; a create
 *    that did not get everything fails as a whole (pss_swap_not_created, migration 0008), so nothing of it
 *    stays. Under load the creates that arrive while one such statement runs are written by the next,
 *    together (createSwapWriter).
 * 3. Once it has committed, the caller queues the swap's first step (handlers/swaps.ts, through the job
 *    engine's startSwaps, which gathers the swaps of a moment into one batch); the store calls no job. A swap
 *    left without one (that insert failed, or the process died in between) is started by the engine's sweep
 *    of unstarted work. Queuing the job in the statement's transaction instead made every create a
 *    four-round-trip transaction: POST /swaps ran about 25 % slower on PGlite.
 *
 * An identical request arriving meanwhile finds the quote row locked by the first: it waits until the first
 * commits (then the quote is used, and a second read finds the key bound: it replays) or rolls back (then it
 * proceeds itself), so a failed create never binds its key and a replay never makes a second swap.
 */
import type { Knex } from 'knex';
import type { SwapRecord } from '../domain/swap-view.js';
import { guardRefusal } from './errors.js';
import { groupCommit, groupCommitClaims } from './group-commit.js';
import type { IdempotencyRecord } from './idempotency.js';
import { QUOTE_RETURNING, type QuoteRecord } from './quotes.js';
import { isUuid, toColumns } from './rows.js';

/** What a create starts from: the key's live binding (a replay), and the partner's quote if it exists. */
export interface CreationState {
  bound: IdempotencyRecord | undefined;
  quote: QuoteRecord | undefined;
}

/** What a create looks up: the partner's key and quote, at `now`. */
export interface CreationLookup {
  partnerId: string;
  key: string;
  quoteId: string;
  now: Date;
}

// One row per lookup of the group, told apart by its position `i` (a lookup's quote id that is not a uuid
// is given as null, which matches no quote). The arrays make the text the same for any group's size.
const READ_CREATION_STATES = `
  select l.i as "l:i", k.request_hash as "k:requestHash", k.response_status as "k:responseStatus",
         k.response_body as "k:responseBody", k.swap_id as "k:swapId", q.*
    from unnest(?::int[], ?::uuid[], ?::text[], ?::timestamptz[], ?::uuid[]) as l(i, partner_id, key, at, quote_id)
    left join idempotency_keys k on k.partner_id = l.partner_id and k.key = l.key and k.expires_at > l.at
    left join lateral (select ${QUOTE_RETURNING} from quotes where id = l.quote_id and partner_id = l.partner_id) q on true`;

/**
 * Reads what creates start from: for each lookup, the binding of (partnerId, key) unexpired at `now` and the
 * partner's quote `quoteId`. The lookups made while a read runs are read together by the next (group commit,
 * store/group-commit.ts), in one statement; each read starts after its request arrived.
 */
export function createCreationStateReader(db: Knex): (lookup: CreationLookup) => Promise<CreationState> {
  return groupCommit(async (lookups: CreationLookup[]) => {
    const { rows } = await db.raw(READ_CREATION_STATES, [
      lookups.map((_, i) => i),
      lookups.map((l) => l.partnerId),
      lookups.map((l) => l.key),
      lookups.map((l) => l.now),
      lookups.map((l) => (isUuid(l.quoteId) ? l.quoteId : null)),
    ]);
    const states: CreationState[] = [];
    for (const row of rows as Array<Record<string, unknown>>) {
      const {
        'l:i': i,
        'k:requestHash': requestHash,
        'k:responseStatus': responseStatus,
        'k:responseBody': responseBody,
        'k:swapId': swapId,
        ...quote
      } = row;
      states[i as number] = {
        bound: requestHash === null ? undefined : ({ requestHash, responseStatus, responseBody, swapId } as IdempotencyRecord),
        quote: quote.id === null ? undefined : (quote as unknown as QuoteRecord),
      };
    }
    return states;
  });
}

/** What the creating statement did: the swap is stored, or which claim it did not get. */
export type CreationOutcome = 'created' | 'quote_taken' | 'key_bound';

// The waits (for an identical request in progress, or another create of the same quote) are the
// transaction's `lock_timeout`, set by the `timeout` CTE (set_config is volatile, so it is evaluated, and
// the conditions on it make sure of that) before anything can wait. For each create of the group (its
// position `i`), the quote is claimed first, the key only when the quote is (an expired binding of the key is
// taken over), and the swap stored only when the key is: the key's row names the swap, so it exists only
// together with it. The creates of a group use distinct quotes and keys (createSwapWriter), so one create's
// claims never stand in another's way. Unless every create got everything the statement fails as a whole
// (pss_swap_not_created, migration 0008), naming for a lone create the claim it did not get. The arrays and
// the swaps' JSON make the text the same for any group's size.
const CREATE = (swapColumns: string[]) => `
  with timeout as (select set_config('lock_timeout', ?, true) as wait),
  input as (
    select * from unnest(?::int[], ?::uuid[], ?::uuid[], ?::text[], ?::text[], ?::int[], ?::jsonb[], ?::uuid[], ?::timestamptz[], ?::timestamptz[])
      as t(i, partner_id, quote_id, key, request_hash, response_status, response_body, swap_id, at, key_expires_at)
  ),
  claimed_quote as (
    update quotes q set used_at = input.at
      from input
     where q.id = input.quote_id and q.partner_id = input.partner_id and q.used_at is null and q.expires_at > input.at
       and exists (select from timeout where timeout.wait is not null)
    returning input.i
  ),
  claimed_key as (
    insert into idempotency_keys (partner_id, key, request_hash, response_status, response_body, swap_id, created_at, expires_at)
    select partner_id, key, request_hash, response_status, response_body, swap_id, at, key_expires_at
      from input where i in (select i from claimed_quote)
    on conflict (partner_id, key) do update
      set request_hash = excluded.request_hash, response_status = excluded.response_status,
          response_body = excluded.response_body, swap_id = excluded.swap_id,
          created_at = excluded.created_at, expires_at = excluded.expires_at
      where idempotency_keys.expires_at <= excluded.created_at
    returning swap_id
  ),
  created as (
    insert into swaps (${swapColumns.join(', ')})
    select ${swapColumns.join(', ')} from json_populate_recordset(null::swaps, ?::json)
     where id in (select swap_id from claimed_key)
    returning id
  )
  select case when (select count(*) from created) = ? then 'created'
              when (select count(*) from claimed_quote) < ? then pss_swap_not_created('quote_taken')
              else pss_swap_not_created('key_bound') end as outcome`;

// How long a group's statement waits for a lock (a create of one of its quotes or keys in progress on
// another instance, or an identical request's) before each of its creates is written alone, with its own
// wait: a wait then holds up only the create that has it, not the groups after it.
const GROUP_WAIT_SECONDS = 0.1;

// The SQLSTATE of pss_swap_not_created (migration 0008): the statement failed as a whole, for the reason in its message.
const NOT_CREATED = 'PS001';

/** One create: a swap (every column given: nothing is left to a default, so the response built from it is what a read returns), its key's binding and its clock. */
export interface SwapCreate {
  partnerId: string;
  key: string;
  requestHash: string;
  swap: SwapRecord;
  response: { status: number; body: unknown };
  now: Date;
  keyExpiresAt: Date;
  /** How long the create may wait for an identical request in progress, or another create of the same quote. */
  waitSeconds: number;
}

/**
 * Marks each create's quote `c.swap.quoteId` used if it is still unused and unexpired at `c.now`, claims
 * (partnerId, key) bound to `c.response` and stores `c.swap`, in one statement on `db`. The creates use
 * distinct quotes and keys. Unless every create got everything the statement fails as a whole (nothing of it
 * stays): creationRefusal tells a lone create's error from others. Waits for a lock (an identical request,
 * another create of the same quote) up to `waitSeconds`, then throws the driver's 55P03 error.
 */
export async function createSwaps(db: Knex, creates: SwapCreate[], waitSeconds: number): Promise<void> {
  const columns = Object.keys(toColumns(creates[0].swap));
  await db.raw(CREATE(columns), [
    `${Math.round(waitSeconds * 1000)}ms`,
    creates.map((_, i) => i),
    creates.map((c) => c.partnerId),
    creates.map((c) => c.swap.quoteId),
    creates.map((c) => c.key),
    creates.map((c) => c.requestHash),
    creates.map((c) => c.response.status),
    creates.map((c) => JSON.stringify(c.response.body)),
    creates.map((c) => c.swap.id),
    creates.map((c) => c.now),
    creates.map((c) => c.keyExpiresAt),
    JSON.stringify(creates.map((c) => toColumns(c.swap))),
    creates.length,
    creates.length,
  ]);
}

/** The claim a create did not get, when `err` is createSwaps's refusal (for a group: one of its creates'). */
export function creationRefusal(err: unknown): Exclude<CreationOutcome, 'created'> | undefined {
  return guardRefusal(err, NOT_CREATED, ['quote_taken', 'key_bound'] as const);
}

/**
 * Returns `create(c)`: createSwaps for `c`, then, once committed, `started` with the swaps stored (which
 * queues their first steps and never throws). Anything but `created` means nothing of it was written: the
 * quote was used meanwhile, or the key bound.
 *
 * The creates made while a transaction runs are written together by the next (group commit,
 * store/group-commit.ts). A create whose quote or key an earlier create of the group also names is written
 * after the group, on its own, as it would have been after that create committed; when the group refuses
 * any create, each is written again on its own, all at once, so every create gets its own answer and a
 * create that waits for a lock holds up only itself (groupCommitClaims).
 */
export function createSwapWriter(db: Knex): (create: SwapCreate) => Promise<CreationOutcome> {
  async function writeTogether(creates: SwapCreate[], alone: boolean): Promise<CreationOutcome[]> {
    const waitSeconds = alone ? Math.max(...creates.map((c) => c.waitSeconds)) : GROUP_WAIT_SECONDS;
    try {
      await createSwaps(db, creates, waitSeconds);
    } catch (err) {
      const reason = creationRefusal(err);
      // A group's refusal names one of its creates' reasons, not each one's: each is then written alone.
      if (reason && creates.length === 1) return [reason];
      throw err;
    }
    return creates.map(() => 'created');
  }

  return groupCommitClaims({
    claimsOf: (c: SwapCreate) => [`quote ${c.swap.quoteId}`, `key ${c.partnerId} ${c.key}`],
    writeTogether,
    created: (outcome) => outcome === 'created',
    // A quote a create of the group was stored from is used for good; any other repeat needs its own statement.
    repeatOutcome: (c, claimed) => (claimed.has(`quote ${c.swap.quoteId}`) ? 'quote_taken' : undefined),
  });
}
