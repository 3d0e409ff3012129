/**
 * A worker thread for the service's CPU-heavy curve and hash work: checking Zano wallet proofs (two
 * Ed25519 scalar multiplications and several Keccak hashes per route create) and deriving sandbox addresses
 * (a point and hashes per network of a new route). On the main thread that work took about half of a route
 * create's CPU, and every other request waited while it ran; here it runs beside them, on another core.
 *
 * Calls go to the thread in batches, one message each, and at most two batches at a time: the one it works
 * on and the next, waiting there so that it never idles between them. The calls made meanwhile wait for the
 * first of the two to be answered and then go together (calls made in one turn of the event loop go together
 * anyway), so under load the cost of crossing threads (a message and a wake-up each way, system calls that
 * took about 5% of a route create's CPU when every turn sent its own) is shared by many calls. The thread
 * starts on first use and does not keep the process
 * alive; if it fails or exits, the calls in flight are refused with the reason and the next call starts a
 * new one. close() refuses the calls in flight and those not yet sent. The functions it runs are the pure
 * ones of domain/, so their results are exactly those of calling them here.
 */
import type { Worker } from 'node:worker_threads';
import type { ZanoProof, ZanoProofResult } from './domain/zano-proof.js';
import type { CryptoAnswer, CryptoBatch, CryptoTask } from './crypto-worker.js';
import { startWorker, workerModuleSource } from './worker-module.js';

const WORKER_SOURCE = workerModuleSource('crypto-worker', import.meta.url);
/** Batches on the thread at once: the one it works on, and the next. */
const MAX_BATCHES_IN_FLIGHT = 2;

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

/** Options of createCryptoThread. */
export interface CryptoThreadOptions {
  /** Told the number of calls of every batch sent to the thread. */
  onBatch?: (calls: number) => void;
}

/** Creates the thread's handle; the thread itself starts with the first call. */
export function createCryptoThread(options: CryptoThreadOptions = {}): CryptoThread {
  let worker: Worker | undefined;
  let nextId = 1;
  /** Tasks not yet sent: sent together at the end of this turn, or when a batch on the thread is answered. */
  let queued: Array<{ task: CryptoTask; waiting: Waiting }> = [];
  /** Batches sent and not yet answered, by id (at most MAX_BATCHES_IN_FLIGHT). */
  const inFlight = new Map<number, Waiting[]>();
  /** Whether a send() is due (at the end of this turn). */
  let sendDue = false;

  const refuseInFlight = (reason: Error) => {
    for (const batch of inFlight.values()) for (const waiting of batch) waiting.reject(reason);
    inFlight.clear();
  };

  function started(): Worker {
    if (worker) return worker;
    const thread = startWorker(WORKER_SOURCE, { eval: true });
    thread.unref();
    thread.on('message', ({ id, outcomes }: CryptoAnswer) => {
      const batch = inFlight.get(id);
      inFlight.delete(id);
      batch?.forEach((waiting, i) => {
        const outcome = outcomes[i];
        if ('error' in outcome) waiting.reject(new Error(outcome.error));
        else waiting.resolve(outcome.value);
      });
      // The calls that waited for this answer go now, as one batch.
      scheduleSend();
    });
    const lost = (reason: Error) => {
      if (worker !== thread) return;
      worker = undefined;
      refuseInFlight(reason);
      // The calls that waited behind the refused batch go to a new thread.
      scheduleSend();
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

  /** Sends the queued calls at the end of this turn, unless two batches are on the thread (an answer sends them). */
  function scheduleSend(): void {
    if (sendDue || inFlight.size >= MAX_BATCHES_IN_FLIGHT || queued.length === 0) return;
    sendDue = true;
    setImmediate(send);
  }

  function send(): void {
    sendDue = false;
    // Two batches are on the thread: these calls go when one of them is answered (or refused).
    if (inFlight.size >= MAX_BATCHES_IN_FLIGHT) return;
    const batch = queued;
    queued = [];
    if (batch.length === 0) return; // refused by close() meanwhile
    const id = nextId++;
    inFlight.set(
      id,
      batch.map((q) => q.waiting),
    );
    try {
      options.onBatch?.(batch.length);
      started().postMessage({ id, tasks: batch.map((q) => q.task) } satisfies CryptoBatch);
    } catch (err) {
      inFlight.delete(id);
      for (const { waiting } of batch) waiting.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  function submit<T>(task: CryptoTask): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      queued.push({ task, waiting: { resolve: resolve as (value: unknown) => void, reject } });
      scheduleSend();
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
