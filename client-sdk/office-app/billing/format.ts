import type { InvoiceLineSource } from '../../../shared/index.js';
import { useDocs } from '../../app-kit/hooks.js';

/**
 * How billing's values are shown: calendar dates (an invoice's period, issue and due dates are days
 * in the organization's zone, not instants, so they are never moved into the browser's zone), the
 * organization's currency, and where each invoice line comes from.
 */

/** A calendar day (YYYY-MM-DD) as a person reads it, the same day wherever the browser is. */
export function calendarDay(date: string | null | undefined): string {
  if (!date) return '';
  const [y, m, d] = date.split('-').map(Number);
  return new Date(y!, m! - 1, d!).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
}

/** A period of two days, both included. */
export const period = (start: string | null | undefined, end: string | null | undefined) => (start && end ? `${calendarDay(start)} – ${calendarDay(end)}` : '');

/** Today in the browser's zone as YYYY-MM-DD (what a date input holds). */
export function today(now = new Date()): string {
  return isoDay(now);
}

export function isoDay(d: Date): string {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** The calendar month before the one holding `now`: the month a run usually bills (in arrears). */
export function lastMonth(now = new Date()): { start: string; end: string } {
  const start = new Date(now.getFullYear(), now.getMonth() - 1, 1);
  const end = new Date(now.getFullYear(), now.getMonth(), 0);
  return { start: isoDay(start), end: isoDay(end) };
}

/** The organization's currency, from the replica (USD until it is read). */
export function useCurrency(): string {
  return useDocs('organization', {}, [])?.[0]?.currency ?? 'USD';
}

/** The smallest step of an amount in the currency (0.01 for USD, 1 for JPY, 0.001 for KWD). */
export function currencyStep(currency: string): string {
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  return digits ? `0.${'0'.repeat(digits - 1)}1` : '1';
}

export interface SourcedLine {
  sourceType: InvoiceLineSource;
  sourceId?: string | null;
  date?: string | null;
}

/** Where a line comes from, in words: the work it bills, so the office can check a draft before finalizing it. */
export function lineSource(line: SourcedLine): string {
  switch (line.sourceType) {
    case 'VISIT':
      return `Visit of ${calendarDay(line.date)}`;
    case 'STOCK_MOVEMENT':
      return line.date ? `Chemical or part used on ${calendarDay(line.date)}` : 'Chemical or part used';
    case 'QUOTE_LINE':
      return 'Line of an accepted quote';
    case 'FLAT_RATE':
      return line.date ? `Flat rate for ${monthOf(line.date)}` : 'Monthly flat rate';
    case 'MANUAL':
      return 'Added by hand';
  }
}

function monthOf(date: string): string {
  const [y, m] = date.split('-').map(Number);
  return new Date(y!, m! - 1, 1).toLocaleDateString(undefined, { year: 'numeric', month: 'long' });
}

/** An invoice's state as the office reads it: overdue and partly paid are derived from its amounts and due date. */
export function invoiceState(invoice: { status: string; overdue?: boolean | null; partlyPaid?: boolean | null }): { label: string; className: string } {
  if (invoice.status === 'OPEN' && invoice.overdue) return { label: invoice.partlyPaid ? 'overdue, partly paid' : 'overdue', className: 'badge invoice-overdue' };
  if (invoice.status === 'OPEN' && invoice.partlyPaid) return { label: 'partly paid', className: 'badge invoice-partly' };
  return { label: invoice.status.toLowerCase(), className: `badge invoice-${invoice.status.toLowerCase()}` };
}
