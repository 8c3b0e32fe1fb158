import { dinero, halfAwayFromZero, multiply, toSnapshot, transformScale, type DineroCurrency } from 'dinero.js';
import * as ISO_4217 from 'dinero.js/currencies';

/**
 * Money, one rule everywhere: an amount is an integer count of the currency's minor unit (cents
 * for USD, yen for JPY, fils for KWD: the ISO 4217 exponent, from dinero.js's currency data), and
 * every rounding rounds half away from zero (1.005 USD is 1.01, -1.005 is -1.01: the rule quotes
 * have always used, and the one PostgreSQL's round(numeric) follows, so SQL and code agree).
 *
 * Decimal amounts (the wire's Float, a jsonb value) become minor units through their shortest
 * decimal spelling, not by multiplying a binary double (1.005 * 100 is 100.49999999999999), and
 * products (quantity x unit price, a tax rate) are exact scaled integers rounded once, by dinero.
 *
 * @example
 *   toMinor(12.345, 'KWD')   // 12345
 *   toMinor(1250.5, 'JPY')   // 1251
 *   fromMinor(4998, 'USD')   // 49.98
 *   timesQuantity(1999, 2.5, 'USD') // 4998 (49.975 rounded away from zero)
 */
export const MONEY_ROUNDING = 'half away from zero' as const;

type Currency = DineroCurrency<number>;

/**
 * Every ISO 4217 currency by code. Two (MGA, MRU) divide into fifths, which no decimal amount on the
 * wire can say: they are kept as ISO 4217's table writes them, two decimal digits.
 */
const KNOWN: ReadonlyMap<string, Currency> = new Map(
  Object.values(ISO_4217 as Record<string, Currency>).map((c) => [c.code, c.base === 10 ? c : { code: c.code, base: 10, exponent: 2 }]),
);

/** Whether `code` is an ISO 4217 currency (as dinero.js lists them). */
export function isCurrencyCode(code: string): boolean {
  return KNOWN.has(code);
}

/** Every ISO 4217 code with its exponent (a test holds the SQL function `currency_exponent` to it). */
export function currencyExponents(): ReadonlyMap<string, number> {
  return new Map([...KNOWN].map(([code, c]) => [code, c.exponent]));
}

/** The currency's data; a code ISO 4217 does not know (stored before codes were checked) counts as two decimals. */
function currencyOf(code: string): Currency {
  return KNOWN.get(code) ?? { code, base: 10, exponent: 2 };
}

/** Digits after the decimal point in the currency (USD 2, JPY 0, KWD 3). */
export function exponentOf(code: string): number {
  return currencyOf(code).exponent;
}

/** A decimal number as an exact scaled integer, from its shortest spelling: 12.345 -> 12345 at scale 3. */
export function scaledOf(value: number): { amount: number; scale: number } {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite amount: ${value}`);
  const [mantissa = '0', power = '0'] = String(value).toLowerCase().split('e');
  const [whole = '0', fraction = ''] = mantissa.split('.');
  const digits = Number(`${whole}${fraction}`);
  const scale = fraction.length - Number(power);
  return scale >= 0 ? { amount: digits, scale } : { amount: digits * 10 ** -scale, scale: 0 };
}

function rounded(amount: number, scale: number, currency: Currency): number {
  const exact = dinero({ amount, currency, scale });
  return toSnapshot(transformScale(exact, currency.exponent, halfAwayFromZero)).amount;
}

/** A decimal amount in minor units of `code`, rounded half away from zero. */
export function toMinor(amount: number, code: string): number {
  const { amount: digits, scale } = scaledOf(amount);
  return rounded(digits, scale, currencyOf(code));
}

/** Minor units as the decimal amount the wire carries (a JSON number at the currency's precision). */
export function fromMinor(minor: number, code: string): number {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`not a whole number of minor units: ${minor}`);
  // Both integers are exact, so the quotient is the double nearest the decimal, as parsing it gives.
  return minor / 10 ** currencyOf(code).exponent;
}

/** A decimal amount at the currency's precision (what storing it keeps). */
export function roundToCurrency(amount: number, code: string): number {
  return fromMinor(toMinor(amount, code), code);
}

/** `unitMinor` x `quantity` (which may be fractional, e.g. 2.5 hours), rounded once. */
export function timesQuantity(unitMinor: number, quantity: number, code: string): number {
  const currency = currencyOf(code);
  const factor = scaledOf(quantity);
  const product = multiply(dinero({ amount: unitMinor, currency }), { amount: factor.amount, scale: factor.scale });
  return toSnapshot(transformScale(product, currency.exponent, halfAwayFromZero)).amount;
}

/** `percent` % of `minor` (a tax rate of 8.25, a markup of 30), rounded once. */
export function percentOf(minor: number, percent: number, code: string): number {
  const currency = currencyOf(code);
  const rate = scaledOf(percent);
  const product = multiply(dinero({ amount: minor, currency }), { amount: rate.amount, scale: rate.scale + 2 });
  return toSnapshot(transformScale(product, currency.exponent, halfAwayFromZero)).amount;
}

/** The sum of minor amounts (integers: exact while below 2^53). */
export function sumMinor(amounts: Iterable<number>): number {
  let total = 0;
  for (const amount of amounts) total += amount;
  return total;
}
