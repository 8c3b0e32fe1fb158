import type { Invoice } from '../../../shared/index.js';
import type { Queryable } from '../../storage/db.js';
import { organizations } from '../../storage/organizations.js';
import type { OperationContext } from '../context.js';
import { queueInvoiceEmail } from './invoice-emails.js';
import { applyCreditTo } from './payments.js';

/**
 * What happens to an invoice just finalized, in the finalizing transaction, so it happens once
 * with the number or not at all: the customer's credit (what its payments left unapplied) is
 * applied to it, as further applications of those payments; then, with the organization's
 * autoSendInvoices on, its first email is queued (at most once per invoice, so finalizing again
 * sends nothing more), after the credit so the email shows the balance left. A customer with no
 * email address is not emailed, and the invoice is finalized all the same.
 */
export async function afterFinalizing(tx: Queryable, ctx: OperationContext, invoice: Invoice): Promise<void> {
  await applyCreditTo(tx, ctx, invoice.id);
  const organization = await organizations.findById(tx, ctx.viewer.orgId, ctx.viewer.orgId);
  if (organization?.settings.autoSendInvoices) await queueInvoiceEmail(tx, ctx, invoice.id);
}
