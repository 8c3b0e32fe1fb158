import type { Invoice } from '../../../shared/index.js';
import type { Queryable } from '../../storage/db.js';
import { organizations } from '../../storage/organizations.js';
import type { OperationContext } from '../context.js';
import { queueInvoiceEmail } from './invoice-emails.js';

/**
 * What happens to an invoice just finalized, in the finalizing transaction, so it happens once
 * with the number or not at all.
 *
 * WIRED AT MERGE: payments provides `applyCreditTo(tx, ctx, invoiceId)` (the customer's credit
 * applied to the new invoice), called here before the email (credit first, so the email shows the
 * balance left). With the organization's autoSendInvoices on, the invoice's first email is queued
 * (queueInvoiceEmail: at most once per invoice, so finalizing again sends nothing more); a customer
 * with no email address is not emailed, and the invoice is finalized all the same.
 */
export async function afterFinalizing(tx: Queryable, ctx: OperationContext, invoice: Invoice): Promise<void> {
  const organization = await organizations.findById(tx, ctx.viewer.orgId, ctx.viewer.orgId);
  if (organization?.settings.autoSendInvoices) await queueInvoiceEmail(tx, ctx, invoice.id);
}
