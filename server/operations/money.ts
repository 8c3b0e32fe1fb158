import { fromMinor, percentOf, sumMinor, timesQuantity, toMinor } from '../../shared/index.js';

/**
 * Quote arithmetic, in minor units of the organization's currency (shared/money.ts: exact decimals,
 * halves rounded away from zero). Amounts arrive and leave as decimals at the currency's precision
 * (Float in GraphQL, a JSON number in a quote's lines).
 */
export interface QuoteTotals {
  subtotal: number;
  tax: number;
  total: number;
}

/** A line's amount in minor units: quantity x the unit price (itself rounded to the currency), rounded once. */
export function lineAmountMinor(quantity: number, unitPrice: number, currency: string): number {
  return timesQuantity(toMinor(unitPrice, currency), quantity, currency);
}

/** Subtotal of the lines, tax at `ratePercent` of it, and their sum, as decimals. */
export function quoteTotals(lineAmountsMinor: readonly number[], ratePercent: number, currency: string): QuoteTotals {
  const subtotal = sumMinor(lineAmountsMinor);
  const tax = percentOf(subtotal, ratePercent, currency);
  return { subtotal: fromMinor(subtotal, currency), tax: fromMinor(tax, currency), total: fromMinor(subtotal + tax, currency) };
}
