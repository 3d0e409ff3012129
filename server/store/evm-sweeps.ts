/**
 * Sweeps of EVM deposits (migration 0020, jobs/evm-sweep.ts): which deposits are to be moved to the hot wallet,
 * and how far each has come. Deposits become sweepable once their swap has credited or refunded them (the swap's
 * `deposits`); the address's derivation index is the one allocated for the swap (`deposit_indexes`).
 */
import { redactUrls } from '../adapters/boundary.js';
import type { Knex } from 'knex';

/** How far a sweep has come (migration 0020). */
export type EvmSweepState = 'pending' | 'funding' | 'swept' | 'confirmed' | 'empty' | 'failed';

/** The states a sweep still has work in. */
export const OPEN_SWEEP_STATES: readonly EvmSweepState[] = ['pending', 'funding', 'swept'];

/** One deposit's sweep. */
export interface EvmSweepRecord {
  network: string;
  txHash: string;
  outputIndex: number;
  address: string;
  derivationIndex: number;
  asset: string;
  state: EvmSweepState;
  fundingTxHash: string | null;
  sweepTxHash: string | null;
  /** The signed sweep transaction (0x hex), committed before it was broadcast (null on rows swept before migration 0021). */
  sweepTxBytes: string | null;
  /** What the sweep moved, in units of the asset (a decimal string). */
  amount: string | null;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: Date;
  createdAt: Date;
  updatedAt: Date;
}

/** The fields a step may change. */
export type EvmSweepChange = Partial<
  Pick<EvmSweepRecord, 'state' | 'fundingTxHash' | 'sweepTxHash' | 'sweepTxBytes' | 'amount' | 'attempts' | 'lastError' | 'nextAttemptAt'>
>;

const toRecord = (row: Record<string, unknown>): EvmSweepRecord => ({
  network: row.network as string,
  txHash: row.tx_hash as string,
  outputIndex: row.output_index as number,
  address: row.address as string,
  derivationIndex: Number(row.derivation_index),
  asset: row.asset as string,
  state: row.state as EvmSweepState,
  fundingTxHash: row.funding_tx_hash as string | null,
  sweepTxHash: row.sweep_tx_hash as string | null,
  sweepTxBytes: row.sweep_tx_bytes as string | null,
  amount: row.amount === null ? null : String(row.amount),
  attempts: row.attempts as number,
  lastError: row.last_error as string | null,
  nextAttemptAt: row.next_attempt_at as Date,
  createdAt: row.created_at as Date,
  updatedAt: row.updated_at as Date,
});

/**
 * Adds a pending sweep for each deposit on `network` that a one-time swap has credited or refunded and that has
 * none yet (the chain still holds it); returns how many were added. Route orders are not swept (their addresses
 * are the route's, whose keys this does not know).
 */
export async function addSweepableDeposits(db: Knex, network: string, at: Date): Promise<number> {
  const { rows } = await db.raw(
    `insert into evm_sweeps (network, tx_hash, output_index, address, derivation_index, asset, state, next_attempt_at, created_at, updated_at)
     select o.network, o.tx_hash, o.output_index, o.address, d.index, o.asset, 'pending', ?, ?, ?
       from chain_outputs o
       join swaps s on s.deposit_address = o.address and s.source_network = o.network and s.mode = 'standard' and s.route_id is null
       join deposit_indexes d on d.network = o.network and d.key = s.id::text
      where o.network = ? and o.removed_at is null
        and not exists (select 1 from evm_sweeps w where w.network = o.network and w.tx_hash = o.tx_hash and w.output_index = o.output_index)
        and exists (select 1 from jsonb_array_elements(s.deposits) e
                     where e->>'txHash' = o.tx_hash and (e->>'outputIndex')::int = o.output_index
                       and e->>'status' in ('credited', 'refunded'))
     on conflict do nothing
     returning tx_hash`,
    [at, at, at, network],
  );
  return (rows as unknown[]).length;
}

/**
 * The open sweeps of `network` due at `at`, at most `limit`: one per address at a time (the oldest), since a
 * sweep moves the address's whole balance and a native sweep would take a token sweep's gas top-up with it.
 */
export async function listDueSweeps(db: Knex, network: string, at: Date, limit: number): Promise<EvmSweepRecord[]> {
  const { rows } = await db.raw(
    `select * from (
       select distinct on (address) * from evm_sweeps
        where network = ? and state in ('pending', 'funding', 'swept')
        order by address, created_at, tx_hash, output_index) w
      where w.next_attempt_at <= ?
      order by w.next_attempt_at
      limit ?`,
    [network, at, limit],
  );
  return (rows as Array<Record<string, unknown>>).map(toRecord);
}

/** The sweeps of `network` (oldest first): operators and tests. */
export async function listSweeps(db: Knex, network: string): Promise<EvmSweepRecord[]> {
  const rows = await db('evm_sweeps')
    .where({ network })
    .orderBy([{ column: 'created_at' }, { column: 'tx_hash' }, { column: 'output_index' }]);
  return rows.map(toRecord);
}

/** Applies `change` to `sweep` if it is still in the state it was read in; returns whether it was. */
export async function updateSweep(db: Knex, sweep: EvmSweepRecord, change: EvmSweepChange, at: Date): Promise<boolean> {
  const columns: Record<string, unknown> = { updated_at: at };
  if (change.state !== undefined) columns.state = change.state;
  if (change.fundingTxHash !== undefined) columns.funding_tx_hash = change.fundingTxHash;
  if (change.sweepTxHash !== undefined) columns.sweep_tx_hash = change.sweepTxHash;
  if (change.sweepTxBytes !== undefined) columns.sweep_tx_bytes = change.sweepTxBytes;
  if (change.amount !== undefined) columns.amount = change.amount;
  if (change.attempts !== undefined) columns.attempts = change.attempts;
  // A node's error text may carry its URL (viem's does, with a provider key in the path): kept redacted.
  if (change.lastError !== undefined) columns.last_error = change.lastError === null ? null : redactUrls(change.lastError);
  if (change.nextAttemptAt !== undefined) columns.next_attempt_at = change.nextAttemptAt;
  const updated = await db('evm_sweeps')
    .where({ network: sweep.network, tx_hash: sweep.txHash, output_index: sweep.outputIndex, state: sweep.state })
    .update(columns);
  return updated === 1;
}

/**
 * Takes or renews the lease on sweeping `network` for `holder` until `at + ttlMs` (as takeWatchLease in
 * chain-ledger.ts does for watching); returns whether `holder` holds it now.
 */
export async function takeSweepLease(db: Knex, network: string, holder: string, at: Date, ttlMs: number): Promise<boolean> {
  const { rows } = await db.raw(
    `insert into evm_sweep_leases (network, holder, expires_at) values (?, ?, ?)
     on conflict (network) do update set holder = excluded.holder, expires_at = excluded.expires_at
      where evm_sweep_leases.holder = excluded.holder or evm_sweep_leases.expires_at < ?
     returning holder`,
    [network, holder, new Date(at.getTime() + ttlMs), at],
  );
  return rows.length > 0;
}

/** Gives up `holder`'s lease on sweeping `network` (a graceful stop: another instance may take it at once). */
export async function releaseSweepLease(db: Knex, network: string, holder: string): Promise<void> {
  await db('evm_sweep_leases').where({ network, holder }).delete();
}
