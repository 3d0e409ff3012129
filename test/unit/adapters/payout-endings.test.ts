import { expect } from 'chai';
import { parseGwei } from 'viem';
import { isPassingRefusal, replacementRate } from '../../../server/adapters/bitcoin/sender.js';
import { replacementFees } from '../../../server/adapters/ethereum/sender.js';
import { backoffMs, FIRST_BACKOFF_MS, MAX_BACKOFF_MS } from '../../../server/jobs/payout-sender.js';

// Refusals classified per family (what can pass is built again later; what cannot is held for an operator),
// and the replacement fee rules of both families (docs/architecture.md#money-that-ends-well).
describe('payouts that always end: refusals and replacement fees', () => {
  describe('Bitcoin family: isPassingRefusal(the node message of a -26/-25 refusal)', () => {
    const cases: Array<[string, boolean]> = [
      ['min relay fee not met, 100 < 141', true],
      ['mempool min fee not met, 1000 < 2000', true],
      ['mempool full', true],
      ['insufficient fee, rejecting replacement 0a1b; new feerate 0.00001 <= old feerate 0.00002', true],
      ['too-long-mempool-chain, too many unconfirmed ancestors [limit: 25]', true],
      ['dust', false],
      ['bad-txns-in-belowout', false],
      ['non-mandatory-script-verify-flag (Signature must be zero for failed CHECK(MULTI)SIG operation)', false],
      ['scriptpubkey', false],
      ['txn-mempool-conflict', false],
    ];
    for (const [message, passing] of cases) {
      it(`reads "${message}" as ${passing ? 'passing' : 'permanent'}`, () => expect(isPassingRefusal(message)).to.equal(passing));
    }
  });

  describe('Bitcoin family: replacementRate(last, estimate, cap) in coin per kvB', () => {
    const cases: Array<[string, string, string, string | null, string]> = [
      ['0.0001', '0.00005', '0.01', '0.000125', '25% above the last when the node estimates less'],
      ['0.0001', '0.0003', '0.01', '0.0003', "the node's estimate when it is higher"],
      ['0.0001', '0.05', '0.01', '0.01', 'clamped to the cap'],
      ['0.009', '0.0001', '0.01', '0.01', 'the cap, when 25% above the last passes it and the cap is still a step up'],
      ['0.009995', '0.0001', '0.01', null, 'null when the cap is less than 1 sat/vB above the last (the payout waits)'],
      ['0.01', '0.02', '0.01', null, 'null at the cap'],
    ];
    for (const [last, estimate, cap, expected, why] of cases) {
      it(`${last} -> ${expected} (${why})`, () => expect(replacementRate(last, estimate, cap, 8)).to.equal(expected));
    }
  });

  describe('EVM: replacementFees(last, chain now, cap)', () => {
    const fees = (maxFee: string, tip: string) => ({ maxFeePerGas: parseGwei(maxFee), maxPriorityFeePerGas: parseGwei(tip) });
    it('raises both fees 12.5% (nodes ask 10%) when the chain is below that', () => {
      const next = replacementFees(fees('20', '1'), fees('10', '1'), parseGwei('500'))!;
      expect(next.maxFeePerGas).to.equal(parseGwei('22.5') + 1n);
      expect(next.maxPriorityFeePerGas).to.equal(parseGwei('1.125') + 1n);
    });
    it("takes the chain's level when it is higher (a base-fee spike)", () => {
      const next = replacementFees(fees('20', '1'), fees('300', '2'), parseGwei('500'))!;
      expect(next).to.deep.equal(fees('300', '2'));
    });
    it('clamps to the cap while the step above the last still passes 10%', () => {
      const next = replacementFees(fees('450', '1'), fees('900', '1'), parseGwei('500'))!;
      expect(next.maxFeePerGas).to.equal(parseGwei('500'));
    });
    it('is null at the cap: no version 10% above the last fits, the payout waits', () => {
      expect(replacementFees(fees('470', '1'), fees('900', '1'), parseGwei('500'))).to.equal(null);
      expect(replacementFees(fees('500', '1'), fees('900', '1'), parseGwei('500'))).to.equal(null);
    });
    it('never lets the tip exceed the max fee', () => {
      const next = replacementFees(fees('10', '9'), fees('10', '20'), parseGwei('500'))!;
      expect(next.maxPriorityFeePerGas <= next.maxFeePerGas).to.equal(true);
    });
  });

  describe('the backoff after a refusal that can pass', () => {
    it('doubles from FIRST_BACKOFF_MS up to MAX_BACKOFF_MS', () => {
      expect([0, 1, 2, 3].map(backoffMs)).to.deep.equal([1, 2, 4, 8].map((n) => n * FIRST_BACKOFF_MS));
      expect(backoffMs(20)).to.equal(MAX_BACKOFF_MS);
    });
  });
});
