/**
 * The chains behind interfaces: allocating deposit addresses, seeing deposits with their confirmations, and
 * sending payouts and refunds. Production plugs custody and node providers in here; the sandbox simulates
 * them (adapters/sandbox/chain.ts). Every call takes the executor to run on, so a simulated effect commits
 * with the transition that caused it.
 */
import type { Knex } from 'knex';
import type { CatalogAsset } from '../domain/catalog.js';

/** A deposit seen on a deposit address. */
export interface SeenDeposit {
  txHash: string;
  /** In units of the asset. */
  amount: string;
  /** The paying address (refunds in refundMode `sender` go back there). */
  fromAddress: string;
  seenAt: Date;
  confirmations: number;
}

/** A transaction output paid to a reusable (permanent-route) address. */
export interface AddressDeposit extends SeenDeposit {
  address: string;
  asset: string;
  network: string;
  outputIndex: number;
}

/** A payout or refund request. The idempotency key makes a repeated send return the first transaction. */
export interface SendRequest {
  idempotencyKey: string;
  asset: CatalogAsset;
  address: string;
  memo: string | null;
  amount: string;
}

/** The chain operations the swap lifecycle needs. */
export interface ChainAdapter {
  /** A fresh deposit address (and memo, where the asset needs one) for `asset`, unique to `swapId`. */
  allocateDepositAddress(db: Knex, asset: CatalogAsset, swapId: string): Promise<{ address: string; memo: string | null }>;
  /** The first deposit to `address` (and `memo`) since `since`, with its confirmations at `at`. */
  findDeposit(db: Knex, asset: CatalogAsset, address: string, memo: string | null, since: Date, at: Date): Promise<SeenDeposit | undefined>;
  /** Every transaction output paid to one of `addresses` between `since` and `at`, oldest first. */
  listAddressDeposits(db: Knex, addresses: string[], since: Date, at: Date): Promise<AddressDeposit[]>;
  /** Confirmations at `at` of a transaction broadcast at `sentAt`. */
  confirmationsSince(sentAt: Date, at: Date): number;
  /** When a transaction broadcast at `sentAt` reaches `confirmations` (an estimate outside the sandbox). */
  confirmationTime(sentAt: Date, confirmations: number): Date;
  /** Sends `amount` and returns the transaction hash; idempotent by `idempotencyKey`. */
  send(db: Knex, request: SendRequest): Promise<{ txHash: string }>;
}
