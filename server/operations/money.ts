/**
 * Money is computed in integer cents so sums are exact; values travel as decimal numbers
 * (Float in GraphQL, numeric(12,2) in SQL). Halves round away from zero, as on an invoice.
 */
export function toCents(amount: number): number {
  return roundHalfAway(amount * 100);
}

export function fromCents(cents: number): number {
  return cents / 100;
}

function roundHalfAway(value: number): number {
  // The epsilon absorbs binary noise such as 1.005 * 100 = 100.49999999999999.
  return Math.sign(value) * Math.round(Math.abs(value) + 1e-9);
}

export interface PricedLine {
  quantity: number;
  unitPrice: number;
  amount: number;
}

export interface QuoteTotals {
  subtotal: number;
  tax: number;
  total: number;
}

/** A line's amount: quantity x unit price, rounded to the cent. */
export function lineAmountCents(quantity: number, unitPrice: number): number {
  return roundHalfAway(quantity * toCents(unitPrice));
}

/** Subtotal of the lines, tax at `ratePercent` of it, and their sum. */
export function quoteTotals(lineAmountsCents: readonly number[], ratePercent: number): QuoteTotals {
  const subtotal = lineAmountsCents.reduce((sum, cents) => sum + cents, 0);
  const tax = roundHalfAway((subtotal * ratePercent) / 100);
  return { subtotal: fromCents(subtotal), tax: fromCents(tax), total: fromCents(subtotal + tax) };
}
