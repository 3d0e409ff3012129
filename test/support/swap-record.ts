/**
 * A stored swap record for unit tests of the domain: an LTC -> USDT (ERC-20) fixed swap of 2.5 LTC, waiting
 * for its deposit at its address, created 2026-06-14T10:00Z with its deposit deadline half an hour later.
 */
import type { SwapRecord } from '../../server/domain/swap-view.js';

export const SWAP_CREATED = new Date('2026-06-14T10:00:00.000Z');
export const SWAP_QUOTE_EXPIRES = new Date('2026-06-14T10:30:00.000Z');
export const SWAP_EXPIRES = new Date('2026-06-15T10:30:00.000Z');
export const SWAP_DEPOSIT_ADDRESS = 'ltc1q4xj5p0ux3r8nz6c2wq7ev9mk3h5lt0ad2yfs8g';
export const SWAP_REFUND_ADDRESS = 'ltc1qg82tqhqhvyk8e9nq7ls2w5xkq6hvm3f6rnl8vj';
export const SWAP_DESTINATION = '0x71C7656EC7ab88b098defB751B7401B5f6d8976F';

/** The waiting swap, with `overrides`. */
export function swapRecord(overrides: Partial<SwapRecord> = {}): SwapRecord {
  return { ...WAITING, ...overrides };
}

const WAITING: SwapRecord = {
  id: 'swap-1',
  partnerId: 'partner-1',
  quoteId: 'quote-1',
  mode: 'standard',
  externalUser: 'user-1',
  sourceAsset: 'LTC',
  sourceNetwork: 'LTC',
  destinationAsset: 'USDT',
  destinationNetwork: 'ETH',
  destination: SWAP_DESTINATION,
  destinationMemo: null,
  refundMode: 'address',
  refundAddress: SWAP_REFUND_ADDRESS,
  refundMemo: null,
  rateType: 'fixed',
  sourceAmount: '2.5',
  depositAmount: '2.5',
  expectedOutputAmount: '199.7175',
  minimumOutputAmount: null,
  actualOutputAmount: null,
  quotedRate: '81.3',
  feeUsd: '3.54',
  depositAddress: SWAP_DEPOSIT_ADDRESS,
  depositMemo: null,
  depositInstructionsJws: null,
  sourceTxHash: null,
  receivedAmount: null,
  receivedFrom: null,
  lateDeposit: false,
  confirmationCount: null,
  requiredConfirmations: 6,
  settlementTxHash: null,
  refundTxHash: null,
  refundAmount: null,
  quoteExpiresAt: SWAP_QUOTE_EXPIRES,
  confirmationDeadline: null,
  expiresAt: SWAP_EXPIRES,
  lateDepositPolicy: 'refund',
  amountMismatchPolicy: 'refund',
  excessRefundAmount: null,
  excessRefundTxHash: null,
  status: 'waiting',
  failureCode: null,
  armedFailure: null,
  termsVersion: '2026-06-01',
  routeId: null,
  feePercent: null,
  feeFloorUsd: null,
  markupPercent: null,
  markupAmount: null,
  markupUsd: null,
  deposits: [],
  createdAt: SWAP_CREATED,
  updatedAt: SWAP_CREATED,
};
