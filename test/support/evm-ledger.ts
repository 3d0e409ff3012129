/**
 * The chain ledger as the watcher job writes it, for tests that drive adapters without the server: a scan of a
 * real watcher stored with the real store functions (the cursor and the outputs in one transaction), so that
 * reconciliation before a sweep (store/evm-reconcile.ts) reads what production would.
 */
import type { Knex } from 'knex';
import type { ChainScan, ChainWatcher } from '../../server/adapters/chain.js';
import { advanceCursor, readCursor, recordOutputs, recordRemovals } from '../../server/store/chain-ledger.js';

/** Scans `watcher` from `network`'s stored cursor and stores what it saw; every address counts as watched. */
export async function scanIntoLedger(knex: Knex, network: string, watcher: ChainWatcher): Promise<ChainScan> {
  for (;;) {
    const cursor = await readCursor(knex, network);
    const scan = await watcher.scan(cursor, async (candidates) => new Set(candidates));
    await knex.transaction(async (trx) => {
      if (!(await advanceCursor(trx, network, cursor, scan, new Date()))) throw new Error(`the ${network} cursor moved meanwhile`);
      await recordOutputs(trx, network, scan.outputs);
      await recordRemovals(trx, network, scan.removed, new Date());
    });
    if (!scan.behind) return scan;
  }
}
