/**
 * The chain ledger (docs/architecture.md#production): what each network's watcher saw, in `chain_outputs` and `chain_cursors`.
 * Swaps and routes read it; only the watcher job writes it. Confirmations come from heights: the cursor's
 * tip minus the output's block plus one.
 */
import type { Knex } from 'knex';
import { randomUUID } from 'node:crypto';
import type { ChainScan, ScanCursor } from '../adapters/chain.js';
import type { RouteOutput } from '../domain/route-poll.js';

/** A ledger output with its confirmations at the network's stored tip. */
export interface LedgerOutput extends RouteOutput {
  memo: string | null;
  blockHeight: number | null;
}

const OUTPUT_COLUMNS = `o.network, o.tx_hash, o.output_index, o.asset, o.address, o.memo, o.amount::text as amount, o.from_address,
  o.block_height::text as block_height, o.seen_at, o.removed_at,
  greatest(0, coalesce(c.tip_height - o.block_height + 1, 0))::int as confirmations`;

const toOutput = (row: Record<string, unknown>): LedgerOutput => ({
  network: row.network as string,
  txHash: row.tx_hash as string,
  outputIndex: row.output_index as number,
  asset: row.asset as string,
  address: row.address as string,
  memo: row.memo as string | null,
  amount: row.amount as string,
  fromAddress: row.from_address as string | null,
  blockHeight: row.block_height === null ? null : Number(row.block_height),
  confirmations: row.removed_at === null ? (row.confirmations as number) : 0,
  seenAt: row.seen_at as Date,
  removed: row.removed_at !== null,
});

/** Where `network`'s watcher read to, or null before its first scan. */
export async function readCursor(db: Knex, network: string): Promise<ScanCursor | null> {
  const row = await db('chain_cursors').where({ network }).first();
  return row ? { tip: { height: Number(row.tip_height), hash: row.tip_hash }, position: row.position } : null;
}

/**
 * Stores `scan` as `network`'s new cursor, only if the cursor is still `previous` (another instance that
 * scanned the same stretch and wrote first wins; this scan is then dropped). True when stored.
 */
export async function advanceCursor(
  trx: Knex.Transaction,
  network: string,
  previous: ScanCursor | null,
  scan: ChainScan,
  at: Date,
): Promise<boolean> {
  const values = { tip_height: scan.tip.height, tip_hash: scan.tip.hash, position: scan.position, scanned_at: at };
  if (!previous) {
    const inserted = await trx('chain_cursors')
      .insert({ network, ...values })
      .onConflict('network')
      .ignore()
      .returning('network');
    return inserted.length === 1;
  }
  const updated = await trx('chain_cursors')
    .where({ network, tip_hash: previous.tip.hash })
    .andWhereRaw('position is not distinct from ?', [previous.position])
    .update(values);
  return updated === 1;
}

/** Records the outputs of a scan (a known one gets its new block); returns the addresses they pay. */
export async function recordOutputs(trx: Knex.Transaction, network: string, outputs: ChainScan['outputs']): Promise<string[]> {
  if (outputs.length === 0) return [];
  // In slices: a first scan may bring thousands, and a statement takes at most 65,535 parameters.
  for (let i = 0; i < outputs.length; i += OUTPUTS_PER_INSERT) await insertOutputs(trx, network, outputs.slice(i, i + OUTPUTS_PER_INSERT));
  return [...new Set(outputs.map((o) => o.address))];
}

/** Outputs one statement records at most (11 parameters each). */
const OUTPUTS_PER_INSERT = 1_000;

async function insertOutputs(trx: Knex.Transaction, network: string, outputs: ChainScan['outputs']): Promise<void> {
  await trx('chain_outputs')
    .insert(
      outputs.map((o) => ({
        network,
        tx_hash: o.txHash,
        output_index: o.outputIndex,
        asset: o.asset,
        address: o.address,
        memo: o.memo,
        amount: o.amount,
        from_address: o.fromAddress,
        block_height: o.block?.height ?? null,
        block_hash: o.block?.hash ?? null,
        seen_at: o.seenAt,
        held_reason: o.heldReason ?? null,
      })),
    )
    .onConflict(['network', 'tx_hash', 'output_index'])
    .merge(['block_height', 'block_hash', 'removed_at']);
}

/** Marks outputs a reorganisation removed; returns the addresses they paid. */
export async function recordRemovals(trx: Knex.Transaction, network: string, removed: ChainScan['removed'], at: Date): Promise<string[]> {
  if (removed.length === 0) return [];
  const { rows } = await trx.raw(
    `update chain_outputs o set removed_at = ?, block_height = null, block_hash = null
       from unnest(?::text[], ?::int[]) as r(tx_hash, output_index)
      where o.network = ? and o.tx_hash = r.tx_hash and o.output_index = r.output_index and o.removed_at is null
      returning o.address, o.tx_hash, o.output_index`,
    [at, removed.map((r) => r.txHash), removed.map((r) => r.outputIndex), network],
  );
  const taken = rows as Array<{ address: string; tx_hash: string; output_index: number }>;
  // A deposit its swap had credited (or refunded) and that swap has ended: the service paid for money the chain
  // took back. An operator item and an alert; nothing moves by itself.
  if (taken.length > 0) {
    await trx.raw(
      `insert into chain_alerts (id, network, kind, swap_id, tx_hash, output_index, detail, created_at)
       select gen_random_uuid(), ?, 'deposit_removed', s.id, r.tx_hash, r.output_index,
              'a reorganisation took deposit ' || r.tx_hash || ':' || r.output_index || ' out of the chain after swap ' || s.id || ' was ' || s.status || ' on it',
              ?
         from unnest(?::text[], ?::text[], ?::int[]) as r(address, tx_hash, output_index)
         join swaps s on s.deposit_address = r.address and s.status in ('finished', 'refunded')
        where exists (select 1 from jsonb_array_elements(s.deposits) d
                       where d->>'txHash' = r.tx_hash and (d->>'outputIndex')::int = r.output_index
                         and d->>'status' in ('credited', 'refunded'))`,
      [network, at, taken.map((r) => r.address), taken.map((r) => r.tx_hash), taken.map((r) => r.output_index)],
    );
  }
  return [...new Set(taken.map((r) => r.address))];
}

/**
 * Records the blocks of our payouts a scan saw, matched against every version of each payout and every
 * payment version of a batch (on each payout it pays); returns the swaps they pay for. A version in a block becomes the payout's hash (its swap shows it); a reverted one
 * marks the payout reverted, a cancellation marks it cancelled. A payout a reorganisation takes out of the
 * chain waits for a block again (the sender broadcasts the same bytes); one whose swap had ended on it
 * raises a chain alert.
 */
export async function recordPayoutBlocks(
  trx: Knex.Transaction,
  network: string,
  payouts: ChainScan['payouts'],
  at: Date,
): Promise<string[]> {
  if (payouts.length === 0) return [];
  const { rows } = await trx.raw(
    `with s as (
       select * from unnest(?::text[], ?::bigint[], ?::boolean[]) as s(tx_hash, block_height, failed)
     ), versions as (
       select v.tx_hash, v.payout_id, v.kind, v.signed_bytes from payout_versions v
        where v.tx_hash in (select tx_hash from s) and v.kind <> 'boost'
       union all
       -- A batch's payment pays every payout its outputs name (its bytes stay the batch's).
       select bv.tx_hash, o.payout_id::uuid, bv.kind, null from payout_batch_versions bv
        cross join lateral jsonb_object_keys(bv.outputs) as o(payout_id)
        where bv.tx_hash in (select tx_hash from s) and bv.kind = 'payment'
     ), seen as (
       -- One row per payout: a version in a block wins over one a reorganisation took out.
       select distinct on (v.payout_id) s.tx_hash, s.block_height, s.failed, v.payout_id, v.kind, v.signed_bytes
         from s join versions v on v.tx_hash = s.tx_hash
         -- A payout proved never taken is not paid by its bytes: a payout paid again may have signed the same.
         join payouts live on live.id = v.payout_id and live.status <> 'failed'
        order by v.payout_id, s.block_height is null, s.block_height desc
     ), before as (
       -- A cold transfer pays for no swap (swap_status null).
       select p.id, p.status, p.block_height, s.status as swap_status from payouts p left join swaps s on s.id = p.swap_id
        where p.id in (select payout_id from seen)
     ), moved as (
       update payouts p set
         block_height = seen.block_height,
         tx_hash = case when seen.block_height is null then p.tx_hash else seen.tx_hash end,
         signed_bytes = case when seen.block_height is null or seen.kind = 'cancel' then p.signed_bytes else coalesce(seen.signed_bytes, p.signed_bytes) end,
         status = case
           when seen.block_height is null and p.status in ('reverted', 'cancelled', 'confirmed') then 'broadcast'
           when seen.block_height is not null and seen.kind = 'cancel' and p.status in ('broadcast', 'review') then 'cancelled'
           when seen.block_height is not null and seen.failed and p.status in ('broadcast', 'review') then 'reverted'
           else p.status end,
         held_reason = case
           when seen.block_height is not null and seen.kind = 'cancel' and p.status in ('broadcast', 'review')
             then 'its nonce was cancelled by a zero-value transfer to the hot wallet (' || seen.tx_hash || '): nothing was paid'
           when seen.block_height is not null and seen.failed and p.status in ('broadcast', 'review')
             then 'mined and reverted (' || seen.tx_hash || '): nothing was paid'
           else p.held_reason end
         from seen
        where p.id = seen.payout_id and p.network = ?
          and (seen.block_height is not null or p.tx_hash = seen.tx_hash)
       returning p.id, p.swap_id, p.tx_hash, p.block_height
     )
     select m.swap_id, m.tx_hash, m.block_height is null and b.block_height is not null as removed, b.swap_status, b.status as was
       from moved m join before b on b.id = m.id`,
    [payouts.map((p) => p.txHash), payouts.map((p) => p.block?.height ?? null), payouts.map((p) => p.failed === true), network],
  );
  const moved = rows as Array<{ swap_id: string | null; tx_hash: string; removed: boolean; swap_status: string | null; was: string }>;
  // A payout taken back after its swap ended, or a cold transfer after it was confirmed: an operator is told.
  const ended = moved.filter(
    (r) => r.removed && (r.swap_status === 'finished' || r.swap_status === 'refunded' || (r.swap_id === null && r.was === 'confirmed')),
  );
  if (ended.length > 0) {
    await trx('chain_alerts').insert(
      ended.map((r) => ({
        id: randomUUID(),
        network,
        kind: 'payout_removed',
        swap_id: r.swap_id,
        tx_hash: r.tx_hash,
        detail:
          r.swap_id === null
            ? `a reorganisation took cold transfer ${r.tx_hash} out of the chain after it was confirmed; it is broadcast again (the same bytes) and followed`
            : `a reorganisation took payout ${r.tx_hash} out of the chain after swap ${r.swap_id} was ${r.swap_status}; it is broadcast again (the same bytes) and followed`,
        created_at: at,
      })),
    );
  }
  return [...new Set(moved.flatMap((r) => (r.swap_id === null ? [] : [r.swap_id])))];
}

/**
 * What a new tip on `network` may move: the addresses of outputs whose confirmations changed below
 * `maxConfirmations` (mined after `previousTip - maxConfirmations`, up to `tip`), and the swaps whose
 * payouts reached the tip. A range of blocks, read by index: the cost follows blocks, not open swaps.
 */
export async function listMovedByTip(
  db: Knex,
  network: string,
  previousTip: number,
  tip: number,
  maxConfirmations: number,
): Promise<{ addresses: string[]; swapIds: string[] }> {
  if (tip <= previousTip) return { addresses: [], swapIds: [] };
  const [outputs, payouts] = await Promise.all([
    db('chain_outputs')
      .distinct('address')
      .where({ network })
      .whereNull('removed_at')
      .andWhere('block_height', '>', previousTip - maxConfirmations)
      .andWhere('block_height', '<=', tip),
    db('payouts').distinct('swap_id').where({ network, status: 'broadcast' }).whereNotNull('swap_id').andWhere('block_height', '<=', tip),
  ]);
  return { addresses: outputs.map((r: { address: string }) => r.address), swapIds: payouts.map((r: { swap_id: string }) => r.swap_id) };
}

/** Whether anything on `network` is still confirming at `tip` (an output below `maxConfirmations`, or a payout unconfirmed). */
export async function hasPending(db: Knex, network: string, tip: number, maxConfirmations: number): Promise<boolean> {
  const { rows } = await db.raw(
    `select exists (select 1 from chain_outputs where network = ? and removed_at is null and block_height > ?)
         or exists (select 1 from payouts where network = ? and status in ('signed', 'broadcast')) as pending`,
    [network, tip - maxConfirmations, network],
  );
  return rows[0].pending === true;
}

/** The one-time swaps (not route orders) whose deposit address is one of `addresses`. */
export async function listSwapsPaying(db: Knex, addresses: string[]): Promise<string[]> {
  if (addresses.length === 0) return [];
  const rows = await db('swaps').select('id').whereIn('deposit_address', addresses).andWhere({ mode: 'standard' });
  return rows.map((r: { id: string }) => r.id);
}

/**
 * The route orders (open or not) that converted any of `outputs` of `network`: a reorganisation that removed
 * one wakes its order, which goes to review (domain/swap-decision.ts).
 */
export async function listOrdersConverting(
  db: Knex,
  network: string,
  outputs: Array<{ txHash: string; outputIndex: number }>,
): Promise<string[]> {
  if (outputs.length === 0) return [];
  const { rows } = await db.raw(
    `select distinct d.order_id from route_deposits d
       join unnest(?::text[], ?::int[]) as r(tx_hash, output_index) on d.tx_hash = r.tx_hash and d.output_index = r.output_index
      where d.network = ? and d.order_id is not null`,
    [outputs.map((o) => o.txHash), outputs.map((o) => o.outputIndex), network],
  );
  return (rows as Array<{ order_id: string }>).map((r) => r.order_id);
}

/** The ids of `orderId`'s route deposits whose output a reorganisation removed from the chain (as the ledger says now). */
export async function listRemovedOrderDeposits(db: Knex, orderId: string): Promise<string[]> {
  const { rows } = await db.raw(
    `select d.id from route_deposits d
       join chain_outputs o on o.network = d.network and o.tx_hash = d.tx_hash and o.output_index = d.output_index
      where d.order_id = ? and o.removed_at is not null`,
    [orderId],
  );
  return (rows as Array<{ id: string }>).map((r) => r.id);
}

/** The outputs paid to `address` on `network` (with `memo`, when given), in the order the chain showed them. */
export async function listOutputsTo(db: Knex, network: string, address: string, memo: string | null): Promise<LedgerOutput[]> {
  const { rows } = await db.raw(
    `select ${OUTPUT_COLUMNS}
       from chain_outputs o left join chain_cursors c on c.network = o.network
      where o.network = ? and o.address = ? and o.held_reason is null ${memo === null ? '' : 'and o.memo = ?'}
      order by o.seen_at, o.tx_hash, o.output_index`,
    memo === null ? [network, address] : [network, address, memo],
  );
  return (rows as Array<Record<string, unknown>>).map(toOutput);
}

/**
 * The outputs paid to any of `addresses`, oldest first (permanent routes). Every one counts: a route's addresses
 * are its own (derived for it), so nothing was paid to them before it existed. There is no time filter: `seen_at`
 * is the node's clock (whole seconds), not the server's, and a payment made within the second the route was
 * created, or seen by a node whose clock is behind, would otherwise never be credited.
 */
export async function listOutputsToAddresses(db: Knex, addresses: string[]): Promise<LedgerOutput[]> {
  if (addresses.length === 0) return [];
  const { rows } = await db.raw(
    `select ${OUTPUT_COLUMNS}
       from chain_outputs o left join chain_cursors c on c.network = o.network
      where o.address = any(?::text[]) and o.held_reason is null
      order by o.seen_at, o.tx_hash, o.output_index`,
    [addresses],
  );
  return (rows as Array<Record<string, unknown>>).map(toOutput);
}

/**
 * The derivation index of the deposit address of `key` on `network`: allocated on the first call, the same on
 * every later one (a retried step, another instance).
 */
export async function depositIndexOf(db: Knex, network: string, key: string): Promise<number> {
  const { rows } = await db.raw(
    `with added as (
       insert into deposit_indexes (network, key, index) values (?, ?, nextval('deposit_index_seq'))
       on conflict (network, key) do nothing returning index)
     select index from added union all select index from deposit_indexes where network = ? and key = ?`,
    [network, key, network, key],
  );
  if (rows.length > 0) return Number(rows[0].index);
  // Inserted by another statement that committed after this one's snapshot: it is there now.
  const row = await db('deposit_indexes').where({ network, key }).first('index');
  return Number(row.index);
}

/** Which of `addresses` are deposit addresses of ours on `network` (a swap's, or a permanent route's). */
export async function listWatchedAmong(db: Knex, network: string, addresses: string[]): Promise<Set<string>> {
  if (addresses.length === 0) return new Set();
  const { rows } = await db.raw(
    `select deposit_address as address from swaps where source_network = ? and deposit_address = any(?::text[])
     union select address from route_addresses where network = ? and address = any(?::text[])`,
    [network, addresses, network, addresses],
  );
  return new Set(rows.map((row: { address: string }) => row.address));
}

/**
 * Takes or renews the lease on watching `network` for `holder` until `at + ttlMs`: granted when nobody holds
 * it, `holder` already does, or the holder's lease ran out. Returns whether `holder` holds it now.
 */
export async function takeWatchLease(db: Knex, network: string, holder: string, at: Date, ttlMs: number): Promise<boolean> {
  const { rows } = await db.raw(
    `insert into chain_watch_leases (network, holder, expires_at) values (?, ?, ?)
     on conflict (network) do update set holder = excluded.holder, expires_at = excluded.expires_at
      where chain_watch_leases.holder = excluded.holder or chain_watch_leases.expires_at < ?
     returning holder`,
    [network, holder, new Date(at.getTime() + ttlMs), at],
  );
  return rows.length > 0;
}

/** Gives up the watcher leases `holder` holds (it stops): another instance takes them at its next try. */
export async function releaseWatchLeases(db: Knex, holder: string): Promise<void> {
  await db('chain_watch_leases').where({ holder }).delete();
}

/**
 * Which of `txHashes` on `network` are transactions of the service's own that pay a deposit address: the hot
 * wallet's gas top-ups for token sweeps (evm_sweeps.funding_tx_hash). They are in the ledger (a sweep's gas is
 * explained by them) and are nobody's payment: no swap credits or returns them.
 */
export async function listOwnFundingTxs(db: Knex, network: string, txHashes: string[]): Promise<Set<string>> {
  if (txHashes.length === 0) return new Set();
  const rows = await db('evm_sweeps').where({ network }).whereIn('funding_tx_hash', txHashes).distinct('funding_tx_hash');
  return new Set(rows.map((r: { funding_tx_hash: string }) => r.funding_tx_hash));
}
