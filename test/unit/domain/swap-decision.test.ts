/**
 * Decision tables for the swap state machine as a pure function (docs/architecture.md#lifecycle, #every-payment-accounted-for, #production): every status against
 * every observation, with the expected transition and effects. One row per case; the helpers below build the
 * swap as it stands in each status and what the chain ledger and the payout outbox show for it.
 *
 * Unreachable cells are left out on purpose (each group says which and why): a payout or refund the swap never
 * committed cannot be observed, and route orders have no outputs of their own (route polling moves them).
 */
import { expect } from 'chai';
import { loadSandboxCatalog } from '../../../server/adapters/sandbox/catalog.js';
import { findAsset, type CatalogAsset } from '../../../server/domain/catalog.js';
import { Money } from '../../../server/domain/money.js';
import {
  decide,
  decideHeldPayment,
  decideReview,
  FAILURE_CODES,
  type Decision,
  type OutputObservation,
  type PayoutIntent,
  type PayoutObservation,
  type ReviewDecision,
  type RouteDepositObservation,
  type SenderVerdictObservation,
} from '../../../server/domain/swap-decision.js';
import { isAllowedTransition, type SwapStatus } from '../../../server/domain/swap-lifecycle.js';
import { isRetryable, type SwapDepositRecord, type SwapRecord } from '../../../server/domain/swap-view.js';
import { SWAP_DESTINATION, SWAP_EXPIRES, SWAP_QUOTE_EXPIRES, SWAP_REFUND_ADDRESS, swapRecord } from '../../support/swap-record.js';

const catalog = loadSandboxCatalog();

function assetOf(symbol: string, network: string): CatalogAsset {
  const asset = findAsset(catalog, symbol, network);
  if (!asset) throw new Error(`the sandbox catalogue has no ${symbol}/${network}`);
  return asset;
}

// Fixed dates: the quote's deadline at 10:30, the overdue grace until 10:30 the next day.
const SEEN = new Date('2026-06-14T10:10:00.000Z');
const BEFORE_DEADLINE = new Date('2026-06-14T10:20:00.000Z');
const QUOTE_EXPIRES = SWAP_QUOTE_EXPIRES;
const SEEN_LATE = new Date('2026-06-14T10:45:00.000Z');
const AFTER_DEADLINE = new Date('2026-06-14T11:00:00.000Z');
// The confirmation deadline, an hour after the deposit deadline.
const CONFIRM_BY = new Date('2026-06-14T11:30:00.000Z');
const EXPIRES = SWAP_EXPIRES;
const AFTER_EXPIRY = new Date('2026-06-15T11:00:00.000Z');

const ID = 'swap-1';
const PAYOUT_KEY = `${ID}:payout`;
const REFUND_KEY = `${ID}:refund`;
const OWN_TX = 'tx-own';
const EXTRA_TX = 'tx-extra';
const EXTRA_KEY = `${ID}:extra:${EXTRA_TX}:0`;
const PAYOUT_TX = 'tx-payout';
const REFUND_TX = 'tx-refund';
const EXTRA_REFUND_TX = 'tx-extra-refund';
const SENDER = 'ltc1qsender0000000000000000000000000000000';
const REFUND_ADDRESS = SWAP_REFUND_ADDRESS;
const DESTINATION = SWAP_DESTINATION;
const PAYOUT_CONFIRMATIONS = 3;
// LTC at its catalogue price, USDT at 1: a fixed 2.5 LTC quote pays 199.7175 USDT (1% fee, 1.50 USD payout fee).
const MARKET = { source: '81.30', destination: '1.00' };
// A refund returns the deposit less LTC's network payout fee: 0.10 USD at the source price, rounded up to LTC's
// 8 places (0.00123002 LTC at 81.30, 0.00125 at 80), the remainder rounded down. 2.5 LTC returns 2.49876998
// and 0.4 LTC 0.39876998; a remainder not above the dust floor (0.0001 LTC) is held for an operator.
const OWN_REFUNDED = '2.49876998';
const EXTRA_REFUNDED = '0.39876998';
// A minute after the step: when an extra payment whose refund found no price is looked at again.
const RETRY_AT = new Date(BEFORE_DEADLINE.getTime() + 60_000);

/** A 2.5 LTC -> USDT (ERC-20) fixed swap waiting for its deposit; refunds go to an address. */
const WAITING: SwapRecord = swapRecord({ id: ID });

/** A stored deposit: the swap's own (2.5, seen before the deadline) or an extra (0.4, seen after it). */
function depositRecord(
  role: 'swap' | 'extra',
  status: SwapDepositRecord['status'],
  more: Partial<SwapDepositRecord> = {},
): SwapDepositRecord {
  const extra = role === 'extra';
  return {
    txHash: extra ? EXTRA_TX : OWN_TX,
    outputIndex: 0,
    amount: extra ? '0.4' : '2.5',
    confirmationCount: status === 'confirming' ? 2 : 6,
    requiredConfirmations: 6,
    role,
    status,
    refundTxHash: null,
    refundAmount: null,
    seenAt: (extra ? SEEN_LATE : SEEN).toISOString(),
    ...more,
  };
}

const RECEIVED: Partial<SwapRecord> = { sourceTxHash: OWN_TX, receivedAmount: '2.5', receivedFrom: SENDER, confirmationCount: 6 };
const CREDITED: Partial<SwapRecord> = { ...RECEIVED, deposits: [depositRecord('swap', 'credited')] };
const PAID: Partial<SwapRecord> = { ...CREDITED, actualOutputAmount: '199.7175', settlementTxHash: PAYOUT_TX };

/** What each status carries when the swap got there the ordinary way. */
const PROGRESS: Record<SwapStatus, Partial<SwapRecord>> = {
  waiting: {},
  overdue: {},
  expired: {},
  confirming: { ...RECEIVED, confirmationCount: 2, deposits: [depositRecord('swap', 'confirming')] },
  exchanging: CREDITED,
  sending: PAID,
  finished: PAID,
  // Held for an operator: the payout's broadcast was ambiguous.
  review: { ...PAID, failureCode: FAILURE_CODES.payoutFailed },
  failed: { ...PAID, settlementTxHash: null, failureCode: FAILURE_CODES.payoutFailed },
  // A late deposit under the refund policy.
  refunded: {
    ...RECEIVED,
    lateDeposit: true,
    failureCode: FAILURE_CODES.late,
    refundTxHash: REFUND_TX,
    refundAmount: OWN_REFUNDED,
    deposits: [depositRecord('swap', 'refunded', { refundTxHash: REFUND_TX, refundAmount: OWN_REFUNDED })],
  },
  accumulating: {},
};

/** The swap in `status`, as PROGRESS describes it, with `fields` on top. */
function swapIn(status: SwapStatus, fields: Partial<SwapRecord> = {}): SwapRecord {
  return { ...WAITING, ...PROGRESS[status], status, ...fields };
}

const FLOATING: Partial<SwapRecord> = {
  rateType: 'floating',
  expectedOutputAmount: '200.73375',
  minimumOutputAmount: '197.722743',
  feeUsd: '2.52',
};

/** A route order: floating at the market, refunds to each route deposit's sender, no outputs of its own. */
const ROUTE: Partial<SwapRecord> = {
  mode: 'permanent',
  quoteId: null,
  routeId: 'route-1',
  feePercent: '1.5',
  feeFloorUsd: '1',
  markupPercent: '0.5',
  refundMode: 'sender',
  refundAddress: null,
  rateType: 'floating',
  sourceAmount: '1',
  depositAmount: '1',
  expectedOutputAmount: '80.0805',
  lateDepositPolicy: 'market_rate',
  sourceTxHash: 'tx-route',
  receivedAmount: '1',
  receivedFrom: SENDER,
  confirmationCount: 6,
  deposits: [],
};
const ROUTE_DEPOSITS: RouteDepositObservation[] = [
  { id: 'rd-1', amount: '0.6', fromAddress: 'ltc1qfirst', removed: false },
  { id: 'rd-2', amount: '0.4', fromAddress: 'ltc1qsecond', removed: false },
];
/** The same, the second one's payment taken out of the chain by a reorganisation. */
const ROUTE_DEPOSITS_ONE_REMOVED: RouteDepositObservation[] = [ROUTE_DEPOSITS[0], { ...ROUTE_DEPOSITS[1], removed: true }];

/** An XRP swap (a network that needs a memo to credit an account). */
const XRP_SWAP: Partial<SwapRecord> = {
  sourceAsset: 'XRP',
  sourceNetwork: 'XRP',
  depositAddress: 'rDepositAddress',
  depositMemo: '7781',
  requiredConfirmations: 1,
  refundAddress: 'rRefundAddress',
  refundMemo: '40213',
};

/** An output paid to the deposit address. */
function output(txHash: string, confirmations: number, more: Partial<OutputObservation> = {}): OutputObservation {
  return { txHash, outputIndex: 0, amount: '2.5', fromAddress: SENDER, confirmations, seenAt: SEEN, removed: false, ...more };
}
const own = (confirmations: number, more: Partial<OutputObservation> = {}) => output(OWN_TX, confirmations, more);
const extra = (confirmations: number, more: Partial<OutputObservation> = {}) =>
  output(EXTRA_TX, confirmations, { amount: '0.4', seenAt: SEEN_LATE, ...more });

/** An outbox row; signed and later carry their transaction's hash. */
function outboxRow(key: string, purpose: PayoutObservation['purpose'], txHash: string, amount: string) {
  return (status: PayoutObservation['status'], more: Partial<PayoutObservation> = {}): PayoutObservation => ({
    key,
    purpose,
    status,
    txHash: status === 'pending' ? null : txHash,
    amount,
    confirmations: status === 'confirmed' ? PAYOUT_CONFIRMATIONS : 0,
    ...more,
  });
}
const payout = outboxRow(PAYOUT_KEY, 'payout', PAYOUT_TX, '199.7175');
const refund = outboxRow(REFUND_KEY, 'refund', REFUND_TX, OWN_REFUNDED);
const extraRefund = outboxRow(EXTRA_KEY, 'extra_refund', EXTRA_REFUND_TX, EXTRA_REFUNDED);

/** What the ledger and the outbox show for a swap in each status when nothing new happened. */
const LEDGER: Partial<Record<SwapStatus, OutputObservation[]>> = {
  confirming: [own(2)],
  exchanging: [own(8)],
  sending: [own(8)],
  finished: [own(8)],
  review: [own(8)],
  failed: [own(8)],
  refunded: [own(8)],
};
const OUTBOX: Partial<Record<SwapStatus, PayoutObservation[]>> = {
  sending: [payout('signed')],
  finished: [payout('confirmed')],
  review: [payout('review')],
  failed: [payout('failed')],
  refunded: [refund('broadcast')],
};

// Expected effects, in the shape the rows compare.
type IntentShape = Pick<PayoutIntent, 'key' | 'purpose' | 'address' | 'memo' | 'amount' | 'routeDepositId'> & { asset: string };
const PAY = (amount: string): IntentShape => ({
  key: PAYOUT_KEY,
  purpose: 'payout',
  asset: 'USDT/ETH',
  address: DESTINATION,
  memo: null,
  amount,
});
const REFUND = (amount: string, address = REFUND_ADDRESS): IntentShape => ({
  key: REFUND_KEY,
  purpose: 'refund',
  asset: 'LTC/LTC',
  address,
  memo: null,
  amount,
});
const EXTRA_REFUND = (address = REFUND_ADDRESS, memo: string | null = null, asset = 'LTC/LTC', amount = EXTRA_REFUNDED): IntentShape => ({
  key: EXTRA_KEY,
  purpose: 'extra_refund',
  asset,
  address,
  memo,
  amount,
});
// Each route deposit less the fee: 0.6 and 0.4 LTC return 0.59876998 and 0.39876998.
const ROUTE_REFUNDED: Record<string, string> = { 'rd-1': '0.59876998', 'rd-2': '0.39876998' };
const ROUTE_REFUNDS: IntentShape[] = ROUTE_DEPOSITS.map((d) => ({
  key: `${ID}:refund:${d.id}`,
  purpose: 'refund',
  asset: 'LTC/LTC',
  address: d.fromAddress,
  memo: null,
  amount: ROUTE_REFUNDED[d.id],
  routeDepositId: d.id,
}));

type DepositShape = Partial<SwapDepositRecord>;
/** The swap's own deposit / an extra after the step (refundTxHash null unless given). */
const OWN = (status: SwapDepositRecord['status'], more: DepositShape = {}): DepositShape => ({
  role: 'swap',
  status,
  refundTxHash: null,
  ...more,
});
const EXTRA = (status: SwapDepositRecord['status'], more: DepositShape = {}): DepositShape => ({
  role: 'extra',
  status,
  refundTxHash: null,
  ...more,
});

// Fields a swap gets back when its deposit left the chain before it was credited.
const WAITING_AGAIN = {
  sourceTxHash: null,
  receivedAmount: null,
  receivedFrom: null,
  lateDeposit: false,
  confirmationCount: null,
  failureCode: null,
};

interface Expected {
  /** The transition's target; none when absent. */
  to?: SwapStatus;
  /** The transition's fields, deposits aside (exact). */
  fields?: Partial<SwapRecord>;
  /** The change of fields without a status change, deposits aside (exact); none when absent. */
  change?: Partial<SwapRecord>;
  payouts?: IntentShape[];
  payoutUpdates?: Decision['payoutUpdates'];
  earn?: boolean;
  wakeAt?: Date;
  /** The deposits after the step (the keys given are compared); unchanged when absent. */
  deposits?: DepositShape[];
  /** isRetryable of the resulting status and deposits. */
  retryable?: boolean;
  /** Whether the decision asked for a price at all. */
  pricesAsked?: boolean;
  /** The decision throws (e.g. a price it needs is unavailable). */
  throws?: RegExp;
  /** The transition's timeline note (a rule of the swap's decided it); none when absent. */
  note?: RegExp;
}

interface Row {
  /** The row's group: the swap's status (and variant). */
  status: string;
  /** The observation, as a sentence. */
  when: string;
  swap: SwapRecord;
  outputs?: OutputObservation[];
  payouts?: PayoutObservation[];
  routeDeposits?: RouteDepositObservation[];
  now?: Date;
  /**
   * USD prices (MARKET by default: the service asks for them in confirming and exchanging, and in any other
   * step that turns out to need one, a refund); null: unavailable.
   */
  prices?: { source: string | null; destination: string | null };
  /** The exchange venue's refusal of the conversion (none by default). */
  exchangeRefusal?: string;
  /** What the hot wallet can still pay in the destination asset (no limit by default). */
  payable?: string;
  /** A review decision instead of decide(). */
  review?: ReviewDecision;
  /** The address an operator's refund goes to instead (review decide --refund --to). */
  refundTo?: { address: string; memo: string | null };
  /** Screening verdicts on the senders (none by default). */
  senderVerdicts?: SenderVerdictObservation[];
  expect: Expected;
  /** Set on a row that exposes a bug: the row is skipped and the bug reported. */
  bug?: string;
}

const UNAVAILABLE = { source: null, destination: null };
const DEFAULT_NOW: Partial<Record<SwapStatus, Date>> = { overdue: AFTER_DEADLINE, expired: AFTER_EXPIRY };

// A fixed-rate deposit of another amount, in time and within the limits: amountMismatchPolicy decides
// (refund is the table above). 2.6 LTC overpays by 0.1, which goes back less the 0.00123002 LTC network fee.
const EXCESS_KEY = `${ID}:excess`;
const EXCESS_TX = 'tx-excess';
const EXCESS_REFUNDED = '0.09876998';
const excessRefund = outboxRow(EXCESS_KEY, 'excess_refund', EXCESS_TX, EXCESS_REFUNDED);
const EXCESS_REFUND = (key = EXCESS_KEY): IntentShape => ({
  key,
  purpose: 'excess_refund',
  asset: 'LTC/LTC',
  address: REFUND_ADDRESS,
  memo: null,
  amount: EXCESS_REFUNDED,
});
const paidIn = (
  policy: SwapRecord['amountMismatchPolicy'],
  amount: string,
  status: SwapStatus = 'confirming',
  more: Partial<SwapRecord> = {},
) =>
  swapIn(status, {
    amountMismatchPolicy: policy,
    receivedAmount: amount,
    deposits: [depositRecord('swap', status === 'confirming' ? 'confirming' : 'credited', { amount })],
    ...more,
  });
const OVERPAID_EXCESS = { excessRefundAmount: EXCESS_REFUNDED };
const MISMATCH_POLICY_ROWS: Row[] = [
  ...(['2.4', '2.6'] as const).map((amount): Row => ({
    status: 'confirming (market_rate)',
    when: `${amount} of 2.5 LTC confirmed: exchanged at the market, and the entry says why`,
    swap: paidIn('market_rate', amount),
    outputs: [own(6, { amount })],
    expect: {
      to: 'exchanging',
      fields: { confirmationCount: 6 },
      deposits: [OWN('credited')],
      note: new RegExp(
        `^${amount === '2.4' ? 'Under' : 'Over'}paid: ${amount.replace('.', '\\.')} LTC arrived, not the depositAmount of 2\\.5 LTC\\. amountMismatchPolicy market_rate: what arrived is exchanged at the market rate\\.$`,
      ),
    },
  })),
  {
    status: 'confirming (refund_excess)',
    when: 'overpaid 2.6 of 2.5: exchanging, the excess less the network fee fixed to go back',
    swap: paidIn('refund_excess', '2.6'),
    outputs: [own(6, { amount: '2.6' })],
    expect: {
      to: 'exchanging',
      fields: { confirmationCount: 6, ...OVERPAID_EXCESS },
      deposits: [OWN('credited')],
      note: /^Overpaid: 2\.6 LTC arrived, not the depositAmount of 2\.5 LTC\. amountMismatchPolicy refund_excess: the quoted 199\.7175 USDT is paid for 2\.5 LTC, and the excess of 0\.1 LTC goes back less the network fee of 0\.00123002 LTC: 0\.09876998 LTC \(excessRefundAmount\)\.$/,
    },
  },
  {
    status: 'confirming (refund_excess)',
    when: 'overpaid by 0.0013: the excess less the fee would not exceed the dust floor, so it is kept, and the entry says so',
    swap: paidIn('refund_excess', '2.5013'),
    outputs: [own(6, { amount: '2.5013' })],
    expect: {
      to: 'exchanging',
      fields: { confirmationCount: 6, excessRefundAmount: null },
      deposits: [OWN('credited')],
      note: /the excess of 0\.0013 LTC is kept: less the network fee of 0\.00123002 LTC it leaves 0\.00006998, not above the dust floor of 0\.0001 LTC\.$/,
    },
  },
  {
    status: 'confirming (refund_excess)',
    when: 'underpaid 2.4 of 2.5: refunded (amount_mismatch), as under refund',
    swap: paidIn('refund_excess', '2.4'),
    outputs: [own(6, { amount: '2.4' })],
    expect: {
      change: { confirmationCount: 6, failureCode: FAILURE_CODES.mismatch },
      payouts: [REFUND('2.39876998')],
      deposits: [OWN('refunding', { refundAmount: '2.39876998' })],
    },
  },
  ...(['market_rate', 'refund_excess'] as const).map((policy): Row => ({
    status: `confirming (${policy})`,
    when: 'below the minimum: refunded (amount_out_of_range) whatever the policy',
    swap: paidIn(policy, '0.2'),
    outputs: [own(6, { amount: '0.2' })],
    expect: {
      change: { confirmationCount: 6, failureCode: FAILURE_CODES.outOfRange },
      payouts: [REFUND('0.19876998')],
      deposits: [OWN('refunding', { refundAmount: '0.19876998' })],
    },
  })),
  {
    status: 'confirming (refund_excess, refund committed)',
    when: 'the underpayment’s refund is broadcast: refunded, and the entry says which rule returned it',
    swap: swapIn('confirming', { ...refundCommitted(), amountMismatchPolicy: 'refund_excess' }),
    outputs: [own(8, { amount: '2.4' })],
    payouts: [refund('broadcast', { amount: '2.39876998' })],
    expect: {
      to: 'refunded',
      fields: { refundTxHash: REFUND_TX, refundAmount: '2.39876998' },
      deposits: [OWN('refunded', { refundTxHash: REFUND_TX })],
      note: /amountMismatchPolicy refund_excess: an underpayment is returned, less the network fee\.$/,
    },
  },
  {
    status: 'exchanging (market_rate)',
    when: 'underpaid 2.4: the payout is priced at the market, not the quote',
    swap: paidIn('market_rate', '2.4', 'exchanging'),
    outputs: [own(8, { amount: '2.4' })],
    expect: { change: { actualOutputAmount: '192.6444' }, payouts: [PAY('192.6444')], pricesAsked: true },
  },
  {
    status: 'exchanging (refund_excess)',
    when: 'overpaid 2.6: the quoted output and the excess refund are committed together, no price asked',
    swap: paidIn('refund_excess', '2.6', 'exchanging', OVERPAID_EXCESS),
    outputs: [own(8, { amount: '2.6' })],
    expect: { change: { actualOutputAmount: '199.7175' }, payouts: [PAY('199.7175'), EXCESS_REFUND()], pricesAsked: false },
  },
  {
    status: 'exchanging (refund_excess)',
    when: 'overpaid by an excess kept (dust after the fee): the quoted output, no refund',
    swap: paidIn('refund_excess', '2.5013', 'exchanging'),
    outputs: [own(8, { amount: '2.5013' })],
    expect: { change: { actualOutputAmount: '199.7175' }, payouts: [PAY('199.7175')] },
  },
  {
    status: 'exchanging (refund_excess)',
    when: 'an overpayment an operator approved (held above the automatic maximum): the excess is priced now and goes back with the payout',
    swap: paidIn('refund_excess', '2.6', 'exchanging'),
    outputs: [own(8, { amount: '2.6' })],
    expect: {
      change: { actualOutputAmount: '199.7175', ...OVERPAID_EXCESS },
      payouts: [PAY('199.7175'), EXCESS_REFUND()],
      pricesAsked: true,
    },
  },
  {
    status: 'exchanging (refund_excess)',
    when: 'an overpayment from a sender screening denied, approved by an operator: the quoted output, no excess refund to that sender',
    swap: paidIn('refund_excess', '2.6', 'exchanging', { refundMode: 'sender', refundAddress: null }),
    outputs: [own(8, { amount: '2.6' })],
    senderVerdicts: [{ addressKey: SENDER, decision: 'deny', reason: 'sanctioned' }],
    expect: { change: { actualOutputAmount: '199.7175' }, payouts: [PAY('199.7175')] },
  },
  {
    status: 'exchanging (refund_excess)',
    when: 'the venue refuses the conversion: the whole deposit is refunded (exchange_failed), and no excess apart',
    swap: paidIn('refund_excess', '2.6', 'exchanging', OVERPAID_EXCESS),
    outputs: [own(8, { amount: '2.6' })],
    exchangeRefusal: 'refused',
    expect: {
      change: { failureCode: FAILURE_CODES.exchangeFailed, excessRefundAmount: null },
      payouts: [REFUND('2.59876998')],
      deposits: [OWN('refunding', { refundAmount: '2.59876998' })],
    },
  },
  {
    status: 'sending (refund_excess)',
    when: 'the payout is confirmed but the excess refund only signed: not finished yet',
    swap: paidIn('refund_excess', '2.6', 'sending', {
      ...PAID,
      ...OVERPAID_EXCESS,
      receivedAmount: '2.6',
      deposits: [depositRecord('swap', 'credited', { amount: '2.6' })],
    }),
    outputs: [own(8, { amount: '2.6' })],
    payouts: [payout('confirmed'), excessRefund('signed')],
    expect: {},
  },
  {
    status: 'sending (refund_excess)',
    when: 'the payout is confirmed and the excess refund broadcast: finished, naming both',
    swap: paidIn('refund_excess', '2.6', 'sending', {
      ...PAID,
      ...OVERPAID_EXCESS,
      receivedAmount: '2.6',
      deposits: [depositRecord('swap', 'credited', { amount: '2.6' })],
    }),
    outputs: [own(8, { amount: '2.6' })],
    payouts: [payout('confirmed'), excessRefund('broadcast')],
    expect: { to: 'finished', fields: { excessRefundTxHash: EXCESS_TX } },
  },
  {
    status: 'sending (refund_excess)',
    when: 'the excess refund is broadcast before the payout confirms: its hash is shown, the swap still sending',
    swap: paidIn('refund_excess', '2.6', 'sending', {
      ...PAID,
      ...OVERPAID_EXCESS,
      receivedAmount: '2.6',
      deposits: [depositRecord('swap', 'credited', { amount: '2.6' })],
    }),
    outputs: [own(8, { amount: '2.6' })],
    payouts: [payout('broadcast'), excessRefund('broadcast')],
    expect: { change: { excessRefundTxHash: EXCESS_TX } },
  },
  {
    status: 'sending (refund_excess)',
    when: 'the excess refund failed: review (refund_failed), the entry says what is held',
    swap: paidIn('refund_excess', '2.6', 'sending', {
      ...PAID,
      ...OVERPAID_EXCESS,
      receivedAmount: '2.6',
      deposits: [depositRecord('swap', 'credited', { amount: '2.6' })],
    }),
    outputs: [own(8, { amount: '2.6' })],
    payouts: [payout('confirmed'), excessRefund('failed')],
    expect: {
      to: 'review',
      fields: { failureCode: FAILURE_CODES.refundFailed },
      note: /^The refund of the excess \(0\.09876998 LTC\) is failed: an operator sends it again or decides\.$/,
    },
  },
  {
    status: 'review (refund_excess)',
    when: 'approved after the excess refund failed: a new refund of the excess under the next key',
    swap: paidIn('refund_excess', '2.6', 'review', {
      ...PAID,
      ...OVERPAID_EXCESS,
      receivedAmount: '2.6',
      failureCode: FAILURE_CODES.refundFailed,
      deposits: [depositRecord('swap', 'credited', { amount: '2.6' })],
    }),
    outputs: [own(8, { amount: '2.6' })],
    payouts: [payout('confirmed'), excessRefund('failed')],
    review: 'approve',
    expect: { to: 'exchanging', fields: { failureCode: null }, payouts: [EXCESS_REFUND(`${EXCESS_KEY}#2`)] },
  },
  {
    status: 'review (refund_excess)',
    when: 'approved after the excess refund’s broadcast was ambiguous: the same refund again',
    swap: paidIn('refund_excess', '2.6', 'review', {
      ...PAID,
      ...OVERPAID_EXCESS,
      receivedAmount: '2.6',
      failureCode: FAILURE_CODES.refundFailed,
      deposits: [depositRecord('swap', 'credited', { amount: '2.6' })],
    }),
    outputs: [own(8, { amount: '2.6' })],
    payouts: [payout('confirmed'), excessRefund('review')],
    review: 'approve',
    expect: { to: 'exchanging', fields: { failureCode: null }, payoutUpdates: [{ key: EXCESS_KEY, status: 'signed' }] },
  },
  {
    status: 'sending (refund_excess)',
    when: 'the deposit is removed while the payout and the excess refund are unsigned: review, both cancelled',
    swap: paidIn('refund_excess', '2.6', 'sending', {
      ...PAID,
      ...OVERPAID_EXCESS,
      settlementTxHash: null,
      receivedAmount: '2.6',
      deposits: [depositRecord('swap', 'credited', { amount: '2.6' })],
    }),
    outputs: [own(8, { amount: '2.6', removed: true })],
    payouts: [payout('pending'), excessRefund('pending')],
    expect: {
      to: 'review',
      fields: { failureCode: FAILURE_CODES.depositRemoved },
      deposits: [OWN('removed')],
      payoutUpdates: [
        { key: PAYOUT_KEY, status: 'failed' },
        { key: EXCESS_KEY, status: 'failed' },
      ],
    },
  },
  {
    status: 'review (refund_excess)',
    when: 'refunding after the payout failed for good while the excess went back: refused (the excess would be paid twice)',
    swap: paidIn('refund_excess', '2.6', 'review', {
      ...PAID,
      ...OVERPAID_EXCESS,
      receivedAmount: '2.6',
      failureCode: FAILURE_CODES.payoutFailed,
      deposits: [depositRecord('swap', 'credited', { amount: '2.6' })],
    }),
    outputs: [own(8, { amount: '2.6' })],
    payouts: [payout('failed'), excessRefund('confirmed')],
    review: 'refund',
    expect: { throws: /refunding the whole deposit would pay it twice/ },
  },
  {
    status: 'review (refund_excess)',
    when: 'approving a held excess refund after the deposit left the chain: refused',
    swap: paidIn('refund_excess', '2.6', 'review', {
      ...PAID,
      ...OVERPAID_EXCESS,
      receivedAmount: '2.6',
      failureCode: FAILURE_CODES.refundFailed,
      deposits: [depositRecord('swap', 'removed', { amount: '2.6' })],
    }),
    outputs: [own(8, { amount: '2.6', removed: true })],
    payouts: [payout('confirmed'), excessRefund('failed')],
    review: 'approve',
    expect: { throws: /left the chain/ },
  },
  {
    status: 'review (refund_excess)',
    when: 'refunding a swap whose payout is made, with only its excess refund held: refused',
    swap: paidIn('refund_excess', '2.6', 'review', {
      ...PAID,
      ...OVERPAID_EXCESS,
      receivedAmount: '2.6',
      failureCode: FAILURE_CODES.refundFailed,
      deposits: [depositRecord('swap', 'credited', { amount: '2.6' })],
    }),
    outputs: [own(8, { amount: '2.6' })],
    payouts: [payout('confirmed'), excessRefund('failed')],
    review: 'refund',
    expect: { throws: /only the refund of its excess is held/ },
  },
];

const ROWS: Row[] = [
  // waiting with its deposit address. Unreachable: any payout or refund (none is committed before exchanging).
  {
    status: 'waiting',
    when: 'nothing is paid before the deadline',
    swap: swapIn('waiting'),
    expect: { wakeAt: QUOTE_EXPIRES, pricesAsked: false, retryable: false },
  },
  {
    status: 'waiting',
    when: 'a deposit is seen (unconfirmed)',
    swap: swapIn('waiting'),
    outputs: [own(0)],
    expect: {
      to: 'confirming',
      fields: { sourceTxHash: OWN_TX, receivedAmount: '2.5', receivedFrom: SENDER, lateDeposit: false, confirmationCount: 0 },
      deposits: [OWN('confirming', { confirmationCount: 0 })],
      retryable: false,
    },
  },
  {
    status: 'waiting',
    when: 'a deposit is seen already confirmed',
    swap: swapIn('waiting'),
    outputs: [own(9)],
    expect: {
      to: 'confirming',
      fields: { sourceTxHash: OWN_TX, receivedAmount: '2.5', receivedFrom: SENDER, lateDeposit: false, confirmationCount: 6 },
      deposits: [OWN('confirming', { confirmationCount: 6 })],
    },
  },
  {
    status: 'waiting',
    when: 'a payment the ledger already lost to a reorganisation',
    swap: swapIn('waiting'),
    outputs: [own(0, { removed: true })],
    expect: { wakeAt: QUOTE_EXPIRES },
  },
  {
    status: 'waiting',
    when: 'two payments arrive together, both confirmed: the first is the deposit, the second an extra returned',
    swap: swapIn('waiting'),
    outputs: [own(6), extra(6)],
    expect: {
      to: 'confirming',
      fields: { sourceTxHash: OWN_TX, receivedAmount: '2.5', receivedFrom: SENDER, lateDeposit: false, confirmationCount: 6 },
      payouts: [EXTRA_REFUND()],
      deposits: [OWN('confirming', { confirmationCount: 6 }), EXTRA('refunding', { refundAmount: EXTRA_REFUNDED })],
    },
  },
  {
    status: 'waiting',
    when: 'the deadline passes',
    swap: swapIn('waiting'),
    now: AFTER_DEADLINE,
    expect: { to: 'overdue', fields: {}, pricesAsked: false },
  },
  {
    status: 'waiting',
    when: 'the deadline passes after a deposit was seen before it',
    swap: swapIn('waiting'),
    outputs: [own(1)],
    now: AFTER_DEADLINE,
    expect: {
      to: 'confirming',
      fields: { sourceTxHash: OWN_TX, receivedAmount: '2.5', receivedFrom: SENDER, lateDeposit: false, confirmationCount: 1 },
      deposits: [OWN('confirming', { confirmationCount: 1 })],
    },
  },
  {
    status: 'waiting',
    when: 'a deposit first seen after the deadline (not yet overdue)',
    swap: swapIn('waiting'),
    outputs: [own(1, { seenAt: SEEN_LATE })],
    now: AFTER_DEADLINE,
    expect: {
      to: 'confirming',
      fields: { sourceTxHash: OWN_TX, receivedAmount: '2.5', receivedFrom: SENDER, lateDeposit: true, confirmationCount: 1 },
      deposits: [OWN('confirming', { confirmationCount: 1 })],
    },
  },
  {
    status: 'waiting',
    when: 'a sender the network does not name: receivedFrom is empty',
    swap: swapIn('waiting'),
    outputs: [own(0, { fromAddress: null })],
    expect: {
      to: 'confirming',
      fields: { sourceTxHash: OWN_TX, receivedAmount: '2.5', receivedFrom: '', lateDeposit: false, confirmationCount: 0 },
      deposits: [OWN('confirming', { confirmationCount: 0 })],
    },
  },
  {
    status: 'waiting',
    when: 'a new payment after the first was removed becomes the deposit',
    swap: swapIn('waiting', { deposits: [depositRecord('swap', 'removed', { confirmationCount: 0 })] }),
    outputs: [own(0, { removed: true }), output('tx-own-2', 1, { amount: '2.5' })],
    expect: {
      to: 'confirming',
      fields: { sourceTxHash: 'tx-own-2', receivedAmount: '2.5', receivedFrom: SENDER, lateDeposit: false, confirmationCount: 1 },
      deposits: [OWN('removed', { txHash: OWN_TX }), OWN('confirming', { txHash: 'tx-own-2', confirmationCount: 1 })],
    },
  },
  {
    status: 'waiting',
    when: 'the removed deposit is mined again',
    swap: swapIn('waiting', { deposits: [depositRecord('swap', 'removed', { confirmationCount: 0 })] }),
    outputs: [own(1)],
    expect: {
      to: 'confirming',
      fields: { sourceTxHash: OWN_TX, receivedAmount: '2.5', receivedFrom: SENDER, lateDeposit: false, confirmationCount: 1 },
      deposits: [OWN('confirming', { confirmationCount: 1 })],
    },
  },

  // waiting without a deposit address: the service allocates one first; no output can be seen without it.
  {
    status: 'waiting (no address)',
    when: 'nothing happens',
    swap: swapIn('waiting', { depositAddress: null }),
    expect: { retryable: false },
  },
  {
    status: 'waiting (no address)',
    when: 'the deadline passes',
    swap: swapIn('waiting', { depositAddress: null }),
    now: AFTER_DEADLINE,
    expect: {},
  },

  // overdue. Unreachable: any payout or refund.
  { status: 'overdue', when: 'nothing is paid within the grace', swap: swapIn('overdue'), expect: { wakeAt: EXPIRES, retryable: false } },
  {
    status: 'overdue',
    when: 'a deposit is seen (late)',
    swap: swapIn('overdue'),
    outputs: [own(0, { seenAt: SEEN_LATE })],
    expect: {
      to: 'confirming',
      fields: { sourceTxHash: OWN_TX, receivedAmount: '2.5', receivedFrom: SENDER, lateDeposit: true, confirmationCount: 0 },
      deposits: [OWN('confirming', { confirmationCount: 0 })],
    },
  },
  {
    status: 'overdue',
    when: 'a deposit is seen already confirmed',
    swap: swapIn('overdue'),
    outputs: [own(6, { seenAt: SEEN_LATE })],
    expect: {
      to: 'confirming',
      fields: { sourceTxHash: OWN_TX, receivedAmount: '2.5', receivedFrom: SENDER, lateDeposit: true, confirmationCount: 6 },
      deposits: [OWN('confirming', { confirmationCount: 6 })],
    },
  },
  {
    status: 'overdue',
    when: 'a payment the ledger already lost to a reorganisation',
    swap: swapIn('overdue'),
    outputs: [own(0, { removed: true })],
    expect: { wakeAt: EXPIRES },
  },
  {
    status: 'overdue',
    when: 'two payments arrive together: the second is an extra',
    swap: swapIn('overdue'),
    outputs: [own(1, { seenAt: SEEN_LATE }), extra(0)],
    expect: {
      to: 'confirming',
      fields: { sourceTxHash: OWN_TX, receivedAmount: '2.5', receivedFrom: SENDER, lateDeposit: true, confirmationCount: 1 },
      deposits: [OWN('confirming', { confirmationCount: 1 }), EXTRA('confirming', { confirmationCount: 0 })],
    },
  },
  {
    status: 'overdue',
    when: 'the grace passes',
    swap: swapIn('overdue'),
    now: AFTER_EXPIRY,
    expect: { to: 'expired', fields: {}, retryable: true },
  },
  {
    status: 'overdue',
    when: 'the grace passes with a deposit seen: the deposit wins',
    swap: swapIn('overdue'),
    outputs: [own(0, { seenAt: SEEN_LATE })],
    now: AFTER_EXPIRY,
    expect: {
      to: 'confirming',
      fields: { sourceTxHash: OWN_TX, receivedAmount: '2.5', receivedFrom: SENDER, lateDeposit: true, confirmationCount: 0 },
      deposits: [OWN('confirming', { confirmationCount: 0 })],
    },
  },

  // confirming. Unreachable: the swap's payout (committed in exchanging).
  { status: 'confirming', when: 'nothing new', swap: swapIn('confirming'), expect: { retryable: false } },
  {
    status: 'confirming',
    when: 'the deposit gains confirmations',
    swap: swapIn('confirming'),
    outputs: [own(4)],
    expect: {
      to: 'confirming',
      fields: { confirmationCount: 4 },
      deposits: [OWN('confirming', { confirmationCount: 4 })],
      pricesAsked: false,
    },
  },
  {
    status: 'confirming',
    when: 'a fixed-rate deposit still unconfirmed: looked at again at its confirmation deadline',
    swap: swapIn('confirming', { confirmationDeadline: CONFIRM_BY }),
    outputs: [own(2)],
    expect: { wakeAt: CONFIRM_BY, retryable: false },
  },
  {
    status: 'confirming',
    when: 'a fixed-rate deposit unconfirmed at its confirmation deadline: late (lateDepositPolicy decides)',
    swap: swapIn('confirming', { confirmationDeadline: CONFIRM_BY }),
    outputs: [own(2)],
    now: CONFIRM_BY,
    expect: { to: 'confirming', fields: { lateDeposit: true }, pricesAsked: false },
  },
  {
    status: 'confirming',
    when: 'a fixed-rate deposit confirmed inside the grace: the fixed rate holds',
    swap: swapIn('confirming', { confirmationDeadline: CONFIRM_BY }),
    outputs: [own(6)],
    now: new Date(CONFIRM_BY.getTime() - 1000),
    expect: {
      to: 'exchanging',
      fields: { confirmationCount: 6 },
      deposits: [OWN('credited', { confirmationCount: 6 })],
      pricesAsked: true,
    },
  },
  {
    status: 'confirming',
    when: 'a floating deposit past the confirmation deadline: no rate to hold, it waits for its confirmations',
    swap: swapIn('confirming', { ...FLOATING, confirmationDeadline: CONFIRM_BY }),
    outputs: [own(4)],
    now: new Date(CONFIRM_BY.getTime() + 1000),
    expect: {
      to: 'confirming',
      fields: { confirmationCount: 4 },
      deposits: [OWN('confirming', { confirmationCount: 4 })],
      pricesAsked: false,
    },
  },
  {
    status: 'confirming',
    when: 'the deposit is confirmed (fixed, exact amount)',
    swap: swapIn('confirming'),
    outputs: [own(6)],
    expect: {
      to: 'exchanging',
      fields: { confirmationCount: 6 },
      deposits: [OWN('credited', { confirmationCount: 6 })],
      pricesAsked: true,
    },
  },
  {
    status: 'confirming',
    when: 'the deposit is removed before the deadline',
    swap: swapIn('confirming'),
    outputs: [own(0, { removed: true })],
    expect: {
      to: 'waiting',
      fields: WAITING_AGAIN,
      deposits: [OWN('removed', { confirmationCount: 0 })],
      retryable: false,
      pricesAsked: false,
    },
  },
  {
    status: 'confirming',
    when: 'the deposit is removed after the deadline',
    swap: swapIn('confirming'),
    outputs: [own(0, { removed: true })],
    now: AFTER_DEADLINE,
    expect: { to: 'overdue', fields: WAITING_AGAIN, deposits: [OWN('removed', { confirmationCount: 0 })] },
  },
  {
    status: 'confirming',
    when: 'a second payment is seen',
    swap: swapIn('confirming'),
    outputs: [own(2), extra(0)],
    expect: { deposits: [OWN('confirming'), EXTRA('confirming', { confirmationCount: 0, amount: '0.4' })] },
  },
  {
    status: 'confirming',
    when: 'a second payment is confirmed: returned to the refund address',
    swap: swapIn('confirming', {
      deposits: [depositRecord('swap', 'confirming'), depositRecord('extra', 'confirming', { confirmationCount: 3 })],
    }),
    outputs: [own(2), extra(6)],
    expect: {
      payouts: [EXTRA_REFUND()],
      deposits: [OWN('confirming'), EXTRA('refunding', { refundAmount: EXTRA_REFUNDED, confirmationCount: 6 })],
    },
  },
  {
    status: 'confirming',
    when: 'a second payment below the dust floor (0.0001 LTC) is confirmed: kept for an operator, not refunded',
    swap: swapIn('confirming', {
      deposits: [depositRecord('swap', 'confirming'), depositRecord('extra', 'confirming', { amount: '0.00009', confirmationCount: 3 })],
    }),
    outputs: [own(2), extra(6, { amount: '0.00009' })],
    expect: { deposits: [OWN('confirming'), EXTRA('review', { amount: '0.00009', confirmationCount: 6 })] },
  },
  {
    status: 'confirming',
    when: 'a second payment the network fee leaves exactly at the dust floor (0.00133002 - 0.00123002): kept for an operator',
    swap: swapIn('confirming', {
      deposits: [depositRecord('swap', 'confirming'), depositRecord('extra', 'confirming', { amount: '0.00133002', confirmationCount: 3 })],
    }),
    outputs: [own(2), extra(6, { amount: '0.00133002' })],
    expect: { deposits: [OWN('confirming'), EXTRA('review', { refundAmount: null, confirmationCount: 6 })], pricesAsked: true },
  },
  {
    status: 'confirming',
    when: 'a second payment the network fee leaves just above the dust floor: returned, less the fee',
    swap: swapIn('confirming', {
      deposits: [depositRecord('swap', 'confirming'), depositRecord('extra', 'confirming', { amount: '0.00133003', confirmationCount: 3 })],
    }),
    outputs: [own(2), extra(6, { amount: '0.00133003' })],
    expect: {
      payouts: [EXTRA_REFUND(REFUND_ADDRESS, null, 'LTC/LTC', '0.00010001')],
      deposits: [OWN('confirming'), EXTRA('refunding', { refundAmount: '0.00010001', confirmationCount: 6 })],
    },
  },
  {
    status: 'confirming',
    when: 'a second payment is confirmed while the source price is unavailable: it stays confirming, looked at again in a minute',
    swap: swapIn('confirming', {
      deposits: [depositRecord('swap', 'confirming'), depositRecord('extra', 'confirming', { confirmationCount: 3 })],
    }),
    outputs: [own(2), extra(6)],
    prices: UNAVAILABLE,
    expect: { deposits: [OWN('confirming'), EXTRA('confirming', { refundAmount: null, confirmationCount: 6 })], wakeAt: RETRY_AT },
  },
  {
    status: 'confirming',
    when: 'a second payment is removed before it was confirmed',
    swap: swapIn('confirming', {
      deposits: [depositRecord('swap', 'confirming'), depositRecord('extra', 'confirming', { confirmationCount: 3 })],
    }),
    outputs: [own(2), extra(0, { removed: true })],
    expect: { deposits: [OWN('confirming'), EXTRA('removed', { confirmationCount: 0 })] },
  },
  { status: 'confirming', when: 'the deadline passes', swap: swapIn('confirming'), now: AFTER_DEADLINE, expect: {} },
  {
    status: 'confirming (legacy)',
    when: 'a swap confirming before deposits were accounted for names its deposit by hash',
    swap: swapIn('confirming', { deposits: [] }),
    outputs: [own(4)],
    expect: { to: 'confirming', fields: { confirmationCount: 4 }, deposits: [OWN('confirming', { confirmationCount: 4 })] },
  },

  // confirming: what the confirmed deposit decides.
  {
    status: 'confirming',
    when: 'a fixed swap confirmed with another amount: refunded (amount_mismatch)',
    swap: swapIn('confirming', { receivedAmount: '2.4', deposits: [depositRecord('swap', 'confirming', { amount: '2.4' })] }),
    outputs: [own(6, { amount: '2.4' })],
    expect: {
      change: { confirmationCount: 6, failureCode: FAILURE_CODES.mismatch },
      payouts: [REFUND('2.39876998')],
      deposits: [OWN('refunding', { refundAmount: '2.39876998' })],
      retryable: false,
    },
  },
  {
    status: 'confirming',
    when: 'a mismatch refunded to the sender in sender mode',
    swap: swapIn('confirming', {
      refundMode: 'sender',
      refundAddress: null,
      receivedAmount: '2.4',
      deposits: [depositRecord('swap', 'confirming', { amount: '2.4' })],
    }),
    outputs: [own(6, { amount: '2.4' })],
    expect: {
      change: { confirmationCount: 6, failureCode: FAILURE_CODES.mismatch },
      payouts: [REFUND('2.39876998', SENDER)],
      deposits: [OWN('refunding', { refundAmount: '2.39876998' })],
    },
  },
  {
    status: 'confirming',
    when: 'a mismatch in sender mode where the network named no sender: held for an operator',
    swap: swapIn('confirming', {
      refundMode: 'sender',
      refundAddress: null,
      receivedFrom: '',
      receivedAmount: '2.4',
      deposits: [depositRecord('swap', 'confirming', { amount: '2.4' })],
    }),
    outputs: [own(6, { amount: '2.4', fromAddress: null })],
    expect: { to: 'review', fields: { confirmationCount: 6, failureCode: FAILURE_CODES.mismatch }, deposits: [OWN('review')] },
  },
  {
    status: 'confirming',
    when: 'below the minimum: refunded (amount_out_of_range)',
    swap: swapIn('confirming', { receivedAmount: '0.2', deposits: [depositRecord('swap', 'confirming', { amount: '0.2' })] }),
    outputs: [own(6, { amount: '0.2' })],
    expect: {
      change: { confirmationCount: 6, failureCode: FAILURE_CODES.outOfRange },
      payouts: [REFUND('0.19876998')],
      deposits: [OWN('refunding', { refundAmount: '0.19876998' })],
    },
  },
  {
    status: 'confirming',
    when: 'below the minimum, and the network fee would leave no more than the dust floor: held for an operator (review, amount_out_of_range)',
    swap: swapIn('confirming', { receivedAmount: '0.0013', deposits: [depositRecord('swap', 'confirming', { amount: '0.0013' })] }),
    outputs: [own(6, { amount: '0.0013' })],
    expect: {
      to: 'review',
      fields: { confirmationCount: 6, failureCode: FAILURE_CODES.outOfRange },
      deposits: [OWN('review', { refundAmount: null })],
      retryable: false,
    },
  },
  {
    status: 'confirming',
    when: 'above the automatic maximum (400 LTC, 32,520 USD): review, nothing paid',
    swap: swapIn('confirming', {
      rateType: 'floating',
      receivedAmount: '400',
      deposits: [depositRecord('swap', 'confirming', { amount: '400' })],
    }),
    outputs: [own(6, { amount: '400' })],
    expect: { to: 'review', fields: { confirmationCount: 6 }, deposits: [OWN('review')], retryable: false },
  },
  {
    status: 'confirming',
    when: 'a late deposit under the refund policy: refunded (late_deposit)',
    swap: swapIn('confirming', { lateDeposit: true }),
    outputs: [own(6)],
    expect: {
      change: { confirmationCount: 6, failureCode: FAILURE_CODES.late },
      payouts: [REFUND(OWN_REFUNDED)],
      deposits: [OWN('refunding', { refundAmount: OWN_REFUNDED })],
    },
  },
  {
    status: 'confirming',
    when: 'a late deposit of another amount under the market-rate policy: exchanged',
    swap: swapIn('confirming', {
      lateDeposit: true,
      lateDepositPolicy: 'market_rate',
      receivedAmount: '2.4',
      deposits: [depositRecord('swap', 'confirming', { amount: '2.4' })],
    }),
    outputs: [own(6, { amount: '2.4' })],
    expect: { to: 'exchanging', fields: { confirmationCount: 6 }, deposits: [OWN('credited')] },
  },
  {
    status: 'confirming',
    when: 'a floating swap confirmed with another amount: exchanged',
    swap: swapIn('confirming', { ...FLOATING, receivedAmount: '2', deposits: [depositRecord('swap', 'confirming', { amount: '2' })] }),
    outputs: [own(6, { amount: '2' })],
    expect: { to: 'exchanging', fields: { confirmationCount: 6 }, deposits: [OWN('credited')] },
  },
  {
    status: 'confirming',
    when: 'confirmed while the source price is unavailable: the decision throws',
    swap: swapIn('confirming'),
    outputs: [own(6)],
    prices: UNAVAILABLE,
    expect: { throws: /source price unavailable/ },
  },
  {
    status: 'confirming',
    when: 'confirmation progress while prices are unavailable needs none',
    swap: swapIn('confirming'),
    outputs: [own(3)],
    prices: UNAVAILABLE,
    expect: {
      to: 'confirming',
      fields: { confirmationCount: 3 },
      deposits: [OWN('confirming', { confirmationCount: 3 })],
      pricesAsked: false,
    },
  },

  // confirming with its refund committed (amount_mismatch): the refund through the outbox.
  ...(['pending', 'signed'] as const).map((status): Row => ({
    status: 'confirming (refund committed)',
    when: `the refund is ${status}: the swap waits`,
    swap: swapIn('confirming', refundCommitted()),
    outputs: [own(8, { amount: '2.4' })],
    payouts: [refund(status, { amount: '2.39876998' })],
    expect: status === 'pending' ? { retryable: false } : { deposits: [{ role: 'swap', status: 'refunding' }], retryable: false },
  })),
  {
    status: 'confirming (refund committed)',
    when: 'the refund is broadcast: refunded',
    swap: swapIn('confirming', refundCommitted()),
    outputs: [own(8, { amount: '2.4' })],
    payouts: [refund('broadcast', { amount: '2.39876998' })],
    expect: {
      to: 'refunded',
      fields: { refundTxHash: REFUND_TX, refundAmount: '2.39876998' },
      note: /^Underpaid: 2\.4 LTC arrived, not the depositAmount of 2\.5 LTC\. amountMismatchPolicy refund: a deposit of another amount is returned, less the network fee\.$/,
      deposits: [OWN('refunded', { refundTxHash: REFUND_TX, refundAmount: '2.39876998' })],
      retryable: true,
    },
  },
  {
    status: 'confirming (refund committed)',
    when: 'the refund is confirmed: refunded',
    swap: swapIn('confirming', refundCommitted()),
    outputs: [own(8, { amount: '2.4' })],
    payouts: [refund('confirmed', { amount: '2.39876998' })],
    expect: {
      to: 'refunded',
      fields: { refundTxHash: REFUND_TX, refundAmount: '2.39876998' },
      note: /^Underpaid: 2\.4 LTC arrived, not the depositAmount of 2\.5 LTC\. amountMismatchPolicy refund: a deposit of another amount is returned, less the network fee\.$/,
      deposits: [OWN('refunded', { refundTxHash: REFUND_TX })],
      retryable: true,
    },
  },
  {
    status: 'confirming (refund committed)',
    when: 'a refund committed before refunds paid the network fee (the whole 2.4) keeps its amount: refunded with it',
    swap: swapIn('confirming', {
      ...refundCommitted(),
      deposits: [depositRecord('swap', 'refunding', { amount: '2.4', confirmationCount: 6, refundAmount: '2.4' })],
    }),
    outputs: [own(8, { amount: '2.4' })],
    payouts: [refund('broadcast', { amount: '2.4' })],
    expect: {
      to: 'refunded',
      fields: { refundTxHash: REFUND_TX, refundAmount: '2.4' },
      deposits: [OWN('refunded', { refundTxHash: REFUND_TX, refundAmount: '2.4' })],
      note: /amountMismatchPolicy refund: a deposit of another amount is returned/,
    },
  },
  ...(['failed', 'review'] as const).map((status): Row => ({
    status: 'confirming (refund committed)',
    when: `the refund ${status === 'failed' ? 'failed' : 'is held (ambiguous broadcast)'}: review (refund_failed)`,
    swap: swapIn('confirming', refundCommitted()),
    outputs: [own(8, { amount: '2.4' })],
    payouts: [refund(status, { amount: '2.39876998' })],
    expect: {
      to: 'review',
      fields: { failureCode: FAILURE_CODES.refundFailed },
      deposits: [{ role: 'swap', status: 'review' }],
      retryable: false,
    },
  })),
  {
    status: 'confirming (refund committed)',
    when: 'the signed refund is not yet broadcast: refundTxHash stays null',
    swap: swapIn('confirming', refundCommitted()),
    outputs: [own(8, { amount: '2.4' })],
    payouts: [refund('signed', { amount: '2.39876998' })],
    expect: {},
  },
  {
    status: 'confirming (refund committed)',
    when: 'the refund failed: the deposit names no refund transaction',
    swap: swapIn('confirming', refundCommitted()),
    outputs: [own(8, { amount: '2.4' })],
    payouts: [refund('failed', { amount: '2.39876998' })],
    expect: { to: 'review', fields: { failureCode: FAILURE_CODES.refundFailed }, deposits: [OWN('review', { refundTxHash: null })] },
  },
  {
    status: 'confirming (refund committed)',
    when: 'the deposit is removed before its refund was signed: the refund is cancelled and the swap waits again',
    swap: swapIn('confirming', refundCommitted()),
    outputs: [own(0, { amount: '2.4', removed: true })],
    payouts: [refund('pending', { amount: '2.39876998' })],
    expect: {
      to: 'waiting',
      fields: {
        sourceTxHash: null,
        receivedAmount: null,
        receivedFrom: null,
        lateDeposit: false,
        confirmationCount: null,
        failureCode: null,
      },
      payoutUpdates: [{ key: REFUND_KEY, status: 'failed' }],
      deposits: [OWN('removed', { refundAmount: null })],
    },
  },
  {
    status: 'confirming (refund committed)',
    when: 'the deposit is removed after its refund was signed: review (deposit_removed), the deposit held',
    swap: swapIn('confirming', refundCommitted()),
    outputs: [own(0, { amount: '2.4', removed: true })],
    payouts: [refund('signed', { amount: '2.39876998' })],
    expect: { to: 'review', fields: { failureCode: FAILURE_CODES.depositRemoved }, deposits: [OWN('review')] },
  },

  // confirming route orders: route polling moves them on.
  {
    status: 'confirming (route order)',
    when: 'nothing new',
    swap: swapIn('confirming', ROUTE),
    routeDeposits: ROUTE_DEPOSITS,
    outputs: [],
    expect: {},
  },

  // exchanging. A fixed swap paying exactly is exchanged at its quote and needs no price.
  {
    status: 'exchanging',
    when: 'nothing new (fixed, exact): the quoted amount is committed, no price asked',
    swap: swapIn('exchanging'),
    prices: UNAVAILABLE,
    expect: { change: { actualOutputAmount: '199.7175' }, payouts: [PAY('199.7175')], pricesAsked: false, retryable: false },
  },
  {
    status: 'exchanging',
    when: 'a second payment is seen',
    swap: swapIn('exchanging'),
    outputs: [own(8), extra(0)],
    expect: {
      change: { actualOutputAmount: '199.7175' },
      payouts: [PAY('199.7175')],
      deposits: [OWN('credited'), EXTRA('confirming', { confirmationCount: 0 })],
    },
  },
  {
    status: 'exchanging',
    when: 'the deposit gains confirmations',
    swap: swapIn('exchanging'),
    outputs: [own(20)],
    expect: { change: { actualOutputAmount: '199.7175' }, payouts: [PAY('199.7175')] },
  },
  {
    status: 'exchanging',
    when: 'the deposit is removed after it was credited: review (deposit_removed)',
    swap: swapIn('exchanging'),
    outputs: [own(0, { removed: true })],
    expect: {
      to: 'review',
      fields: { failureCode: FAILURE_CODES.depositRemoved },
      deposits: [OWN('removed', { confirmationCount: 0 })],
      pricesAsked: false,
    },
  },
  {
    status: 'exchanging',
    when: 'a second payment is confirmed: returned, and the payout committed',
    swap: swapIn('exchanging'),
    outputs: [own(8), extra(6)],
    expect: {
      change: { actualOutputAmount: '199.7175' },
      payouts: [EXTRA_REFUND(), PAY('199.7175')],
      deposits: [OWN('credited'), EXTRA('refunding', { refundAmount: EXTRA_REFUNDED })],
    },
  },
  {
    status: 'exchanging',
    when: 'the deadline passes',
    swap: swapIn('exchanging'),
    now: AFTER_DEADLINE,
    expect: { change: { actualOutputAmount: '199.7175' }, payouts: [PAY('199.7175')] },
  },
  {
    status: 'exchanging',
    when: 'the payout is pending: the sender signs it',
    swap: swapIn('exchanging'),
    payouts: [payout('pending')],
    expect: { pricesAsked: false },
  },
  {
    status: 'exchanging',
    when: 'the payout is signed: sending',
    swap: swapIn('exchanging'),
    payouts: [payout('signed')],
    expect: { to: 'sending', fields: { settlementTxHash: PAYOUT_TX } },
  },
  {
    status: 'exchanging',
    when: 'the payout is already confirmed: sending',
    swap: swapIn('exchanging'),
    payouts: [payout('confirmed')],
    expect: { to: 'sending', fields: { settlementTxHash: PAYOUT_TX } },
  },
  {
    status: 'exchanging',
    when: 'the signed payout was refused for good (its hash cleared): review (payout_failed), for an operator to pay again, refund or fail',
    swap: swapIn('exchanging'),
    payouts: [payout('failed', { txHash: null })],
    expect: { to: 'review', fields: { failureCode: FAILURE_CODES.payoutFailed } },
  },
  {
    status: 'exchanging',
    when: 'the signed payout is held (ambiguous): sending (settle holds it next)',
    swap: swapIn('exchanging'),
    payouts: [payout('review')],
    expect: { to: 'sending', fields: { settlementTxHash: PAYOUT_TX } },
  },
  {
    status: 'exchanging',
    when: 'an unsigned payout could not be built: review (payout_failed), never failed with the deposit kept',
    swap: swapIn('exchanging'),
    payouts: [payout('failed', { txHash: null })],
    expect: { to: 'review', fields: { failureCode: FAILURE_CODES.payoutFailed } },
  },
  {
    status: 'exchanging',
    when: 'a payout refused for a reason that can pass is built again (pending, no hash): nothing yet',
    swap: swapIn('exchanging'),
    payouts: [payout('pending', { txHash: null })],
    expect: {},
  },
  {
    status: 'exchanging',
    when: "an operator's second payout after a failed first is signed: sending with its hash",
    swap: swapIn('exchanging'),
    payouts: [payout('failed', { txHash: null }), payout('signed', { key: `${ID}:payout#2`, txHash: 'a'.repeat(64) })],
    expect: { to: 'sending', fields: { settlementTxHash: 'a'.repeat(64) } },
  },
  {
    status: 'exchanging',
    when: 'an unsigned payout is held: review (payout_failed)',
    swap: swapIn('exchanging'),
    payouts: [payout('review', { txHash: null })],
    expect: { to: 'review', fields: { failureCode: FAILURE_CODES.payoutFailed } },
  },
  {
    status: 'exchanging',
    when: 'the refund after an armed exchange failure is broadcast: refunded',
    swap: swapIn('exchanging', {
      failureCode: FAILURE_CODES.exchangeFailed,
      deposits: [depositRecord('swap', 'refunding', { refundAmount: OWN_REFUNDED })],
    }),
    payouts: [refund('broadcast')],
    expect: {
      to: 'refunded',
      fields: { refundTxHash: REFUND_TX, refundAmount: OWN_REFUNDED },
      deposits: [OWN('refunded', { refundTxHash: REFUND_TX, refundAmount: OWN_REFUNDED })],
      retryable: true,
    },
  },
  {
    status: 'exchanging',
    when: 'the refund after an armed exchange failure failed: review (refund_failed)',
    swap: swapIn('exchanging', {
      failureCode: FAILURE_CODES.exchangeFailed,
      deposits: [depositRecord('swap', 'refunding', { refundAmount: OWN_REFUNDED })],
    }),
    payouts: [refund('failed')],
    expect: { to: 'review', fields: { failureCode: FAILURE_CODES.refundFailed }, deposits: [{ role: 'swap', status: 'review' }] },
  },

  // exchanging: the amount the payout commits.
  {
    status: 'exchanging',
    when: 'a late deposit of another amount (market-rate policy): priced at the market',
    swap: swapIn('exchanging', {
      lateDeposit: true,
      lateDepositPolicy: 'market_rate',
      receivedAmount: '2.4',
      deposits: [depositRecord('swap', 'credited', { amount: '2.4' })],
    }),
    outputs: [own(8, { amount: '2.4' })],
    expect: { change: { actualOutputAmount: '192.6444' }, payouts: [PAY('192.6444')], pricesAsked: true },
  },
  {
    status: 'exchanging',
    when: 'a late exact deposit of a fixed swap: priced at the market, not the quote',
    swap: swapIn('exchanging', { lateDeposit: true, lateDepositPolicy: 'market_rate' }),
    expect: { change: { actualOutputAmount: '200.73375' }, payouts: [PAY('200.73375')] },
  },
  {
    status: 'exchanging',
    when: 'a floating swap at the quoted price',
    swap: swapIn('exchanging', FLOATING),
    expect: { change: { actualOutputAmount: '200.73375' }, payouts: [PAY('200.73375')] },
  },
  {
    status: 'exchanging',
    when: 'a floating swap after the price fell below the slippage bound: refunded (slippage_exceeded)',
    swap: swapIn('exchanging', FLOATING),
    prices: { source: '80', destination: '1.00' },
    expect: {
      change: { failureCode: FAILURE_CODES.slippage },
      payouts: [REFUND('2.49875')],
      deposits: [OWN('refunding', { refundAmount: '2.49875' })],
    },
  },
  {
    status: 'exchanging',
    when: 'a floating swap paid 2 of 2.5: the bound scales (158.178194) and 160.287 passes',
    swap: swapIn('exchanging', { ...FLOATING, receivedAmount: '2', deposits: [depositRecord('swap', 'credited', { amount: '2' })] }),
    outputs: [own(8, { amount: '2' })],
    expect: { change: { actualOutputAmount: '160.287' }, payouts: [PAY('160.287')] },
  },
  {
    status: 'exchanging',
    when: 'a floating swap paid 2 of 2.5 after the price fell: 157.7 is below the scaled bound',
    swap: swapIn('exchanging', { ...FLOATING, receivedAmount: '2', deposits: [depositRecord('swap', 'credited', { amount: '2' })] }),
    outputs: [own(8, { amount: '2' })],
    prices: { source: '80', destination: '1.00' },
    expect: {
      change: { failureCode: FAILURE_CODES.slippage },
      payouts: [REFUND('1.99875')],
      deposits: [OWN('refunding', { refundAmount: '1.99875' })],
    },
  },
  {
    status: 'exchanging',
    when: 'a late floating deposit is not held to the slippage bound',
    swap: swapIn('exchanging', { ...FLOATING, lateDeposit: true, lateDepositPolicy: 'market_rate' }),
    prices: { source: '80', destination: '1.00' },
    expect: { change: { actualOutputAmount: '197.5' }, payouts: [PAY('197.5')] },
  },
  {
    status: 'exchanging',
    when: 'the hot wallet cannot cover the payout: review (insufficient_liquidity), nothing committed',
    swap: swapIn('exchanging', { ...FLOATING, lateDeposit: true, lateDepositPolicy: 'market_rate' }),
    prices: { source: '80', destination: '1.00' },
    payable: '197.499999',
    expect: { to: 'review', fields: { failureCode: FAILURE_CODES.insufficientLiquidity } },
  },
  {
    status: 'exchanging',
    when: 'the hot wallet covers the payout exactly: it is committed',
    swap: swapIn('exchanging', { ...FLOATING, lateDeposit: true, lateDepositPolicy: 'market_rate' }),
    prices: { source: '80', destination: '1.00' },
    payable: '197.5',
    expect: { change: { actualOutputAmount: '197.5' }, payouts: [PAY('197.5')] },
  },
  {
    status: 'exchanging',
    when: 'the exchange venue refuses the conversion: refunded (exchange_failed)',
    swap: swapIn('exchanging'),
    exchangeRefusal: 'an exchange failure was armed',
    expect: {
      change: { failureCode: FAILURE_CODES.exchangeFailed },
      payouts: [REFUND(OWN_REFUNDED)],
      deposits: [OWN('refunding', { refundAmount: OWN_REFUNDED })],
      pricesAsked: true,
    },
  },
  {
    status: 'exchanging',
    when: 'the exchange venue refuses the conversion while the source price is unavailable: the decision throws (the step is taken again)',
    swap: swapIn('exchanging'),
    exchangeRefusal: 'an exchange failure was armed',
    prices: UNAVAILABLE,
    expect: { throws: /source price unavailable/ },
  },
  {
    status: 'exchanging',
    when: 'the exchange venue refuses a deposit the network fee would leave at dust: review (exchange_failed), the deposit held',
    swap: swapIn('exchanging', { receivedAmount: '0.0013', deposits: [depositRecord('swap', 'credited', { amount: '0.0013' })] }),
    outputs: [own(8, { amount: '0.0013' })],
    exchangeRefusal: 'an exchange failure was armed',
    expect: { to: 'review', fields: { failureCode: FAILURE_CODES.exchangeFailed }, deposits: [OWN('review', { refundAmount: null })] },
  },
  {
    status: 'exchanging',
    when: 'an amount that pays out nothing after fees: refunded (amount_out_of_range)',
    swap: swapIn('exchanging', {
      ...FLOATING,
      lateDeposit: true,
      receivedAmount: '0.01',
      deposits: [depositRecord('swap', 'credited', { amount: '0.01' })],
    }),
    outputs: [own(8, { amount: '0.01' })],
    expect: {
      change: { failureCode: FAILURE_CODES.outOfRange },
      payouts: [REFUND('0.00876998')],
      deposits: [OWN('refunding', { refundAmount: '0.00876998' })],
    },
  },
  {
    status: 'exchanging',
    when: 'a floating swap while prices are unavailable: the decision throws',
    swap: swapIn('exchanging', FLOATING),
    prices: UNAVAILABLE,
    expect: { throws: /price unavailable/ },
  },

  // exchanging route orders: converted at the market at the route's fee terms; refunds per route deposit.
  {
    status: 'exchanging (route order)',
    when: 'priced with its route fee and markup',
    swap: swapIn('exchanging', ROUTE),
    outputs: [],
    routeDeposits: ROUTE_DEPOSITS,
    expect: {
      change: { feeUsd: '1.22', markupAmount: '0.4065', markupUsd: '0.4', actualOutputAmount: '80.0805' },
      payouts: [PAY('80.0805')],
    },
  },
  {
    status: 'exchanging (route order)',
    when: 'the exchange venue refuses the conversion: each route deposit back to its sender',
    swap: swapIn('exchanging', ROUTE),
    exchangeRefusal: 'an exchange failure was armed',
    outputs: [],
    routeDeposits: ROUTE_DEPOSITS,
    expect: { change: { failureCode: FAILURE_CODES.exchangeFailed }, payouts: ROUTE_REFUNDS },
  },
  {
    status: 'exchanging (route order)',
    when: 'the exchange venue refuses, and one route deposit would leave no more than the dust floor: the order is held (review), nothing refunded',
    swap: swapIn('exchanging', ROUTE),
    exchangeRefusal: 'an exchange failure was armed',
    outputs: [],
    routeDeposits: [ROUTE_DEPOSITS[0], { id: 'rd-3', amount: '0.0013', fromAddress: 'ltc1qthird', removed: false }],
    expect: { to: 'review', fields: { failureCode: FAILURE_CODES.exchangeFailed } },
  },
  {
    status: 'exchanging (route order)',
    when: 'the exchange venue refuses, and screening denied the sender of one route deposit: held (review), nothing refunded',
    swap: swapIn('exchanging', ROUTE),
    exchangeRefusal: 'an exchange failure was armed',
    outputs: [],
    routeDeposits: ROUTE_DEPOSITS,
    senderVerdicts: [{ addressKey: 'ltc1qsecond', decision: 'deny', reason: 'sanctioned' }],
    expect: { to: 'review', fields: { failureCode: FAILURE_CODES.exchangeFailed } },
  },
  {
    status: 'exchanging (route order)',
    when: 'the exchange venue refuses, and screening allowed a sender once and denied it since: the worst counts, held',
    swap: swapIn('exchanging', ROUTE),
    exchangeRefusal: 'an exchange failure was armed',
    outputs: [],
    routeDeposits: ROUTE_DEPOSITS,
    senderVerdicts: [
      { addressKey: 'ltc1qfirst', decision: 'allow', reason: null },
      { addressKey: 'ltc1qsecond', decision: 'allow', reason: null },
      { addressKey: 'ltc1qsecond', decision: 'deny', reason: 'sanctioned since' },
    ],
    expect: { to: 'review', fields: { failureCode: FAILURE_CODES.exchangeFailed } },
  },
  {
    status: 'exchanging (route order)',
    when: 'the exchange venue refuses, and one route deposit named no sender: held (review), nothing refunded to an empty address',
    swap: swapIn('exchanging', ROUTE),
    exchangeRefusal: 'an exchange failure was armed',
    outputs: [],
    routeDeposits: [ROUTE_DEPOSITS[0], { ...ROUTE_DEPOSITS[1], fromAddress: '' }],
    expect: { to: 'review', fields: { failureCode: FAILURE_CODES.exchangeFailed } },
  },
  {
    status: 'review (route order)',
    when: 'refund with a route deposit that named no sender: refused, naming --to',
    swap: swapIn('review', { ...ROUTE, failureCode: FAILURE_CODES.exchangeFailed }),
    outputs: [],
    routeDeposits: [ROUTE_DEPOSITS[0], { ...ROUTE_DEPOSITS[1], fromAddress: '' }],
    payouts: [],
    review: 'refund',
    expect: { throws: /names no sender to return it to \(rd-2.*\(--to\)/ },
  },
  {
    status: 'exchanging (route order)',
    when: 'the exchange venue refuses, and screening allowed both senders: each route deposit back to its sender',
    swap: swapIn('exchanging', ROUTE),
    exchangeRefusal: 'an exchange failure was armed',
    outputs: [],
    routeDeposits: ROUTE_DEPOSITS,
    senderVerdicts: [
      { addressKey: 'ltc1qfirst', decision: 'allow', reason: null },
      { addressKey: 'ltc1qsecond', decision: 'allow', reason: null },
    ],
    expect: { change: { failureCode: FAILURE_CODES.exchangeFailed }, payouts: ROUTE_REFUNDS },
  },
  {
    status: 'review (route order, screening_hold)',
    when: 'refund to an address the customer gave (--to): each route deposit there',
    swap: swapIn('review', { ...ROUTE, failureCode: FAILURE_CODES.screeningHold }),
    outputs: [],
    routeDeposits: ROUTE_DEPOSITS,
    senderVerdicts: [{ addressKey: 'ltc1qfirst', decision: 'review', reason: 'mixer exposure' }],
    payouts: [],
    review: 'refund',
    refundTo: { address: 'ltc1qgiven', memo: null },
    expect: {
      change: { failureCode: FAILURE_CODES.refundedInReview },
      payouts: ROUTE_REFUNDS.map((r) => ({ ...r, address: 'ltc1qgiven' })),
    },
  },
  {
    status: 'review (route order, screening_hold)',
    when: 'refund: refused, a deposit came from a sender screening held',
    swap: swapIn('review', { ...ROUTE, failureCode: FAILURE_CODES.screeningHold }),
    outputs: [],
    routeDeposits: ROUTE_DEPOSITS,
    senderVerdicts: [{ addressKey: 'ltc1qfirst', decision: 'review', reason: 'mixer exposure' }],
    payouts: [],
    review: 'refund',
    expect: { throws: /came from ltc1qfirst, which address screening did not allow/ },
  },
  {
    status: 'exchanging (route order)',
    when: 'the exchange venue refuses the conversion with no route deposits left: refunded at once',
    swap: swapIn('exchanging', ROUTE),
    exchangeRefusal: 'an exchange failure was armed',
    outputs: [],
    expect: { to: 'refunded', fields: { failureCode: FAILURE_CODES.exchangeFailed, refundTxHash: null, refundAmount: '1' } },
  },
  {
    status: 'exchanging (route order)',
    when: 'one of two refunds broadcast: waits for the other',
    swap: swapIn('exchanging', { ...ROUTE, failureCode: FAILURE_CODES.exchangeFailed }),
    outputs: [],
    routeDeposits: ROUTE_DEPOSITS,
    payouts: [
      { key: `${ID}:refund:rd-1`, purpose: 'refund', status: 'broadcast', txHash: 'tx-r1', amount: '0.59876998', confirmations: 0 },
      { key: `${ID}:refund:rd-2`, purpose: 'refund', status: 'signed', txHash: 'tx-r2', amount: '0.39876998', confirmations: 0 },
    ],
    expect: {},
  },
  {
    status: 'exchanging (route order)',
    when: 'both refunds broadcast: refunded',
    swap: swapIn('exchanging', { ...ROUTE, failureCode: FAILURE_CODES.exchangeFailed }),
    outputs: [],
    routeDeposits: ROUTE_DEPOSITS,
    payouts: [
      { key: `${ID}:refund:rd-1`, purpose: 'refund', status: 'broadcast', txHash: 'tx-r1', amount: '0.59876998', confirmations: 0 },
      { key: `${ID}:refund:rd-2`, purpose: 'refund', status: 'confirmed', txHash: 'tx-r2', amount: '0.39876998', confirmations: 3 },
    ],
    // What the two refunds returned, not the 1 LTC deposited.
    expect: { to: 'refunded', fields: { refundTxHash: 'tx-r1', refundAmount: '0.99753996' } },
  },

  // sending. Unreachable: a refund (nothing commits one in sending, and review keeps its own).
  {
    status: 'sending',
    when: 'the payout is signed, not yet broadcast',
    swap: swapIn('sending'),
    expect: { pricesAsked: false, retryable: false },
  },
  {
    status: 'sending',
    when: 'a second payment is seen',
    swap: swapIn('sending'),
    outputs: [own(8), extra(0)],
    expect: { deposits: [OWN('credited'), EXTRA('confirming', { confirmationCount: 0 })] },
  },
  { status: 'sending', when: 'the deposit gains confirmations', swap: swapIn('sending'), outputs: [own(30)], expect: {} },
  {
    status: 'sending',
    when: 'the deposit is removed after it was credited: review (deposit_removed)',
    swap: swapIn('sending'),
    outputs: [own(0, { removed: true })],
    expect: { to: 'review', fields: { failureCode: FAILURE_CODES.depositRemoved }, deposits: [OWN('removed')] },
  },
  {
    status: 'sending',
    when: 'a second payment is confirmed: returned',
    swap: swapIn('sending'),
    outputs: [own(8), extra(6)],
    expect: { payouts: [EXTRA_REFUND()], deposits: [OWN('credited'), EXTRA('refunding', { refundAmount: EXTRA_REFUNDED })] },
  },
  {
    status: 'sending',
    when: 'a second payment is confirmed while the source price is unavailable: the payout still settles, the payment waits for a price',
    swap: swapIn('sending'),
    outputs: [own(8), extra(6)],
    payouts: [payout('confirmed')],
    prices: UNAVAILABLE,
    expect: {
      to: 'finished',
      fields: {},
      deposits: [OWN('credited'), EXTRA('confirming', { confirmationCount: 6 })],
      wakeAt: RETRY_AT,
      retryable: false,
    },
  },
  { status: 'sending', when: 'the deadline passes', swap: swapIn('sending'), now: AFTER_DEADLINE, expect: {} },
  {
    status: 'sending',
    when: 'the payout is broadcast, 2 of 3 confirmations',
    swap: swapIn('sending'),
    payouts: [payout('broadcast', { confirmations: 2 })],
    expect: {},
  },
  {
    status: 'sending',
    when: 'the payout is broadcast with 3 confirmations: finished',
    swap: swapIn('sending'),
    payouts: [payout('broadcast', { confirmations: 3 })],
    expect: { to: 'finished', fields: {}, earn: false, retryable: false },
  },
  {
    status: 'sending',
    when: 'the payout is confirmed: finished',
    swap: swapIn('sending'),
    payouts: [payout('confirmed')],
    expect: { to: 'finished', fields: {}, earn: false },
  },
  {
    status: 'sending',
    when: 'the payout was refused for good: review, its hash cleared',
    swap: swapIn('sending'),
    payouts: [payout('failed')],
    expect: { to: 'review', fields: { failureCode: FAILURE_CODES.payoutFailed, settlementTxHash: null } },
  },
  {
    status: 'sending',
    when: 'the payout was mined and reverted (it paid nothing): review, its hash cleared, never finished',
    swap: swapIn('sending'),
    payouts: [payout('reverted', { confirmations: 5 })],
    expect: { to: 'review', fields: { failureCode: FAILURE_CODES.payoutFailed, settlementTxHash: null } },
  },
  {
    status: 'sending',
    when: "the payout's nonce was cancelled (it paid nothing): review, its hash cleared",
    swap: swapIn('sending'),
    payouts: [payout('cancelled', { confirmations: 1 })],
    expect: { to: 'review', fields: { failureCode: FAILURE_CODES.payoutFailed, settlementTxHash: null } },
  },
  {
    status: 'sending',
    when: 'a replacement at a higher fee is the newest version: the swap shows its hash',
    swap: swapIn('sending'),
    payouts: [payout('broadcast', { txHash: 'b'.repeat(64), confirmations: 0 })],
    expect: { change: { settlementTxHash: 'b'.repeat(64) } },
  },
  {
    status: 'sending',
    when: 'the replacement is mined and final: finished, naming the mined version',
    swap: swapIn('sending'),
    payouts: [payout('broadcast', { txHash: 'b'.repeat(64), confirmations: 6 })],
    expect: { to: 'finished', fields: { settlementTxHash: 'b'.repeat(64) } },
  },
  {
    status: 'sending',
    when: 'the payout is held (ambiguous broadcast): review (payout_failed)',
    swap: swapIn('sending'),
    payouts: [payout('review')],
    expect: { to: 'review', fields: { failureCode: FAILURE_CODES.payoutFailed } },
  },
  {
    status: 'sending',
    when: 'no payout in the outbox (sent before the outbox existed): finished',
    swap: swapIn('sending'),
    payouts: [],
    expect: { to: 'finished', fields: {} },
  },
  {
    status: 'sending (route order)',
    when: 'the payout is confirmed: finished, the markup earned',
    swap: swapIn('sending', {
      ...ROUTE,
      actualOutputAmount: '80.0805',
      settlementTxHash: PAYOUT_TX,
      markupAmount: '0.4065',
      markupUsd: '0.4',
    }),
    outputs: [],
    payouts: [payout('confirmed', { amount: '80.0805' })],
    expect: { to: 'finished', fields: {}, earn: true },
  },

  // review (held after an ambiguous payout broadcast); decide() waits for a person.
  { status: 'review', when: 'nothing new', swap: swapIn('review'), expect: { pricesAsked: false, retryable: false } },
  {
    status: 'review',
    when: 'a second payment is seen',
    swap: swapIn('review'),
    outputs: [own(8), extra(0)],
    expect: { deposits: [OWN('credited'), EXTRA('confirming', { confirmationCount: 0 })] },
  },
  { status: 'review', when: 'the deposit gains confirmations', swap: swapIn('review'), outputs: [own(30)], expect: {} },
  {
    status: 'review',
    when: 'the deposit is removed: recorded, the swap stays in review',
    swap: swapIn('review'),
    outputs: [own(0, { removed: true })],
    expect: { deposits: [OWN('removed', { confirmationCount: 0 })] },
  },
  {
    status: 'review',
    when: 'a second payment is confirmed: returned',
    swap: swapIn('review'),
    outputs: [own(8), extra(6)],
    expect: { payouts: [EXTRA_REFUND()], deposits: [OWN('credited'), EXTRA('refunding', { refundAmount: EXTRA_REFUNDED })] },
  },
  { status: 'review', when: 'the deadline passes', swap: swapIn('review'), now: AFTER_EXPIRY, expect: {} },
  ...(['signed', 'broadcast', 'confirmed', 'failed'] as const).map((status): Row => ({
    status: 'review',
    when: `the held payout shows ${status}: an operator decides`,
    swap: swapIn('review'),
    payouts: [payout(status)],
    expect: {},
  })),
  {
    status: 'review (refund decided)',
    when: 'the refund is pending',
    swap: swapIn('review', reviewRefunded()),
    payouts: [payout('review'), refund('pending')],
    expect: {},
  },
  {
    status: 'review (refund decided)',
    when: 'the refund is broadcast: refunded',
    swap: swapIn('review', reviewRefunded()),
    payouts: [payout('review'), refund('broadcast')],
    expect: {
      to: 'refunded',
      fields: { refundTxHash: REFUND_TX, refundAmount: OWN_REFUNDED },
      deposits: [OWN('refunded', { refundTxHash: REFUND_TX })],
      retryable: true,
    },
  },
  {
    status: 'review (refund decided)',
    when: 'the refund failed: stays in review',
    swap: swapIn('review', reviewRefunded()),
    payouts: [payout('review'), refund('failed')],
    expect: { deposits: [{ role: 'swap', status: 'review' }], retryable: false },
  },

  // review decisions.
  {
    status: 'review',
    when: 'approve a held payout: exchanging, the same bytes broadcast again',
    swap: swapIn('review'),
    payouts: [payout('review')],
    review: 'approve',
    expect: { to: 'exchanging', fields: { failureCode: null }, payoutUpdates: [{ key: PAYOUT_KEY, status: 'signed' }], pricesAsked: false },
  },
  {
    status: 'review (above maximum)',
    when: 'approve: exchanging, the deposit credited',
    swap: swapIn('review', aboveMaximum()),
    outputs: [own(8, { amount: '400' })],
    payouts: [],
    review: 'approve',
    expect: { to: 'exchanging', fields: { failureCode: null }, deposits: [OWN('credited')] },
  },
  {
    status: 'review (above maximum)',
    when: 'refund: the deposit back to the refund address',
    swap: swapIn('review', aboveMaximum()),
    outputs: [own(8, { amount: '400' })],
    payouts: [],
    review: 'refund',
    expect: {
      change: { failureCode: FAILURE_CODES.refundedInReview },
      payouts: [REFUND('399.99876998')],
      deposits: [OWN('refunding', { refundAmount: '399.99876998' })],
    },
  },
  {
    status: 'review (above maximum)',
    when: 'refund in sender mode: back to the sender',
    swap: swapIn('review', { ...aboveMaximum(), refundMode: 'sender', refundAddress: null }),
    outputs: [own(8, { amount: '400' })],
    payouts: [],
    review: 'refund',
    expect: {
      change: { failureCode: FAILURE_CODES.refundedInReview },
      payouts: [REFUND('399.99876998', SENDER)],
      deposits: [OWN('refunding', { refundAmount: '399.99876998' })],
    },
  },
  {
    status: 'review (screening_hold)',
    when: 'refund to an address the customer gave (--to): there, not to the denied sender',
    swap: swapIn('review', { ...aboveMaximum(), refundMode: 'sender', refundAddress: null, failureCode: FAILURE_CODES.screeningHold }),
    outputs: [own(8, { amount: '400' })],
    senderVerdicts: [{ addressKey: SENDER, decision: 'deny', reason: 'sanctioned' }],
    payouts: [],
    review: 'refund',
    refundTo: { address: 'ltc1qgivenbythecustomer', memo: null },
    expect: {
      change: { failureCode: FAILURE_CODES.refundedInReview },
      payouts: [REFUND('399.99876998', 'ltc1qgivenbythecustomer')],
      deposits: [OWN('refunding', { refundAmount: '399.99876998' })],
    },
  },
  {
    status: 'review (screening_hold)',
    when: 'approve with an address (--to): refused, only a refund takes one',
    swap: swapIn('review', { ...aboveMaximum(), refundMode: 'sender', refundAddress: null, failureCode: FAILURE_CODES.screeningHold }),
    outputs: [own(8, { amount: '400' })],
    payouts: [],
    review: 'approve',
    refundTo: { address: 'ltc1qgivenbythecustomer', memo: null },
    expect: { throws: /Only a refund takes an address/ },
  },
  {
    status: 'review (above maximum)',
    when: 'refund while the source price is unavailable: the decision throws, the swap stays in review',
    swap: swapIn('review', aboveMaximum()),
    outputs: [own(8, { amount: '400' })],
    payouts: [],
    prices: UNAVAILABLE,
    review: 'refund',
    expect: { throws: /source price unavailable/ },
  },
  {
    status: 'review (held as dust)',
    when: 'refund a deposit the network fee would leave at dust: refused, the deposit stays held',
    swap: swapIn('review', {
      receivedAmount: '0.0013',
      settlementTxHash: null,
      actualOutputAmount: null,
      failureCode: FAILURE_CODES.outOfRange,
      deposits: [depositRecord('swap', 'review', { amount: '0.0013' })],
    }),
    outputs: [own(8, { amount: '0.0013' })],
    payouts: [],
    review: 'refund',
    expect: { throws: /0\.0013 LTC less the network fee of 0\.00123002 LTC leaves 0\.00006998, not above the dust floor/ },
  },
  {
    status: 'review (above maximum)',
    when: 'fail: failed (failed_by_review), the deposit still held',
    swap: swapIn('review', aboveMaximum()),
    outputs: [own(8, { amount: '400' })],
    payouts: [],
    review: 'fail',
    expect: { to: 'failed', fields: { failureCode: FAILURE_CODES.failedInReview }, retryable: false },
  },
  {
    status: 'review (payout reverted)',
    when: 'pay again once the reverted payout is final: a second payout, same amount and destination, under the next key',
    swap: swapIn('review', { failureCode: FAILURE_CODES.payoutFailed, settlementTxHash: null }),
    payouts: [payout('reverted', { confirmations: PAYOUT_CONFIRMATIONS })],
    review: 'pay-again',
    expect: {
      to: 'exchanging',
      fields: { failureCode: null, settlementTxHash: null },
      payouts: [{ ...PAY('199.7175'), key: `${PAYOUT_KEY}#2` }],
      pricesAsked: false,
    },
  },
  {
    status: 'review (payout reverted)',
    when: 'approve once the reverted payout is final: pays again, as pay-again does',
    swap: swapIn('review', { failureCode: FAILURE_CODES.payoutFailed, settlementTxHash: null }),
    payouts: [payout('reverted', { confirmations: PAYOUT_CONFIRMATIONS })],
    review: 'approve',
    expect: {
      to: 'exchanging',
      fields: { failureCode: null, settlementTxHash: null },
      payouts: [{ ...PAY('199.7175'), key: `${PAYOUT_KEY}#2` }],
      pricesAsked: false,
    },
  },
  {
    status: 'review (payout reverted)',
    when: 'pay again before the reverted payout is final: refused (a reorganisation could still make it pay)',
    swap: swapIn('review', { failureCode: FAILURE_CODES.payoutFailed, settlementTxHash: null }),
    payouts: [payout('reverted', { confirmations: 1 })],
    review: 'pay-again',
    expect: { throws: /final/ },
  },
  {
    status: 'review (payout reverted)',
    when: 'refund once the reverted payout is final: the deposit goes back',
    swap: swapIn('review', { failureCode: FAILURE_CODES.payoutFailed, settlementTxHash: null }),
    payouts: [payout('reverted', { confirmations: PAYOUT_CONFIRMATIONS })],
    review: 'refund',
    expect: {
      change: { failureCode: FAILURE_CODES.refundedInReview },
      payouts: [REFUND(OWN_REFUNDED)],
      deposits: [OWN('refunding', { refundAmount: OWN_REFUNDED })],
    },
  },
  {
    status: 'review (paid again)',
    when: 'refund after a second payout was committed: refused, nothing pays twice',
    swap: swapIn('review', { failureCode: FAILURE_CODES.payoutFailed, settlementTxHash: null }),
    payouts: [payout('reverted', { confirmations: PAYOUT_CONFIRMATIONS }), payout('pending', { key: `${PAYOUT_KEY}#2` })],
    review: 'refund',
    expect: { throws: /pay twice/ },
  },
  {
    status: 'review (payout refunded)',
    when: 'pay again after a refund was committed: refused, nothing pays twice',
    swap: swapIn('review', { failureCode: FAILURE_CODES.payoutFailed, settlementTxHash: null }),
    payouts: [payout('failed', { txHash: null }), refund('pending')],
    review: 'pay-again',
    expect: { throws: /refund/ },
  },
  {
    status: 'review',
    when: 'pay again a payout held after an ambiguous broadcast: refused (it may be on the chain)',
    swap: swapIn('review'),
    payouts: [payout('review')],
    review: 'pay-again',
    expect: { throws: /not proven/ },
  },
  {
    status: 'review',
    when: 'refund a held payout: refused (the signed payout may be on the chain)',
    swap: swapIn('review'),
    payouts: [payout('review')],
    review: 'refund',
    expect: { throws: /payout/ },
  },
  {
    status: 'review',
    when: 'fail a held payout: failed',
    swap: swapIn('review'),
    payouts: [payout('review')],
    review: 'fail',
    expect: { to: 'failed', fields: { failureCode: FAILURE_CODES.failedInReview } },
  },
  {
    status: 'review (route order)',
    when: 'refund: each route deposit back to its sender',
    swap: swapIn('review', { ...ROUTE, failureCode: FAILURE_CODES.payoutFailed }),
    outputs: [],
    routeDeposits: ROUTE_DEPOSITS,
    payouts: [payout('failed', { amount: '80.0805' })],
    review: 'refund',
    expect: { change: { failureCode: FAILURE_CODES.refundedInReview }, payouts: ROUTE_REFUNDS },
  },
  {
    status: 'review (route order)',
    when: 'refund with a route deposit the network fee would leave at dust: refused',
    swap: swapIn('review', { ...ROUTE, failureCode: FAILURE_CODES.payoutFailed }),
    outputs: [],
    routeDeposits: [ROUTE_DEPOSITS[0], { id: 'rd-3', amount: '0.001', fromAddress: 'ltc1qthird', removed: false }],
    payouts: [payout('failed', { amount: '80.0805' })],
    review: 'refund',
    expect: { throws: /Route deposit rd-3 of 0\.001 LTC .* not above the dust floor/ },
  },
  {
    status: 'review (route order)',
    when: 'refund with no route deposits: refunded at once',
    swap: swapIn('review', { ...ROUTE, failureCode: FAILURE_CODES.payoutFailed }),
    outputs: [],
    payouts: [],
    review: 'refund',
    expect: { to: 'refunded', fields: { failureCode: FAILURE_CODES.refundedInReview, refundTxHash: null, refundAmount: '1' } },
  },
  {
    status: 'review (refund decided)',
    when: 'approve after a refund was committed: refused, nothing pays twice',
    swap: swapIn('review', reviewRefunded()),
    payouts: [payout('review'), refund('pending')],
    review: 'approve',
    expect: { throws: /refund/ },
  },
  {
    status: 'review (refund failed)',
    when: 'refund again after the refund failed: a new refund the outbox will take',
    swap: swapIn('review', { ...reviewRefunded(), failureCode: FAILURE_CODES.refundFailed }),
    payouts: [refund('failed')],
    review: 'refund',
    expect: {
      change: { failureCode: FAILURE_CODES.refundedInReview },
      payouts: [{ ...REFUND(OWN_REFUNDED), key: `${REFUND_KEY}#2` }],
      deposits: [OWN('refunding', { refundAmount: OWN_REFUNDED })],
    },
  },
  {
    status: 'review (deposit removed)',
    when: 'refund a deposit the chain no longer has: nothing is paid without a deposit behind it',
    swap: swapIn('review', {
      failureCode: FAILURE_CODES.depositRemoved,
      deposits: [depositRecord('swap', 'removed', { confirmationCount: 0 })],
    }),
    outputs: [own(0, { removed: true })],
    payouts: [],
    review: 'refund',
    expect: { throws: /left the chain/ },
  },
  {
    status: 'review (refund held)',
    when: 'refund again while the refund is held for an ambiguous broadcast: the same refund is broadcast again, no new one',
    swap: swapIn('review', { ...reviewRefunded(), failureCode: FAILURE_CODES.refundFailed }),
    payouts: [refund('review')],
    review: 'refund',
    expect: { change: { failureCode: FAILURE_CODES.refundedInReview }, payoutUpdates: [{ key: REFUND_KEY, status: 'signed' }] },
  },
  {
    status: 'review (refund signed)',
    when: 'refund again while a refund is signed (its deposit left the chain): refused, nothing pays twice',
    swap: swapIn('review', { failureCode: FAILURE_CODES.depositRemoved, deposits: [depositRecord('swap', 'review')] }),
    outputs: [own(0, { removed: true })],
    payouts: [refund('signed')],
    review: 'refund',
    expect: { throws: /already on its way/ },
  },
  {
    status: 'review (route order, one refund failed)',
    when: 'refund: only the deposit whose refund failed gets a new one, under its own next key',
    swap: swapIn('review', { ...ROUTE, failureCode: FAILURE_CODES.refundFailed }),
    outputs: [],
    routeDeposits: ROUTE_DEPOSITS,
    payouts: [
      outboxRow(`${ID}:refund:rd-1`, 'refund', 'tx-rd-1', '0.59876998')('failed'),
      outboxRow(`${ID}:refund:rd-2`, 'refund', 'tx-rd-2', '0.39876998')('broadcast'),
    ],
    review: 'refund',
    expect: { change: { failureCode: FAILURE_CODES.refundedInReview }, payouts: [{ ...ROUTE_REFUNDS[0], key: `${ID}:refund:rd-1#2` }] },
  },
  {
    status: 'exchanging (route order, payout pending)',
    when: 'one of its deposits is removed: review (deposit_removed), the unsigned payout cancelled',
    swap: swapIn('exchanging', ROUTE),
    outputs: [],
    routeDeposits: ROUTE_DEPOSITS_ONE_REMOVED,
    payouts: [payout('pending', { amount: '80.0805' })],
    expect: {
      to: 'review',
      fields: { failureCode: FAILURE_CODES.depositRemoved },
      payoutUpdates: [{ key: PAYOUT_KEY, status: 'failed' }],
    },
  },
  {
    status: 'exchanging (route order)',
    when: 'one of its deposits is removed before it is priced: review (deposit_removed), nothing priced',
    swap: swapIn('exchanging', ROUTE),
    outputs: [],
    routeDeposits: ROUTE_DEPOSITS_ONE_REMOVED,
    expect: { to: 'review', fields: { failureCode: FAILURE_CODES.depositRemoved }, pricesAsked: false },
  },
  {
    status: 'sending (route order)',
    when: 'one of its deposits is removed after the payout was signed: review (deposit_removed)',
    swap: swapIn('sending', { ...ROUTE, actualOutputAmount: '80.0805', settlementTxHash: PAYOUT_TX }),
    outputs: [],
    routeDeposits: ROUTE_DEPOSITS_ONE_REMOVED,
    payouts: [payout('broadcast', { amount: '80.0805' })],
    expect: { to: 'review', fields: { failureCode: FAILURE_CODES.depositRemoved } },
  },
  {
    status: 'review (route order, deposit removed)',
    when: 'approve while a deposit is out of the chain: refused',
    swap: swapIn('review', { ...ROUTE, failureCode: FAILURE_CODES.depositRemoved }),
    outputs: [],
    routeDeposits: ROUTE_DEPOSITS_ONE_REMOVED,
    payouts: [payout('failed', { amount: '80.0805' })],
    review: 'approve',
    expect: { throws: /left the chain.*unless a block holds it again/ },
  },
  {
    status: 'review (route order, deposit removed)',
    when: 'refund while a deposit is out of the chain: refused',
    swap: swapIn('review', { ...ROUTE, failureCode: FAILURE_CODES.depositRemoved }),
    outputs: [],
    routeDeposits: ROUTE_DEPOSITS_ONE_REMOVED,
    payouts: [payout('failed', { amount: '80.0805' })],
    review: 'refund',
    expect: { throws: /left the chain.*cannot be refunded/ },
  },
  {
    status: 'review (route order, deposit removed)',
    when: 'fail: failed',
    swap: swapIn('review', { ...ROUTE, failureCode: FAILURE_CODES.depositRemoved }),
    outputs: [],
    routeDeposits: ROUTE_DEPOSITS_ONE_REMOVED,
    payouts: [payout('failed', { amount: '80.0805' })],
    review: 'fail',
    expect: { to: 'failed', fields: { failureCode: FAILURE_CODES.failedInReview } },
  },
  {
    status: 'exchanging (payout pending)',
    when: 'the deposit is removed: review (deposit_removed), the unsigned payout cancelled',
    swap: swapIn('exchanging', { deposits: [depositRecord('swap', 'credited')] }),
    outputs: [own(0, { removed: true })],
    payouts: [payout('pending')],
    expect: {
      to: 'review',
      fields: { failureCode: FAILURE_CODES.depositRemoved },
      payoutUpdates: [{ key: PAYOUT_KEY, status: 'failed' }],
      deposits: [OWN('removed')],
    },
  },
  {
    status: 'waiting (deposit removed earlier)',
    when: 'the removed deposit is mined again and another is paid: the first is the swap’s, the second an extra',
    swap: swapIn('waiting', {
      sourceTxHash: null,
      receivedAmount: null,
      deposits: [depositRecord('swap', 'removed', { confirmationCount: 0 })],
    }),
    outputs: [own(1), extra(0)],
    expect: {
      to: 'confirming',
      fields: { sourceTxHash: OWN_TX, receivedAmount: '2.5', receivedFrom: SENDER, lateDeposit: false, confirmationCount: 1 },
      deposits: [OWN('confirming'), EXTRA('confirming', { confirmationCount: 0 })],
    },
  },
  {
    status: 'review (deposit removed)',
    when: 'approve a deposit the chain no longer has: refused (it would exchange money that left the chain)',
    swap: swapIn('review', {
      failureCode: FAILURE_CODES.depositRemoved,
      deposits: [depositRecord('swap', 'removed', { confirmationCount: 0 })],
    }),
    outputs: [own(0, { removed: true })],
    payouts: [],
    review: 'approve',
    expect: { throws: /left the chain/ },
  },

  // accumulating (route orders): route polling moves them; no outputs, payouts or refunds of their own yet.
  {
    status: 'accumulating',
    when: 'nothing new',
    swap: swapIn('accumulating', ROUTE),
    outputs: [],
    routeDeposits: ROUTE_DEPOSITS,
    expect: { pricesAsked: false, retryable: false },
  },
  { status: 'accumulating', when: 'the deadline passes', swap: swapIn('accumulating', ROUTE), outputs: [], now: AFTER_EXPIRY, expect: {} },

  // finished: terminal; only payments after it move, each returned.
  { status: 'finished', when: 'nothing new', swap: swapIn('finished'), expect: { retryable: false } },
  {
    status: 'finished',
    when: 'a payment after it finished is seen',
    swap: swapIn('finished'),
    outputs: [own(8), extra(0)],
    expect: { deposits: [OWN('credited'), EXTRA('confirming', { confirmationCount: 0 })], retryable: false },
  },
  { status: 'finished', when: 'the deposit gains confirmations', swap: swapIn('finished'), outputs: [own(40)], expect: {} },
  {
    status: 'finished',
    when: 'the deposit is removed (deep reorganisation): recorded, the swap stays finished',
    swap: swapIn('finished'),
    outputs: [own(0, { removed: true })],
    expect: { deposits: [OWN('removed')] },
  },
  {
    status: 'finished',
    when: 'a payment after it finished is confirmed: returned to the refund address',
    swap: swapIn('finished'),
    outputs: [own(8), extra(6)],
    expect: {
      payouts: [EXTRA_REFUND()],
      deposits: [OWN('credited'), EXTRA('refunding', { refundAmount: EXTRA_REFUNDED })],
      retryable: false,
    },
  },
  {
    status: 'finished',
    when: 'a payment after it finished is confirmed while the source price is unavailable: it stays confirming, looked at again in a minute',
    swap: swapIn('finished'),
    outputs: [own(8), extra(6)],
    prices: UNAVAILABLE,
    expect: { deposits: [OWN('credited'), EXTRA('confirming', { confirmationCount: 6 })], wakeAt: RETRY_AT, retryable: false },
  },
  {
    status: 'finished',
    when: 'a payment after it finished that the network fee leaves below the dust floor (0.0013 LTC): kept for an operator',
    swap: swapIn('finished'),
    outputs: [own(8), extra(6, { amount: '0.0013' })],
    expect: { deposits: [OWN('credited'), EXTRA('review', { refundAmount: null })], retryable: false },
  },
  { status: 'finished', when: 'the deadline passes', swap: swapIn('finished'), now: AFTER_EXPIRY, expect: {} },
  {
    status: 'finished',
    when: 'the payout is broadcast',
    swap: swapIn('finished'),
    payouts: [payout('broadcast', { confirmations: 9 })],
    expect: {},
  },

  // refunded: terminal.
  { status: 'refunded', when: 'nothing new', swap: swapIn('refunded'), expect: { retryable: true } },
  {
    status: 'refunded',
    when: 'a payment after the refund is seen',
    swap: swapIn('refunded'),
    outputs: [own(8), extra(0)],
    expect: { deposits: [OWN('refunded', { refundTxHash: REFUND_TX }), EXTRA('confirming', { confirmationCount: 0 })], retryable: false },
  },
  { status: 'refunded', when: 'the deposit gains confirmations', swap: swapIn('refunded'), outputs: [own(40)], expect: {} },
  {
    status: 'refunded',
    when: 'the refunded deposit is removed: held for an operator (its refund went out for money the chain took back)',
    swap: swapIn('refunded'),
    outputs: [own(0, { removed: true })],
    expect: { deposits: [OWN('review', { refundTxHash: REFUND_TX, confirmationCount: 0 })], retryable: false },
  },
  {
    status: 'refunded',
    when: 'a payment after the refund is confirmed: returned',
    swap: swapIn('refunded'),
    outputs: [own(8), extra(6)],
    expect: {
      payouts: [EXTRA_REFUND()],
      deposits: [OWN('refunded', { refundTxHash: REFUND_TX }), EXTRA('refunding', { refundAmount: EXTRA_REFUNDED })],
      retryable: false,
    },
  },
  { status: 'refunded', when: 'the deadline passes', swap: swapIn('refunded'), now: AFTER_EXPIRY, expect: {} },
  {
    status: 'refunded',
    when: 'the refund is confirmed',
    swap: swapIn('refunded'),
    payouts: [refund('confirmed')],
    expect: { retryable: true },
  },

  // expired: terminal; a payment after it is an extra, returned where a destination is safe.
  { status: 'expired', when: 'nothing new', swap: swapIn('expired'), expect: { retryable: true, pricesAsked: false } },
  {
    status: 'expired',
    when: 'a payment after expiry is seen',
    swap: swapIn('expired'),
    outputs: [extra(0)],
    expect: { deposits: [EXTRA('confirming', { confirmationCount: 0 })], retryable: false },
  },
  {
    status: 'expired',
    when: 'a payment after expiry is confirmed: returned to the refund address',
    swap: swapIn('expired'),
    outputs: [extra(6)],
    expect: { payouts: [EXTRA_REFUND()], deposits: [EXTRA('refunding', { refundAmount: EXTRA_REFUNDED })], retryable: false },
  },
  {
    status: 'expired',
    when: 'refund address mode on a memo network: returned with the refund memo',
    swap: swapIn('expired', XRP_SWAP),
    outputs: [extra(1, { fromAddress: 'rSender' })],
    // XRP's network fee, 0.05 USD at 0.552, is 0.09058 XRP (6 places, rounded up).
    prices: { source: '0.5520', destination: '1.00' },
    expect: {
      payouts: [EXTRA_REFUND('rRefundAddress', '40213', 'XRP/XRP', '0.30942')],
      deposits: [EXTRA('refunding', { refundAmount: '0.30942' })],
    },
  },
  {
    status: 'expired',
    when: 'sender mode on a network without memos: returned to the sender',
    swap: swapIn('expired', { refundMode: 'sender', refundAddress: null }),
    outputs: [extra(6, { fromAddress: 'ltc1qextrasender' })],
    expect: { payouts: [EXTRA_REFUND('ltc1qextrasender')], deposits: [EXTRA('refunding', { refundAmount: EXTRA_REFUNDED })] },
  },
  {
    status: 'expired',
    when: 'sender mode where the network names no sender: held for an operator, nothing paid',
    swap: swapIn('expired', { refundMode: 'sender', refundAddress: null }),
    outputs: [extra(6, { fromAddress: null })],
    expect: { deposits: [EXTRA('review', { refundAmount: null })], retryable: false },
  },
  {
    status: 'expired',
    when: 'sender mode on a memo network: held for an operator, nothing paid',
    swap: swapIn('expired', { ...XRP_SWAP, refundMode: 'sender', refundAddress: null, refundMemo: null }),
    outputs: [extra(1, { fromAddress: 'rSender' })],
    expect: { deposits: [EXTRA('review')], retryable: false },
  },
  {
    status: 'expired',
    when: 'the payment is removed before it was confirmed: recorded, nothing else',
    swap: swapIn('expired', { deposits: [depositRecord('extra', 'confirming', { confirmationCount: 1 })] }),
    outputs: [extra(0, { removed: true })],
    expect: { deposits: [EXTRA('removed', { confirmationCount: 0 })], retryable: true },
  },
  { status: 'expired', when: 'time passes', swap: swapIn('expired'), now: new Date('2026-07-01T00:00:00.000Z'), expect: {} },

  // expired: the extra's refund through the outbox.
  ...(
    [
      ['pending', 'refunding', null, false],
      ['signed', 'refunding', null, false],
      ['broadcast', 'refunded', EXTRA_REFUND_TX, true],
      ['confirmed', 'refunded', EXTRA_REFUND_TX, true],
      ['failed', 'review', null, false],
      ['review', 'review', null, false],
    ] as const
  ).map(([status, deposit, refundTxHash, retryable]): Row => ({
    status: 'expired (extra refunding)',
    when: `the extra's refund is ${status}: the payment is ${deposit}`,
    swap: swapIn('expired', { deposits: [depositRecord('extra', 'refunding', { refundAmount: EXTRA_REFUNDED })] }),
    outputs: [extra(8)],
    payouts: [extraRefund(status)],
    expect: {
      deposits:
        status === 'pending'
          ? undefined
          : [{ role: 'extra', status: deposit, refundAmount: EXTRA_REFUNDED, ...(refundTxHash === undefined ? {} : { refundTxHash }) }],
      retryable,
    },
  })),
  {
    status: 'expired (extra refunding)',
    when: "the extra's refund is signed, not broadcast: refundTxHash stays null",
    swap: swapIn('expired', { deposits: [depositRecord('extra', 'refunding', { refundAmount: EXTRA_REFUNDED })] }),
    outputs: [extra(8)],
    payouts: [extraRefund('signed')],
    expect: { deposits: [EXTRA('refunding', { refundTxHash: null })] },
  },
  {
    status: 'expired (extra refunding)',
    when: "the extra's refund failed: the deposit names no refund transaction",
    swap: swapIn('expired', { deposits: [depositRecord('extra', 'refunding', { refundAmount: EXTRA_REFUNDED })] }),
    outputs: [extra(8)],
    payouts: [extraRefund('failed')],
    expect: { deposits: [EXTRA('review', { refundTxHash: null })] },
  },
  {
    status: 'expired (extra refunding)',
    when: 'a refund committed before refunds paid the network fee (the whole 0.4) keeps its amount: the payment shows it',
    swap: swapIn('expired', { deposits: [depositRecord('extra', 'refunding', { refundAmount: '0.4' })] }),
    outputs: [extra(8)],
    payouts: [extraRefund('broadcast', { amount: '0.4' })],
    expect: { deposits: [EXTRA('refunded', { refundTxHash: EXTRA_REFUND_TX, refundAmount: '0.4' })], retryable: true },
  },

  // failed: terminal.
  { status: 'failed', when: 'nothing new', swap: swapIn('failed'), expect: { retryable: false } },
  {
    status: 'failed',
    when: 'a payment after it failed is seen',
    swap: swapIn('failed'),
    outputs: [own(8), extra(0)],
    expect: { deposits: [OWN('credited'), EXTRA('confirming', { confirmationCount: 0 })] },
  },
  { status: 'failed', when: 'the deposit gains confirmations', swap: swapIn('failed'), outputs: [own(40)], expect: {} },
  {
    status: 'failed',
    when: 'the deposit is removed: recorded',
    swap: swapIn('failed'),
    outputs: [own(0, { removed: true })],
    expect: { deposits: [OWN('removed')] },
  },
  {
    status: 'failed',
    when: 'a payment after it failed is confirmed: returned',
    swap: swapIn('failed'),
    outputs: [own(8), extra(6)],
    expect: { payouts: [EXTRA_REFUND()], deposits: [OWN('credited'), EXTRA('refunding', { refundAmount: EXTRA_REFUNDED })] },
  },
  { status: 'failed', when: 'the deadline passes', swap: swapIn('failed'), now: AFTER_EXPIRY, expect: {} },
  ...MISMATCH_POLICY_ROWS,
];

/** A fixed swap whose 2.4 deposit is being refunded (amount_mismatch). */
function refundCommitted(): Partial<SwapRecord> {
  return {
    receivedAmount: '2.4',
    confirmationCount: 6,
    failureCode: FAILURE_CODES.mismatch,
    deposits: [depositRecord('swap', 'refunding', { amount: '2.4', confirmationCount: 6, refundAmount: '2.39876998' })],
  };
}

/** A held payout an operator decided to refund. */
function reviewRefunded(): Partial<SwapRecord> {
  return { failureCode: FAILURE_CODES.refundedInReview, deposits: [depositRecord('swap', 'refunding', { refundAmount: OWN_REFUNDED })] };
}

/** Held on confirmation: 400 LTC is above the automatic maximum. */
function aboveMaximum(): Partial<SwapRecord> {
  return {
    rateType: 'floating',
    receivedAmount: '400',
    settlementTxHash: null,
    actualOutputAmount: null,
    failureCode: null,
    deposits: [depositRecord('swap', 'review', { amount: '400' })],
  };
}

/** Runs a row: decide (or a review decision) on what the row's ledger and outbox show. */
function run(row: Row): { decision: Decision; asked: string[] } {
  const { swap } = row;
  const prices = row.prices ?? MARKET;
  const asked: string[] = [];
  const price = (side: 'source' | 'destination') => () => {
    asked.push(side);
    const value = prices[side];
    if (value === null) throw new Error(`${side} price unavailable`);
    return new Money(value);
  };
  const seen = {
    outputs: row.outputs ?? LEDGER[swap.status] ?? [],
    payouts: row.payouts ?? OUTBOX[swap.status] ?? [],
    routeDeposits: row.routeDeposits ?? [],
    prices: { source: price('source'), destination: price('destination') },
    exchangeRefusal: row.exchangeRefusal ?? null,
    payable: row.payable === undefined ? undefined : new Money(row.payable),
    senderVerdicts: row.senderVerdicts,
  };
  const context = {
    catalog,
    source: assetOf(swap.sourceAsset, swap.sourceNetwork),
    destination: assetOf(swap.destinationAsset, swap.destinationNetwork),
    payoutConfirmations: PAYOUT_CONFIRMATIONS,
    now: row.now ?? DEFAULT_NOW[swap.status] ?? BEFORE_DEADLINE,
  };
  const decided = row.review ? decideReview(swap, row.review, seen, context, row.refundTo) : decide(swap, seen, context);
  // A refused review decision throws here, as the service answers it (409 invalid_state).
  if ('refused' in decided) throw new Error(decided.refused);
  const decision = decided;
  return { decision, asked };
}

/** `amount` of the source asset less its network's payout fee at the row's source price (the rule, computed here). */
function lessTheFee(row: Row, amount: string): string {
  const source = assetOf(row.swap.sourceAsset, row.swap.sourceNetwork);
  const fee = new Money(catalog.networks[source.network].payoutFeeUsd)
    .div((row.prices ?? MARKET).source!)
    .toDecimalPlaces(source.precision, Money.ROUND_UP);
  return new Money(amount).minus(fee).toDecimalPlaces(source.precision, Money.ROUND_DOWN).toFixed();
}

const withoutDeposits = (fields: Partial<SwapRecord>): Partial<SwapRecord> => {
  const { deposits: _deposits, ...rest } = fields;
  return rest;
};
/** A change's fields other than the deposits; null when there are none. */
const changedFields = (change: Partial<SwapRecord> | null) => {
  const rest = change ? withoutDeposits(change) : {};
  return Object.keys(rest).length > 0 ? rest : null;
};
const intentShape = (p: PayoutIntent): IntentShape => ({
  key: p.key,
  purpose: p.purpose,
  asset: `${p.asset.symbol}/${p.asset.network}`,
  address: p.address,
  memo: p.memo,
  amount: p.amount,
  ...(p.routeDepositId ? { routeDepositId: p.routeDepositId } : {}),
});
/** The deposits after a decision: the step's, or the swap's unchanged. */
const depositsAfter = (row: Row, decision: Decision): SwapDepositRecord[] =>
  decision.transition?.fields.deposits ?? decision.change?.deposits ?? row.swap.deposits;
const pick = (deposit: SwapDepositRecord, shape: DepositShape) =>
  Object.fromEntries(Object.keys(shape).map((key) => [key, deposit[key as keyof SwapDepositRecord]]));

describe('swap decision (decide, decideReview)', () => {
  for (const row of ROWS) {
    // A row marked `bug` is skipped; SHOW_BUGS=1 runs it to see what the code does today.
    const test = row.bug && !process.env.SHOW_BUGS ? it.skip : it;
    test(`${row.status}: ${row.when}`, () => {
      const e = row.expect;
      if (e.throws) {
        expect(() => run(row)).to.throw(e.throws);
        return;
      }
      const { decision, asked } = run(row);
      expect(decision.transition?.to ?? null, 'transition').to.equal(e.to ?? null);
      if (e.note) expect(decision.transition?.note, 'note').to.match(e.note);
      else expect(decision.transition?.note, 'note').to.equal(undefined);
      if (decision.transition) expect(withoutDeposits(decision.transition.fields), 'transition fields').to.deep.equal(e.fields ?? {});
      expect(changedFields(decision.change), 'change').to.deep.equal(e.change ?? null);
      expect(decision.payouts.map(intentShape), 'payouts').to.deep.equal(e.payouts ?? []);
      expect(decision.payoutUpdates, 'payoutUpdates').to.deep.equal(e.payoutUpdates ?? []);
      expect(decision.earn, 'earn').to.equal(e.earn ?? false);
      expect(decision.wakeAt, 'wakeAt').to.deep.equal(e.wakeAt);
      const deposits = depositsAfter(row, decision);
      if (e.deposits) {
        expect(
          deposits.map((d, i) => pick(d, e.deposits![i] ?? {})),
          'deposits',
        ).to.deep.equal(e.deposits);
      } else {
        expect(deposits, 'deposits unchanged').to.deep.equal(row.swap.deposits);
      }
      if (e.retryable !== undefined)
        expect(isRetryable(decision.transition?.to ?? row.swap.status, deposits), 'retryable').to.equal(e.retryable);
      if (e.pricesAsked !== undefined) expect(asked.length > 0, 'prices asked').to.equal(e.pricesAsked);
    });
  }

  describe('over the whole table', () => {
    const decided = ROWS.filter((row) => !row.bug && !row.expect.throws).map((row) => ({ row, ...run(row) }));

    it('covers every status', () => {
      const statuses = new Set(decided.map(({ row }) => row.swap.status));
      expect([...statuses]).to.have.members([
        'waiting',
        'overdue',
        'confirming',
        'exchanging',
        'sending',
        'review',
        'accumulating',
        'finished',
        'refunded',
        'expired',
        'failed',
      ]);
    });

    it('returns only transitions the lifecycle table allows', () => {
      const illegal = decided
        .filter(({ row, decision }) => decision.transition && !isAllowedTransition(row.swap.status, decision.transition.to))
        .map(({ row, decision }) => `${row.status}: ${row.when} -> ${decision.transition!.to}`);
      expect(illegal).to.deep.equal([]);
    });

    it('never commits a payout under a key the outbox already holds (it would be ignored)', () => {
      const repeated = decided
        .filter(({ row, decision }) =>
          decision.payouts.some((p) => (row.payouts ?? OUTBOX[row.swap.status] ?? []).some((o) => o.key === p.key)),
        )
        .map(({ row }) => `${row.status}: ${row.when}`);
      expect(repeated).to.deep.equal([]);
    });

    it('backs every refund it commits with a deposit being refunded for that amount', () => {
      const unbacked = decided.flatMap(({ row, decision }) => {
        const deposits = depositsAfter(row, decision);
        return decision.payouts
          .filter((p) => p.purpose !== 'payout' && !p.routeDepositId)
          .filter((p) => {
            // An overpayment's excess: what arrived beyond depositAmount, less the fee, as the swap fixed it.
            if (p.purpose === 'excess_refund') {
              const excess = new Money(row.swap.receivedAmount!).minus(row.swap.depositAmount).toFixed();
              const fixed =
                decision.change?.excessRefundAmount ?? decision.transition?.fields.excessRefundAmount ?? row.swap.excessRefundAmount;
              return p.amount !== fixed || lessTheFee(row, excess) !== p.amount;
            }
            const role = p.purpose === 'extra_refund' ? 'extra' : 'swap';
            return !deposits.some(
              (d) => d.role === role && d.status === 'refunding' && d.refundAmount === p.amount && lessTheFee(row, d.amount) === p.amount,
            );
          })
          .map((p) => `${row.status}: ${row.when} (${p.key})`);
      });
      expect(unbacked).to.deep.equal([]);
    });

    it('refunds every route deposit less the network fee at the price of the step', () => {
      const wrong = decided.flatMap(({ row, decision }) =>
        decision.payouts
          .filter((p) => p.routeDepositId)
          .filter((p) => lessTheFee(row, row.routeDeposits!.find((d) => d.id === p.routeDepositId)!.amount) !== p.amount)
          .map((p) => `${row.status}: ${row.when} (${p.key})`),
      );
      expect(wrong).to.deep.equal([]);
    });

    it('asks for a price outside confirming and exchanging only to refund (the source price), or to hold a refund', () => {
      const asked = decided.filter(({ row, decision, asked }) => {
        if (asked.length === 0 || ['confirming', 'exchanging'].includes(row.swap.status)) return false;
        const refunds = decision.payouts.some((p) => p.purpose !== 'payout');
        const inReview = (deposits: SwapDepositRecord[]) => deposits.filter((d) => d.status === 'review').length;
        const holds = inReview(depositsAfter(row, decision)) > inReview(row.swap.deposits);
        const waits = decision.wakeAt !== undefined;
        return asked.some((side) => side !== 'source') || !(refunds || holds || waits);
      });
      expect(asked.map(({ row }) => `${row.status}: ${row.when}`)).to.deep.equal([]);
    });
  });
});

// An operator's return of a payment held for them (server/operator.ts returnHeldPayment): a finished swap
// whose extra payment's refund the chain refused, or that had no refund at all.
describe('returning a held payment (decideHeldPayment)', () => {
  const OPERATOR_ADDRESS = 'ltc1qoperator000000000000000000000000000000';
  const to = { address: OPERATOR_ADDRESS, memo: null };
  const held = swapIn('finished', { deposits: [depositRecord('swap', 'credited'), depositRecord('extra', 'review')] });
  const seenWith = (payouts: PayoutObservation[]) => ({
    outputs: [own(8), extra(8)],
    payouts: [payout('confirmed'), ...payouts],
    routeDeposits: [],
    prices: {
      source: () => {
        throw new Error('no price');
      },
      destination: () => {
        throw new Error('no price');
      },
    },
    exchangeRefusal: null,
  });
  const context = {
    catalog,
    source: assetOf('LTC', 'LTC'),
    destination: assetOf('USDT', 'ETH'),
    payoutConfirmations: PAYOUT_CONFIRMATIONS,
    now: AFTER_EXPIRY,
  };
  const returned = (payouts: PayoutObservation[]) => {
    const decided = decideHeldPayment(held, { txHash: EXTRA_TX, outputIndex: 0 }, to, seenWith(payouts), context);
    if ('refused' in decided) throw new Error(decided.refused);
    return decided;
  };

  it('commits a refund to the operator’s address under the next key after a failed one; the payment is refunding', () => {
    const decision = returned([extraRefund('failed')]);
    expect(decision.transition).to.equal(null);
    expect(decision.payouts.map(intentShape)).to.deep.equal([
      { key: `${EXTRA_KEY}#2`, purpose: 'extra_refund', asset: 'LTC/LTC', address: OPERATOR_ADDRESS, memo: null, amount: '0.4' },
    ]);
    expect(decision.change?.deposits?.map((d) => [d.role, d.status, d.refundAmount])).to.deep.equal([
      ['swap', 'credited', null],
      ['extra', 'refunding', '0.4'],
    ]);
  });

  it('commits the first refund of a payment that never had one (no safe destination)', () => {
    expect(returned([]).payouts.map((p) => p.key)).to.deep.equal([EXTRA_KEY]);
  });

  it('refuses a payment whose refund is in play, the swap’s own deposit, and one not paid to the swap', () => {
    const refusal = (payment: { txHash: string; outputIndex: number }, payouts: PayoutObservation[]) =>
      decideHeldPayment(held, payment, to, seenWith(payouts), context);
    expect(
      refusal({ txHash: EXTRA_TX, outputIndex: 0 }, [
        extraRefund('failed'),
        outboxRow(`${EXTRA_KEY}#2`, 'extra_refund', 'tx-2', '0.4')('review'),
      ]),
    )
      .to.have.property('refused')
      .that.contains('held after a broadcast whose outcome is unknown');
    expect(refusal({ txHash: OWN_TX, outputIndex: 0 }, []))
      .to.have.property('refused')
      .that.contains("the swap's own deposit");
    expect(refusal({ txHash: EXTRA_TX, outputIndex: 1 }, []))
      .to.have.property('refused')
      .that.contains('No payment tx-extra:1');
  });

  it('follows the operator’s refund afterwards: refunding while it is signed, refunded with its hash once broadcast', () => {
    const after = swapIn('finished', { deposits: returned([extraRefund('failed')]).change!.deposits! });
    const second = outboxRow(`${EXTRA_KEY}#2`, 'extra_refund', 'tx-operator', '0.4');
    const step = (status: PayoutObservation['status']) =>
      decide(after, { ...seenWith([extraRefund('failed'), second(status)]) }, context).change?.deposits?.[1] ?? after.deposits[1];
    expect(step('signed')).to.include({ status: 'refunding', refundTxHash: null });
    expect(step('broadcast')).to.include({ status: 'refunded', refundTxHash: 'tx-operator', refundAmount: '0.4' });
  });
});

// Every output to the address is the swap's business, whatever its asset (the chain boundary): one of another
// asset than the source is never converted; it is returned to its sender in its own asset, less its own
// network fee, or held for an operator.
describe('payments of another asset (decide)', () => {
  const USDT_SWAP = swapRecord({
    id: ID,
    sourceAsset: 'USDT',
    sourceNetwork: 'ETH',
    destinationAsset: 'LTC',
    destinationNetwork: 'LTC',
    depositAmount: '250',
    sourceAmount: '250',
    requiredConfirmations: 6,
    refundMode: 'address',
    refundAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  });
  const EVM_SENDER = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
  const prices: Record<string, string> = { USDT: '1.00', ETH: '3000', USDC: '1.00', LTC: '81.30' };
  const asked: string[] = [];
  const seenWith = (outputs: OutputObservation[], unavailable: string[] = []) => ({
    outputs,
    payouts: [],
    routeDeposits: [],
    prices: {
      source: () => new Money(prices.USDT!),
      destination: () => new Money(prices.LTC!),
      of: (symbol: string) => {
        asked.push(symbol);
        if (unavailable.includes(symbol)) throw new Error(`${symbol} price unavailable`);
        return new Money(prices[symbol]!);
      },
    },
    exchangeRefusal: null,
  });
  const context = (now = BEFORE_DEADLINE) => ({
    catalog,
    source: assetOf('USDT', 'ETH'),
    destination: assetOf('LTC', 'LTC'),
    payoutConfirmations: PAYOUT_CONFIRMATIONS,
    now,
  });
  const eth = (confirmations: number, more: Partial<OutputObservation> = {}) =>
    output('tx-eth', confirmations, { asset: 'ETH', amount: '0.5', fromAddress: EVM_SENDER, ...more });
  const depositsOf = (decision: Decision) => (decision.transition?.fields.deposits ?? decision.change?.deposits) as SwapDepositRecord[];

  beforeEach(() => (asked.length = 0));

  it('never takes a payment of another asset as the swap deposit: the swap keeps waiting, the payment is an extra', () => {
    const decision = decide(USDT_SWAP, seenWith([eth(1)]), context());
    expect(decision.transition).to.equal(null);
    expect(depositsOf(decision).map((d) => [d.asset, d.network, d.role, d.status])).to.deep.equal([['ETH', 'ETH', 'extra', 'confirming']]);
  });

  it('returns a confirmed one to its sender in its own asset, less its own network fee at its own price', () => {
    const decision = decide(USDT_SWAP, seenWith([eth(6)]), context());
    // ETH's network payout fee: 1.50 USD at 3000 USD = 0.0005 ETH.
    expect(decision.payouts.map((p) => [p.purpose, p.asset.symbol, p.address, p.amount])).to.deep.equal([
      ['extra_refund', 'ETH', EVM_SENDER, '0.4995'],
    ]);
    expect(asked).to.deep.equal(['ETH']);
    expect(depositsOf(decision)[0]).to.include({ asset: 'ETH', status: 'refunding', refundAmount: '0.4995' });
  });

  it('sends it to its sender even when the swap refunds to an address (that address is for the source asset)', () => {
    const usdc = output('tx-usdc', 6, { asset: 'USDC', amount: '40', fromAddress: EVM_SENDER });
    const decision = decide(USDT_SWAP, seenWith([usdc]), context());
    expect(decision.payouts.map((p) => [p.asset.symbol, p.address, p.amount])).to.deep.equal([['USDC', EVM_SENDER, '38.5']]);
  });

  it('holds it for an operator where no sender is named, or the asset is not in the catalogue', () => {
    for (const held of [eth(6, { fromAddress: null }), output('tx-odd', 6, { asset: 'WBTC', amount: '1', fromAddress: EVM_SENDER })]) {
      const decision = decide(USDT_SWAP, seenWith([held]), context());
      expect(decision.payouts).to.deep.equal([]);
      expect(depositsOf(decision)[0]!.status, held.asset).to.equal('review');
    }
  });

  it('holds it when its own fee would leave dust, and waits for its price when there is none', () => {
    const tiny = decide(USDT_SWAP, seenWith([eth(6, { amount: '0.0005' })]), context());
    expect(tiny.payouts).to.deep.equal([]);
    expect(depositsOf(tiny)[0]!.status).to.equal('review');
    const unpriced = decide(USDT_SWAP, seenWith([eth(6)], ['ETH']), context());
    expect(unpriced.payouts).to.deep.equal([]);
    expect(depositsOf(unpriced)[0]!.status).to.equal('confirming');
    expect(unpriced.wakeAt).to.deep.equal(new Date(BEFORE_DEADLINE.getTime() + 60_000));
  });

  it('credits the swap with its own asset beside it: the USDT payment is the deposit, the ETH one an extra', () => {
    const usdt = output(OWN_TX, 6, { asset: 'USDT', amount: '250', fromAddress: EVM_SENDER });
    const confirming = { ...USDT_SWAP, status: 'confirming' as const, sourceTxHash: OWN_TX, receivedAmount: '250' };
    const decision = decide(confirming, seenWith([eth(6, { seenAt: new Date(SEEN.getTime() - 1000) }), usdt]), context());
    expect(depositsOf(decision).map((d) => [d.asset, d.role])).to.deep.equal([
      ['ETH', 'extra'],
      ['USDT', 'swap'],
    ]);
    expect(decision.payouts.map((p) => p.asset.symbol)).to.deep.equal(['ETH']);
  });
});
