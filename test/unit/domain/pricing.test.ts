import fs from 'node:fs';
import { expect } from 'chai';
import fc from 'fast-check';
import { loadSandboxCatalog } from '../../../server/adapters/sandbox/catalog.js';
import { findAsset } from '../../../server/domain/catalog.js';
import { Money, POSITIVE_AMOUNT_PATTERN, toAmount } from '../../../server/domain/money.js';
import { bestTerms, marketRate, priceRouteOrder, priceTerms, refundTerms, sourceLimits } from '../../../server/domain/pricing.js';

const catalog = loadSandboxCatalog();
const assets = catalog.assets;

// Positive decimal strings with up to 18 fraction digits, built from digits (never through a JS number).
const decimalText = fc
  .tuple(fc.stringMatching(/^(0|[1-9]\d{0,6})$/), fc.stringMatching(/^\d{0,18}$/))
  .map(([whole, fraction]) => (fraction ? `${whole}.${fraction}` : whole))
  .filter((text) => /[1-9]/.test(text));
const price = fc.stringMatching(/^[1-9]\d{0,5}(\.\d{1,8})?$/).map((text) => new Money(text));
const pair = fc
  .tuple(fc.integer({ min: 0, max: assets.length - 1 }), fc.integer({ min: 0, max: assets.length - 1 }))
  .filter(([a, b]) => a !== b)
  .map(([a, b]) => ({ source: assets[a], destination: assets[b] }));
const rateType = fc.constantFrom('fixed' as const, 'floating' as const);

describe('pricing (properties)', () => {
  it('never pays out more than amount x rate, rounds down to the destination precision, and never charges a negative fee', () => {
    fc.assert(
      fc.property(
        pair,
        decimalText,
        price,
        price,
        rateType,
        ({ source, destination }, amountText, sourcePriceUsd, destinationPriceUsd, type) => {
          const sourceAmount = toAmount(amountText);
          const terms = priceTerms(catalog, { destination, sourceAmount, sourcePriceUsd, destinationPriceUsd, rateType: type });
          const receive = new Money(terms.receiveAmount);
          expect(receive.lessThanOrEqualTo(sourceAmount.times(terms.rate))).to.equal(true);
          expect(receive.isNegative()).to.equal(false);
          expect(receive.decimalPlaces()).to.be.at.most(destination.precision);
          expect(new Money(terms.feeUsd).isNegative()).to.equal(false);
          expect(terms.rate).to.equal(marketRate(destination, sourcePriceUsd, destinationPriceUsd).toFixed());
          if (type === 'floating') expect(new Money(terms.minimumReceiveAmount!).lessThanOrEqualTo(receive)).to.equal(true);
          else expect(terms.minimumReceiveAmount).to.equal(null);
          void source;
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps every amount a decimal string: no binary float appears on the way', () => {
    // 0.1 + 0.2 is the classic float trap; decimal arithmetic gives the exact sum.
    const btc = findAsset(catalog, 'BTC', 'BTC')!;
    const usdt = findAsset(catalog, 'USDT', 'ETH')!;
    const terms = priceTerms(catalog, {
      destination: usdt,
      sourceAmount: toAmount('0.3'),
      sourcePriceUsd: new Money('0.1').plus('0.2'),
      destinationPriceUsd: new Money('1'),
      rateType: 'fixed',
    });
    // 0.3 x 0.3 = 0.09 USDT gross, minus 1 % and a 1.50 USD payout fee: nothing left.
    expect(terms.receiveAmount).to.equal('0');
    expect(terms.rate).to.equal('0.3');
    for (const value of Object.values(terms)) if (value !== null) expect(value).to.be.a('string');
    void btc;
  });

  it('picks the higher receive amount for best', () => {
    fc.assert(
      fc.property(decimalText, decimalText, (a, b) => {
        const chosen = bestTerms([
          { rateType: 'fixed', rate: '1', receiveAmount: a, minimumReceiveAmount: null, feeUsd: '0' },
          { rateType: 'floating', rate: '1', receiveAmount: b, minimumReceiveAmount: b, feeUsd: '0' },
        ]);
        expect(new Money(chosen.receiveAmount).equals(Money.max(a, b))).to.equal(true);
      }),
    );
  });

  it('converts the USD limits into the source asset, minimum rounded up and maximum rounded down', () => {
    fc.assert(
      fc.property(fc.constantFrom(...assets), price, (source, sourcePriceUsd) => {
        const limits = sourceLimits(catalog, source, sourcePriceUsd);
        expect(new Money(limits.minimumSourceAmount).times(sourcePriceUsd).greaterThanOrEqualTo(catalog.limitsUsd.minimum)).to.equal(true);
        expect(new Money(limits.maximumSourceAmount).times(sourcePriceUsd).lessThanOrEqualTo(catalog.limitsUsd.maximum)).to.equal(true);
      }),
    );
  });

  it('parses exactly every string the reference sourceAmount pattern accepts, and the server uses that same pattern', () => {
    const spec = JSON.parse(fs.readFileSync(new URL('../../../generated/openapi.json', import.meta.url), 'utf8'));
    const reference = new RegExp(spec.components.schemas.SourceAmount.pattern);
    fc.assert(
      fc.property(fc.oneof(decimalText, fc.string({ unit: fc.constantFrom('0', '1', '9', '.', '-', 'e', ' ', '+') })), (text) => {
        expect(POSITIVE_AMOUNT_PATTERN.test(text)).to.equal(reference.test(text));
        if (reference.test(text)) {
          // Exact: the decimal renders back to the same digits (trailing fraction zeros aside).
          expect(toAmount(text).toFixed()).to.equal(text.includes('.') ? text.replace(/\.?0+$/, '') : text);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('pricing a permanent-route order', () => {
  const zano = findAsset(catalog, 'ZANO', 'ZANO')!;
  const terms = (sourceAmount: string, feePercent = '1.5', markupPercent = '0.5') =>
    priceRouteOrder({
      destination: zano,
      sourceAmount: new Money(sourceAmount),
      sourcePriceUsd: new Money('1'),
      destinationPriceUsd: new Money('1.12'),
      feePercent,
      feeFloorUsd: '1',
      markupPercent,
    });

  it('charges the percent of the value (markup included) and pays the rest in the destination asset, rounded down', () => {
    // 100 USD: fee 1.5 USD, 98.5 USD / 1.12 = 87.946428571428... ZANO; markup 0.5 USD = 0.446428571428 ZANO.
    expect(terms('100')).to.deep.equal({
      rate: '0.8928571428571428',
      receiveAmount: '87.946428571428',
      feeUsd: '1.5',
      markupAmount: '0.446428571428',
      markupUsd: '0.49',
    });
  });

  it('charges the floor when the percent is less, and the markup stays its percent of the value', () => {
    const small = terms('30');
    expect(small.feeUsd).to.equal('1');
    expect(small.receiveAmount).to.equal(new Money(29).div('1.12').toDecimalPlaces(12, Money.ROUND_DOWN).toFixed());
    expect(small.markupAmount).to.equal(new Money('0.15').div('1.12').toDecimalPlaces(12, Money.ROUND_DOWN).toFixed());
  });

  it('never pays out a negative amount and records no markup without one', () => {
    expect(terms('0.5').receiveAmount).to.equal('0');
    expect(terms('100', '1', '0')).to.include({ markupAmount: '0', markupUsd: '0' });
  });
});

describe('what a refund returns (refundTerms)', () => {
  const asset = (symbol: string, network: string) => findAsset(catalog, symbol, network)!;

  it("returns the deposit less the source network's payout fee at the price, the fee rounded up and the rest down", () => {
    // LTC: 0.10 USD / 81.30 = 0.0012300123... LTC, 0.00123002 rounded up to 8 places.
    expect(refundTerms(catalog, asset('LTC', 'LTC'), '2.5', new Money('81.30'))).to.deep.equal({
      held: false,
      amount: '2.49876998',
      fee: '0.00123002',
    });
    // USDT on Ethereum pays Ethereum's 1.50 USD: 1.5 USDT at 1, 1.500151 (6 places, up) at 0.9999.
    expect(refundTerms(catalog, asset('USDT', 'ETH'), '100', new Money('0.9999'))).to.deep.equal({
      held: false,
      amount: '98.499849',
      fee: '1.500151',
    });
    // BTC: 2.00 USD / 68250 = 0.0000293040... BTC, 0.00002931 up.
    expect(refundTerms(catalog, asset('BTC', 'BTC'), '0.015', new Money('68250'))).to.include({ amount: '0.01497069', fee: '0.00002931' });
  });

  it('holds a refund whose remainder does not exceed the dust floor, or is not positive', () => {
    const ltc = asset('LTC', 'LTC');
    const at = new Money('81.30');
    expect(refundTerms(catalog, ltc, '0.00133002', at)).to.deep.equal({ held: true, remainder: '0.0001', fee: '0.00123002' });
    expect(refundTerms(catalog, ltc, '0.00133003', at)).to.deep.equal({ held: false, amount: '0.00010001', fee: '0.00123002' });
    expect(refundTerms(catalog, ltc, '0.001', at)).to.include({ held: true, remainder: '-0.00023002' });
    expect(refundTerms(catalog, ltc, '0.00123002', at)).to.include({ held: true, remainder: '0' });
  });

  it('never returns more than the deposit less the fee the rule gives, nor anything at or below the dust floor', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: assets.length - 1 }), decimalText, price, (index, deposit, priceUsd) => {
        const source = assets[index];
        const amount = new Money(deposit).toDecimalPlaces(source.precision, Money.ROUND_DOWN);
        const terms = refundTerms(catalog, source, amount.toFixed(), priceUsd);
        const exactFee = new Money(catalog.networks[source.network].payoutFeeUsd).div(priceUsd);
        expect(new Money(terms.fee).greaterThanOrEqualTo(exactFee)).to.equal(true);
        if (terms.held) {
          expect(new Money(terms.remainder).lessThanOrEqualTo(source.dustFloor)).to.equal(true);
        } else {
          expect(new Money(terms.amount).plus(terms.fee).lessThanOrEqualTo(amount)).to.equal(true);
          expect(new Money(terms.amount).greaterThan(source.dustFloor)).to.equal(true);
          expect(new Money(terms.amount).decimalPlaces()).to.be.at.most(source.precision);
        }
      }),
    );
  });
});
