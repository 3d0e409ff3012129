import { expect } from 'chai';
import { STATUS_ATTRIBUTES, SWAP_STATUSES, type SwapStatus } from '../../../server/domain/swap-lifecycle.js';
import {
  isRetryable,
  toSwapBody,
  type SwapDepositRecord,
  type SwapDepositStatus,
  type SwapRecord,
} from '../../../server/domain/swap-view.js';
import { swapRecord } from '../../support/swap-record.js';

function swapRecordIn(status: SwapStatus, deposits: SwapDepositRecord[] = []): SwapRecord {
  return swapRecord({ status, deposits });
}

function deposit(status: SwapDepositStatus, role: SwapDepositRecord['role'] = 'extra'): SwapDepositRecord {
  const refunded = status === 'refunded';
  return {
    txHash: '4e7b1c9a2d5f8e3b6a0c9d2f5e8b1a4c7d0e3f6a9b2c5d8e1f4a7b0c3d6e9f2a',
    outputIndex: 1,
    amount: '2.5',
    confirmationCount: status === 'confirming' ? 2 : 6,
    requiredConfirmations: 6,
    role,
    status,
    refundTxHash: refunded ? '7f0a3d6c9b2e5f8a1d4c7b0e3a6d9c2f5b8e1a4d7c0f3b6e9a2d5c8f1b4e7a0d' : null,
    refundAmount: refunded ? '2.4999' : null,
    seenAt: '2026-06-15T11:03:12.000Z',
  };
}

describe('swap view', () => {
  describe('isRetryable(status, deposits)', () => {
    // [status, deposit statuses, retryable]
    const TABLE: [SwapStatus, SwapDepositStatus[], boolean][] = [
      ['expired', [], true],
      ['refunded', [], true],
      ['finished', [], false],
      ['waiting', [], false],
      ['expired', ['refunded'], true],
      ['expired', ['removed'], true],
      ['expired', ['confirming'], false],
      ['expired', ['refunding'], false],
      ['expired', ['review'], false],
      ['refunded', ['credited', 'refunded'], true],
      ['refunded', ['credited', 'refunding'], false],
      ['expired', ['refunded', 'review'], false],
      ['finished', ['credited', 'refunded'], false],
      ['failed', ['refunded'], false],
    ];
    for (const [status, statuses, retryable] of TABLE) {
      it(`is ${retryable} for status ${status} with deposits [${statuses.join(', ')}]`, () => {
        expect(
          isRetryable(
            status,
            statuses.map((s) => deposit(s)),
          ),
        ).to.equal(retryable);
      });
    }

    it("is the status's own value for every status when no payment is unresolved", () => {
      for (const status of SWAP_STATUSES) {
        expect(isRetryable(status), status).to.equal(STATUS_ATTRIBUTES[status].retryable);
        expect(isRetryable(status, [deposit('refunded'), deposit('removed')]), status).to.equal(STATUS_ATTRIBUTES[status].retryable);
      }
    });
  });

  describe('toSwapBody(swap)', () => {
    it('lists every deposit of the swap, with ISO times and string amounts', () => {
      const body = toSwapBody(swapRecordIn('expired', [deposit('refunded')]));
      expect(body.deposits).to.deep.equal([
        {
          txHash: '4e7b1c9a2d5f8e3b6a0c9d2f5e8b1a4c7d0e3f6a9b2c5d8e1f4a7b0c3d6e9f2a',
          outputIndex: 1,
          // Stored before payments of other assets were listed: the swap's source asset, said so.
          asset: 'LTC',
          network: 'LTC',
          amount: '2.5',
          confirmationCount: 6,
          requiredConfirmations: 6,
          role: 'extra',
          status: 'refunded',
          refundTxHash: '7f0a3d6c9b2e5f8a1d4c7b0e3a6d9c2f5b8e1a4d7c0f3b6e9a2d5c8f1b4e7a0d',
          refundAmount: '2.4999',
          seenAt: '2026-06-15T11:03:12.000Z',
        },
      ]);
      expect(body.retryable).to.equal(true);
    });

    it('names the asset and network a deposit stored them with (a payment of another asset)', () => {
      const body = toSwapBody(swapRecordIn('expired', [{ ...deposit('refunded'), asset: 'USDC', network: 'LTC' }]));
      expect(body.deposits?.[0]).to.include({ asset: 'USDC', network: 'LTC' });
    });

    it('is not retryable while an extra payment to an expired swap is being refunded', () => {
      const body = toSwapBody(swapRecordIn('expired', [deposit('refunding')]));
      expect(body).to.include({ status: 'expired', terminal: true, retryable: false });
    });

    it('lists an empty array when the swap has no payment yet', () => {
      expect(toSwapBody(swapRecordIn('waiting')).deposits).to.deep.equal([]);
    });
  });
});
