/**
 * The swap decision under address screening (docs/screening.md): a confirmed deposit whose sender screening
 * denied or held goes to review (screening_hold) before it is credited; a sender without a verdict waits; no
 * refund, the swap's own or an extra payment's, goes to a sender screening did not clear.
 */
import { expect } from 'chai';
import { loadSandboxCatalog } from '../../../server/adapters/sandbox/catalog.js';
import { findAsset } from '../../../server/domain/catalog.js';
import { Money } from '../../../server/domain/money.js';
import {
  decide,
  decideReview,
  FAILURE_CODES,
  SCREENING_RETRY_MS,
  type DecisionContext,
  type Observations,
  type OutputObservation,
  type SenderVerdictObservation,
} from '../../../server/domain/swap-decision.js';
import type { SwapDepositRecord, SwapRecord } from '../../../server/domain/swap-view.js';
import { swapRecord } from '../../support/swap-record.js';

const catalog = loadSandboxCatalog();
const NOW = new Date('2026-06-14T10:20:00.000Z');
const SEEN = new Date('2026-06-14T10:10:00.000Z');
const SENDER = 'LTC1QSENDER0000000000000000000000000000000';
const OTHER_SENDER = 'ltc1qextra00000000000000000000000000000000';
const context: DecisionContext = {
  catalog,
  source: findAsset(catalog, 'LTC', 'LTC')!,
  destination: findAsset(catalog, 'USDT', 'ETH')!,
  payoutConfirmations: 3,
  now: NOW,
};

const deposit = (role: 'swap' | 'extra', txHash: string, amount: string, status: SwapDepositRecord['status']): SwapDepositRecord => ({
  txHash,
  outputIndex: 0,
  amount,
  confirmationCount: 6,
  requiredConfirmations: 6,
  role,
  status,
  refundTxHash: null,
  refundAmount: null,
  seenAt: SEEN.toISOString(),
});
const output = (txHash: string, amount: string, fromAddress: string): OutputObservation => ({
  txHash,
  outputIndex: 0,
  amount,
  fromAddress,
  confirmations: 6,
  seenAt: SEEN,
  removed: false,
});

/** A 2.5 LTC fixed swap confirming its deposit from SENDER, now confirmed; refunds go to the sender. */
const CONFIRMING: SwapRecord = swapRecord({
  status: 'confirming',
  depositAddress: 'ltc1q4xj5p0ux3r8nz6c2wq7ev9mk3h5lt0ad2yfs8g',
  refundMode: 'sender',
  refundAddress: null,
  sourceTxHash: 'tx-own',
  receivedAmount: '2.5',
  receivedFrom: SENDER,
  confirmationCount: 5,
  deposits: [{ ...deposit('swap', 'tx-own', '2.5', 'confirming'), confirmationCount: 5 }],
});

const verdict = (decision: SenderVerdictObservation['decision'], address = SENDER): SenderVerdictObservation => ({
  addressKey: address.toLowerCase(),
  decision,
  reason: decision === 'allow' ? null : 'sanctions list',
});
const seenWith = (more: Partial<Observations> = {}): Observations => ({
  outputs: [output('tx-own', '2.5', SENDER)],
  payouts: [],
  routeDeposits: [],
  prices: { source: () => new Money('81.30'), destination: () => new Money('1.00') },
  exchangeRefusal: null,
  screeningRequired: true,
  ...more,
});

describe('the swap decision under address screening', () => {
  for (const decision of ['deny', 'review'] as const) {
    it(`holds a confirmed deposit whose sender screening answered ${decision}: review, screening_hold, deposit held, no refund`, () => {
      const step = decide(CONFIRMING, seenWith({ senderVerdicts: [verdict(decision)] }), context);
      expect(step.transition?.to).to.equal('review');
      expect(step.transition?.fields).to.include({ failureCode: FAILURE_CODES.screeningHold });
      expect(step.transition?.fields.deposits?.[0]).to.include({ role: 'swap', status: 'review' });
      expect(step.payouts).to.deep.equal([]);
    });
  }

  it('credits a deposit from an allowed sender as before (the verdict matches in any case of a bech32 address)', () => {
    const step = decide(CONFIRMING, seenWith({ senderVerdicts: [verdict('allow')] }), context);
    expect(step.transition?.to).to.equal('exchanging');
  });

  it('waits for a sender that has no verdict yet while screening is required, and looks again soon', () => {
    const step = decide(CONFIRMING, seenWith({ senderVerdicts: [] }), context);
    expect(step.transition).to.equal(null);
    expect(step.wakeAt).to.deep.equal(new Date(NOW.getTime() + SCREENING_RETRY_MS));
    // With screening off (no verdict, none required) it goes on.
    expect(decide(CONFIRMING, seenWith({ screeningRequired: false }), context).transition?.to).to.equal('exchanging');
  });

  it('holds instead of refunding to a denied sender after an approval (a refused exchange)', () => {
    const exchanging: SwapRecord = { ...CONFIRMING, status: 'exchanging', deposits: [deposit('swap', 'tx-own', '2.5', 'credited')] };
    const step = decide(exchanging, seenWith({ senderVerdicts: [verdict('deny')], exchangeRefusal: 'venue refused' }), context);
    expect(step.payouts).to.deep.equal([]);
    expect(step.transition?.to).to.equal('review');
    expect(step.transition?.fields).to.include({ failureCode: FAILURE_CODES.exchangeFailed });
  });

  it('refuses an operator refund to a denied sender, saying why, and allows it to a screened refund address', () => {
    const held: SwapRecord = {
      ...CONFIRMING,
      status: 'review',
      failureCode: FAILURE_CODES.screeningHold,
      deposits: [deposit('swap', 'tx-own', '2.5', 'review')],
    };
    const refused = decideReview(held, 'refund', seenWith({ senderVerdicts: [verdict('deny')] }), context);
    expect(refused)
      .to.have.property('refused')
      .that.matches(/denied by address screening \(sanctions list\)/);
    const toAddress = decideReview(
      { ...held, refundMode: 'address', refundAddress: 'ltc1qg82tqhqhvyk8e9nq7ls2w5xkq6hvm3f6rnl8vj' },
      'refund',
      seenWith({ senderVerdicts: [verdict('deny')] }),
      context,
    );
    expect(toAddress).not.to.have.property('refused');
    expect((toAddress as { payouts: unknown[] }).payouts).to.have.length(1);
  });

  it('holds an extra payment from a denied sender instead of refunding it to the sender, and waits for an unscreened one', () => {
    const credited: SwapRecord = { ...CONFIRMING, status: 'exchanging', deposits: [deposit('swap', 'tx-own', '2.5', 'credited')] };
    const outputs = [output('tx-own', '2.5', SENDER), output('tx-extra', '0.4', OTHER_SENDER)];
    const denied = decide(credited, seenWith({ outputs, senderVerdicts: [verdict('allow'), verdict('deny', OTHER_SENDER)] }), context);
    expect(denied.payouts.filter((p) => p.purpose === 'extra_refund')).to.deep.equal([]);
    expect(denied.change?.deposits?.[1]).to.include({ role: 'extra', status: 'review' });

    const unscreened = decide(credited, seenWith({ outputs, senderVerdicts: [verdict('allow')] }), context);
    expect(unscreened.payouts.filter((p) => p.purpose === 'extra_refund')).to.deep.equal([]);
    expect(unscreened.change?.deposits?.[1]).to.include({ role: 'extra', status: 'confirming' });

    const allowed = decide(credited, seenWith({ outputs, senderVerdicts: [verdict('allow'), verdict('allow', OTHER_SENDER)] }), context);
    expect(allowed.payouts.filter((p) => p.purpose === 'extra_refund').map((p) => p.address)).to.deep.equal([OTHER_SENDER]);
  });
});
