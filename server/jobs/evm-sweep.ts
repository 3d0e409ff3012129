/**
 * Sweeping (issue 35): moves deposits from their derived addresses to the hot wallet, on each EVM network whose
 * deposit account key is configured. A loop per network, on one instance at a time (a lease, as chain watching
 * has): each pass adds a sweep for every deposit a swap has credited or refunded (store/evm-sweeps.ts), then
 * drives the due ones a step each through the network's sweeper (adapters/ethereum/sweeper.ts):
 *
 *   pending --sweep--> funding (the hot wallet's gas top-up of a token deposit) --mined--> sweep again
 *   pending --sweep--> swept (signed and committed, then broadcast) --mined--> confirmed
 *   pending --sweep--> empty (nothing left to move)
 *
 * The sweep transaction is committed (hash, amount, signed bytes) before it is broadcast, as a payout is: a
 * process killed after the node took it finds it on restart and follows it to `confirmed`; one killed before
 * the broadcast finds the node does not know it and broadcasts the same bytes. Only a refusal of its first
 * broadcast (it went nowhere: we broadcast through this node alone) puts the sweep back to `pending`, its nonce
 * released, to be signed again. Once the bytes may have gone out they are the sweep's for good: a refused or
 * unanswered rebroadcast is tried again with a backoff, and after MAX_SWEEP_REFUSALS the sweep is left `failed`
 * for an operator with its hash and bytes, its nonce still held (signed again, the first transaction could
 * still be mined elsewhere, and the one recorded would not be the one that moved the deposit).
 *
 * Before a step signs anything, the address's native balance is reconciled with its ledger
 * (store/evm-reconcile.ts, adapters/ethereum/reconcile.ts): value no recorded output explains is recorded as a
 * held output (store/held-outputs.ts, listed by `ops outputs held`) and left on the address; the step moves only
 * what the ledger explains. The held value never moves by itself, in this sweep or a later one. A ledger that
 * cannot be compared yet (no scan, its last block left the chain) waits; an address that sent transactions the
 * ledger does not know is left `failed` for an operator.
 *
 * A sweep is our own bookkeeping: it never reads or writes a swap or a route, nor their events. Node calls run
 * outside every transaction; a step's result is written only if the sweep is still in the state it was read in.
 * Each sweep's transactions hold nonces by its key (`<key>:sweep`, `<key>:gas`), so a step retried after a crash
 * or an ambiguous broadcast signs with the same nonce: at most one of its transactions can ever be mined.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { EvmSweeper, SignedSweep } from '../adapters/ethereum/index.js';
import type { UnexplainedValue } from '../adapters/ethereum/sweeper.js';
import type { Catalog } from '../domain/catalog.js';
import { readAddressLedger } from '../store/evm-reconcile.js';
import {
  addSweepableDeposits,
  listDueSweeps,
  releaseSweepLease,
  takeSweepLease,
  updateSweep,
  type EvmSweepChange,
  type EvmSweepRecord,
} from '../store/evm-sweeps.js';
import { recordHeldOutput } from '../store/held-outputs.js';

/** How often a network is swept when its configuration does not say (`<NET>_SCAN_SECONDS` does, on devnets). */
export const SWEEP_INTERVAL_MS = 60_000;
/** A sweep lease not renewed for this long (or three of the network's passes, if longer) may be taken by another instance. */
export const SWEEP_LEASE_MS = 30_000;
/** How often an instance that does not hold a network's sweep lease tries to take it. */
const LEASE_RETRY_MS = 10_000;
/** Sweeps one pass drives at most (a step is a few node calls). */
const SWEEPS_PER_PASS = 20;
/** A sweep the node refused this many times is left for an operator (state `failed`). */
export const MAX_SWEEP_REFUSALS = 5;
/** The longest wait before a failed step is tried again. */
const RETRY_MAX_MS = 10 * 60_000;
/**
 * A sweep transaction the node has not known of for this long was dropped: the step is done again (same nonce).
 * Only for sweeps recorded before migration 0021, which have no bytes to broadcast again.
 */
export const SWEEP_DROPPED_AFTER_MS = 10 * 60_000;

/** The key a sweep's nonces are held by (the sweeper adds `:sweep` and `:gas`): one per deposit output. */
const sweepKey = (sweep: EvmSweepRecord) => `sweep:${sweep.txHash}:${sweep.outputIndex}`;

/**
 * The held output of value found on `found.address`, named `unexplained-<height>-<address>` (index 0): one per
 * address and ledger block, so a step that records it and dies is not recorded twice.
 */
export function heldOutputOf(network: string, nativeSymbol: string, found: UnexplainedValue, at: Date) {
  return {
    network,
    address: found.address,
    asset: nativeSymbol,
    amount: found.amount,
    txHash: `unexplained-${found.block.height}-${found.address}`,
    outputIndex: 0,
    fromAddress: null,
    reason:
      `${found.amount} ${nativeSymbol} on this deposit address that no recorded transaction explains: its balance at block ` +
      `${found.block.height} (${found.block.hash}) was ${found.balance} and the ledger explains ${found.explained}. ` +
      'It came without a transaction of its own (an internal transfer the node did not trace, a SELFDESTRUCT, a withdrawal): ' +
      'left on the address, never swept; the deposit key can move it, and the sender is unknown',
    at,
  };
}

/** The sweeping of one network: its sweeper and pace. */
export interface NetworkSweeping {
  sweeper: EvmSweeper;
  intervalMs: number;
}

/** What sweeping needs. */
export interface EvmSweepDeps {
  knex: Knex;
  catalog: Catalog;
  /** The networks that sweep (wiring.ts: those with `<NET>_DEPOSIT_KEY_FILE`). */
  networks: Record<string, NetworkSweeping>;
  /** This instance's name in the sweep leases. */
  holder: string;
  now: () => Date;
  logger: Logger;
}

/** Running sweep loops. */
export interface EvmSweeping {
  /** Runs a pass on `network` now and resolves when it is done (tests). */
  sweepNow(network: string): Promise<void>;
  stop(): Promise<void>;
}

/** Starts a sweep loop per network of `deps.networks`. */
export function startEvmSweeping(deps: EvmSweepDeps): EvmSweeping {
  let stopped = false;
  const loops = new Map(Object.entries(deps.networks).map(([network, sweeping]) => [network, createLoop(network, sweeping)]));

  function createLoop(network: string, { sweeper, intervalMs }: NetworkSweeping) {
    let timer: NodeJS.Timeout | undefined;
    let running: Promise<void> | undefined;
    let holding = false;
    const leaseMs = Math.max(SWEEP_LEASE_MS, 3 * intervalMs);

    // What every log line about `sweep` names.
    const contextOf = (sweep: EvmSweepRecord) => ({
      network,
      address: sweep.address,
      txHash: sweep.txHash,
      outputIndex: sweep.outputIndex,
      asset: sweep.asset,
    });

    const retryAt = (at: Date, attempts: number) =>
      new Date(at.getTime() + Math.min(intervalMs * 2 ** Math.min(attempts, 16), Math.max(RETRY_MAX_MS, intervalMs)));

    // A refusal (or no answer): tried again after a backoff, or left `failed` for an operator after
    // MAX_SWEEP_REFUSALS. `signAgain`: the refused transaction went nowhere, so its record is cleared and the sweep
    // is signed again (its nonce was released); otherwise the recorded transaction stays the sweep's.
    const refusal = (sweep: EvmSweepRecord, at: Date, reason: string, signAgain: boolean): EvmSweepChange => {
      const attempts = sweep.attempts + 1;
      const failed = attempts >= MAX_SWEEP_REFUSALS;
      const context = contextOf(sweep);
      deps.logger[failed ? 'error' : 'warn'](
        { ...context, sweepTxHash: sweep.sweepTxHash, reason, attempts },
        failed ? 'sweep refused; left for an operator' : 'sweep refused; will retry',
      );
      return {
        ...(signAgain ? { state: 'pending' as const, sweepTxHash: null, sweepTxBytes: null, amount: null } : {}),
        ...(failed ? { state: 'failed' as const } : {}),
        attempts,
        lastError: reason,
        nextAttemptAt: retryAt(at, attempts),
      };
    };

    async function save(sweep: EvmSweepRecord, change: EvmSweepChange): Promise<void> {
      const at = deps.now();
      if (!(await updateSweep(deps.knex, sweep, change, at))) {
        deps.logger.warn({ network, txHash: sweep.txHash, outputIndex: sweep.outputIndex }, 'sweep changed meanwhile; step dropped');
      }
    }

    // One step of `sweep`: follows its last transaction, or asks the sweeper for the next one.
    async function step(sweep: EvmSweepRecord): Promise<void> {
      const at = deps.now();
      const context = contextOf(sweep);
      const dropped = (state: string) => state === 'unknown' && at.getTime() - sweep.updatedAt.getTime() > SWEEP_DROPPED_AFTER_MS;
      if (sweep.state === 'swept') {
        const state = await sweeper.transactionState(sweep.sweepTxHash!);
        if (state === 'mined') {
          deps.logger.info({ ...context, sweepTxHash: sweep.sweepTxHash, amount: sweep.amount }, 'deposit swept to the hot wallet');
          return save(sweep, { state: 'confirmed' });
        }
        if (state === 'reverted') {
          deps.logger.error({ ...context, sweepTxHash: sweep.sweepTxHash }, 'sweep transaction reverted; left for an operator');
          return save(sweep, { state: 'failed', lastError: `the sweep transaction ${sweep.sweepTxHash} reverted` });
        }
        if (state === 'pending') return;
        // Unknown to the node: never broadcast (the process stopped first), or dropped. The recorded bytes go again.
        if (sweep.sweepTxBytes !== null) {
          let outcome;
          try {
            outcome = await sweeper.rebroadcast({ txHash: sweep.sweepTxHash!, bytes: sweep.sweepTxBytes });
          } catch (err) {
            return save(sweep, refusal(sweep, at, (err as Error).message, false));
          }
          if (outcome.kind === 'rejected') return save(sweep, refusal(sweep, at, outcome.reason, false));
          deps.logger.info({ ...context, sweepTxHash: sweep.sweepTxHash }, 'recorded sweep transaction broadcast again');
          // Counted, so that one the node keeps dropping (a fee cap under the base fee) ends with an operator.
          return save(sweep, { attempts: sweep.attempts + 1, nextAttemptAt: retryAt(at, sweep.attempts + 1) });
        }
        // Swept before its bytes were recorded (migration 0021) and dropped: swept again (its nonce is the same, so
        // the dropped one can never be mined as well).
        if (dropped(state)) return save(sweep, { state: 'pending', lastError: `the node no longer knows ${sweep.sweepTxHash}` });
        return;
      }
      if (sweep.state === 'funding') {
        const state = await sweeper.transactionState(sweep.fundingTxHash!);
        // The token transfer waits for its gas: until then the address cannot pay for it.
        if (state === 'pending' || (state === 'unknown' && !dropped(state))) return;
      }
      const asset = deps.catalog.assets.find((a) => a.network === network && a.symbol === sweep.asset);
      if (!asset) return save(sweep, { state: 'failed', lastError: `the catalogue has no asset ${sweep.asset} on ${network}` });
      // The sweep as committed before its transaction is broadcast (undefined until then).
      let recorded: EvmSweepRecord | undefined;
      const record = async (signed: SignedSweep) => {
        const change = { state: 'swept' as const, sweepTxHash: signed.txHash, sweepTxBytes: signed.bytes, amount: signed.amount };
        if (!(await updateSweep(deps.knex, sweep, change, at)))
          throw new Error('the sweep changed meanwhile; its transaction was not broadcast');
        recorded = { ...sweep, ...change, updatedAt: at };
      };
      // The sweep with its gas top-up committed before that is broadcast: the swap service then knows the top-up
      // for the service's own (store/chain-ledger.ts listOwnFundingTxs), whenever the watcher records it.
      let funded: EvmSweepRecord | undefined;
      const recordFunding = async (txHash: string) => {
        const change = { state: 'funding' as const, fundingTxHash: txHash };
        if (!(await updateSweep(deps.knex, sweep, change, at)))
          throw new Error('the sweep changed meanwhile; its gas top-up was not broadcast');
        funded = { ...sweep, ...change, updatedAt: at };
      };
      // Value the address's ledger cannot explain: held for an operator, committed before anything is signed.
      const hold = async (found: UnexplainedValue) => {
        await recordHeldOutput(deps.knex, heldOutputOf(network, sweeper.nativeSymbol, found, at));
        deps.logger.error(
          { ...context, amount: found.amount, block: found.block, balance: found.balance, explained: found.explained },
          'native value no recorded transaction explains is on a deposit address: held for an operator, not swept',
        );
      };
      let result;
      try {
        const ledger = await readAddressLedger(deps.knex, network, sweep.address, sweeper.nativeSymbol);
        result = await sweeper.sweep(
          { key: sweepKey(sweep), index: sweep.derivationIndex, asset, address: sweep.address, ledger },
          record,
          hold,
          recordFunding,
        );
      } catch (err) {
        // No answer, or an ambiguous broadcast: tried again later with the same nonces. A recorded transaction is
        // followed from its state on the node instead (broadcast again if the node does not know it).
        if (recorded) {
          deps.logger.warn(
            { ...context, err, sweepTxHash: recorded.sweepTxHash },
            'sweep broadcast unanswered; its recorded transaction is followed',
          );
          return;
        }
        deps.logger.warn({ ...context, err }, 'sweep step failed; will retry');
        return save(sweep, {
          attempts: sweep.attempts + 1,
          lastError: (err as Error).message,
          nextAttemptAt: retryAt(at, sweep.attempts + 1),
        });
      }
      switch (result.kind) {
        case 'nothing':
          return save(sweep, { state: 'empty', lastError: result.reason });
        case 'waiting':
          deps.logger.info({ ...context, reason: result.reason }, 'sweep waits for the ledger to be reconciled');
          return save(sweep, { lastError: result.reason, nextAttemptAt: new Date(at.getTime() + intervalMs) });
        case 'unreconciled':
          deps.logger.error(
            { ...context, reason: result.reason },
            'deposit address cannot be reconciled with its ledger; left for an operator',
          );
          return save(sweep, { state: 'failed', lastError: result.reason });
        case 'funding':
          deps.logger.info({ ...context, fundingTxHash: result.txHash }, 'gas sent to a token deposit address for its sweep');
          return; // recorded before its broadcast
        case 'swept':
          return; // recorded before its broadcast
        case 'rejected':
          // A refused sweep transaction went nowhere (its first broadcast): signed again. A refused top-up: retried.
          if (result.recorded && recorded) return save(recorded, refusal(recorded, at, result.reason, true));
          // A refused top-up went nowhere: the sweep goes back to the state it was in (its hash stays, harmless:
          // nothing counts a top-up the chain does not show).
          if (funded) {
            const change = refusal(sweep, at, result.reason, false);
            return save(funded, { ...change, state: change.state ?? sweep.state });
          }
          return save(sweep, refusal(sweep, at, result.reason, false));
      }
    }

    async function pass(): Promise<void> {
      holding = await takeSweepLease(deps.knex, network, deps.holder, deps.now(), leaseMs);
      if (!holding) return;
      await addSweepableDeposits(deps.knex, network, deps.now());
      for (const sweep of await listDueSweeps(deps.knex, network, deps.now(), SWEEPS_PER_PASS)) {
        if (stopped) return;
        try {
          await step(sweep);
        } catch (err) {
          deps.logger.warn({ err, network, txHash: sweep.txHash, outputIndex: sweep.outputIndex }, 'sweep step failed; will retry');
        }
      }
    }

    const schedule = (ms: number) => {
      clearTimeout(timer);
      if (!stopped) timer = setTimeout(run, ms);
    };

    function run(): Promise<void> {
      if (running) return running;
      running = (async () => {
        try {
          await pass();
        } catch (err) {
          deps.logger.warn({ err, network }, 'sweep pass failed; will retry');
        } finally {
          running = undefined;
        }
        schedule(holding ? intervalMs : Math.min(LEASE_RETRY_MS, leaseMs));
      })();
      return running;
    }

    schedule(Math.floor(Math.random() * Math.min(intervalMs, 1_000)));
    return {
      async sweepNow() {
        if (running) await running;
        await run();
      },
      async stop() {
        clearTimeout(timer);
        await running;
        // Another instance may sweep at once, not a lease's time later.
        if (holding) await releaseSweepLease(deps.knex, network, deps.holder).catch(() => undefined);
      },
    };
  }

  return {
    async sweepNow(network) {
      const loop = loops.get(network);
      if (!loop) throw new Error(`no sweeping on network ${network}`);
      await loop.sweepNow();
    },
    async stop() {
      stopped = true;
      await Promise.all([...loops.values()].map((loop) => loop.stop()));
    },
  };
}
