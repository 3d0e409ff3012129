/**
 * The reorganisation window of a watcher over a wallet RPC that shows no block hashes (Zano's, Monero's): the
 * scan's position keeps what was reported in the window (each output and payout with its height, 0 in the
 * pool). Against it, a scan reports what is new or at another height, an output no longer found in the window
 * as removed, and a payout no longer found as back to no block; and it keeps what the next window covers.
 */
import type { BlockRef, ChainScan, ObservedOutput, ObservedPayout } from './chain.js';

/** The opaque position: the tip reached, and what was reported in the window (key to height, 0: in the pool). */
export interface WindowPosition {
  v: 1;
  height: number;
  outputs: Record<string, number>;
  payouts: Record<string, number>;
}

/** The key of an output in a position. */
export const windowOutputKey = (txHash: string, index: number) => `${txHash}:${index}`;

const heightOf = (block: BlockRef | null) => block?.height ?? 0;

/**
 * What changed since `previous`, given everything the scan read above `floor` (and the pool), and the position
 * for the next scan from `tip` (entries below the next window's floor, `tip - reorgDepth`, are dropped).
 */
export function windowChanges(
  previous: WindowPosition | null,
  current: ReadonlyMap<string, ObservedOutput>,
  currentPayouts: ReadonlyMap<string, ObservedPayout>,
  window: { floor: number; tip: number; reorgDepth: number },
): Pick<ChainScan, 'outputs' | 'removed' | 'payouts'> & { next: WindowPosition } {
  const inWindow = (height: number) => height === 0 || height > window.floor;
  const outputs = [...current.entries()].filter(([key, o]) => previous?.outputs[key] !== heightOf(o.block)).map(([, o]) => o);
  const removed = Object.entries(previous?.outputs ?? {})
    .filter(([key, height]) => inWindow(height) && !current.has(key))
    .map(([key]) => {
      const at = key.lastIndexOf(':');
      return { txHash: key.slice(0, at), outputIndex: Number(key.slice(at + 1)) };
    });
  const payouts = [...currentPayouts.values()].filter((p) => previous?.payouts[p.txHash] !== heightOf(p.block));
  for (const [txHash, height] of Object.entries(previous?.payouts ?? {})) {
    if (inWindow(height) && height !== 0 && !currentPayouts.has(txHash)) payouts.push({ txHash, block: null });
  }
  const keep = (height: number) => height === 0 || height > window.tip - window.reorgDepth;
  const next: WindowPosition = { v: 1, height: window.tip, outputs: {}, payouts: {} };
  for (const [key, o] of current) if (keep(heightOf(o.block))) next.outputs[key] = heightOf(o.block);
  for (const p of currentPayouts.values()) if (keep(heightOf(p.block))) next.payouts[p.txHash] = heightOf(p.block);
  return { outputs, removed, payouts, next };
}
