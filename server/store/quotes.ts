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

/** The partner's quote `id`, locked for the caller's transaction; undefined when it is not theirs. */
export async function lockPartnerQuote(trx: Knex.Transaction, partnerId: string, id: string): Promise<QuoteRecord | undefined> {
  return (await trx('quotes').select(SELECT).where({ id, partner_id: partnerId }).forUpdate().first()) as QuoteRecord | undefined;
}

/** Marks a quote used at `at`. */
export async function markQuoteUsed(trx: Knex.Transaction, id: string, at: Date): Promise<void> {
  await trx('quotes').where({ id }).update({ used_at: at });
}
