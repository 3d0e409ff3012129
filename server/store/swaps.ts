/** Swaps and their public timeline. Transitions go through store/swap-transitions.ts, never through here alone. */
import type { Knex } from 'knex';
import type { SwapStatus } from '../domain/swap-lifecycle.js';
import type { RouteOrderFields, SwapEventRecord, SwapRecord } from '../domain/swap-view.js';
import { groupReadByUuid, groupReadRows } from './group-commit.js';
import { BEFORE_ALL, fromJsonRow, fromRow, isUuid, pageKey, toColumns } from './rows.js';
import { announcementSql } from './swap-notifications.js';

export type { SwapEventRecord, SwapRecord } from '../domain/swap-view.js';

/** Fields of a new swap; the rest take their defaults. */
export type NewSwap = Omit<
  SwapRecord,
  | 'id'
  | 'mode'
  | 'depositAddress'
  | 'depositMemo'
  | 'depositInstructionsJws'
  | 'sourceTxHash'
  | 'receivedAmount'
  | 'receivedFrom'
  | 'lateDeposit'
  | 'confirmationCount'
  | 'actualOutputAmount'
  | 'settlementTxHash'
  | 'refundTxHash'
  | 'refundAmount'
  | 'status'
  | 'failureCode'
  | 'armedFailure'
  | 'deposits'
  | 'createdAt'
  | 'updatedAt'
  | keyof RouteOrderFields
>;

/**
 * Stores a new swap in the caller's transaction: status waiting, or, for a route order (mode `permanent`,
 * with its route fields), the status its deposits are in and what was received.
 */
export async function insertSwap(
  trx: Knex.Transaction,
  swap: NewSwap & { id?: string; createdAt: Date } & Partial<
      RouteOrderFields &
        Pick<SwapRecord, 'mode' | 'status' | 'depositAddress' | 'sourceTxHash' | 'receivedAmount' | 'receivedFrom' | 'confirmationCount'>
    >,
): Promise<SwapRecord> {
  const [row] = await trx('swaps')
    .insert(toColumns({ ...swap, updatedAt: swap.createdAt }))
    .returning('*');
  return fromRow<SwapRecord>(row);
}

/** The swap `id`, if it exists (and belongs to `partnerId` when given). */
export async function findSwap(db: Knex, id: string, partnerId?: string): Promise<SwapRecord | undefined> {
  if (!isUuid(id)) return undefined;
  const row = await db('swaps')
    .where({ id, ...(partnerId !== undefined ? { partner_id: partnerId } : {}) })
    .first();
  return row ? fromRow<SwapRecord>(row) : undefined;
}

/**
 * findSwap without a partner, for work that comes in numbers (a batch of new swaps' first steps), read in
 * groups (group-commit.ts groupReadByUuid).
 */
export function createSwapReader(db: Knex): (id: string) => Promise<SwapRecord | undefined> {
  return groupReadByUuid(db, 'swaps', 'id', (row) => fromRow<SwapRecord>(row));
}

// The swaps of a group of lookups (`l.i` their positions) with their timelines, oldest first, each from one
// snapshot: a primary-key lookup each, of the partner's swap when the lookup names a partner (a token's
// lookup and a stream's name none), and the swap's events by swap_events' (swap_id, seq) index. The timeline
// comes as JSON, its `seq` (a bigint) cast to text as the driver reads the column.
const SWAPS_WITH_EVENTS = `
  select l.i as "l:i", s.*,
         coalesce((select json_agg(to_jsonb(e) || jsonb_build_object('seq', e.seq::text) order by e.seq)
                     from swap_events e where e.swap_id = s.id), '[]') as timeline
    from unnest(?::int[], ?::uuid[], ?::uuid[]) as l(i, id, partner_id)
    join swaps s on s.id = l.id and (l.partner_id is null or s.partner_id = l.partner_id)`;

/** A swap with its timeline, oldest first. */
export interface SwapWithEvents {
  swap: SwapRecord;
  events: SwapEventRecord[];
}

/**
 * Returns `read(id, partnerId?)`: the swap `id` (only if it belongs to `partnerId` when given) with its
 * timeline, in one statement: a status poll is the commonest read, and on the embedded database every round
 * trip counts. The swaps asked for while a read runs are read together by the next, a swap asked for twice
 * the same way once (group-commit.ts); each read starts after its requests arrived.
 */
export function createSwapViewReader(db: Knex): (id: string, partnerId?: string) => Promise<SwapWithEvents | undefined> {
  const read = groupReadRows(db, SWAPS_WITH_EVENTS, {
    keyOf: (l: { id: string; partnerId: string | null }) => `${l.id} ${l.partnerId ?? ''}`,
    params: (lookups) => [lookups.map((l) => l.id), lookups.map((l) => l.partnerId)],
    toRecord: ({ timeline, ...swap }): SwapWithEvents => ({
      swap: fromRow<SwapRecord>(swap),
      events: (timeline as Array<Record<string, unknown>>).map((entry) => fromJsonRow<SwapEventRecord>(entry, ['occurredAt'])),
    }),
  });
  return async (id, partnerId) => (isUuid(id) ? (await read({ id: id.toLowerCase(), partnerId: partnerId ?? null }))[0] : undefined);
}

/** The swap `id` (when given, only if it belongs to `partnerId`) locked for the caller's transaction (FOR UPDATE). */
export async function lockSwap(trx: Knex.Transaction, id: string, partnerId?: string): Promise<SwapRecord | undefined> {
  if (!isUuid(id)) return undefined;
  const row = await trx('swaps')
    .where({ id, ...(partnerId !== undefined ? { partner_id: partnerId } : {}) })
    .forUpdate()
    .first();
  return row ? fromRow<SwapRecord>(row) : undefined;
}

/** Updates a swap's fields (not its status: transitions do that) and returns the new record. */
export async function updateSwapFields(trx: Knex.Transaction, id: string, fields: Partial<SwapRecord>, at: Date): Promise<SwapRecord> {
  const [row] = await trx('swaps')
    .where({ id })
    .update(swapColumns({ ...fields, updatedAt: at }))
    .returning('*');
  return fromRow<SwapRecord>(row);
}

/** A change of a swap as one statement writes it: the new column values, its timeline entry (if any) and its message. */
export interface SwapChangeWrite {
  fields: Partial<SwapRecord>;
  event: Omit<SwapEventRecord, 'seq'> | null;
  message: { type: string; payload: string };
}

/**
 * Updates swap `id`, appends its timeline entry and queues its webhook message in one statement: on the
 * embedded database each statement of an open transaction holds up every other connection, and a swap's
 * steps run many of them. The entry and the message are built by the caller before the update; the stored
 * row and the entry's seq come back so the caller can check what it built.
 *
 * The caller holds the swap's lock (`db` is its transaction); changes of swaps read without one go through
 * writeSwapChangesIfUnchanged. On PostgreSQL the statement also announces the change to the stream hubs
 * (`announced`); elsewhere the caller does, with announceSwapChange.
 */
export async function writeSwapChange(
  db: Knex,
  id: string,
  change: SwapChangeWrite,
): Promise<{ swap: SwapRecord; eventSeq: string | null; messageId: string; announced: boolean }> {
  const set = Object.entries(swapColumns(change.fields));
  const event = change.event ? Object.entries(toColumns(change.event)) : [];
  const announce = announcementSql(db, 'updated.id');
  const { rows } = await db.raw(
    `with updated as (
       update swaps set ${set.map(() => '?? = ?').join(', ')} where id = ? returning *
     ),
     event as (${
       event.length > 0
         ? `insert into swap_events (${event.map(() => '??').join(', ')}) select ${event.map(() => '?').join(', ')} from updated returning seq`
         : 'select null::bigint as seq'
     }),
     message as (insert into webhook_outbox (partner_id, type, payload) select partner_id, ?, ? from updated returning id)
     select updated.*, (select seq::text from event) as "change:eventSeq", (select id from message) as "change:messageId"${
       announce ? `, ${announce.sql} as "change:announced"` : ''
     } from updated`,
    [
      ...set.flat(),
      id,
      ...event.map(([column]) => column),
      ...event.map(([, value]) => value),
      change.message.type,
      change.message.payload,
      ...(announce?.bindings ?? []),
    ] as Knex.RawBinding[],
  );
  if (rows.length !== 1) throw new Error(`swap ${id} to change is missing`);
  const {
    'change:eventSeq': eventSeq,
    'change:messageId': messageId,
    'change:announced': _announced,
    ...row
  } = rows[0] as Record<string, unknown>;
  return {
    swap: fromRow<SwapRecord>(row),
    eventSeq: eventSeq as string | null,
    messageId: messageId as string,
    announced: announce !== undefined,
  };
}

/** One change of writeSwapChangesIfUnchanged: swap `id`, read without a lock when its `updatedAt` was `unchangedSince`. */
export interface UnlockedChangeWrite extends SwapChangeWrite {
  id: string;
  unchangedSince: Date;
}

/**
 * writeSwapChange for several swaps read without a lock, in one statement: each change (distinct swaps, the
 * same fields set on each) is made only if its swap is still as read, with its timeline entry and message.
 * One answer per change, in order: undefined
 * for a swap that changed meanwhile (or is gone). Announces on PostgreSQL as writeSwapChange does.
 */
export async function writeSwapChangesIfUnchanged(
  db: Knex,
  changes: UnlockedChangeWrite[],
): Promise<Array<{ swap: SwapRecord; eventSeq: string | null; messageId: string; announced: boolean } | undefined>> {
  const set = Object.keys(toColumns(changes[0].fields));
  const ids = changes.map((c) => c.id);
  if (new Set(ids).size !== ids.length) throw new Error('writeSwapChangesIfUnchanged: a swap is changed twice');
  if (changes.some((c) => Object.keys(toColumns(c.fields)).join() !== set.join() || c.message.type !== changes[0].message.type)) {
    throw new Error('writeSwapChangesIfUnchanged: the changes set different fields or send different messages');
  }
  const events = changes.flatMap((c) => (c.event ? [toColumns(c.event)] : []));
  const eventColumns = events.length > 0 ? Object.keys(events[0]) : [];
  const announce = announcementSql(db, 'updated.id');
  const quoted = (columns: string[]) => columns.map((c) => `"${c}"`).join(', ');
  // The new values come as rows of the table's own type (json_populate_recordset), so each takes its
  // column's type; the entries as rows of swap_events'. A message names its swap in its payload.
  const { rows } = await db.raw(
    `with input as (
       select * from unnest(?::uuid[], ?::timestamptz[], ?::jsonb[]) as t(id, unchanged_since, payload)
     ), given as (
       select * from json_populate_recordset(null::swaps, ?::json)
     ), updated as (
       update swaps s set ${set.map((c) => `"${c}" = given."${c}"`).join(', ')}
         from given join input on input.id = given.id
        where s.id = given.id and s.updated_at = input.unchanged_since
       returning s.*
     ), event as (${
       eventColumns.length > 0
         ? `insert into swap_events (${quoted(eventColumns)})
            select ${quoted(eventColumns)} from json_populate_recordset(null::swap_events, ?::json) e
             where e.swap_id in (select id from updated)
            returning swap_id, seq`
         : 'select null::uuid as swap_id, null::bigint as seq where false'
     }), message as (
       insert into webhook_outbox (partner_id, type, payload)
       select updated.partner_id, ?, input.payload from updated join input on input.id = updated.id
       returning id, payload->'order'->>'id' as swap_id
     )
     select updated.*, (select seq::text from event where event.swap_id = updated.id) as "change:eventSeq",
            (select id from message where message.swap_id = updated.id::text) as "change:messageId"${
              announce ? `, ${announce.sql} as "change:announced"` : ''
            }
       from updated`,
    [
      ids,
      changes.map((c) => c.unchangedSince),
      changes.map((c) => c.message.payload),
      JSON.stringify(changes.map((c) => ({ id: c.id, ...toColumns(c.fields) }))),
      ...(eventColumns.length > 0 ? [JSON.stringify(events)] : []),
      changes[0].message.type,
      ...(announce?.bindings ?? []),
    ] as Knex.RawBinding[],
  );
  const written = new Map<string, { swap: SwapRecord; eventSeq: string | null; messageId: string; announced: boolean }>();
  for (const row of rows as Array<Record<string, unknown>>) {
    const { 'change:eventSeq': eventSeq, 'change:messageId': messageId, 'change:announced': _announced, ...columns } = row;
    const swap = fromRow<SwapRecord>(columns);
    written.set(swap.id, { swap, eventSeq: eventSeq as string | null, messageId: messageId as string, announced: announce !== undefined });
  }
  return ids.map((id) => written.get(id));
}

/** Replaces the payload of a queued webhook message (not yet dispatched). */
export async function replaceOutboxPayload(db: Knex, messageId: string, payload: unknown): Promise<void> {
  await db('webhook_outbox')
    .where({ id: messageId })
    .update({ payload: JSON.stringify(payload) });
}

// How often armSwapFailure tries again when the swap changed while its update waited for the row.
const ARM_ATTEMPTS = 5;

/**
 * Whether `swap` has a `stage` failure armed and could have it armed now from `statuses` (armSwapFailure's
 * statement decides the same: a payout failure only before the payout has a hash). Such an arming is a repeat
 * that changes nothing.
 */
export function failureArmed(swap: SwapRecord, stage: 'exchange' | 'payout', statuses: readonly SwapStatus[]): boolean {
  const armable = statuses.includes(swap.status) && (stage !== 'payout' || swap.settlementTxHash === null);
  return armable && swap.armedFailure === stage;
}

/**
 * Arms a sandbox failure on the partner's swap `id` in one statement, if the swap is in one of `statuses`
 * (and, for a payout failure, has not been paid out). Answers the swap as it is after the statement, and
 * whether the failure is armed on it: newly, or already (the same failure armed again writes nothing, so
 * repeated arming does not queue on the row lock); undefined when the swap is missing or another partner's.
 * `armed_failure` is what the partner armed; what fires it is the sandbox's venue or chain, armed by the
 * caller in the same transaction. A new arming moves `updated_at`, so a swap step that asked the venue
 * before it starts over (services/swaps.ts).
 */
export async function armSwapFailure(
  db: Knex,
  partnerId: string,
  id: string,
  stage: 'exchange' | 'payout',
  statuses: readonly SwapStatus[],
  at: Date,
): Promise<{ swap: SwapRecord; armed: boolean; newly: boolean } | undefined> {
  if (!isUuid(id)) return undefined;
  const armable = `status = any(?::text[])${stage === 'payout' ? ' and settlement_tx_hash is null' : ''}`;
  const statement = `
    with armed as (
      update swaps set armed_failure = ?, updated_at = ?
       where id = ? and partner_id = ? and ${armable} and armed_failure is distinct from ?
      returning *
    )
    select *, true as "arm:armed", true as "arm:armable", true as "arm:new" from armed
    union all
    select *, armed_failure is not distinct from ? and ${armable}, ${armable}, false from swaps
     where id = ? and partner_id = ? and not exists (select from armed)`;
  const bindings = [stage, at, id, partnerId, [...statuses], stage, stage, [...statuses], [...statuses], id, partnerId];
  for (let attempt = 1; ; attempt++) {
    const { rows } = await db.raw(statement, bindings);
    if (rows.length === 0) return undefined;
    const { 'arm:armed': armed, 'arm:armable': armable, 'arm:new': newly, ...row } = rows[0] as Record<string, unknown>;
    // Armable as this statement's snapshot saw it, yet not armed: a concurrent change (a step, or the same
    // arming) committed while the update waited for the row, and the snapshot row is out of date. A new
    // statement sees that change.
    if (armed !== true && armable === true) {
      if (attempt < ARM_ATTEMPTS) continue;
      throw new Error(`swap ${id} changed under each of ${ARM_ATTEMPTS} attempts to arm a failure`);
    }
    return { swap: fromRow<SwapRecord>(row), armed: armed === true, newly: newly === true };
  }
}

/** Ids of swaps that are not terminal and not held for a person: what the workers must keep moving. */
export async function listActiveSwapIds(db: Knex): Promise<string[]> {
  return db('swaps').whereIn('status', ['waiting', 'overdue', 'confirming', 'exchanging', 'sending']).pluck('id');
}

/**
 * The one-time swaps left without their next step: created before `before` and still without a deposit
 * address (their first step never ran: it failed, or the process died after the create committed), or still
 * waiting (or overdue) although their deadline passed before `before` (the job for the deadline was never
 * queued: its insert failed, or the process died after the address was stored).
 */
export async function listUnstartedSwapIds(db: Knex, before: Date): Promise<string[]> {
  return db('swaps')
    .whereNull('route_id')
    .andWhere((q) =>
      q
        .where((w) => w.where({ status: 'waiting', deposit_address: null }).andWhere('created_at', '<', before))
        .orWhere((w) => w.where({ status: 'waiting' }).andWhere('quote_expires_at', '<', before))
        .orWhere((w) => w.where({ status: 'overdue' }).andWhere('expires_at', '<', before)),
    )
    .pluck('id');
}

/**
 * Every partner's swaps in `statuses`, and the swaps holding a payment for an operator (a `deposits` entry in
 * review, whatever their status): in the order of `statuses` (the others after), then longest unchanged
 * first; at most `limit`.
 */
export async function listSwapsForOperator(db: Knex, statuses: readonly SwapStatus[], limit: number): Promise<SwapRecord[]> {
  const rows = await db('swaps')
    .whereIn('status', statuses)
    .orWhereRaw(`deposits @> '[{"status": "review"}]'::jsonb`)
    .orderByRaw('array_position(?::text[], status) nulls last, updated_at, id', [statuses])
    .limit(limit);
  return rows.map((row) => fromRow<SwapRecord>(row));
}

/** Which page of a partner's swaps to read: newest first, after the (createdAt, id) position `after`. */
export interface SwapPageLookup {
  limit: number;
  status?: SwapStatus;
  after?: { createdAt: Date; id: string };
}

// The pages of a group of lookups (`i` their positions), each read as its own query would be: a scan of the
// partner's (or the partner's and status's) index from the position, as many rows as the page. With a status
// and without, they are two statements, each with the plan of its index.
const PAGES = (withStatus: boolean) => `
  select l.i as "l:i", s.*
    from unnest(?::int[], ?::uuid[], ?::timestamptz[], ?::uuid[], ?::int[]${withStatus ? ', ?::text[]' : ''})
      as l(i, partner_id, after_created_at, after_id, page${withStatus ? ', status' : ''})
   cross join lateral (
     select * from swaps
      where swaps.partner_id = l.partner_id ${withStatus ? 'and swaps.status = l.status' : ''}
        and (swaps.created_at, swaps.id) < (l.after_created_at, l.after_id)
      order by swaps.created_at desc, swaps.id desc
      limit l.page) s
   order by l.i, s.created_at desc, s.id desc`;

/**
 * Returns `read(partnerId, lookup)`: a page of the partner's swaps. The pages asked for while a read runs are
 * read together by the next (group commit, store/group-commit.ts), in one statement per kind (with a status
 * filter or without): a list is a partner's commonest poll after a swap's status, and a statement of its own
 * per request cost it half its throughput on the embedded database. A page asked for more than once in a
 * group (same partner, status, position and size) is read once, and its records are shared by the requests.
 */
export function createSwapPageReader(db: Knex): (partnerId: string, lookup: SwapPageLookup) => Promise<SwapRecord[]> {
  const reader = (withStatus: boolean) =>
    groupReadRows(db, PAGES(withStatus), {
      keyOf: pageKey,
      params: (lookups: Array<SwapPageLookup & { partnerId: string }>) => {
        const after = lookups.map((l) => l.after ?? BEFORE_ALL);
        return [
          lookups.map((l) => l.partnerId),
          after.map((a) => a.createdAt),
          after.map((a) => a.id),
          lookups.map((l) => l.limit),
          ...(withStatus ? [lookups.map((l) => l.status)] : []),
        ];
      },
      toRecord: (row) => fromRow<SwapRecord>(row),
    });
  const plain = reader(false);
  const filtered = reader(true);
  return (partnerId, lookup) => (lookup.status ? filtered : plain)({ ...lookup, partnerId });
}

/**
 * The swaps of `partnerId` among `ids` (in `status`, when given), in the order of `ids`, each once; an id of
 * another partner's swap or of no swap is left out.
 */
export async function listPartnerSwapsByIds(db: Knex, partnerId: string, ids: string[], status?: SwapStatus): Promise<SwapRecord[]> {
  const wanted = [...new Set(ids.map((id) => id.toLowerCase()))];
  const query = db('swaps').where({ partner_id: partnerId }).whereIn('id', wanted);
  if (status) query.andWhere({ status });
  const found = new Map(((await query) as Array<Record<string, unknown>>).map((row) => [row.id as string, fromRow<SwapRecord>(row)]));
  return wanted.flatMap((id) => found.get(id) ?? []);
}

/** Appends a timeline entry. */
export async function insertSwapEvent(trx: Knex.Transaction, event: Omit<SwapEventRecord, 'seq'>): Promise<SwapEventRecord> {
  const [row] = await trx('swap_events').insert(toColumns(event)).returning('*');
  return fromRow<SwapEventRecord>(row);
}

/** The position (seq) of timeline entry `eventId` of `swapId`, if it is one of that swap's entries. */
export async function findSwapEventSeq(db: Knex, swapId: string, eventId: string): Promise<string | undefined> {
  if (!isUuid(eventId)) return undefined;
  const row = await db('swap_events').where({ swap_id: swapId, id: eventId }).first('seq');
  return row ? String(row.seq) : undefined;
}

/** Queues a webhook message for the partner in the caller's transaction. */
export async function insertOutboxMessage(trx: Knex.Transaction, partnerId: string, type: string, payload: unknown): Promise<void> {
  await trx('webhook_outbox').insert({ partner_id: partnerId, type, payload: JSON.stringify(payload) });
}

// A swap's fields as columns; its deposits (jsonb) as JSON text, which the driver would send as an array.
function swapColumns(fields: Partial<SwapRecord>): Record<string, unknown> {
  const columns = toColumns(fields);
  if (fields.deposits !== undefined) columns.deposits = JSON.stringify(fields.deposits);
  return columns;
}

/** The status of swap `id` (undefined: no such swap). */
export async function readSwapStatus(db: Knex, id: string): Promise<SwapRecord['status'] | undefined> {
  const row = await db('swaps').where({ id }).first('status');
  return row?.status;
}
