/**
 * The payout outbox (docs/architecture.md#production): a payout's intent is committed by the step that decides to pay (amount,
 * asset, address, memo, key); the sender job then commits the signed bytes and their hash before it
 * broadcasts them, and marks the outcome. Each move is a conditional update on the status it expects, so
 * two senders of one payout never both sign it.
 */
import { redactUrls } from '../adapters/boundary.js';
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';

/** A payout in the outbox. */
export interface PayoutRecord {
  id: string;
  idempotencyKey: string;
  /** The swap it pays for; null for a cold transfer (purpose `cold`), which pays for none. */
  swapId: string | null;
  /** `cold`: a hot wallet's surplus going to its network's cold address (jobs/cold-transfers.ts). */
  purpose: 'payout' | 'refund' | 'extra_refund' | 'excess_refund' | 'cold';
  network: string;
  asset: string;
  address: string;
  memo: string | null;
  amount: string;
  /**
   * pending (intent) -> signed (the first version's hash and bytes committed) -> broadcast -> mined (a block
   * holds a version: confirmed by its confirmations). The other ends: failed (proved never taken: refused, or
   * never buildable; held for an operator), review (held after an ambiguous broadcast), reverted (mined and
   * paid nothing), cancelled (its EVM nonce went to our zero-value self-transfer: nothing paid).
   */
  status: 'pending' | 'signed' | 'broadcast' | 'confirmed' | 'failed' | 'review' | 'reverted' | 'cancelled';
  /** The version a block holds, else the newest version. */
  txHash: string | null;
  signedBytes: string | null;
  blockHeight: number | null;
  /** From the block and the network's tip in the ledger; 0 while unmined. */
  confirmations: number;
  attempts: number;
  lastError: string | null;
  /** When the chain first accepted its broadcast; null while it never has. */
  acceptedAt: Date | null;
  /** Why it waits for an operator (failed, review, reverted, cancelled), in words for the ops CLI. */
  heldReason: string | null;
  /** Not before this is it built or broadcast again (a refusal that can pass, backing off). */
  retryAt: Date | null;
  /** Refusals that could pass, and builds that failed, so far. */
  refusals: number;
  /** Its newest version offers the network's fee cap: it waits there. */
  atFeeCap: boolean;
  /** The batch whose transaction pays it (payout_batches), else null: it goes out alone. */
  batchId: string | null;
  /** It goes out alone from now on: a batch that held it was refused for good. */
  solo: boolean;
  createdAt: Date;
  updatedAt: Date;
}

const SELECT = `p.id, p.idempotency_key, p.swap_id, p.purpose, p.network, p.asset, p.address, p.memo, p.amount::text as amount,
  p.status, p.tx_hash, p.signed_bytes, p.block_height::text as block_height, p.attempts, p.last_error, p.accepted_at, p.created_at, p.updated_at,
  p.held_reason, p.retry_at, p.refusals, p.at_fee_cap, p.batch_id, p.solo,
  greatest(0, coalesce(c.tip_height - p.block_height + 1, 0))::int as confirmations`;

const toPayout = (row: Record<string, unknown>): PayoutRecord => ({
  id: row.id as string,
  idempotencyKey: row.idempotency_key as string,
  swapId: (row.swap_id as string | null) ?? null,
  purpose: row.purpose as PayoutRecord['purpose'],
  network: row.network as string,
  asset: row.asset as string,
  address: row.address as string,
  memo: row.memo as string | null,
  amount: row.amount as string,
  status: row.status as PayoutRecord['status'],
  txHash: row.tx_hash as string | null,
  signedBytes: row.signed_bytes as string | null,
  blockHeight: row.block_height === null ? null : Number(row.block_height),
  confirmations: row.confirmations as number,
  attempts: row.attempts as number,
  lastError: row.last_error as string | null,
  acceptedAt: row.accepted_at as Date | null,
  heldReason: row.held_reason as string | null,
  retryAt: row.retry_at as Date | null,
  refusals: row.refusals as number,
  atFeeCap: row.at_fee_cap as boolean,
  batchId: (row.batch_id as string | null) ?? null,
  solo: row.solo === true,
  createdAt: row.created_at as Date,
  updatedAt: row.updated_at as Date,
});

/** A payout to commit. */
export interface PayoutIntentRow {
  idempotencyKey: string;
  swapId: string | null;
  purpose: PayoutRecord['purpose'];
  network: string;
  asset: string;
  address: string;
  memo: string | null;
  amount: string;
}

/** Commits intents (an intent whose key exists is kept as it is: the amount is fixed once); returns their ids. */
export async function insertPayoutIntents(trx: Knex.Transaction, intents: PayoutIntentRow[], at: Date): Promise<string[]> {
  if (intents.length === 0) return [];
  await trx('payouts')
    .insert(
      intents.map((i) => ({
        id: randomUUID(),
        idempotency_key: i.idempotencyKey,
        swap_id: i.swapId,
        purpose: i.purpose,
        network: i.network,
        asset: i.asset,
        address: i.address,
        memo: i.memo,
        amount: i.amount,
        status: 'pending',
        created_at: at,
        updated_at: at,
      })),
    )
    .onConflict('idempotency_key')
    .ignore();
  const rows = await trx('payouts')
    .select('id')
    .whereIn(
      'idempotency_key',
      intents.map((i) => i.idempotencyKey),
    );
  return rows.map((r: { id: string }) => r.id);
}

/** A payout for a swap (every purpose but `cold`). */
export type SwapPayoutRecord = PayoutRecord & { swapId: string; purpose: Exclude<PayoutRecord['purpose'], 'cold'> };

/** The payouts of a swap, oldest first. */
export async function listSwapPayouts(db: Knex, swapId: string): Promise<SwapPayoutRecord[]> {
  const { rows } = await db.raw(
    `select ${SELECT} from payouts p left join chain_cursors c on c.network = p.network where p.swap_id = ? order by p.created_at, p.idempotency_key`,
    [swapId],
  );
  return (rows as Array<Record<string, unknown>>).map(toPayout) as SwapPayoutRecord[];
}

/** One payout. */
export async function findPayout(db: Knex, id: string): Promise<PayoutRecord | undefined> {
  const { rows } = await db.raw(`select ${SELECT} from payouts p left join chain_cursors c on c.network = p.network where p.id = ?`, [id]);
  return rows.length > 0 ? toPayout(rows[0]) : undefined;
}

/** Whether swap `swapId` has a payout its sender has not broadcast yet. */
export async function hasUnsentPayouts(db: Knex, swapId: string): Promise<boolean> {
  return (await db('payouts').where({ swap_id: swapId }).whereIn('status', ['pending', 'signed']).first('id')) !== undefined;
}

/**
 * The payouts a sender still has to move (signed but not broadcast, or not yet signed); with `unchangedSince`, only those unchanged since then.
 * Of a batch's payouts, one stands for the batch (its send moves them all): one job, not one per payout racing the others.
 */
export async function listOpenPayoutIds(db: Knex, unchangedSince?: Date): Promise<string[]> {
  const query = db('payouts').select('id', 'batch_id').whereIn('status', ['pending', 'signed']).orderBy(['created_at', 'id']);
  if (unchangedSince) {
    // A payout backing off after a refusal that can pass is due when its retry time has come.
    query.andWhere((q) => q.where('updated_at', '<', unchangedSince).orWhere('retry_at', '<=', new Date()));
  }
  const rows = (await query) as Array<{ id: string; batch_id: string | null }>;
  const batches = new Set<string>();
  return rows.filter((r) => r.batch_id === null || (!batches.has(r.batch_id) && batches.add(r.batch_id))).map((r) => r.id);
}

/** The keys of the extra payments' refunds of `swapIds` held for review (after an ambiguous broadcast). */
export async function listHeldRefundKeys(db: Knex, swapIds: string[]): Promise<string[]> {
  if (swapIds.length === 0) return [];
  return db('payouts').whereIn('swap_id', swapIds).where({ purpose: 'extra_refund', status: 'review' }).pluck('idempotency_key');
}

/**
 * The payouts on `network` broadcast before `broadcastBefore` that no block holds yet (a replacement or a
 * rebroadcast may be due), and those whose newest version was stored and never broadcast (a crash between).
 * A batch is followed as one: one of its payouts stands for it (the lowest id), by the batch's own times.
 */
export async function listUnminedPayoutIds(db: Knex, broadcastBefore: Date, network?: string): Promise<string[]> {
  const on = network ? 'and p.network = ?' : '';
  const { rows } = await db.raw(
    `select p.id from payouts p
      where p.status = 'broadcast' and p.block_height is null and p.batch_id is null ${on}
        and (p.updated_at < ?
             or exists (select 1 from payout_versions v where v.payout_id = p.id and v.broadcast_at is null))
     union all
     select id from (
       select distinct on (p.batch_id) p.id from payouts p join payout_batches b on b.id = p.batch_id
        where p.status = 'broadcast' and p.block_height is null ${on}
          and (b.updated_at < ?
               or exists (select 1 from payout_batch_versions v where v.batch_id = b.id and v.broadcast_at is null))
        order by p.batch_id, p.id) as batched`,
    network ? [network, broadcastBefore, network, broadcastBefore] : [broadcastBefore, broadcastBefore],
  );
  return (rows as Array<{ id: string }>).map((r) => r.id);
}

// Held for an operator: failed, in review, reverted or cancelled, of a swap in review; or an extra payment's
// refund held after an ambiguous broadcast (whatever its swap's status); or a cold transfer no operator
// released yet. One predicate for the CLI and the gauge.
const HELD = `p.status in ('failed', 'review', 'reverted', 'cancelled')
  and (exists (select 1 from swaps s where s.id = p.swap_id and s.status = 'review') or (p.purpose = 'extra_refund' and p.status = 'review')
       or (p.purpose = 'cold' and p.released_at is null))`;

/**
 * The payouts held for an operator (failed, review, reverted, cancelled) on `network`, or everywhere: those of
 * swaps in review, and extra payments' refunds held after an ambiguous broadcast.
 */
export async function listHeldPayouts(db: Knex, network?: string): Promise<PayoutRecord[]> {
  const { rows } = await db.raw(
    `select ${SELECT} from payouts p left join chain_cursors c on c.network = p.network
      where ${HELD} ${network ? 'and p.network = ?' : ''}
      order by p.created_at`,
    network ? [network] : [],
  );
  return (rows as Array<Record<string, unknown>>).map(toPayout);
}

/** The payout holding idempotency key `key`. */
export async function findPayoutByKey(db: Knex, key: string): Promise<PayoutRecord | undefined> {
  const { rows } = await db.raw(
    `select ${SELECT} from payouts p left join chain_cursors c on c.network = p.network where p.idempotency_key = ?`,
    [key],
  );
  return rows.length > 0 ? toPayout(rows[0]) : undefined;
}

/**
 * Moves payout `id` from `from` to `to` with `fields`; false when it was not in `from` (another sender moved
 * it first). Counts an attempt when `attempt`.
 */
export async function movePayout(
  db: Knex,
  id: string,
  from: PayoutRecord['status'],
  to: PayoutRecord['status'],
  fields: Partial<
    Pick<PayoutRecord, 'txHash' | 'signedBytes' | 'lastError' | 'heldReason' | 'retryAt' | 'atFeeCap' | 'batchId' | 'solo'>
  > & {
    /** Counts a refusal that could pass (or a failed build). */
    refused?: boolean;
  },
  at: Date,
  /** Only while no block holds it (a watcher may record one at any moment). */
  options: { unmined?: boolean } = {},
): Promise<boolean> {
  const query = db('payouts').where({ id, status: from });
  if (options.unmined) query.whereNull('block_height');
  const updated = await query.update({
    status: to,
    ...(to === 'broadcast' ? { accepted_at: db.raw('coalesce(accepted_at, ?)', [at]) } : {}),
    ...(fields.txHash !== undefined ? { tx_hash: fields.txHash } : {}),
    ...(fields.signedBytes !== undefined ? { signed_bytes: fields.signedBytes } : {}),
    // A node's error text may carry its URL (viem's does, with a provider key in the path): kept redacted.
    ...(fields.lastError !== undefined ? { last_error: fields.lastError === null ? null : redactUrls(fields.lastError) } : {}),
    ...(fields.heldReason !== undefined ? { held_reason: fields.heldReason === null ? null : redactUrls(fields.heldReason) } : {}),
    ...(fields.retryAt !== undefined ? { retry_at: fields.retryAt } : {}),
    ...(fields.atFeeCap !== undefined ? { at_fee_cap: fields.atFeeCap } : {}),
    ...(fields.batchId !== undefined ? { batch_id: fields.batchId } : {}),
    ...(fields.solo !== undefined ? { solo: fields.solo } : {}),
    ...(fields.refused ? { refusals: db.raw('refusals + 1') } : {}),
    attempts: db.raw('attempts + 1'),
    updated_at: at,
  });
  return updated === 1;
}

/** A signed version of a payout (store: payout_versions). */
export interface PayoutVersion {
  version: number;
  kind: 'payment' | 'cancel' | 'boost';
  txHash: string;
  bytes: string;
  fee: string;
  createdAt: Date;
  broadcastAt: Date | null;
}

/** The versions of payout `payoutId`, oldest first. */
export async function listPayoutVersions(db: Knex, payoutId: string): Promise<PayoutVersion[]> {
  const rows = await db('payout_versions').where({ payout_id: payoutId }).orderBy('version');
  return rows.map((r: Record<string, unknown>) => ({
    version: r.version as number,
    kind: r.kind as PayoutVersion['kind'],
    txHash: r.tx_hash as string,
    bytes: r.signed_bytes as string,
    fee: r.fee as string,
    createdAt: r.created_at as Date,
    broadcastAt: r.broadcast_at as Date | null,
  }));
}

/**
 * Stores a new version of payout `payoutId` in `trx` (before it is ever broadcast); a payment version becomes
 * the payout's hash and bytes, which a rebroadcast sends. Returns its number.
 */
export async function insertPayoutVersion(
  trx: Knex.Transaction,
  payoutId: string,
  version: { kind: PayoutVersion['kind']; txHash: string; bytes: string; fee?: string },
  at: Date,
): Promise<number> {
  // Signed again after a refusal that proved it never went out, a transaction can come out byte for byte the
  // same (the same nonce or inputs, the same fees: signatures are deterministic): it is that version again.
  const { rows } = await trx.raw(
    `insert into payout_versions (payout_id, version, kind, tx_hash, signed_bytes, fee, created_at)
     select ?, coalesce(max(version), 0) + 1, ?, ?, ?, ?, ? from payout_versions where payout_id = ?
     on conflict (payout_id, tx_hash) do update set created_at = excluded.created_at
     returning version`,
    [payoutId, version.kind, version.txHash, version.bytes, version.fee ?? '0', at, payoutId],
  );
  if (version.kind === 'payment') {
    await trx('payouts').where({ id: payoutId }).update({ tx_hash: version.txHash, signed_bytes: version.bytes, updated_at: at });
  }
  return (rows as Array<{ version: number }>)[0]!.version;
}

/**
 * Records that a broadcast of version `txHash` of payout `payoutId` is about to be tried; true when one was
 * tried before (its bytes may have left the process already, whatever the chain says now).
 */
export async function markVersionAttempted(db: Knex, payoutId: string, txHash: string, at: Date): Promise<boolean> {
  const before = await db('payout_versions').where({ payout_id: payoutId, tx_hash: txHash }).first('attempted_at');
  if (before?.attempted_at) return true;
  await db('payout_versions').where({ payout_id: payoutId, tx_hash: txHash }).whereNull('attempted_at').update({ attempted_at: at });
  return false;
}

/** Forgets the broadcast tries of version `txHash` of payout `payoutId` (a refusal proved it was not taken). */
export async function clearVersionAttempt(db: Knex, payoutId: string, txHash: string): Promise<void> {
  await db('payout_versions').where({ payout_id: payoutId, tx_hash: txHash }).whereNull('broadcast_at').update({ attempted_at: null });
}

/** Records that the chain accepted version `txHash` of payout `payoutId` (the first time only). */
export async function markVersionBroadcast(db: Knex, payoutId: string, txHash: string, at: Date): Promise<void> {
  await db('payout_versions').where({ payout_id: payoutId, tx_hash: txHash }).whereNull('broadcast_at').update({ broadcast_at: at });
}

/** Moves the swap's payout `key` from `from` to `to`; false when it was not in `from`. */
export async function setPayoutStatus(
  trx: Knex.Transaction,
  swapId: string,
  key: string,
  from: PayoutRecord['status'],
  to: PayoutRecord['status'],
  at: Date,
): Promise<boolean> {
  const updated = await trx('payouts')
    .where({ swap_id: swapId, idempotency_key: key, status: from })
    .update({ status: to, updated_at: at });
  return updated === 1;
}

/**
 * What `asset` on `network` is promised and not yet out of the hot wallet at `at`: payouts committed but not
 * broadcast, live fixed quotes not used, and fixed-rate swaps under way whose payout is not committed yet.
 */
export async function sumCommittedPayouts(db: Knex, network: string, asset: string, at: Date): Promise<string> {
  const { rows } = await db.raw(
    `select (select coalesce(sum(amount), 0) from payouts
              where network = ? and asset = ? and status in ('pending', 'signed'))
          + (select coalesce(sum(receive_amount), 0) from quotes
              where destination_network = ? and destination_asset = ? and rate_type = 'fixed' and used_at is null and expires_at > ?)
          + (select coalesce(sum(expected_output_amount), 0) from swaps s
              where destination_network = ? and destination_asset = ? and rate_type = 'fixed'
                and status in ('waiting', 'overdue', 'confirming', 'exchanging')
                and not exists (select 1 from payouts p where p.swap_id = s.id and p.purpose = 'payout')) as committed`,
    [network, asset, network, asset, at, network, asset],
  );
  return String(rows[0].committed);
}

/**
 * Locks payout `id` in `trx` while it is in `status` and no block holds it; false otherwise (it moved, or a
 * watcher recorded its block): a version stored under the lock is stored for a payout still waiting.
 */
export async function lockUnminedPayout(trx: Knex.Transaction, id: string, status: PayoutRecord['status']): Promise<boolean> {
  return (await trx('payouts').where({ id, status }).whereNull('block_height').forUpdate().first('id')) !== undefined;
}

/** What the payout gauges show (metrics.ts): held payouts, those at the fee cap, the oldest unmined, open chain alerts. */
export interface PayoutGauges {
  held: Array<{ network: string; status: string; count: number }>;
  atCap: Array<{ network: string; count: number }>;
  oldest: Array<{ network: string; seconds: number }>;
  alerts: Array<{ network: string; kind: string; count: number }>;
}

/** Reads the payout gauges, in one round of four reads. */
export async function readPayoutGauges(db: Knex): Promise<PayoutGauges> {
  const [held, atCap, oldest, alerts] = await Promise.all([
    db.raw(
      `select p.network, p.status, count(*)::int as count from payouts p where ${HELD} and p.held_reason is not null group by p.network, p.status`,
    ),
    db.raw(
      `select network, count(*)::int as count from payouts where status = 'broadcast' and block_height is null and at_fee_cap group by network`,
    ),
    db.raw(
      `select p.network, extract(epoch from now() - min(coalesce(p.accepted_at, v.created_at, b.created_at)))::float8 as seconds
         from payouts p left join payout_versions v on v.payout_id = p.id and v.version = 1
         left join payout_batches b on b.id = p.batch_id
        where p.status in ('broadcast', 'review') and p.block_height is null and (v.payout_id is not null or b.id is not null)
        group by p.network`,
    ),
    db.raw(`select network, kind, count(*)::int as count from chain_alerts where resolved_at is null group by network, kind`),
  ]);
  return { held: held.rows, atCap: atCap.rows, oldest: oldest.rows, alerts: alerts.rows };
}

/** A transaction shared by several payouts (store: payout_batches). */
export interface PayoutBatch {
  id: string;
  network: string;
  status: 'signed' | 'broadcast' | 'dissolved';
  atFeeCap: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** A signed version of a batch (store: payout_batch_versions). */
export interface PayoutBatchVersion {
  version: number;
  kind: 'payment' | 'boost';
  txHash: string;
  bytes: string;
  fee: string;
  /** The payouts it pays, by payout id, and the output index of each; empty for a boost. */
  outputs: Record<string, number>;
  createdAt: Date;
  broadcastAt: Date | null;
}

/**
 * Payouts on `network` that may join a batch at `at`: pending, in no batch, not sent alone, and due (not
 * backing off), oldest due first (a payout backing off is due at its retry time). At most `limit`.
 */
export async function listBatchCandidates(db: Knex, network: string, at: Date, limit: number): Promise<PayoutRecord[]> {
  const { rows } = await db.raw(
    `select ${SELECT} from payouts p left join chain_cursors c on c.network = p.network
      where p.network = ? and p.status = 'pending' and p.batch_id is null and not p.solo and (p.retry_at is null or p.retry_at <= ?)
      order by coalesce(p.retry_at, p.created_at), p.id
      limit ?`,
    [network, at, limit],
  );
  return (rows as Array<Record<string, unknown>>).map(toPayout);
}

/**
 * Stores batch `batch` in `trx` before anything is broadcast: the batch, its first version (hash, bytes, fee,
 * the output of each payout), and every member moved from pending to signed with the batch's hash. All or
 * nothing: false (and nothing written) when any member is no longer pending and in no batch (another sender
 * stored it first, or its swap gave it up): the signed transaction pays all of them or none.
 */
export async function storeBatch(
  trx: Knex.Transaction,
  batch: {
    id: string;
    network: string;
    members: string[];
    version: { txHash: string; bytes: string; fee?: string; outputs: Record<string, number> };
  },
  at: Date,
): Promise<boolean> {
  const locked = await trx('payouts')
    .whereIn('id', batch.members)
    .where({ status: 'pending', network: batch.network })
    .whereNull('batch_id')
    .forUpdate()
    .select('id');
  if (locked.length !== batch.members.length) return false;
  await trx('payout_batches').insert({ id: batch.id, network: batch.network, status: 'signed', created_at: at, updated_at: at });
  await trx('payout_batch_versions').insert({
    batch_id: batch.id,
    version: 1,
    kind: 'payment',
    tx_hash: batch.version.txHash,
    signed_bytes: batch.version.bytes,
    fee: batch.version.fee ?? '0',
    outputs: JSON.stringify(batch.version.outputs),
    created_at: at,
  });
  await trx('payouts')
    .whereIn('id', batch.members)
    .update({
      status: 'signed',
      tx_hash: batch.version.txHash,
      signed_bytes: null,
      batch_id: batch.id,
      retry_at: null,
      at_fee_cap: false,
      attempts: trx.raw('attempts + 1'),
      updated_at: at,
    });
  return true;
}

const toBatch = (row: Record<string, unknown>): PayoutBatch => ({
  id: row.id as string,
  network: row.network as string,
  status: row.status as PayoutBatch['status'],
  atFeeCap: row.at_fee_cap as boolean,
  createdAt: row.created_at as Date,
  updatedAt: row.updated_at as Date,
});

/** One batch. */
export async function findBatch(db: Knex, id: string): Promise<PayoutBatch | undefined> {
  const row = await db('payout_batches').where({ id }).first();
  return row ? toBatch(row) : undefined;
}

/** The payouts batch `batchId` holds now, oldest first. */
export async function listBatchMembers(db: Knex, batchId: string): Promise<PayoutRecord[]> {
  const { rows } = await db.raw(
    `select ${SELECT} from payouts p left join chain_cursors c on c.network = p.network where p.batch_id = ? order by p.created_at, p.id`,
    [batchId],
  );
  return (rows as Array<Record<string, unknown>>).map(toPayout);
}

/** The versions of batch `batchId`, oldest first. */
export async function listBatchVersions(db: Knex, batchId: string): Promise<PayoutBatchVersion[]> {
  const rows = await db('payout_batch_versions').where({ batch_id: batchId }).orderBy('version');
  return rows.map((r: Record<string, unknown>) => ({
    version: r.version as number,
    kind: r.kind as PayoutBatchVersion['kind'],
    txHash: r.tx_hash as string,
    bytes: r.signed_bytes as string,
    fee: r.fee as string,
    outputs: (typeof r.outputs === 'string' ? JSON.parse(r.outputs) : r.outputs) as Record<string, number>,
    createdAt: r.created_at as Date,
    broadcastAt: r.broadcast_at as Date | null,
  }));
}

/**
 * Locks batch `batchId` in `trx` while its newest version is number `newest` and no block holds it; false
 * otherwise (another sender stored a version first, or a watcher recorded its block): a version stored under
 * the lock follows the one it was made from.
 */
export async function lockUnminedBatch(trx: Knex.Transaction, batchId: string, newest: number): Promise<boolean> {
  const batch = await trx('payout_batches').where({ id: batchId }).whereNot({ status: 'dissolved' }).forUpdate().first('id');
  if (!batch) return false;
  const [{ max }] = await trx('payout_batch_versions').where({ batch_id: batchId }).max('version as max');
  if (Number(max) !== newest) return false;
  const mined = await trx('payouts').where({ batch_id: batchId }).whereNotNull('block_height').first('id');
  return mined === undefined;
}

/**
 * Stores version `version` of batch `batchId` in `trx` (before it is ever broadcast): a payment becomes the hash
 * of every payout the batch holds. Returns its number.
 */
export async function insertBatchVersion(
  trx: Knex.Transaction,
  batchId: string,
  version: { kind: PayoutBatchVersion['kind']; txHash: string; bytes: string; fee?: string; outputs: Record<string, number> },
  at: Date,
): Promise<number> {
  const { rows } = await trx.raw(
    `insert into payout_batch_versions (batch_id, version, kind, tx_hash, signed_bytes, fee, outputs, created_at)
     select ?, coalesce(max(version), 0) + 1, ?, ?, ?, ?, ?::jsonb, ? from payout_batch_versions where batch_id = ?
     returning version`,
    [batchId, version.kind, version.txHash, version.bytes, version.fee ?? '0', JSON.stringify(version.outputs), at, batchId],
  );
  if (version.kind === 'payment') {
    await trx('payouts').where({ batch_id: batchId }).whereNull('block_height').update({ tx_hash: version.txHash, updated_at: at });
  }
  await trx('payout_batches').where({ id: batchId }).update({ updated_at: at });
  return (rows as Array<{ version: number }>)[0]!.version;
}

/** As markVersionAttempted, for version `txHash` of batch `batchId`. */
export async function markBatchVersionAttempted(db: Knex, batchId: string, txHash: string, at: Date): Promise<boolean> {
  const before = await db('payout_batch_versions').where({ batch_id: batchId, tx_hash: txHash }).first('attempted_at');
  if (before?.attempted_at) return true;
  await db('payout_batch_versions').where({ batch_id: batchId, tx_hash: txHash }).whereNull('attempted_at').update({ attempted_at: at });
  return false;
}

/** As clearVersionAttempt, for version `txHash` of batch `batchId`. */
export async function clearBatchVersionAttempt(db: Knex, batchId: string, txHash: string): Promise<void> {
  await db('payout_batch_versions').where({ batch_id: batchId, tx_hash: txHash }).whereNull('broadcast_at').update({ attempted_at: null });
}

/** Records that the chain accepted version `txHash` of batch `batchId` (the first time only), and the batch broadcast. */
export async function markBatchVersionBroadcast(db: Knex, batchId: string, txHash: string, at: Date): Promise<void> {
  await db('payout_batch_versions').where({ batch_id: batchId, tx_hash: txHash }).whereNull('broadcast_at').update({ broadcast_at: at });
  await db('payout_batches').where({ id: batchId }).update({ status: 'broadcast', updated_at: at });
}

/** Changes batch `batchId`: its status (dissolved: it left the chain's way for good), its fee cap flag; its time always. */
export async function touchBatch(
  db: Knex,
  batchId: string,
  fields: { status?: PayoutBatch['status']; atFeeCap?: boolean },
  at: Date,
): Promise<void> {
  await db('payout_batches')
    .where({ id: batchId })
    .update({
      ...(fields.status ? { status: fields.status } : {}),
      ...(fields.atFeeCap !== undefined ? { at_fee_cap: fields.atFeeCap } : {}),
      updated_at: at,
    });
}
