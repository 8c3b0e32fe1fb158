import type { Invoice } from '../../../shared/index.js';
import type { Queryable } from '../../storage/db.js';
import type { OperationContext } from '../context.js';

/**
 * What happens to an invoice just finalized, in the finalizing transaction, so it happens once
 * with the number or not at all.
 *
 * WIRED AT MERGE: payments provides `applyCreditTo(tx, ctx, invoiceId)` (the customer's credit
 * applied to the new invoice) and delivery `queueInvoiceEmail(tx, ctx, invoiceId)` (the invoice
 * emailed through the outbox, when the organization's autoSendInvoices is on). Each is called here,
 * in that order (credit first, so the email shows the balance left), once both exist on main.
 */
export async function afterFinalizing(_tx: Queryable, _ctx: OperationContext, _invoice: Invoice): Promise<void> {
  // applyCreditTo(tx, ctx, invoice.id) and, when autoSendInvoices, queueInvoiceEmail(tx, ctx, invoice.id).
}
