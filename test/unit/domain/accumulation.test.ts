import { expect } from 'chai';
import fc from 'fast-check';
import { decideBucket, idlePollSeconds, isDust, type BucketDecision } from '../../../server/domain/accumulation.js';
import { Money } from '../../../server/domain/money.js';

const LIMITS = { minSwapUsd: '25', maxAutoSwapUsd: '10000' };
const ONE = new Money(1);

// Amounts with up to 6 decimals (USDT-like), from 0.000001 to 12,000, built from digits.
const amount = fc
  .tuple(fc.integer({ min: 0, max: 12_000 }), fc.integer({ min: 0, max: 999_999 }))
  .filter(([whole, micros]) => whole > 0 || micros > 0)
  .map(([whole, micros]) => new Money(whole).plus(new Money(micros).div(1_000_000)).toFixed());
const deposits = fc.array(amount, { minLength: 1, maxLength: 12 }).map((amounts) => amounts.map((a, i) => ({ id: `d${i}`, amount: a })));

const idsOf = (decisions: BucketDecision[]) => decisions.flatMap((d) => d.depositIds);

describe('accumulation: deciding a same-asset bucket (properties)', () => {
  it('puts every deposit into exactly one decision, so none is converted twice or left out', () => {
    fc.assert(
      fc.property(deposits, (bucket) => {
        const ids = idsOf(decideBucket(bucket, ONE, LIMITS));
        expect(ids.slice().sort()).to.deep.equal(bucket.map((d) => d.id).sort());
      }),
    );
  });

  it('keeps the amounts: each decision carries exactly the sum of its deposits', () => {
    fc.assert(
      fc.property(deposits, fc.constantFrom('1', '0.9997', '1.0003', '152.4'), (bucket, price) => {
        for (const decision of decideBucket(bucket, new Money(price), LIMITS)) {
          const sum = Money.sum(...bucket.filter((d) => decision.depositIds.includes(d.id)).map((d) => d.amount));
          expect(new Money(decision.amount).equals(sum)).to.equal(true);
        }
      }),
    );
  });

  it('converts any order and split of the same total the same way: one order of the whole total, or all waiting', () => {
    // Totals up to the automatic maximum (10,000 USD at price 1), in micro-units, split into 1 to 8 parts.
    const splitTotal = fc
      .tuple(fc.integer({ min: 1, max: 10_000_000_000 }), fc.array(fc.integer({ min: 1, max: 1_000 }), { minLength: 1, maxLength: 8 }))
      .map(([total, weights]) => {
        const parts = weights.slice(0, Math.min(weights.length, total));
        const weightSum = parts.reduce((a, b) => a + b, 0);
        const split = parts.map((w) => Math.max(1, Math.floor((total * w) / weightSum)));
        const excess = split.reduce((a, b) => a + b, 0) - total;
        split[split.indexOf(Math.max(...split))] -= excess;
        return { total, split };
      })
      .filter(({ split }) => split.every((p) => p > 0));
    fc.assert(
      fc.property(splitTotal, fc.func(fc.integer()), ({ total, split }, order) => {
        const micros = (n: number) => new Money(n).div(1_000_000).toFixed();
        const shuffled = split.map((p, i) => ({ p, k: order(i) })).sort((a, b) => a.k - b.k);
        const bucket = shuffled.map(({ p }, i) => ({ id: `d${i}`, amount: micros(p) }));
        const [whole] = decideBucket([{ id: 'all', amount: micros(total) }], ONE, LIMITS);
        const decisions = decideBucket(bucket, ONE, LIMITS);
        expect(decisions).to.have.length(1);
        expect(decisions[0].kind).to.equal(whole.kind);
        expect(decisions[0].amount).to.equal(whole.amount);
        expect(decisions[0].depositIds).to.have.length(split.length);
      }),
    );
  });

  it('converts alone, into review, every deposit above the automatic maximum; the rest convert together from the minimum on', () => {
    fc.assert(
      fc.property(deposits, (bucket) => {
        const decisions = decideBucket(bucket, ONE, LIMITS);
        for (const d of bucket.filter((x) => new Money(x.amount).greaterThan(LIMITS.maxAutoSwapUsd))) {
          expect(decisions).to.deep.include({
            kind: 'convert',
            depositIds: [d.id],
            amount: d.amount,
            valueUsd: new Money(d.amount).toDecimalPlaces(2, Money.ROUND_DOWN).toFixed(2),
            review: true,
          });
        }
        const rest = bucket.filter((x) => !new Money(x.amount).greaterThan(LIMITS.maxAutoSwapUsd));
        const pooled = decisions.filter(
          (d) => !(d.kind === 'convert' && d.review && d.depositIds.length === 1 && !rest.some((r) => r.id === d.depositIds[0])),
        );
        if (rest.length === 0) {
          expect(pooled).to.deep.equal([]);
          return;
        }
        const total = Money.sum(...rest.map((d) => d.amount));
        expect(pooled).to.have.length(1);
        expect(pooled[0].kind).to.equal(total.greaterThanOrEqualTo(LIMITS.minSwapUsd) ? 'convert' : 'wait');
        if (pooled[0].kind === 'convert') expect(pooled[0].review).to.equal(total.greaterThan(LIMITS.maxAutoSwapUsd));
      }),
    );
  });

  it('shows a waiting bucket below the threshold, with accumulated + remaining = threshold in cents', () => {
    fc.assert(
      fc.property(deposits, fc.constantFrom('1', '0.9997', '1.0003'), (bucket, price) => {
        for (const decision of decideBucket(bucket, new Money(price), LIMITS)) {
          if (decision.kind !== 'wait') continue;
          expect(decision.accumulatedUsd).to.match(/^\d+\.\d\d$/);
          expect(new Money(decision.accumulatedUsd).lessThan(LIMITS.minSwapUsd)).to.equal(true);
          expect(new Money(decision.accumulatedUsd).plus(decision.remainingUsd).toFixed(2)).to.equal('25.00');
        }
      }),
    );
  });

  it('waits at 24.99 USD and converts at exactly 25 USD', () => {
    expect(decideBucket([{ id: 'a', amount: '24.99' }], ONE, LIMITS)).to.deep.equal([
      { kind: 'wait', depositIds: ['a'], amount: '24.99', accumulatedUsd: '24.99', remainingUsd: '0.01' },
    ]);
    expect(
      decideBucket(
        [
          { id: 'a', amount: '20' },
          { id: 'b', amount: '5' },
        ],
        ONE,
        LIMITS,
      ),
    ).to.deep.equal([{ kind: 'convert', depositIds: ['a', 'b'], amount: '25', valueUsd: '25.00', review: false }]);
  });
});

describe('isDust(amount, dustFloor, factor)', () => {
  it('is true strictly below the floor times the factor, and never with a factor of 0', () => {
    expect(isDust('0.00000545', '0.00000546', '1')).to.equal(true);
    expect(isDust('0.00000546', '0.00000546', '1')).to.equal(false);
    expect(isDust('0.00001', '0.00000546', '2')).to.equal(true);
    expect(isDust('0.00000001', '0.00000546', '0')).to.equal(false);
  });
});

describe('idlePollSeconds(idleSeconds, policy)', () => {
  const policy = { pollSeconds: 60, idlePeriodSeconds: 86_400, maxSeconds: 3_600 };
  it('keeps the base interval for the first idle period, doubles it after each further one, and stops at the cap', () => {
    expect(idlePollSeconds(0, policy)).to.equal(60);
    expect(idlePollSeconds(86_399, policy)).to.equal(60);
    expect(idlePollSeconds(86_400, policy)).to.equal(120);
    expect(idlePollSeconds(5 * 86_400, policy)).to.equal(1_920);
    expect(idlePollSeconds(6 * 86_400, policy)).to.equal(3_600);
    expect(idlePollSeconds(1e12, policy)).to.equal(3_600);
  });
});
