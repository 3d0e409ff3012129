/**
 * What the ledger says about the native value of an EVM deposit address, for the reconciliation before its sweep
 * (adapters/ethereum/reconcile.ts, jobs/evm-sweep.ts): the outputs recorded to it, what is held on it, the
 * transactions it sent (its sweeps') and the gas top-ups it was sent, with the watcher's position they are
 * complete through. Read in one statement, so that the position and the outputs are of the same moment (the
 * watcher job writes both in one transaction).
 */
import type { Knex } from 'knex';
import { parseUnits } from 'viem';
import type { AddressLedger } from '../adapters/ethereum/reconcile.js';

/** Decimals of an EVM network's native asset (its ledger amounts are in whole units). */
const NATIVE_DECIMALS = 18;

/** The ledger of `address` on `network` for its native asset `nativeSymbol`. */
export async function readAddressLedger(db: Knex, network: string, address: string, nativeSymbol: string): Promise<AddressLedger> {
  const { rows } = await db.raw(
    `select
       (select position from chain_cursors where network = :network) as position,
       coalesce((select json_agg(json_build_object('txHash', o.tx_hash, 'outputIndex', o.output_index, 'amount', o.amount::text,
                                                   'height', o.block_height) order by o.block_height, o.tx_hash, o.output_index)
                   from chain_outputs o
                  where o.network = :network and o.address = :address and o.asset = :asset
                    and o.removed_at is null and o.held_reason is null), '[]'::json) as received,
       (select coalesce(sum(o.amount), 0)::text from chain_outputs o
         where o.network = :network and o.address = :address and o.asset = :asset
           and o.removed_at is null and o.held_reason is not null) as held,
       coalesce((select json_agg(w.sweep_tx_hash) from evm_sweeps w
                  where w.network = :network and w.address = :address and w.sweep_tx_hash is not null), '[]'::json) as sent,
       coalesce((select json_agg(w.funding_tx_hash) from evm_sweeps w
                  where w.network = :network and w.address = :address and w.funding_tx_hash is not null), '[]'::json) as funded`,
    { network, address, asset: nativeSymbol },
  );
  const row = rows[0] as {
    position: string | null;
    received: Array<{ txHash: string; outputIndex: number; amount: string; height: number | string | null }>;
    held: string;
    sent: string[];
    funded: string[];
  };
  return {
    position: row.position,
    received: row.received.map((r) => ({
      txHash: r.txHash,
      outputIndex: r.outputIndex,
      value: parseUnits(r.amount, NATIVE_DECIMALS),
      height: r.height === null ? null : Number(r.height),
    })),
    held: parseUnits(row.held, NATIVE_DECIMALS),
    sent: row.sent,
    funded: row.funded,
  };
}
