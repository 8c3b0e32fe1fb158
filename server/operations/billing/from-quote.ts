import { errors, idValidator, toMinor, type Invoice } from '../../../shared/index.js';
import { insertDraft, insertLinesOnce, invoiceOfQuote, invoices } from '../../storage/invoices.js';
import { lockQuote } from '../../storage/quotes.js';
import type { OperationContext } from '../context.js';
import { newId } from '../ids.js';
import { parseInput } from '../input.js';
import { requireBilling } from './access.js';
import { repriceDraft } from './draft-money.js';
import { billingSettings, taxById } from './settings.js';

/**
 * An ACCEPTED quote as a DRAFT invoice: one QUOTE_LINE per line of the quote (source
 * `<quote id>/<line id>`), taxed with the quote's tax. Its lines are billed once: converting again
 * answers the invoice already made (until that one is voided, when the quote may be converted anew).
 */
export async function convertQuoteToInvoice(ctx: OperationContext, quoteId: string): Promise<Invoice> {
  requireBilling(ctx, 'convert quotes to invoices');
  parseInput(idValidator(), quoteId);
  const orgId = ctx.viewer.orgId;
  return ctx.db.transaction(async (tx) => {
    // The quote's row lock makes two conversions at once take turns: the second finds the first's invoice.
    const quote = await lockQuote(tx, orgId, quoteId);
    if (!quote) throw errors.notFound('Quote', quoteId);
    if (quote.status !== 'ACCEPTED') throw errors.conflict(`Quote ${quote.number} is ${quote.status}: only an ACCEPTED quote becomes an invoice`);
    const existing = await invoiceOfQuote(tx, orgId, quoteId);
    if (existing) return existing;
    if (!quote.lineItems.length) throw errors.badInput(`Quote ${quote.number} has no lines to bill`);
    const settings = await billingSettings(tx, orgId);
    const tax = await taxById(tx, orgId, quote.taxId);
    const id = newId();
    await insertDraft(tx, orgId, {
      id,
      customerId: quote.customerId,
      origin: 'QUOTE',
      periodStart: null,
      periodEnd: null,
      currency: settings.currency,
      taxRounding: settings.taxRounding,
      notes: `${quote.number}: ${quote.title}`,
      quoteId,
      createdById: ctx.viewer.userId,
    });
    await insertLinesOnce(
      tx,
      orgId,
      id,
      quote.lineItems.map((line, i) => ({
        id: newId(),
        position: i + 1,
        sourceType: 'QUOTE_LINE' as const,
        sourceId: `${quoteId}/${line.id}`,
        serviceId: null,
        date: null,
        itemId: null,
        description: line.description,
        quantity: line.quantity,
        unitPrice: toMinor(line.unitPrice, settings.currency),
        amount: toMinor(line.amount, settings.currency),
        taxId: tax.taxId,
        taxRate: tax.rate,
        taxAmount: null,
      })),
    );
    await repriceDraft(tx, orgId, id, settings.taxRounding, settings.currency);
    return (await invoices.findById(tx, orgId, id))!;
  });
}
