/**
 * The worker thread of crypto-thread.ts: runs the CPU-heavy curve and hash work it is handed, a batch per
 * message, and answers each batch with one outcome per task, in order. A task that throws answers with its
 * error's message; the other tasks of its batch are not affected.
 */
import { parentPort } from 'node:worker_threads';
import { sandboxAddress } from './domain/addresses.js';
import { verifyZanoProof, type ZanoProof } from './domain/zano-proof.js';

/** One piece of work. */
export type CryptoTask = { kind: 'zano-proof'; proof: ZanoProof } | { kind: 'sandbox-address'; network: string; seed: Uint8Array };

/** A task's result, or the message of what it threw. */
export type CryptoOutcome = { value: unknown } | { error: string };

/** A batch sent to the worker, and its answer. */
export interface CryptoBatch {
  id: number;
  tasks: CryptoTask[];
}
export interface CryptoAnswer {
  id: number;
  outcomes: CryptoOutcome[];
}

function run(task: CryptoTask): unknown {
  switch (task.kind) {
    case 'zano-proof':
      return verifyZanoProof(task.proof);
    case 'sandbox-address':
      return sandboxAddress(task.network, task.seed);
  }
}

const port = parentPort!;
// A batch that cannot be read cannot be answered: ending the thread refuses its calls (crypto-thread.ts).
port.on('messageerror', () => process.exit(1));
port.on('message', ({ id, tasks }: CryptoBatch) => {
  const outcomes = tasks.map((task): CryptoOutcome => {
    try {
      return { value: run(task) };
    } catch (err) {
      return { error: err instanceof Error ? err.message : String(err) };
    }
  });
  port.postMessage({ id, outcomes } satisfies CryptoAnswer);
});
