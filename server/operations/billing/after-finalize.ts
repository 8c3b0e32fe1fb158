import type { Invoice } from '../../../shared/index.js';
import type { Queryable } from '../../storage/db.js';
import type { OperationContext } from '../context.js';
import { applyCreditTo } from './payments.js';

/**
 * What happens to an invoice just finalized, in the finalizing transaction, so it happens once
 * with the number or not at all: the customer's credit (what its payments left unapplied) is
 * applied to it, as further applications of those payments.
 *
 * WIRED AT MERGE: delivery provides `queueInvoiceEmail(tx, ctx, invoiceId)` (the invoice emailed
 * through the outbox, when the organization's autoSendInvoices is on), called here after the credit,
 * so the email shows the balance left.
 */
export async function afterFinalizing(tx: Queryable, ctx: OperationContext, invoice: Invoice): Promise<void> {
  await applyCreditTo(tx, ctx, invoice.id);
  // When autoSendInvoices: queueInvoiceEmail(tx, ctx, invoice.id).
}
