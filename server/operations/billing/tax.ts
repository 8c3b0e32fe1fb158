import { percentOf, sumMinor, type TaxRounding } from '../../../shared/index.js';

/**
 * An invoice's tax, one documented rule (README, "Tax"): every line carries the percent of the tax
 * it is taxed at (0: none). PER_INVOICE (the default): the amounts taxed at each percent are summed,
 * and each sum's tax rounded once. PER_LINE: each line's tax is rounded on its own and kept on the
 * line (taxAmount), and the invoice's tax is their sum. Rounding is half away from zero
 * (shared/money.ts). The rounding used is stored on the invoice, so its total never changes when
 * the organization's choice does.
 */
export interface TaxableLine {
  id: string;
  amount: number;
  taxRate: number;
}

export interface InvoiceMoney {
  subtotal: number;
  tax: number;
  total: number;
  /** Each line's own tax on a PER_LINE invoice; null on a PER_INVOICE one. */
  lineTax: Map<string, number | null>;
}

export function invoiceMoney(lines: readonly TaxableLine[], rounding: TaxRounding, currency: string): InvoiceMoney {
  const subtotal = sumMinor(lines.map((l) => l.amount));
  if (rounding === 'PER_LINE') {
    const lineTax = new Map(lines.map((l) => [l.id, percentOf(l.amount, l.taxRate, currency)]));
    const tax = sumMinor(lineTax.values() as Iterable<number>);
    return { subtotal, tax, total: subtotal + tax, lineTax };
  }
  const byRate = new Map<number, number>();
  for (const line of lines) byRate.set(line.taxRate, (byRate.get(line.taxRate) ?? 0) + line.amount);
  const tax = sumMinor([...byRate].map(([rate, amount]) => percentOf(amount, rate, currency)));
  return { subtotal, tax, total: subtotal + tax, lineTax: new Map(lines.map((l) => [l.id, null])) };
}
