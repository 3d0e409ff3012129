import { expect } from 'chai';
import { consensusPrice, median, type ConsensusRule } from '../../../../server/adapters/market/consensus.js';
import { Money } from '../../../../server/domain/money.js';

const NOW = new Date('2026-01-01T12:00:00Z');
const RULE: ConsensusRule = { maxAgeSeconds: 60, maxSpreadPercent: '1', minSources: 2 };

// One observation per entry: [price, age in seconds].
const observations = (entries: Array<[string, number]>) =>
  entries.map(([price, ageSeconds], i) => ({
    source: `s${i + 1}`,
    price: new Money(price),
    at: new Date(NOW.getTime() - ageSeconds * 1000),
  }));

describe('market consensus', () => {
  describe('median(values)', () => {
    const cases: Array<[string[], string]> = [
      [['5'], '5'],
      [['3', '1', '2'], '2'],
      [['4', '1', '3', '2'], '2.5'],
      [['100.1', '100.3'], '100.2'],
      [['0.1', '0.2', '0.3', '0.4'], '0.25'],
    ];
    for (const [values, expected] of cases) {
      it(`is ${expected} for ${values.join(', ')}`, () => {
        expect(median(values.map((v) => new Money(v))).toFixed()).to.equal(expected);
      });
    }

    it('refuses an empty list', () => {
      expect(() => median([])).to.throw(RangeError);
    });
  });

  describe('consensusPrice(observations, now, rule)', () => {
    const cases: Array<{
      name: string;
      input: Array<[string, number]>;
      rule?: Partial<ConsensusRule>;
      price?: string;
      sources?: string[];
      rejected?: string[];
      reason?: RegExp;
    }> = [
      {
        name: 'takes the median of three fresh, agreeing prices',
        input: [
          ['100', 1],
          ['100.5', 2],
          ['99.8', 0],
        ],
        price: '100',
        sources: ['s1', 's2', 's3'],
      },
      {
        name: 'takes the mean of two fresh, agreeing prices',
        input: [
          ['100', 1],
          ['101', 1],
        ],
        price: '100.5',
        sources: ['s1', 's2'],
      },
      {
        name: 'leaves a stale price out',
        input: [
          ['100', 1],
          ['100.2', 61],
          ['100.4', 5],
        ],
        price: '100.2',
        sources: ['s1', 's3'],
        rejected: ['s2 stale'],
      },
      {
        name: 'leaves out a price stamped more than 30 s ahead of this clock, and keeps one within the skew',
        input: [
          ['100', 1],
          ['150', -31],
          ['100.4', -30],
        ],
        price: '100.2',
        sources: ['s1', 's3'],
        rejected: ['s2 future'],
      },
      {
        name: 'keeps a price exactly maxAge old',
        input: [
          ['100', 60],
          ['100.2', 60],
        ],
        price: '100.1',
      },
      {
        name: 'leaves an outlier out and takes the median of the rest',
        input: [
          ['100', 1],
          ['100.4', 1],
          ['102', 1],
        ],
        price: '100.2',
        sources: ['s1', 's2'],
        rejected: ['s3 outlier'],
      },
      {
        name: 'keeps a price exactly maxSpread from the median',
        input: [
          ['100', 1],
          ['101', 1],
          ['99', 1],
        ],
        price: '100',
      },
      {
        name: 'answers with a wider spread when the rule allows it',
        input: [
          ['100', 1],
          ['100.4', 1],
          ['102', 1],
        ],
        rule: { maxSpreadPercent: '2' },
        price: '100.4',
      },
      {
        name: 'refuses a single fresh price',
        input: [
          ['100', 1],
          ['100', 120],
        ],
        reason: /1 fresh source, 2 needed/,
        rejected: ['s2 stale'],
      },
      {
        name: 'refuses when nothing is fresh',
        input: [
          ['100', 300],
          ['100', 300],
          ['100', 300],
        ],
        reason: /0 fresh sources, 2 needed/,
      },
      { name: 'refuses no observations at all', input: [], reason: /0 fresh sources, 2 needed/ },
      {
        name: 'refuses two prices that disagree',
        input: [
          ['100', 1],
          ['103', 1],
        ],
        reason: /^the only 2 fresh sources, s1 and s2, are 3% apart \(of the lower price\), over 1%$/,
        rejected: ['s1 disagreement', 's2 disagreement'],
      },
      {
        // The median of two is their mean: each is 0.74% from it, within 1%, which the median rule would accept.
        name: 'refuses two prices apart by more than the spread, though each is within the spread of their mean',
        input: [
          ['100', 1],
          ['101.5', 1],
        ],
        reason: /the only 2 fresh sources, s1 and s2, are 1.5% apart \(of the lower price\), over 1%/,
        rejected: ['s1 disagreement', 's2 disagreement'],
      },
      {
        // 1.004% of the lower price, 0.999% of their mean.
        name: 'measures the gap of two prices against the lower one',
        input: [
          ['101.004', 1],
          ['100', 1],
        ],
        reason: /s1 and s2, are 1.004% apart \(of the lower price\), over 1%/,
      },
      {
        name: 'takes the mean of two prices exactly maxSpread apart, whichever comes first',
        input: [
          ['101', 1],
          ['100', 1],
        ],
        price: '100.5',
        sources: ['s1', 's2'],
      },
      {
        name: 'holds the two left after a stale one goes to the same agreement',
        input: [
          ['100', 1],
          ['100.5', 61],
          ['101.5', 1],
        ],
        reason: /the only 2 fresh sources, s1 and s3, are 1.5% apart/,
        rejected: ['s2 stale', 's1 disagreement', 's3 disagreement'],
      },
      {
        name: 'shows as many decimals as it takes to show a gap above the spread',
        input: [
          ['100', 1],
          ['100.4001', 1],
        ],
        rule: { maxSpreadPercent: '0.4' },
        reason: /are 0.4001% apart \(of the lower price\), over 0.4%/,
      },
      {
        // Three: the median rule, which a single bad source cannot move outside the other two.
        name: 'takes the median of three whose extremes are further apart than the spread, each within it of the median',
        input: [
          ['99.1', 1],
          ['100', 1],
          ['100.9', 1],
        ],
        price: '100',
        sources: ['s1', 's2', 's3'],
      },
      {
        name: 'leaves out one outlier of three and takes the mean of the two left, by the median rule',
        input: [
          ['100', 1],
          ['130', 1],
          ['100.6', 1],
        ],
        price: '100.3',
        sources: ['s1', 's3'],
        rejected: ['s2 outlier'],
      },
      {
        name: 'keeps the median rule for two sources when the rule needs only one (the USDT/USD conversion)',
        input: [
          ['100', 1],
          ['101.5', 1],
        ],
        rule: { minSources: 1 },
        price: '100.75',
      },
      {
        name: 'refuses when only one price is left after outliers go',
        input: [
          ['100', 1],
          ['104', 1],
          ['110', 1],
        ],
        reason: /1 of 3 fresh sources within 1%/,
      },
      { name: 'accepts one source when the rule needs one', input: [['0.9998', 2]], rule: { minSources: 1 }, price: '0.9998' },
    ];
    for (const c of cases) {
      it(c.name, () => {
        const result = consensusPrice(observations(c.input), NOW, { ...RULE, ...c.rule });
        if (c.price !== undefined) {
          expect(result.ok, JSON.stringify(result)).to.equal(true);
          if (!result.ok) return;
          expect(result.price.toFixed()).to.equal(c.price);
          if (c.sources) expect(result.sources).to.deep.equal(c.sources);
        } else {
          expect(result.ok).to.equal(false);
          if (result.ok) return;
          expect(result.reason).to.match(c.reason!);
        }
        if (c.rejected) expect(result.rejected.map((r) => `${r.source} ${r.reason}`)).to.deep.equal(c.rejected);
      });
    }

    it('says which two sources disagree, with their prices', () => {
      const result = consensusPrice(
        [
          { source: 'kraken', price: new Money('68250.1'), at: NOW },
          { source: 'binance', price: new Money('68600'), at: NOW },
        ],
        NOW,
        { ...RULE, maxSpreadPercent: '0.4' },
      );
      expect(result).to.deep.include({
        ok: false,
        reason: 'the only 2 fresh sources, kraken and binance, are 0.51% apart (of the lower price), over 0.4%',
      });
      expect(result.rejected.map((r) => `${r.source}: ${r.detail}`)).to.deep.equal([
        "kraken: its price 68250.1 disagrees with binance's 68600",
        "binance: its price 68600 disagrees with kraken's 68250.1",
      ]);
    });

    it('says how old a stale price is and how far an outlier is', () => {
      const result = consensusPrice(
        observations([
          ['100', 1],
          ['100.2', 90],
          ['100.1', 1],
          ['105', 1],
        ]),
        NOW,
        RULE,
      );
      expect(result.rejected.map((r) => r.detail)).to.deep.equal([
        'its price is 90 s old, over 60 s',
        'its price 105 is 4.9% from the median 100.1, over 1%',
      ]);
    });
  });
});
