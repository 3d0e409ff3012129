/**
 * Exact-output quotes (domain/pricing.ts priceExactOutput): the deposit that pays out a chosen amount is the
 * least one, at the source's precision, whose fixed-rate payout is at least that amount; the quote then pays
 * exactly it. Checked as a property over every pair, and as rounding tables for destinations of 6, 8 and 18
 * decimals.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { loadSandboxCatalog } from '../../../server/adapters/sandbox/catalog.js';
import { findAsset, type CatalogAsset } from '../../../server/domain/catalog.js';
import { Money, type Amount } from '../../../server/domain/money.js';
import { destinationLimits, priceExactOutput, priceTerms } from '../../../server/domain/pricing.js';

const catalog = loadSandboxCatalog();
const asset = (symbol: string, network: string) => findAsset(catalog, symbol, network)!;
const BTC = asset('BTC', 'BTC');
const ETH = asset('ETH', 'ETH');
const USDT = asset('USDT', 'ETH');

// What `sourceAmount` pays out at the fixed rate, as a quote for it would say.
const payout = (
  source: CatalogAsset,
  destination: CatalogAsset,
  sourceAmount: string,
  sourcePriceUsd: Amount,
  destinationPriceUsd: Amount,
) =>
  new Money(
    priceTerms(catalog, { destination, sourceAmount: new Money(sourceAmount), sourcePriceUsd, destinationPriceUsd, rateType: 'fixed' })
      .receiveAmount,
  );
const ulp = (precision: number) => new Money(1).div(new Money(10).pow(precision));

describe('exact-output pricing', () => {
  it('gives the least deposit at the source precision that pays out at least the amount asked, and quotes exactly it', () => {
    const fixedAssets = catalog.assets.filter((a) => a.fixedRate);
    const pairs = fc
      .tuple(fc.integer({ min: 0, max: fixedAssets.length - 1 }), fc.integer({ min: 0, max: fixedAssets.length - 1 }))
      .filter(([a, b]) => a !== b)
      .map(([a, b]) => ({ source: fixedAssets[a]!, destination: fixedAssets[b]! }));
    const price = fc.stringMatching(/^[1-9]\d{0,5}(\.\d{1,6})?$/).map((text) => new Money(text));
    fc.assert(
      fc.property(pairs, price, price, fc.stringMatching(/^[1-9]\d{0,4}(\.\d{1,18})?$/), ({ source, destination }, sp, dp, text) => {
        const wanted = new Money(new Money(text).toDecimalPlaces(destination.precision, Money.ROUND_DOWN));
        fc.pre(wanted.greaterThan(0));
        const { sourceAmount, terms } = priceExactOutput(catalog, {
          source,
          destination,
          destinationAmount: wanted,
          sourcePriceUsd: sp,
          destinationPriceUsd: dp,
        });
        expect(terms.receiveAmount).to.equal(wanted.toFixed());
        expect(terms.rateType).to.equal('fixed');
        expect(new Money(sourceAmount).decimalPlaces()).to.be.at.most(source.precision);
        // Enough: the deposit's own fixed-rate payout covers the amount; the least: one unit less does not.
        expect(payout(source, destination, sourceAmount, sp, dp).greaterThanOrEqualTo(wanted)).to.equal(true);
        const less = new Money(sourceAmount).minus(ulp(source.precision));
        if (less.greaterThan(0)) expect(payout(source, destination, less.toFixed(), sp, dp).lessThan(wanted)).to.equal(true);
      }),
      { numRuns: 500 },
    );
  });

  // BTC at 64,000 USD, ETH at 3,200 USD, USDT at 1 USD; the fixed fee is 1 %, the payout fee of ETH-network
  // payouts the catalogue's.
  const table: Array<{ destination: CatalogAsset; source: CatalogAsset; wanted: string; sourcePrice: string; destinationPrice: string }> = [
    { destination: USDT, source: BTC, wanted: '100', sourcePrice: '64000', destinationPrice: '1' }, // 6 decimals
    { destination: USDT, source: BTC, wanted: '100.000001', sourcePrice: '64000', destinationPrice: '1' },
    { destination: BTC, source: ETH, wanted: '0.01', sourcePrice: '3200', destinationPrice: '64000' }, // 8 decimals
    { destination: BTC, source: ETH, wanted: '0.00000001', sourcePrice: '3200', destinationPrice: '64000' },
    { destination: ETH, source: BTC, wanted: '1', sourcePrice: '64000', destinationPrice: '3200' }, // 18 decimals
    { destination: ETH, source: BTC, wanted: '0.123456789012345678', sourcePrice: '64000', destinationPrice: '3200' },
  ];
  for (const row of table) {
    it(`pays out exactly ${row.wanted} ${row.destination.symbol} (${row.destination.precision} decimals) for the least ${row.source.symbol} deposit`, () => {
      const sp = new Money(row.sourcePrice);
      const dp = new Money(row.destinationPrice);
      const { sourceAmount, terms } = priceExactOutput(catalog, {
        source: row.source,
        destination: row.destination,
        destinationAmount: new Money(row.wanted),
        sourcePriceUsd: sp,
        destinationPriceUsd: dp,
      });
      expect(terms.receiveAmount).to.equal(row.wanted);
      expect(new Money(sourceAmount).decimalPlaces()).to.be.at.most(row.source.precision);
      expect(payout(row.source, row.destination, sourceAmount, sp, dp).greaterThanOrEqualTo(row.wanted)).to.equal(true);
      const less = new Money(sourceAmount).minus(ulp(row.source.precision));
      expect(payout(row.source, row.destination, less.toFixed(), sp, dp).lessThan(row.wanted)).to.equal(true);
    });
  }

  it('converts the USD limits into the destination asset: minimum up, maximum down', () => {
    expect(destinationLimits(catalog, USDT, new Money('1'))).to.deep.equal({
      minimumDestinationAmount: '20',
      maximumDestinationAmount: '100000',
    });
    const eth = destinationLimits(catalog, ETH, new Money('3000'));
    expect(eth.minimumDestinationAmount).to.equal('0.006666666666666667');
    expect(eth.maximumDestinationAmount).to.equal('33.333333333333333333');
  });
});
