/**
 * A worker thread for the service's CPU-heavy curve and hash work: checking Zano wallet proofs (two
 * Ed25519 scalar multiplications and several Keccak hashes per route create) and deriving sandbox addresses
 * (a point and hashes per network of a new route). On the main thread that work took about half of a route
 * create's CPU, and every other request waited while it ran; here it runs beside them, on another core.
 *
 * Calls made in one turn of the event loop go to the thread as one message (one batch), so under load the
 * cost of crossing threads is shared by many. The thread starts on first use and does not keep the process
 * alive; if it fails or exits, the calls in flight are refused with the reason and the next call starts a
 * new one. close() refuses the calls in flight and those not yet sent. The functions it runs are the pure
 * ones of domain/, so their results are exactly those of calling them here.
 */
import { Worker } from 'node:worker_threads';
import type { ZanoProof, ZanoProofResult } from './domain/zano-proof.js';
import type { CryptoAnswer, CryptoBatch, CryptoTask } from './crypto-worker.js';
import { workerModuleSource } from './worker-module.js';

const WORKER_SOURCE = workerModuleSource('crypto-worker', import.meta.url);

/** The work the thread does, as promises. */
export interface CryptoThread {
  /** verifyZanoProof (domain/zano-proof.ts) on the thread. */
  verifyZanoProof(proof: ZanoProof): Promise<ZanoProofResult>;
  /** sandboxAddress (domain/addresses.ts) on the thread; rejects as it throws (an unknown network). */
  sandboxAddress(network: string, seed: Uint8Array): Promise<string>;
  /** Ends the thread; calls in flight are refused. A later call starts a new one. */
  close(): Promise<void>;
}

interface Waiting {
  resolve(value: unknown): void;
  reject(err: Error): void;
}

/** Creates the thread's handle; the thread itself starts with the first call. */
export function createCryptoThread(): CryptoThread {
  let worker: Worker | undefined;
  let nextId = 1;
  /** Tasks of this turn, sent together at its end. */
  let queued: Array<{ task: CryptoTask; waiting: Waiting }> = [];
  /** Batches sent and not yet answered, by id. */
  const inFlight = new Map<number, Waiting[]>();

  const refuseInFlight = (reason: Error) => {
    for (const batch of inFlight.values()) for (const waiting of batch) waiting.reject(reason);
    inFlight.clear();
  };

  function started(): Worker {
    if (worker) return worker;
    const thread = new Worker(WORKER_SOURCE, { eval: true });
    thread.unref();
    thread.on('message', ({ id, outcomes }: CryptoAnswer) => {
      const batch = inFlight.get(id);
      inFlight.delete(id);
      batch?.forEach((waiting, i) => {
        const outcome = outcomes[i];
        if ('error' in outcome) waiting.reject(new Error(outcome.error));
        else waiting.resolve(outcome.value);
      });
    });
    const lost = (reason: Error) => {
      if (worker !== thread) return;
      worker = undefined;
      refuseInFlight(reason);
    };
    thread.on('error', (err) => lost(new Error(`the crypto thread failed: ${err.message}`, { cause: err })));
    // An answer that cannot be read would leave its batch unanswered: the thread is given up as failed.
    thread.on('messageerror', (err) => {
      lost(new Error(`an answer of the crypto thread could not be read: ${err.message}`, { cause: err }));
      void thread.terminate();
    });
    thread.on('exit', (code) => lost(new Error(`the crypto thread exited (code ${code})`)));
    worker = thread;
    return thread;
  }

  function send(): void {
    const batch = queued;
    queued = [];
    if (batch.length === 0) return; // refused by close() meanwhile
    const id = nextId++;
    inFlight.set(
      id,
      batch.map((q) => q.waiting),
    );
    try {
      started().postMessage({ id, tasks: batch.map((q) => q.task) } satisfies CryptoBatch);
    } catch (err) {
      inFlight.delete(id);
      for (const { waiting } of batch) waiting.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  function submit<T>(task: CryptoTask): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      queued.push({ task, waiting: { resolve: resolve as (value: unknown) => void, reject } });
      if (queued.length === 1) setImmediate(send);
    });
  }

  return {
    verifyZanoProof: (proof) =>
      submit({
        kind: 'zano-proof',
        // Only the four strings cross the thread (a structured clone of anything else could throw).
        proof: { address: proof.address, message: proof.message, publicKey: proof.publicKey, signature: proof.signature },
      }),
    sandboxAddress: (network, seed) => submit({ kind: 'sandbox-address', network, seed }),
    async close() {
      const thread = worker;
      worker = undefined;
      const closed = new Error('the crypto thread was closed');
      refuseInFlight(closed);
      for (const { waiting } of queued.splice(0)) waiting.reject(closed);
      await thread?.terminate();
    },
  };
}
