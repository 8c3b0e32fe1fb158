import type { TaxRounding } from '../../../shared/index.js';
import type { Queryable } from '../../storage/db.js';
import { linesMinor, rewriteLines, setTotals, type TotalsMinor } from '../../storage/invoices.js';
import { invoiceMoney } from './tax.js';

/**
 * Sets a draft's money from its lines as they stand (after lines were added, changed or removed):
 * each line's tax on a PER_LINE invoice, then subtotal, tax and total. Only drafts are repriced; an
 * OPEN invoice's money never changes.
 */
export async function repriceDraft(tx: Queryable, orgId: string, invoiceId: string, rounding: TaxRounding, currency: string): Promise<TotalsMinor> {
  const lines = await linesMinor(tx, orgId, invoiceId);
  const money = invoiceMoney(lines, rounding, currency);
  const changed = lines.filter((l) => (money.lineTax.get(l.id) ?? null) !== l.taxAmount);
  await rewriteLines(tx, orgId, invoiceId, changed.map((l) => ({ ...l, taxAmount: money.lineTax.get(l.id) ?? null })));
  const totals = { subtotal: money.subtotal, tax: money.tax, total: money.total };
  await setTotals(tx, orgId, invoiceId, totals);
  return totals;
}
