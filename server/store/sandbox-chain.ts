/**
 * The sandbox's simulated chain: transactions paid to deposit addresses, payouts the service broadcast, and
 * reorganisations. Only the simulated chain (adapters/sandbox/chain.ts) and the sandbox operations use it.
 */
import type { Knex } from 'knex';
import type { SwapStatus } from '../domain/swap-lifecycle.js';
import { groupCommit, groupReadRows, recordInsert } from './group-commit.js';
import { armSwapFailure } from './swaps.js';

/** A simulated transaction to a deposit address. */
export interface SandboxTransaction {
  txHash: string;
  network: string;
  asset: string;
  address: string;
  memo: string | null;
  fromAddress: string;
  amount: string;
  outputIndex: number;
  createdAt: Date;
}

/** A payout or refund the sandbox sent. */
export interface SandboxPayout {
  idempotencyKey: string;
  txHash: string;
  network: string;
  asset: string;
  address: string;
  memo: string | null;
  amount: string;
  createdAt: Date;
}

const toTransaction = (row: Record<string, unknown>): SandboxTransaction => ({
  txHash: row.tx_hash as string,
  network: row.network as string,
  asset: row.asset as string,
  address: row.address as string,
  memo: row.memo as string | null,
  fromAddress: row.from_address as string,
  amount: row.amount as string,
  outputIndex: row.output_index as number,
  createdAt: row.created_at as Date,
});

/** Who uses a deposit address: the one-time swap it was allocated to, and the permanent route it belongs to. */
export interface AddressOwners {
  swap?: { id: string; partnerId: string; depositMemo: string | null; sourceAsset: string; sourceNetwork: string };
  /** The route's partner and the asset keys (`ASSET/NETWORK`) the address takes on it. */
  route?: { partnerId: string; assetKeys: string[] };
}

// The swap and the route using each address of a group (`l.i` their positions), the route with the asset
// keys it takes on the address's network. The route's side uses route_addresses_address_index (migration
// 0012), the swap's side swaps' deposit_address index.
const ADDRESS_OWNERS = `
  select l.i as "l:i",
         (select jsonb_build_object('id', s.id, 'partnerId', s.partner_id, 'depositMemo', s.deposit_memo,
                                    'sourceAsset', s.source_asset, 'sourceNetwork', s.source_network)
            from swaps s where s.deposit_address = l.address and s.mode = 'standard') as swap,
         (select jsonb_build_object('partnerId', r.partner_id,
                                    'assetKeys', array(select k.asset_key from unnest(r.asset_keys) with ordinality as k(asset_key, n)
                                                        where split_part(k.asset_key, '/', 2) = ra.network order by k.n))
            from route_addresses ra join permanent_routes r on r.id = ra.route_id
           where ra.address = l.address
           limit 1) as route
    from unnest(?::int[], ?::text[]) as l(i, address)`;

/**
 * Returns `read(address)`: the swap and the route using deposit address `address` (a sandbox payment's first
 * read). The addresses asked for while a read runs are read together by the next, an address asked for
 * twice once (group-commit.ts).
 */
export function createAddressOwnerReader(db: Knex): (address: string) => Promise<AddressOwners> {
  const read = groupReadRows(db, ADDRESS_OWNERS, {
    keyOf: (address: string) => address,
    params: (addresses) => [addresses],
    toRecord: ({ swap, route }): AddressOwners => ({
      ...(swap ? { swap: swap as AddressOwners['swap'] } : {}),
      ...(route ? { route: route as AddressOwners['route'] } : {}),
    }),
  });
  return async (address) => (address === '' ? {} : (await read(address))[0]);
}

const TRANSACTION_TYPES: Record<keyof SandboxTransaction, string> = {
  txHash: 'text',
  network: 'text',
  asset: 'text',
  address: 'text',
  memo: 'text',
  fromAddress: 'text',
  amount: 'numeric',
  outputIndex: 'int',
  createdAt: 'timestamptz',
};
const INSERT_TRANSACTIONS = recordInsert<SandboxTransaction>('sandbox_transactions', TRANSACTION_TYPES, '*');

/** Records simulated transactions in one statement; returns them as stored, in the order given. */
export async function insertSandboxTransactions(db: Knex, txs: SandboxTransaction[]): Promise<SandboxTransaction[]> {
  const { rows } = await db.raw(INSERT_TRANSACTIONS.sql, INSERT_TRANSACTIONS.params(txs));
  const stored = new Map((rows as Array<Record<string, unknown>>).map((row) => [row.tx_hash as string, toTransaction(row)]));
  return txs.map((tx) => stored.get(tx.txHash)!);
}

/**
 * Returns `write(tx)`, which records a simulated transaction on its own (autocommit); the transactions
 * recorded while an insert runs are recorded together by the next (group commit).
 */
export function createSandboxTransactionWriter(db: Knex): (tx: SandboxTransaction) => Promise<SandboxTransaction> {
  return groupCommit((txs: SandboxTransaction[]) => insertSandboxTransactions(db, txs));
}

/** The oldest transaction still running: every row written by a transaction below it has committed (or never will). */
export async function committedHorizon(db: Knex): Promise<string> {
  const { rows } = await db.raw('select pg_snapshot_xmin(pg_current_snapshot())::text as horizon');
  return rows[0].horizon as string;
}

/** Whether anything on `network` was written by a database transaction at or past `horizon` (not readable yet). */
export async function hasWrittenSince(db: Knex, network: string, horizon: string): Promise<boolean> {
  const { rows } = await db.raw(
    `select exists (select 1 from sandbox_transactions where network = ? and xid >= ?::xid8)
         or exists (select 1 from sandbox_payouts where network = ? and xid >= ?::xid8)
         or exists (select 1 from sandbox_reorgs where network = ? and xid >= ?::xid8) as behind`,
    [network, horizon, network, horizon, network, horizon],
  );
  return rows[0].behind === true;
}

/** A simulated transaction and whether a reorganisation removed it. */
export type ChainTransaction = SandboxTransaction & { removed: boolean };

/** The transactions on `network` written by database transactions in [`from`, `to`) (see committedHorizon). */
export async function listTransactionsWritten(db: Knex, network: string, from: string, to: string): Promise<ChainTransaction[]> {
  const rows = await db('sandbox_transactions')
    .where({ network })
    .andWhereRaw('xid >= ?::xid8 and xid < ?::xid8', [from, to])
    .orderBy([{ column: 'created_at' }, { column: 'tx_hash' }]);
  return rows.map((row: Record<string, unknown>) => ({ ...toTransaction(row), removed: row.removed_by !== null }));
}

/** The transactions on `network` removed by reorganisations written in [`from`, `to`). */
export async function listTransactionsRemoved(db: Knex, network: string, from: string, to: string): Promise<SandboxTransaction[]> {
  const rows = await db('sandbox_transactions as t')
    .join('sandbox_reorgs as r', 'r.id', 't.removed_by')
    .where('r.network', network)
    .andWhereRaw('r.xid >= ?::xid8 and r.xid < ?::xid8', [from, to])
    .select('t.*');
  return rows.map(toTransaction);
}

/** The payouts on `network` broadcast by database transactions in [`from`, `to`). */
export async function listPayoutsWritten(db: Knex, network: string, from: string, to: string): Promise<SandboxPayout[]> {
  const rows = await db('sandbox_payouts').where({ network }).andWhereRaw('xid >= ?::xid8 and xid < ?::xid8', [from, to]);
  return rows.map(toPayout);
}

/** How many reorganisations of `network` replaced each of `heights`. */
export async function countReorgsCovering(db: Knex, network: string, heights: number[]): Promise<Map<number, number>> {
  const { rows } = await db.raw(
    `select h::text as height, count(r.id)::int as count
       from unnest(?::bigint[]) as h
       left join sandbox_reorgs r on r.network = ? and h between r.from_height and r.to_height
      group by h`,
    [heights, network],
  );
  return new Map((rows as Array<{ height: string; count: number }>).map((r) => [Number(r.height), r.count]));
}

/**
 * Records a reorganisation of `network` replacing blocks `fromHeight`..`toHeight`, and marks the transactions
 * created between `minedFrom` and `minedUntil` (those mined in them) removed; returns them.
 */
export async function insertReorg(
  trx: Knex.Transaction,
  reorg: { network: string; fromHeight: number; toHeight: number; minedFrom: Date; minedUntil: Date; at: Date },
): Promise<SandboxTransaction[]> {
  const [{ id }] = await trx('sandbox_reorgs')
    .insert({ network: reorg.network, from_height: reorg.fromHeight, to_height: reorg.toHeight, created_at: reorg.at })
    .returning('id');
  const rows = await trx('sandbox_transactions')
    .where({ network: reorg.network })
    .whereNull('removed_by')
    .andWhere('created_at', '>=', reorg.minedFrom)
    .andWhere('created_at', '<', reorg.minedUntil)
    .update({ removed_by: id })
    .returning('*');
  return rows.map(toTransaction);
}

/**
 * Records a broadcast payout unless its key has one; returns the payout stored under the key (the same bytes
 * again find their own row; other bytes under the same key find the first).
 */
export async function insertPayoutOnce(
  db: Knex,
  payout: Omit<SandboxPayout, 'createdAt'> & { signedBytes: string; createdAt: Date },
): Promise<SandboxPayout> {
  await db('sandbox_payouts')
    .insert({
      idempotency_key: payout.idempotencyKey,
      tx_hash: payout.txHash,
      network: payout.network,
      asset: payout.asset,
      address: payout.address,
      memo: payout.memo,
      amount: payout.amount,
      signed_bytes: payout.signedBytes,
      created_at: payout.createdAt,
    })
    .onConflict('idempotency_key')
    .ignore();
  return toPayout(await db('sandbox_payouts').where({ idempotency_key: payout.idempotencyKey }).first());
}

/**
 * Arms a sandbox failure on the partner's swap `id` (armSwapFailure: the swap's `armed_failure`, which moves its
 * `updated_at`) and, when that arming is new, what fires it: the venue's refusal of the exchange attempts from
 * the swap's new version on, or the simulated chain's refusal of the payout's broadcast. Run it in a
 * transaction, so both are armed or neither. Answers as armSwapFailure does.
 */
export async function armSandboxFailure(
  trx: Knex,
  partnerId: string,
  id: string,
  stage: 'exchange' | 'payout',
  statuses: readonly SwapStatus[],
  at: Date,
): ReturnType<typeof armSwapFailure> {
  const arming = await armSwapFailure(trx, partnerId, id, stage, statuses, at);
  if (arming?.newly && stage === 'exchange') await armExchangeFailure(trx, arming.swap.id, arming.swap.updatedAt);
  if (arming?.newly && stage === 'payout') await armPayoutFailure(trx, arming.swap.id);
  return arming;
}

// The simulated chain refuses to broadcast `swapId`'s payout.
async function armPayoutFailure(db: Knex, swapId: string): Promise<void> {
  await db('sandbox_armed_payouts').insert({ swap_id: swapId }).onConflict('swap_id').ignore();
}

// The venue refuses `swapId`'s exchange attempts from `version` on; a failure that fired is armed again.
async function armExchangeFailure(db: Knex, swapId: string, version: Date): Promise<void> {
  await db.raw(
    `insert into sandbox_armed_exchanges (swap_id, armed_at) values (?, ?)
     on conflict (swap_id) do update set refused_key = null, fired_version = null, armed_at = excluded.armed_at`,
    [swapId, version],
  );
}

/**
 * Answers `swapId`'s exchange attempt at `swapVersion` (the swap's `updated_at` as the step read it), in one
 * statement; true when it is refused.
 *
 * An armed failure fires on an attempt at the swap's current version, once it was armed (a step that read the
 * swap before the arming, or before any change since, is thrown away, so it must not spend the failure); the
 * swap's `armed_failure` is cleared then, without touching its `updated_at`. Once fired, it refuses every
 * attempt (retries, later versions, steps that read the swap before) until the refusal is seen to have taken
 * effect: the swap's `failure_code` is then `exchange_failed` (the refund it decided), and the failure is
 * spent (marked by `refused_key = 'spent'` and no `fired_version`, the state a failure that fired before
 * migration 0024 is in too: it refuses nothing more). The refused step may itself be thrown away, because something else changed the swap before it
 * saved its decision (an extra deposit, a reorganisation sending it to review and an approval bringing it
 * back), and the next step must get the same answer.
 *
 * The arming and the firing are on the row this statement updates, so an attempt that waited for either in
 * progress is judged by it (PostgreSQL re-reads a locked row). The swap's version is compared to the
 * millisecond, as a step reads it (JavaScript dates). The swap is read as of the statement's start:
 * an attempt that waited for an arming in progress is still refused nothing, since its version is older than
 * the arming's.
 */
export async function fireExchangeFailure(db: Knex, swapId: string, swapVersion: Date): Promise<boolean> {
  const { rows } = await db.raw(
    `with swap as (
       select date_trunc('milliseconds', s.updated_at) as updated_at, s.failure_code is not distinct from 'exchange_failed' as spent
         from swaps s where s.id = ?
     ), answered as (
       update sandbox_armed_exchanges a
          set fired_version = case when swap.spent then null else coalesce(a.fired_version, ?) end,
              refused_key = case when swap.spent then 'spent' else a.refused_key end
         from swap
        where a.swap_id = ?
          and (a.fired_version is not null
               or a.refused_key is null and (a.armed_at is null or a.armed_at <= ?) and swap.updated_at = ? and not swap.spent)
        returning a.fired_version
     ), disarmed as (
       update swaps set armed_failure = null
        where id = ? and armed_failure = 'exchange' and exists (select from answered where fired_version is not null)
     )
     select count(*)::int as refused from answered where fired_version is not null`,
    [swapId, swapVersion, swapId, swapVersion, swapVersion, swapId],
  );
  return rows[0].refused > 0;
}

/** Whether `swapId`'s payout failure is armed. */
export async function isPayoutFailureArmed(db: Knex, swapId: string): Promise<boolean> {
  return (await db('sandbox_armed_payouts').where({ swap_id: swapId }).first()) !== undefined;
}

const toPayout = (row: Record<string, unknown>): SandboxPayout => ({
  idempotencyKey: row.idempotency_key as string,
  txHash: row.tx_hash as string,
  network: row.network as string,
  asset: row.asset as string,
  address: row.address as string,
  memo: row.memo as string | null,
  amount: row.amount as string,
  createdAt: row.created_at as Date,
});
