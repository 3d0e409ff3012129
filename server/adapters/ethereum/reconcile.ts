/**
 * Reconciling a deposit address before a sweep (the chain boundary, docs/architecture.md#money-that-ends-well): its native balance is compared
 * with what the ledger explains, so that value no recorded transaction brought (an internal transfer the node's
 * traces did not show, a SELFDESTRUCT, a beacon-chain withdrawal) is found and held, never swept.
 *
 * What the ledger explains at a block is every native output recorded to the address (not removed, not held)
 * and every gas top-up the hot wallet sent it, mined by that block, less what the address's own transactions
 * (its sweeps, whose hashes the ledger keeps) took out by then: value and fee. The ledger is complete through
 * the last block its watcher stored (watcher.ts: scannedBlockOf), so the balance is compared there:
 *
 *   unexplained = balance(ledger block) - explained(ledger block) - held already     (recorded as held if > 0)
 *   movable     = min(explained(now), balance(now) - held - unexplained)             (what a sweep may spend)
 *
 * Value that arrived after the ledger block is in neither: it stays on the address (found by the next
 * reconciliation of it, if it is not an output the watcher records meanwhile). An address that sent a
 * transaction the ledger does not know cannot be reconciled: its outflows are unknown.
 */
import type { Hex, PublicClient } from 'viem';
import { scannedBlockOf } from './watcher.js';

/** What the ledger says about the native value of one deposit address (store/evm-reconcile.ts reads it). */
export interface AddressLedger {
  /** The watcher's stored position (chain_cursors.position): the ledger is complete through its last block. */
  position: string | null;
  /** The native outputs recorded to the address, not removed and not held: amounts in wei, with their block. */
  received: Array<{ txHash: string; outputIndex: number; value: bigint; height: number | null }>;
  /** Native value already held for an operator on the address, in wei (never swept, resolved or not). */
  held: bigint;
  /** Hashes of the transactions the address sent (its sweeps'), whatever became of them. */
  sent: string[];
  /** Hashes of the gas top-ups the hot wallet sent the address (they are outputs too, once the watcher records them). */
  funded: string[];
}

/** A value that entered or left the address, and the height of the block it did so in. */
export interface NativeFlow {
  value: bigint;
  height: number;
}

/** What reconcileNative compares. */
export interface NativeReconcileInput {
  /** The block the ledger is complete through, and the address's balance there (wei). */
  ledgerHeight: number;
  balanceAtLedger: bigint;
  /** The block read as now, and the balance there (wei). */
  nowHeight: number;
  balanceNow: bigint;
  /** What the ledger's outputs and our top-ups brought, and what our transactions took out (value and fee). */
  inflows: NativeFlow[];
  outflows: NativeFlow[];
  /** Already held for an operator (wei). */
  held: bigint;
}

/** What the ledger cannot explain, and what a sweep may spend (value and gas), in wei. */
export interface NativeReconciliation {
  /** What the ledger explains at the ledger block. */
  explained: bigint;
  /** Found at the ledger block and not held yet: to be recorded as held before anything moves. */
  unexplained: bigint;
  /** What a sweep of the address may spend now, gas included: never held or unexplained value. */
  movable: bigint;
}

const sumTo = (flows: NativeFlow[], height: number) => flows.reduce((sum, f) => (f.height <= height ? sum + f.value : sum), 0n);
const max0 = (value: bigint) => (value > 0n ? value : 0n);

/** Compares an address's balance with what the ledger explains (a pure decision: the module header has the rule). */
export function reconcileNative(input: NativeReconcileInput): NativeReconciliation {
  const explainedAt = (height: number) => sumTo(input.inflows, height) - sumTo(input.outflows, height);
  const explained = explainedAt(input.ledgerHeight);
  const unexplained = max0(input.balanceAtLedger - max0(explained) - input.held);
  const room = input.balanceNow - input.held - unexplained;
  const movable = max0(explainedAt(input.nowHeight) < room ? explainedAt(input.nowHeight) : room);
  return { explained: max0(explained), unexplained, movable };
}

/** The answer of reading an address against its ledger. */
export type AddressReading =
  | {
      kind: 'read';
      /** The ledger's block, and the block read as now. */
      ledgerBlock: { height: number; hash: string };
      now: number;
      balanceAtLedger: bigint;
      reconciliation: NativeReconciliation;
    }
  /** The ledger cannot be compared now (no scan yet, or its block left the chain): tried again later. */
  | { kind: 'waiting'; reason: string }
  /** The address sent transactions the ledger does not know: its outflows are unknown, an operator looks. */
  | { kind: 'unknown-transactions'; reason: string };

/** Reads `address`'s balances, and the transactions its ledger names, from the node, and reconciles them. */
export async function readAddress(client: PublicClient, address: string, ledger: AddressLedger): Promise<AddressReading> {
  const scanned = scannedBlockOf(ledger.position);
  if (!scanned) return { kind: 'waiting', reason: 'the watcher has not scanned the network yet: the ledger explains nothing' };
  const latest = await client.getBlock({ blockTag: 'latest' });
  const now = Number(latest.number);
  const atLedger = await client.getBlock({ blockNumber: BigInt(scanned.height) });
  if (scanned.hash !== null && atLedger.hash !== scanned.hash) {
    return { kind: 'waiting', reason: `block ${scanned.height}, the last the ledger holds, left the chain: waiting for the watcher` };
  }
  const at = { height: scanned.height, hash: atLedger.hash! };
  const who = address as Hex;
  const [balanceAtLedger, balanceNow, nonceNow] = await Promise.all([
    client.getBalance({ address: who, blockNumber: BigInt(at.height) }),
    client.getBalance({ address: who, blockNumber: BigInt(now) }),
    client.getTransactionCount({ address: who, blockNumber: BigInt(now) }),
  ]);

  // Mined transactions (by the block read as now) of the hashes the ledger keeps: receipts, and the transfer itself.
  const minedBy = async (hash: string) => {
    const receipt = await client.request({ method: 'eth_getTransactionReceipt', params: [hash as Hex] });
    if (!receipt || Number(receipt.blockNumber) > now) return undefined;
    const tx = await client.getTransaction({ hash: hash as Hex });
    return { receipt, tx, height: Number(receipt.blockNumber) };
  };
  const recorded = new Set(ledger.received.map((r) => r.txHash.toLowerCase()));
  const inflows: NativeFlow[] = ledger.received.filter((r) => r.height !== null).map((r) => ({ value: r.value, height: r.height! }));
  for (const hash of new Set(ledger.funded.filter((h) => !recorded.has(h.toLowerCase())))) {
    const mined = await minedBy(hash);
    // A top-up the watcher has not recorded yet (mined after the ledger block, or in a block it is reading).
    if (mined && mined.receipt.status === '0x1' && mined.tx.to?.toLowerCase() === address.toLowerCase()) {
      inflows.push({ value: mined.tx.value, height: mined.height });
    }
  }
  const outflows: NativeFlow[] = [];
  for (const hash of new Set(ledger.sent)) {
    const mined = await minedBy(hash);
    if (!mined || mined.tx.from.toLowerCase() !== address.toLowerCase()) continue;
    const fee = BigInt(mined.receipt.gasUsed) * BigInt(mined.receipt.effectiveGasPrice);
    outflows.push({ value: (mined.receipt.status === '0x1' ? mined.tx.value : 0n) + fee, height: mined.height });
  }
  if (nonceNow !== outflows.length) {
    return {
      kind: 'unknown-transactions',
      reason:
        `${address} has sent ${nonceNow} transaction(s) by block ${now} and the ledger knows ${outflows.length}: ` +
        'what left it is unknown, so its balance cannot be reconciled (an operator looks; nothing is swept)',
    };
  }
  const reconciliation = reconcileNative({
    ledgerHeight: at.height,
    balanceAtLedger,
    nowHeight: now,
    balanceNow,
    inflows,
    outflows,
    held: ledger.held,
  });
  return { kind: 'read', ledgerBlock: at, now, balanceAtLedger, reconciliation };
}
