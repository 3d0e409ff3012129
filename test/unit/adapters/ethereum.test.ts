import { expect } from 'chai';
import { classifyBroadcastRefusal, parseTokens } from '../../../server/adapters/ethereum/index.js';

describe('ethereum adapters', () => {
  describe('classifyBroadcastRefusal(message)', () => {
    const cases: Array<[string, ReturnType<typeof classifyBroadcastRefusal>]> = [
      ['already known', 'known'],
      ['known transaction: 0xabc', 'known'],
      ['nonce too low: next nonce 5, tx nonce 4', 'nonce-too-low'],
      ['Nonce too low', 'nonce-too-low'],
      ['insufficient funds for gas * price + value: balance 0, tx cost 1', 'passing'],
      ['Insufficient funds for gas * price + value', 'passing'],
      ['max fee per gas less than block base fee: address 0x, maxFeePerGas: 1, baseFee: 2', 'passing'],
      ['transaction underpriced', 'passing'],
      ['txpool is full', 'passing'],
      ['intrinsic gas too low', 'rejected'],
      ['invalid sender', 'rejected'],
      ['invalid chain id for signer', 'rejected'],
      ['max priority fee per gas higher than max fee per gas', 'rejected'],
      ['replacement transaction underpriced', 'ambiguous'],
      ['internal error', 'ambiguous'],
    ];
    for (const [message, expected] of cases) {
      it(`should read "${message}" as ${expected}`, () => {
        expect(classifyBroadcastRefusal(message)).to.equal(expected);
      });
    }
  });

  describe('parseTokens(value)', () => {
    it('should read SYMBOL:contract pairs into checksummed contracts', () => {
      expect(parseTokens('USDT:0xdac17f958d2ee523a2206206994597c13d831ec7, USDC:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48')).to.deep.equal(
        {
          USDT: { address: '0xdAC17F958D2ee523a2206206994597C13D831ec7' },
          USDC: { address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48' },
        },
      );
    });

    it('should refuse an entry that is not SYMBOL:address', () => {
      expect(() => parseTokens('USDT=0xdac17f958d2ee523a2206206994597c13d831ec7')).to.throw(/not SYMBOL:0x/);
      expect(() => parseTokens('USDT:0x1234')).to.throw(/not SYMBOL:0x/);
    });

    it('should refuse a symbol listed twice', () => {
      const entry = 'USDT:0xdac17f958d2ee523a2206206994597c13d831ec7';
      expect(() => parseTokens(`${entry},${entry}`)).to.throw(/twice/);
    });
  });
});
