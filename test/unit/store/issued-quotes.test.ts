import { expect } from 'chai';
import { createIssuedQuotes, type QuoteRecord } from '../../../server/store/quotes.js';

const PARTNER = '11111111-1111-4111-8111-111111111111';
const OTHER = '22222222-2222-4222-8222-222222222222';
const at = (seconds: number) => new Date(Date.UTC(2026, 10, 25) + seconds * 1000);

// A quote stored at second `created`, living 120 s.
const quote = (id: string, created: number, partnerId = PARTNER): QuoteRecord => ({
  id,
  partnerId,
  sourceAsset: 'BTC',
  sourceNetwork: 'BTC',
  destinationAsset: 'USDT',
  destinationNetwork: 'ETH',
  sourceAmount: '0.015',
  depositAmount: '0.015',
  receiveAmount: '950.12',
  minimumReceiveAmount: null,
  feeUsd: '3.5',
  rate: '63341.33',
  rateType: 'floating',
  minimumSourceAmount: '0.0005',
  maximumSourceAmount: '5',
  estimatedMinutes: 30,
  lateDepositPolicy: 'market_rate',
  refundMode: 'sender',
  refundAddress: null,
  refundMemo: null,
  expiresAt: at(created + 120),
  reservedAmount: null,
  usedAt: null,
  createdAt: at(created),
});

describe('createIssuedQuotes', () => {
  it('finds a kept quote for its own partner until it expires, and not after it is forgotten', () => {
    const issued = createIssuedQuotes();
    const q = quote('a', 0);
    issued.add(q);
    expect(issued.find('a', PARTNER, at(119))).to.equal(q);
    expect(issued.find('a', OTHER, at(1))).to.equal(undefined);
    expect(issued.find('a', PARTNER, at(120))).to.equal(undefined);
    expect(issued.find('b', PARTNER, at(1))).to.equal(undefined);
    issued.forget('a');
    expect(issued.find('a', PARTNER, at(1))).to.equal(undefined);
    expect(issued.size).to.equal(0);
  });

  it('drops expired quotes as new ones are added, and the oldest beyond its limit', () => {
    const issued = createIssuedQuotes(3);
    issued.add(quote('a', 0));
    issued.add(quote('b', 10));
    issued.add(quote('c', 20));
    issued.add(quote('d', 30));
    expect(issued.size).to.equal(3);
    expect(issued.find('a', PARTNER, at(31))).to.equal(undefined);
    expect(issued.find('b', PARTNER, at(31))?.id).to.equal('b');
    // At 135 s, b (expired at 130) is dropped; c (expires at 140) stays.
    issued.add(quote('e', 135));
    expect(issued.size).to.equal(3);
    expect(issued.find('c', PARTNER, at(136))?.id).to.equal('c');
    expect(issued.find('e', PARTNER, at(136))?.id).to.equal('e');
  });
});
