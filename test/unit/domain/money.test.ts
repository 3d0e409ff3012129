import { expect } from 'chai';
import fc from 'fast-check';
import { formatDown, formatUp, POSITIVE_AMOUNT_PATTERN, toAmount } from '../../../server/domain/money.js';

// Positive decimal strings as the spec allows them: no leading zeros, 1-18 fraction digits.
const positiveAmount = fc
  .tuple(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.option(fc.stringMatching(/^[0-9]{1,18}$/), { nil: undefined }))
  .map(([whole, fraction]) => (fraction === undefined ? `${whole}` : `${whole}.${fraction}`))
  .filter((text) => POSITIVE_AMOUNT_PATTERN.test(text));

describe('money', () => {
  it('rounds down and up to the asset precision without trailing zeros', () => {
    expect(formatDown(toAmount('1.23456789'), 4)).to.equal('1.2345');
    expect(formatUp(toAmount('1.23450001'), 4)).to.equal('1.2346');
    expect(formatDown(toAmount('2.5000'), 8)).to.equal('2.5');
  });

  it('keeps 18 fraction digits exactly where floats would not', () => {
    expect(toAmount('0.1').plus(toAmount('0.2')).toFixed()).to.equal('0.3');
    expect(formatDown(toAmount('123456789.123456789123456789'), 18)).to.equal('123456789.123456789123456789');
  });

  it('refuses anything that is not a plain decimal', () => {
    for (const bad of ['1e5', '0x10', ' 1', '1.', '.5', 'NaN', '']) expect(() => toAmount(bad), bad).to.throw(TypeError);
  });

  it('never rounds a positive amount up when rounding down (property)', () => {
    fc.assert(
      fc.property(positiveAmount, fc.integer({ min: 0, max: 18 }), (text, decimals) => {
        const amount = toAmount(text);
        const down = toAmount(formatDown(amount, decimals));
        const up = toAmount(formatUp(amount, decimals));
        return down.lte(amount) && up.gte(amount) && up.minus(down).lte(toAmount('1').div(toAmount('10').pow(decimals)));
      }),
    );
  });
});
