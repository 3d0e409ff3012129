/**
 * Held outputs in the chain ledger (migration 0031; docs/treasury.md "Held outputs"): outputs to watched
 * addresses that are recorded but credited by nothing, until an operator deals with them.
 */
import type { Knex } from 'knex';

/** A held output, as the ops CLI shows it. */
export interface HeldOutput {
  network: string;
  txHash: string;
  outputIndex: number;
  address: string;
  asset: string;
  amount: string;
  fromAddress: string | null;
  blockHeight: number | null;
  reason: string;
  seenAt: Date;
  /** A reorganisation took it out of the chain. */
  removed: boolean;
  resolvedAt: Date | null;
  resolvedBy: string | null;
  resolution: string | null;
}

/** An output to record as held (one a watcher did not report: value found by reconciling a balance). */
export interface HeldOutputInput {
  network: string;
  address: string;
  asset: string;
  amount: string;
  /** Names it in the ledger: a transaction hash where one explains it, else a stable label of the finding. */
  txHash: string;
  outputIndex: number;
  fromAddress: string | null;
  reason: string;
  at: Date;
}

const toHeld = (row: Record<string, unknown>): HeldOutput => ({
  network: row.network as string,
  txHash: row.tx_hash as string,
  outputIndex: row.output_index as number,
  address: row.address as string,
  asset: row.asset as string,
  amount: row.amount as string,
  fromAddress: row.from_address as string | null,
  blockHeight: row.block_height === null ? null : Number(row.block_height),
  reason: row.held_reason as string,
  seenAt: row.seen_at as Date,
  removed: row.removed_at !== null,
  resolvedAt: row.resolved_at as Date | null,
  resolvedBy: row.resolved_by as string | null,
  resolution: row.resolution as string | null,
});

const COLUMNS = `network, tx_hash, output_index, address, asset, amount::text as amount, from_address, block_height::text as block_height,
  held_reason, seen_at, removed_at, resolved_at, resolved_by, resolution`;

/** Records `output` as held (once: the same network, hash and index again changes nothing). */
export async function recordHeldOutput(trx: Knex | Knex.Transaction, output: HeldOutputInput): Promise<void> {
  await trx('chain_outputs')
    .insert({
      network: output.network,
      tx_hash: output.txHash,
      output_index: output.outputIndex,
      asset: output.asset,
      address: output.address,
      memo: null,
      amount: output.amount,
      from_address: output.fromAddress,
      seen_at: output.at,
      held_reason: output.reason,
    })
    .onConflict(['network', 'tx_hash', 'output_index'])
    .ignore();
}

/** The held outputs no operator resolved yet (with `all`, resolved ones too), oldest first. */
export async function listHeldOutputs(db: Knex, options: { all?: boolean } = {}): Promise<HeldOutput[]> {
  const { rows } = await db.raw(
    `select ${COLUMNS} from chain_outputs where held_reason is not null ${options.all ? '' : 'and resolved_at is null'}
      order by seen_at, network, tx_hash, output_index`,
  );
  return (rows as Array<Record<string, unknown>>).map(toHeld);
}

/** Marks held output `key` resolved by `actor` with `resolution`; false when there is no such unresolved one. */
export async function resolveHeldOutput(
  trx: Knex.Transaction,
  key: { network: string; txHash: string; outputIndex: number },
  actor: string,
  resolution: string,
  at: Date,
): Promise<boolean> {
  const updated = await trx('chain_outputs')
    .where({ network: key.network, tx_hash: key.txHash, output_index: key.outputIndex })
    .whereNotNull('held_reason')
    .whereNull('resolved_at')
    .update({ resolved_at: at, resolved_by: actor, resolution });
  return updated === 1;
}

/** Held outputs not resolved, per network (the pss_outputs_held gauge). */
export async function countHeldOutputs(db: Knex): Promise<Array<{ network: string; count: number }>> {
  const { rows } = await db.raw(
    `select network, count(*)::int as count from chain_outputs where held_reason is not null and resolved_at is null group by network`,
  );
  return rows;
}
