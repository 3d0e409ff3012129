/** Quotes: persisted when given, bound to their partner, used by at most one swap. */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { columnArrays, groupCommit, unnestInsert } from './group-commit.js';

/** A stored quote. Amounts are decimal strings. */
export interface QuoteRecord {
  id: string;
  partnerId: string;
  sourceAsset: string;
  sourceNetwork: string;
  destinationAsset: string;
  destinationNetwork: string;
  sourceAmount: string;
  depositAmount: string;
  receiveAmount: string;
  minimumReceiveAmount: string | null;
  feeUsd: string;
  rate: string;
  rateType: 'fixed' | 'floating';
  minimumSourceAmount: string;
  maximumSourceAmount: string;
  estimatedMinutes: number;
  lateDepositPolicy: 'refund' | 'market_rate';
  refundMode: 'sender' | 'address';
  refundAddress: string | null;
  refundMemo: string | null;
  expiresAt: Date;
  /**
   * What the quote holds back of its destination asset while unused and unexpired, and the swap made from it
   * after (services/liquidity.ts); null: nothing (the sandbox).
   */
  reservedAmount: string | null;
  usedAt: Date | null;
  createdAt: Date;
}

/** The fields a new quote is stored with. */
export type NewQuote = Omit<QuoteRecord, 'id' | 'usedAt' | 'createdAt'>;

const COLUMNS: Record<keyof QuoteRecord, string> = {
  id: 'id',
  partnerId: 'partner_id',
  sourceAsset: 'source_asset',
  sourceNetwork: 'source_network',
  destinationAsset: 'destination_asset',
  destinationNetwork: 'destination_network',
  sourceAmount: 'source_amount',
  depositAmount: 'deposit_amount',
  receiveAmount: 'receive_amount',
  minimumReceiveAmount: 'minimum_receive_amount',
  feeUsd: 'fee_usd',
  rate: 'rate',
  rateType: 'rate_type',
  minimumSourceAmount: 'minimum_source_amount',
  maximumSourceAmount: 'maximum_source_amount',
  estimatedMinutes: 'estimated_minutes',
  lateDepositPolicy: 'late_deposit_policy',
  refundMode: 'refund_mode',
  refundAddress: 'refund_address',
  refundMemo: 'refund_memo',
  expiresAt: 'expires_at',
  reservedAmount: 'reserved_amount',
  usedAt: 'used_at',
  createdAt: 'created_at',
};

/** The columns of a quote as its record's fields, for a `returning` or `select` list of raw SQL. */
export const QUOTE_RETURNING = Object.entries(COLUMNS)
  .map(([field, column]) => `${column} as "${field}"`)
  .join(', ');

// The type of each column a new quote is written with (its id first): the arrays the group insert unnests.
const NEW_QUOTE_TYPES: Record<'id' | keyof NewQuote, string> = {
  id: 'uuid',
  partnerId: 'uuid',
  sourceAsset: 'text',
  sourceNetwork: 'text',
  destinationAsset: 'text',
  destinationNetwork: 'text',
  sourceAmount: 'numeric',
  depositAmount: 'numeric',
  receiveAmount: 'numeric',
  minimumReceiveAmount: 'numeric',
  feeUsd: 'numeric',
  rate: 'numeric',
  rateType: 'text',
  minimumSourceAmount: 'numeric',
  maximumSourceAmount: 'numeric',
  estimatedMinutes: 'int',
  lateDepositPolicy: 'text',
  refundMode: 'text',
  refundAddress: 'text',
  refundMemo: 'text',
  expiresAt: 'timestamptz',
  reservedAmount: 'numeric',
};
const NEW_QUOTE_FIELDS = Object.keys(NEW_QUOTE_TYPES) as Array<'id' | keyof NewQuote>;
const INSERT_QUOTES = unnestInsert(
  'quotes',
  Object.fromEntries(NEW_QUOTE_FIELDS.map((f) => [COLUMNS[f], NEW_QUOTE_TYPES[f]])),
  QUOTE_RETURNING,
);

/**
 * Stores quotes and returns each with its id. Quotes made while one insert runs are stored together by the
 * next (group commit, one statement whatever their number: `unnest` of one array per column), so under load
 * a commit serves many quote requests. A quote is its request's own: its id is made here, and each request
 * gets back the row with that id.
 */
export function createQuoteWriter(db: Knex): (quote: NewQuote) => Promise<QuoteRecord> {
  return groupCommit((quotes: NewQuote[]) => insertQuotes(db, quotes));
}

async function insertQuotes(db: Knex | Knex.Transaction, quotes: NewQuote[]): Promise<QuoteRecord[]> {
  const rows = quotes.map((quote) => ({ ...quote, id: randomUUID() }));
  const stored = new Map(
    ((await db.raw(INSERT_QUOTES, columnArrays(rows, NEW_QUOTE_FIELDS))).rows as QuoteRecord[]).map((row) => [row.id, row]),
  );
  return rows.map((row) => stored.get(row.id)!);
}

/** Stores one quote in `trx` (a quote whose reservation is checked under its asset's lock in the same transaction). */
export async function insertQuote(trx: Knex.Transaction, quote: NewQuote): Promise<QuoteRecord> {
  return (await insertQuotes(trx, [quote]))[0];
}

/** Most quotes IssuedQuotes keeps: 10,000 quote records took 15 MB of heap (measured), so at most about that. */
export const ISSUED_QUOTES_KEPT = 10_000;

/**
 * The quotes this instance stored, as the insert returned them (so exactly what a read of them returns), kept
 * until they expire or are used here, the oldest dropped first beyond `limit`. A swap created from one of
 * them needs no read of it first (handlers/swaps.ts). A kept quote may be stale in one way only: another
 * instance may have used it (a quote changes only by being used). The statement that creates a swap checks
 * that again, and a create it refuses reads the quote anew.
 */
export function createIssuedQuotes(limit = ISSUED_QUOTES_KEPT) {
  // Insertion order is expiry order (every quote lives QUOTE_TTL_SECONDS), so expired quotes are at the front.
  const kept = new Map<string, QuoteRecord>();
  const dropExpired = (at: Date) => {
    for (const [id, quote] of kept) {
      if (quote.expiresAt.getTime() > at.getTime()) break;
      kept.delete(id);
    }
  };
  return {
    /** Keeps `quote`, just stored; drops the expired at its creation and, beyond the limit, the oldest. */
    add(quote: QuoteRecord): void {
      dropExpired(quote.createdAt);
      kept.set(quote.id, quote);
      if (kept.size > limit) kept.delete(kept.keys().next().value!);
    },
    /** The kept quote `id` if it is partner `partnerId`'s, unused here and unexpired at `at`. */
    find(id: string, partnerId: string, at: Date): QuoteRecord | undefined {
      const quote = kept.get(id);
      return quote && quote.partnerId === partnerId && quote.expiresAt.getTime() > at.getTime() ? quote : undefined;
    },
    /** Forgets quote `id` (a swap was created from it). */
    forget(id: string): void {
      kept.delete(id);
    },
    /** How many quotes are kept (for tests). */
    get size(): number {
      return kept.size;
    },
  };
}

/** Quotes kept by the instance that stored them; see createIssuedQuotes. */
export type IssuedQuotes = ReturnType<typeof createIssuedQuotes>;
