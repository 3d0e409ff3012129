/**
 * Partner webhooks: the configuration (URL, sealed secret, on/off), the outbox rows waiting for dispatch,
 * and the record of every delivery attempt.
 */
import type { Knex } from 'knex';
import { columnArrays, groupCommit, groupReadByUuid, groupReadRows, unnestInsert } from './group-commit.js';
import { isUuid, toColumnName } from './rows.js';

/** A partner's webhook as stored; the secret stays sealed here. */
export interface WebhookRecord {
  partnerId: string;
  url: string;
  enabled: boolean;
  secretSealed: string;
  secretHint: string;
  /** The event types delivered; null: every type. */
  eventTypes: string[] | null;
  updatedAt: Date;
}

/** A message of the outbox: its id is the webhook-id of every attempt. */
export interface OutboxMessage {
  seq: string;
  id: string;
  partnerId: string;
  type: string;
  payload: unknown;
  createdAt: Date;
}

/** One recorded delivery attempt. */
export interface AttemptRecord {
  seq: string;
  id: string;
  partnerId: string;
  messageId: string;
  type: string;
  attempt: number;
  url: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  succeeded: boolean;
  attemptedAt: Date;
  nextAttemptAt: Date | null;
}

/** The owner a partner's webhook secret is sealed for (the SecretBox's associated data). */
export const webhookSecretOwner = (partnerId: string): string => `webhook-secret:${partnerId}`;

const toWebhook = (row: Record<string, unknown>): WebhookRecord => ({
  partnerId: row.partner_id as string,
  url: row.url as string,
  enabled: row.enabled as boolean,
  secretSealed: row.secret_sealed as string,
  secretHint: row.secret_hint as string,
  eventTypes: (row.event_types as string[] | null | undefined) ?? null,
  updatedAt: row.updated_at as Date,
});

const toAttempt = (row: Record<string, unknown>): AttemptRecord => ({
  seq: String(row.seq),
  id: row.id as string,
  partnerId: row.partner_id as string,
  messageId: row.message_id as string,
  type: row.type as string,
  attempt: row.attempt as number,
  url: row.url as string,
  statusCode: (row.status_code as number | null) ?? null,
  error: (row.error as string | null) ?? null,
  durationMs: row.duration_ms as number,
  succeeded: row.succeeded as boolean,
  attemptedAt: row.attempted_at as Date,
  nextAttemptAt: (row.next_attempt_at as Date | null) ?? null,
});

/** The partner's webhook, if one was ever set. */
export async function findWebhook(db: Knex, partnerId: string): Promise<WebhookRecord | undefined> {
  const row = await db('partner_webhooks').where({ partner_id: partnerId }).first();
  return row ? toWebhook(row) : undefined;
}

/** findWebhook for requests that come in numbers (test deliveries), read in groups. */
export function createWebhookReader(db: Knex): (partnerId: string) => Promise<WebhookRecord | undefined> {
  return groupReadByUuid(db, 'partner_webhooks', 'partner_id', toWebhook);
}

/**
 * Sets the URL, switch and (when given, null for every type) event filter of the partner's webhook, keeping
 * its secret; undefined when it has none yet. A set that changes none of them writes nothing and keeps `updatedAt`: the row is only read, so identical sets do not
 * queue on its lock, each waiting for the last one's commit.
 */
export async function updateWebhook(
  db: Knex,
  partnerId: string,
  fields: { url: string; enabled: boolean; eventTypes?: string[] | null },
): Promise<WebhookRecord | undefined> {
  // One statement, planned once per connection (pss_set_webhook, migrations 0025 and 0032).
  const setTypes = fields.eventTypes !== undefined;
  const {
    rows: [row],
  } = await db.raw(`select * from pss_set_webhook(?::uuid, ?::text, ?::boolean, ?::boolean, ?::text[])`, [
    partnerId,
    fields.url,
    fields.enabled,
    setTypes,
    setTypes ? fields.eventTypes : null,
  ]);
  // Unchanged, the row is as the statement's snapshot saw it; a set committed since can only have been to
  // these same values (the update re-checks the newest row), so they are what the answer shows.
  if (!row) return undefined;
  const webhook = { ...toWebhook(row), url: fields.url, enabled: fields.enabled };
  return setTypes ? { ...webhook, eventTypes: fields.eventTypes ?? null } : webhook;
}

/**
 * Sets the partner's webhook. `secret` (sealed, with its hint) replaces the stored one when given; it must be
 * given on the first set. Returns the webhook as stored.
 */
export async function upsertWebhook(
  db: Knex,
  partnerId: string,
  fields: { url: string; enabled: boolean; eventTypes?: string[] | null; secret?: { sealed: string; hint: string } },
): Promise<WebhookRecord> {
  const setTypes = fields.eventTypes !== undefined;
  const values = {
    partner_id: partnerId,
    url: fields.url,
    enabled: fields.enabled,
    updated_at: db.fn.now(),
    ...(setTypes ? { event_types: fields.eventTypes ?? null } : {}),
    ...(fields.secret ? { secret_sealed: fields.secret.sealed, secret_hint: fields.secret.hint } : {}),
  };
  const merged = [
    'url',
    'enabled',
    'updated_at',
    ...(setTypes ? ['event_types'] : []),
    ...(fields.secret ? ['secret_sealed', 'secret_hint'] : []),
  ];
  if (!fields.secret) {
    const updated = await updateWebhook(db, partnerId, fields);
    if (!updated) throw new Error('the first webhook set of a partner needs a secret');
    return updated;
  }
  const [row] = await db('partner_webhooks').insert(values).onConflict('partner_id').merge(merged).returning('*');
  return toWebhook(row);
}

/**
 * Removes the partner's webhook, its URL and sealed secret with it. Messages already in the outbox stay (they
 * are the record of what happened) and are then delivered nowhere, as for a partner that never set one.
 */
export async function deleteWebhook(db: Knex, partnerId: string): Promise<void> {
  await db('partner_webhooks').where({ partner_id: partnerId }).delete();
}

/**
 * Claims up to `limit` outbox rows not dispatched yet, oldest first, locked for the caller's transaction
 * (rows another dispatcher holds are skipped), with whether they are delivered: their partner's webhook is
 * on and takes their event type. A partner in
 * `paced` gets at most its number of rows (0: none; its rows stay for a later claim).
 */
export async function claimUndispatched(
  trx: Knex.Transaction,
  limit: number,
  paced: ReadonlyMap<string, number> = new Map(),
): Promise<Array<{ seq: string; id: string; partnerId: string; deliver: boolean }>> {
  const claim = (partnerId?: string, count = limit) => {
    const query = trx('webhook_outbox').whereNull('dispatched_at');
    if (partnerId) query.where({ partner_id: partnerId });
    else if (paced.size > 0) query.whereNotIn('partner_id', [...paced.keys()]);
    return query.orderBy('seq').limit(count).forUpdate().skipLocked().select('seq', 'id', 'partner_id', 'type');
  };
  const rows = await claim();
  for (const [partnerId, count] of paced) if (count > 0) rows.push(...(await claim(partnerId, count)));
  rows.sort((x, y) => Number(x.seq) - Number(y.seq));
  if (rows.length === 0) return [];
  // Each enabled webhook with the event types it takes (null: every type).
  const enabled = new Map<string, string[] | null>(
    (
      (await trx('partner_webhooks')
        .whereIn('partner_id', [...new Set(rows.map((row) => row.partner_id as string))])
        .where({ enabled: true })
        .select('partner_id', 'event_types')) as Array<{ partner_id: string; event_types: string[] | null }>
    ).map((w) => [w.partner_id, w.event_types]),
  );
  const delivered = (partnerId: string, type: string) => {
    if (!enabled.has(partnerId)) return false;
    const types = enabled.get(partnerId);
    return types === null || types === undefined || types.includes(type);
  };
  return rows.map((row) => ({ seq: String(row.seq), id: row.id, partnerId: row.partner_id, deliver: delivered(row.partner_id, row.type) }));
}

/** Marks outbox rows dispatched (their delivery jobs are queued in the same transaction). */
export async function markDispatched(trx: Knex.Transaction, seqs: string[], at: Date): Promise<void> {
  if (seqs.length > 0) await trx('webhook_outbox').whereIn('seq', seqs).update({ dispatched_at: at });
}

/** The outbox message `id`. */
export async function findOutboxMessage(db: Knex, id: string): Promise<OutboxMessage | undefined> {
  if (!isUuid(id)) return undefined;
  const row = await db('webhook_outbox').where({ id }).first('seq', 'id', 'partner_id', 'type', 'payload', 'created_at');
  return row ? toOutboxMessage(row) : undefined;
}

function toOutboxMessage(row: Record<string, unknown>): OutboxMessage {
  // jsonb comes back parsed from PostgreSQL; keep a string payload readable too.
  const payload = typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload;
  return {
    seq: String(row.seq),
    id: row.id as string,
    partnerId: row.partner_id as string,
    type: row.type as string,
    payload,
    createdAt: row.created_at as Date,
  };
}

/** What a delivery attempt needs: whether it is recorded already, its message, and the partner's webhook. */
export interface DeliveryContext {
  recorded: boolean;
  message: OutboxMessage;
  /** undefined when the partner has no webhook (any more). */
  webhook: WebhookRecord | undefined;
}

// One row per lookup of the group that names an existing message, told apart by its position `i`.
const READ_DELIVERY_CONTEXTS = `
  select l.i as "l:i",
         exists (select from webhook_attempts a where a.message_id = o.id::text and a.attempt = l.attempt) as recorded,
         o.seq, o.id, o.partner_id, o.type, o.payload, o.created_at,
         w.partner_id as webhook_partner_id, w.url as webhook_url, w.enabled as webhook_enabled,
         w.secret_sealed as webhook_secret_sealed, w.secret_hint as webhook_secret_hint, w.updated_at as webhook_updated_at
    from unnest(?::int[], ?::uuid[], ?::int[]) as l(i, message_id, attempt)
    join webhook_outbox o on o.id = l.message_id
    left join partner_webhooks w on w.partner_id = o.partner_id`;

/**
 * Reads what delivery attempts need: for attempt `attempt` of message `messageId`, whether it is recorded,
 * the message and the partner's webhook (undefined when there is no such message). The attempts asked for
 * while a read runs (the deliveries of a batch) are read together by the next, in one statement.
 */
export function createDeliveryContextReader(db: Knex): (messageId: string, attempt: number) => Promise<DeliveryContext | undefined> {
  const read = groupCommit(async (lookups: Array<{ messageId: string; attempt: number }>) => {
    const { rows } = await db.raw(READ_DELIVERY_CONTEXTS, [
      lookups.map((_, i) => i),
      lookups.map((l) => l.messageId),
      lookups.map((l) => l.attempt),
    ]);
    const contexts: Array<DeliveryContext | undefined> = lookups.map(() => undefined);
    for (const row of rows as Array<Record<string, unknown>>) {
      const webhook = Object.fromEntries(
        Object.entries(row)
          .filter(([column]) => column.startsWith('webhook_'))
          .map(([column, value]) => [column.slice('webhook_'.length), value]),
      );
      contexts[row['l:i'] as number] = {
        recorded: row.recorded as boolean,
        message: toOutboxMessage(row),
        webhook: webhook.partner_id === null ? undefined : toWebhook(webhook),
      };
    }
    return contexts;
  });
  return async (messageId, attempt) => (isUuid(messageId) ? read({ messageId, attempt }) : undefined);
}

/** The highest attempt number recorded for message `messageId` (0 when none is). */
export async function lastAttemptNumber(db: Knex, messageId: string): Promise<number> {
  const row = await db('webhook_attempts').where({ message_id: messageId }).max('attempt as last').first();
  return Number(row?.last ?? 0);
}

/** An attempt to record: the database makes its seq and id. */
export type NewAttempt = Omit<AttemptRecord, 'seq' | 'id'>;

const NEW_ATTEMPT_TYPES: Record<keyof NewAttempt, string> = {
  partnerId: 'uuid',
  messageId: 'text',
  type: 'text',
  attempt: 'integer',
  url: 'text',
  statusCode: 'integer',
  error: 'text',
  durationMs: 'integer',
  succeeded: 'boolean',
  attemptedAt: 'timestamptz',
  nextAttemptAt: 'timestamptz',
};
const NEW_ATTEMPT_FIELDS = Object.keys(NEW_ATTEMPT_TYPES) as Array<keyof NewAttempt>;
const INSERT_ATTEMPTS = `${unnestInsert(
  'webhook_attempts',
  Object.fromEntries(NEW_ATTEMPT_FIELDS.map((f) => [toColumnName(f), NEW_ATTEMPT_TYPES[f]])),
)} on conflict (message_id, attempt) do nothing returning *`;

/**
 * insertAttempt outside a transaction, for attempts recorded in numbers: the ones recorded while an insert
 * runs are stored together by the next (group commit). Resolves as insertAttempt does: undefined when that
 * attempt of the message was recorded already, also when it came twice in one group (the first is stored).
 */
export function createAttemptWriter(db: Knex): (attempt: NewAttempt) => Promise<AttemptRecord | undefined> {
  const keyOf = (messageId: string, attempt: number) => `${attempt}:${messageId}`;
  return groupCommit(async (attempts: NewAttempt[]) => {
    const { rows } = await db.raw(INSERT_ATTEMPTS, columnArrays(attempts, NEW_ATTEMPT_FIELDS));
    const stored = new Map(
      (rows as Array<Record<string, unknown>>).map((row) => [keyOf(row.message_id as string, row.attempt as number), toAttempt(row)]),
    );
    return attempts.map((a) => {
      const key = keyOf(a.messageId, a.attempt);
      const record = stored.get(key);
      stored.delete(key);
      return record;
    });
  });
}

/** Records an attempt; returns undefined (and changes nothing) when that attempt of the message was already recorded. */
export async function insertAttempt(db: Knex, attempt: NewAttempt): Promise<AttemptRecord | undefined> {
  const rows = await db('webhook_attempts')
    .insert({
      partner_id: attempt.partnerId,
      message_id: attempt.messageId,
      type: attempt.type,
      attempt: attempt.attempt,
      url: attempt.url,
      status_code: attempt.statusCode,
      error: attempt.error,
      duration_ms: attempt.durationMs,
      succeeded: attempt.succeeded,
      attempted_at: attempt.attemptedAt,
      next_attempt_at: attempt.nextAttemptAt,
    })
    .onConflict(['message_id', 'attempt'])
    .ignore()
    .returning('*');
  return rows[0] ? toAttempt(rows[0]) : undefined;
}

/** The attempt `id` of the partner. */
export async function findAttempt(db: Knex, partnerId: string, id: string): Promise<AttemptRecord | undefined> {
  const row = await db('webhook_attempts').where({ partner_id: partnerId, id }).first();
  return row ? toAttempt(row) : undefined;
}

/** Which page of a partner's delivery attempts to read. */
export interface AttemptPageLookup {
  limit: number;
  /** The position (attempt time, record order) of the last attempt of the previous page. */
  before?: { attemptedAt: Date; seq: string };
  /** Only this message's attempts. */
  messageId?: string;
}

// The position before every attempt: a first page reads from it, so first and later pages are one statement.
const BEFORE_ALL_ATTEMPTS = { attemptedAt: 'infinity', seq: '9223372036854775807' };

// The pages of a group of lookups (`l.i` their positions), each read as its own query would be: the partner's
// attempts (of one message, or all) newest first from the position, on webhook_attempts'
// (partner_id, attempted_at, seq) index, as many as the page. With a message and without, they are two
// statements, each with a plan of its own.
const ATTEMPT_PAGES = (byMessage: boolean) => `
  select l.i as "l:i", a.*
    from unnest(?::int[], ?::uuid[], ?::timestamptz[], ?::bigint[], ?::int[]${byMessage ? ', ?::text[]' : ''})
      as l(i, partner_id, before_at, before_seq, page${byMessage ? ', message_id' : ''})
   cross join lateral (
     select * from webhook_attempts w
      where w.partner_id = l.partner_id ${byMessage ? 'and w.message_id = l.message_id' : ''}
        and (w.attempted_at, w.seq) < (l.before_at, l.before_seq)
      order by w.attempted_at desc, w.seq desc
      limit l.page) a
   order by l.i, a.attempted_at desc, a.seq desc`;

/**
 * Returns `read(partnerId, lookup)`: a page of the partner's attempts, newest first (by attempt time, then
 * by record order), after the position `before`; only message `messageId`'s when given. The pages asked for
 * while a read runs are read together by the next, in one statement per kind, and a page asked for twice in a
 * group once (group-commit.ts); each read starts after its requests arrived.
 */
export function createAttemptPageReader(db: Knex): (partnerId: string, lookup: AttemptPageLookup) => Promise<AttemptRecord[]> {
  const keyOf = (l: AttemptPageLookup & { partnerId: string }) =>
    `${l.partnerId} ${l.limit} ${l.messageId ?? ''} ${l.before ? `${l.before.attemptedAt.toISOString()} ${l.before.seq}` : ''}`;
  const reader = (byMessage: boolean) =>
    groupReadRows(db, ATTEMPT_PAGES(byMessage), {
      keyOf,
      params: (lookups: Array<AttemptPageLookup & { partnerId: string }>) => {
        const before = lookups.map((l) => l.before ?? BEFORE_ALL_ATTEMPTS);
        return [
          lookups.map((l) => l.partnerId),
          before.map((b) => b.attemptedAt),
          before.map((b) => b.seq),
          lookups.map((l) => l.limit),
          ...(byMessage ? [lookups.map((l) => l.messageId)] : []),
        ];
      },
      toRecord: toAttempt,
    });
  const all = reader(false);
  const ofMessage = reader(true);
  return (partnerId, lookup) => (lookup.messageId ? ofMessage : all)({ ...lookup, partnerId });
}

/**
 * The partner's webhook, read with the partner's row locked for the caller's transaction, so two concurrent
 * first sets cannot both generate a secret.
 */
export async function lockWebhook(trx: Knex.Transaction, partnerId: string): Promise<WebhookRecord | undefined> {
  await trx('partners').where({ id: partnerId }).forUpdate().first('id');
  return findWebhook(trx, partnerId);
}
