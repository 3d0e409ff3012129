/**
 * Decimal arithmetic for amounts and prices. Amounts are never JS numbers: they enter as decimal strings,
 * are computed with decimal.js at 50 significant digits and leave as plain decimal strings.
 */
import { Decimal } from 'decimal.js';

/** Decimal constructor configured for money: high precision, never exponent notation. */
export const Money = Decimal.clone({ precision: 50, rounding: Decimal.ROUND_HALF_EVEN, toExpNeg: -100, toExpPos: 100 });

/** A decimal amount or price. */
export type Amount = Decimal;

/** The spec's pattern for a positive decimal amount string (at most 18 fraction digits). */
export const POSITIVE_AMOUNT_PATTERN = /^(?=.*[1-9])(?:0|[1-9]\d*)(?:\.\d{1,18})?$/;

/** Parses a decimal string; throws on anything that is not a plain decimal number. */
export function toAmount(value: string): Amount {
  if (!/^-?(?:0|[1-9]\d*)(?:\.\d+)?$/.test(value)) throw new TypeError(`Not a decimal amount: ${JSON.stringify(value)}`);
  return new Money(value);
}

/** Rounds down (towards zero) to `decimals` places and renders without trailing zeros. */
export function formatDown(amount: Amount, decimals: number): string {
  return amount.toDecimalPlaces(decimals, Decimal.ROUND_DOWN).toFixed();
}

/** Rounds up (away from zero) to `decimals` places and renders without trailing zeros. */
export function formatUp(amount: Amount, decimals: number): string {
  return amount.toDecimalPlaces(decimals, Decimal.ROUND_UP).toFixed();
}
