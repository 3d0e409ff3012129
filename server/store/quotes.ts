/** Quotes: persisted when given, bound to their partner, used by at most one swap. */
import type { Knex } from 'knex';

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
  usedAt: 'used_at',
  createdAt: 'created_at',
};

const SELECT = Object.entries(COLUMNS).map(([field, column]) => `${column} as ${field}`);

function fromRow(row: Record<string, unknown>): QuoteRecord {
  return Object.fromEntries(Object.entries(COLUMNS).map(([field, column]) => [field, row[column]])) as unknown as QuoteRecord;
}

/** Stores a quote and returns it with its id. */
export async function insertQuote(db: Knex, quote: NewQuote): Promise<QuoteRecord> {
  const row = Object.fromEntries(Object.entries(quote).map(([field, value]) => [COLUMNS[field as keyof QuoteRecord], value]));
  const [stored] = await db('quotes').insert(row).returning('*');
  return fromRow(stored);
}

/**
 * Marks the partner's quote `id` used at `at` and returns it, in one statement; undefined when it is not
 * theirs, already used or expired at `at`. A concurrent claim of the same quote waits for the first one's
 * transaction and then finds it used. The caller rolls back when the quote does not fit its request.
 */
export async function claimPartnerQuote(trx: Knex.Transaction, partnerId: string, id: string, at: Date): Promise<QuoteRecord | undefined> {
  const [row] = (await trx('quotes')
    .where({ id, partner_id: partnerId, used_at: null })
    .andWhere('expires_at', '>', at)
    .update({ used_at: at })
    .returning(SELECT)) as QuoteRecord[];
  return row;
}
