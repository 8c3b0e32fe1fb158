import type { Invoice, TaxRounding } from '../../../shared/index.js';
import type { Queryable } from '../../storage/db.js';
import { linesMinor, linesMinorOf, rewriteLines, setTotals, type LineMinor, type TotalsMinor } from '../../storage/invoices.js';
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

/** A draft priced from its lines as they stand, for finalizing (nothing written yet). */
export interface PricedDraft {
  totals: TotalsMinor;
  lines: readonly LineMinor[];
  /** Lines whose tax changes (PER_LINE), to write with setLineTaxes. */
  retaxed: { invoiceId: string; id: string; taxAmount: number | null }[];
}

/**
 * Prices several drafts from their lines, read in one statement, each as repriceDraft would: the
 * caller writes what changed (setLineTaxes, and the totals with the finalization) only for the
 * drafts it goes on with, so a draft refused keeps its money as it was.
 */
export async function priceDrafts(
  tx: Queryable,
  orgId: string,
  drafts: readonly Pick<Invoice, 'id' | 'taxRounding' | 'currency'>[],
): Promise<Map<string, PricedDraft>> {
  const byInvoice = new Map<string, LineMinor[]>(drafts.map((d) => [d.id, []]));
  for (const line of await linesMinorOf(tx, orgId, drafts.map((d) => d.id))) byInvoice.get(line.invoiceId)?.push(line);
  return new Map(drafts.map((d) => [d.id, priceDraft(d, byInvoice.get(d.id)!)]));
}

function priceDraft(draft: Pick<Invoice, 'id' | 'taxRounding' | 'currency'>, lines: readonly LineMinor[]): PricedDraft {
  const money = invoiceMoney(lines, draft.taxRounding, draft.currency);
  const retaxed = lines
    .filter((l) => (money.lineTax.get(l.id) ?? null) !== l.taxAmount)
    .map((l) => ({ invoiceId: draft.id, id: l.id, taxAmount: money.lineTax.get(l.id) ?? null }));
  return { totals: { subtotal: money.subtotal, tax: money.tax, total: money.total }, lines, retaxed };
}
