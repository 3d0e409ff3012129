/**
 * The only place a swap changes: a status transition (checked against the table of docs/architecture.md#lifecycle) or an order
 * change without one (an allocated deposit address), and the creation of a permanent-route order. Each writes
 * the swap, its timeline entry (for a transition) and a `swap.updated` webhook outbox row together (in one
 * statement, in the caller's transaction on its locked swap; for a route order also a `permanent_deposit.updated`
 * row per deposit it converts), so all of them commit or none, and announces the change to the stream hubs
 * once it commits. One change runs without a lock, as a statement that applies only to swaps unchanged
 * since they were read: changeSwapOrdersIfUnchanged, for new swaps' deposit addresses.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { attributesOf, checkTransition, type SwapStatus } from '../domain/swap-lifecycle.js';
import { isRetryable, toSwapBody, toSwapEventBody, type SwapEventRecord, type SwapRecord } from '../domain/swap-view.js';
import { countSwapTransition } from '../metrics.js';
import { announceOrderDeposits, attachDeposits } from './route-deposits.js';
import { announceSwapChange } from './swap-notifications.js';
import {
  insertOutboxMessage,
  insertSwap,
  insertSwapEvent,
  replaceOutboxPayload,
  writeSwapChange,
  writeSwapChangesIfUnchanged,
} from './swaps.js';

/** What a change produced: the swap as it is now and the timeline entry written, if any. */
export interface SwapChange {
  swap: SwapRecord;
  event: SwapEventRecord | null;
}

/**
 * Moves `swap` (locked by the caller) to `to`, applying `fields`, and records the timeline entry and the
 * outbox row. Throws IllegalTransitionError for a move outside the table.
 */
export async function transitionSwap(
  trx: Knex.Transaction,
  swap: SwapRecord,
  to: SwapStatus,
  fields: Partial<SwapRecord>,
  at: Date,
  note: string | null = null,
): Promise<SwapChange> {
  checkTransition(swap.status, to);
  const change = await writeChange(trx, swap, { ...fields, status: to }, at, true, note);
  countSwapTransition(trx, to);
  return change;
}

/**
 * Changes order fields without a status change. With `withEvent` the swap's current status is recorded
 * again in the timeline (used once the deposit address exists: from then on the customer can pay).
 */
export async function changeSwapOrder(
  trx: Knex.Transaction,
  swap: SwapRecord,
  fields: Partial<SwapRecord>,
  at: Date,
  options: { withEvent?: boolean } = {},
): Promise<SwapChange> {
  if ('status' in fields) throw new Error('changeSwapOrder does not change the status; use transitionSwap');
  return writeChange(trx, swap, fields, at, options.withEvent === true);
}

/**
 * changeSwapOrder for swaps read without a lock (distinct, the same fields changed on each), in one statement
 * (no lock is held before it): each change is made only if its swap is still as read (its `updatedAt`), and its answer is
 * undefined when it was not (the caller then takes the locked path). One answer per change, in order. For
 * one-time swaps' own fields: a route order's deposits are not announced here. `db` may be a transaction
 * (opened through store/after-commit.ts transaction), to queue jobs with the changes.
 */
export async function changeSwapOrdersIfUnchanged(
  db: Knex,
  changes: Array<{ swap: SwapRecord; fields: Partial<SwapRecord>; at: Date; withEvent: boolean }>,
): Promise<Array<SwapChange | undefined>> {
  const built = changes.map(({ swap, fields, at, withEvent }) => {
    if ('status' in fields) throw new Error('changeSwapOrdersIfUnchanged does not change the status; use transitionSwap');
    if (swap.routeId !== null) throw new Error('a route order changes under its lock (its deposits change with it)');
    return buildChange(swap, fields, at, withEvent);
  });
  const written = await writeSwapChangesIfUnchanged(
    db,
    built.map((b, i) => ({
      id: changes[i].swap.id,
      unchangedSince: changes[i].swap.updatedAt,
      fields: b.fields,
      event: b.entry,
      message: { type: 'swap.updated', payload: b.expectedBody },
    })),
  );
  return Promise.all(written.map((w, i) => w && settle(db, w, built[i].entry, built[i].expectedBody)));
}

// What a change writes, built from the record it should produce: the fields, the timeline entry and the message.
function buildChange(swap: SwapRecord, fields: Partial<SwapRecord>, at: Date, withEvent: boolean, note: string | null = null) {
  const expected: SwapRecord = { ...swap, ...fields, updatedAt: at };
  const entry = withEvent ? eventOf(expected, at, note) : null;
  return { fields: { ...fields, updatedAt: at }, entry, expectedBody: JSON.stringify(swapMessage(expected, entry)) };
}

// After a change is written: the message rewritten from the stored row if it differs, the route order's
// deposits and the change announced.
async function settle(
  db: Knex,
  written: { swap: SwapRecord; eventSeq: string | null; messageId: string; announced: boolean },
  entry: Omit<SwapEventRecord, 'seq'> | null,
  expectedBody: string,
): Promise<SwapChange> {
  const updated = written.swap;
  const event = entry && { ...entry, seq: written.eventSeq! };
  const message = swapMessage(updated, event);
  if (JSON.stringify(message) !== expectedBody) await replaceOutboxPayload(db, written.messageId, message);
  if (updated.routeId !== null) await announceOrderDeposits(db as Knex.Transaction, updated);
  if (!written.announced) await announceSwapChange(db, updated.id);
  return { swap: updated, event };
}

// Writes a change in one statement, with the timeline entry and the message built from the record the
// change should produce. The stored row is the truth: should the database have written a value otherwise
// than it was given (a numeric in another notation), the message is rewritten from the stored row, so a
// webhook never says other than a read of the swap. (Without a transaction, in changeSwapOrdersIfUnchanged,
// that rewrite is a statement of its own; the unlocked path writes only text, which is stored as given.)
async function writeChange(
  trx: Knex.Transaction,
  swap: SwapRecord,
  fields: Partial<SwapRecord>,
  at: Date,
  withEvent: boolean,
  note: string | null = null,
): Promise<SwapChange> {
  const { fields: changed, entry, expectedBody } = buildChange(swap, fields, at, withEvent, note);
  const written = await writeSwapChange(trx, swap.id, {
    fields: changed,
    event: entry,
    message: { type: 'swap.updated', payload: expectedBody },
  });
  return settle(trx, written, entry, expectedBody);
}

const swapMessage = (swap: SwapRecord, event: Omit<SwapEventRecord, 'seq'> | null) => ({
  order: toSwapBody(swap),
  event: event ? toSwapEventBody(event as SwapEventRecord) : null,
});

/**
 * Creates a permanent-route order for confirmed deposits, in the status they were in (`confirming` for a
 * deposit converted as soon as it confirmed, `accumulating` for a bucket that reached the minimum), with
 * its first timeline entry; the deposits join it. The caller then moves it on with transitionSwap.
 */
export async function createRouteOrder(
  trx: Knex.Transaction,
  order: Parameters<typeof insertSwap>[1] & { status: 'confirming' | 'accumulating' },
  depositIds: string[],
  at: Date,
): Promise<SwapChange> {
  const created = await insertSwap(trx, { ...order, mode: 'permanent' });
  await attachDeposits(trx, depositIds, created.id, at);
  const event = await appendEvent(trx, created, at);
  await insertOutboxMessage(trx, created.partnerId, 'swap.updated', { order: toSwapBody(created), event: toSwapEventBody(event) });
  await announceOrderDeposits(trx, created);
  await announceSwapChange(trx, created.id);
  return { swap: created, event };
}

async function appendEvent(trx: Knex.Transaction, swap: SwapRecord, at: Date): Promise<SwapEventRecord> {
  return insertSwapEvent(trx, eventOf(swap, at));
}

// The timeline entry of `swap` as it is now.
function eventOf(swap: SwapRecord, at: Date, note: string | null = null): Omit<SwapEventRecord, 'seq'> {
  const attributes = attributesOf(swap.status, swap.depositAddress !== null);
  const confirming = swap.status === 'confirming';
  return {
    id: randomUUID(),
    swapId: swap.id,
    status: swap.status,
    ...attributes,
    retryable: isRetryable(swap.status, swap.deposits),
    confirmationCount: confirming ? swap.confirmationCount : null,
    requiredConfirmations: confirming || swap.status === 'waiting' ? swap.requiredConfirmations : null,
    sourceTxHash: swap.sourceTxHash,
    settlementTxHash: swap.settlementTxHash,
    refundTxHash: swap.refundTxHash,
    note,
    occurredAt: at,
  };
}
