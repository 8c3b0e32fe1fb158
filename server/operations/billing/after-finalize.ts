import type { Invoice, Organization } from '../../../shared/index.js';
import type { Queryable } from '../../storage/db.js';
import { invoicesByIds } from '../../storage/invoices.js';
import { customersWithCredit } from '../../storage/payments.js';
import type { OperationContext } from '../context.js';
import { queueFirstInvoiceEmails } from './invoice-emails.js';
import { applyCreditTo } from './payments.js';

/**
 * What happens to invoices just finalized, in the finalizing transaction, so it happens once with
 * their numbers or not at all.
 *
 * The customer's credit (what earlier payments left over) is applied to each new invoice first
 * (applyCreditTo: further applications of those payments, never a negative line), so the email
 * shows the balance left. Which customers have credit is read in one statement, and only their
 * invoices go through applyCreditTo, in customer order (the order two batches take customers'
 * ledger locks in). With the organization's autoSendInvoices on, each invoice's first email is
 * queued (queueFirstInvoiceEmails: at most once per invoice, so finalizing again sends nothing
 * more); a customer with no email address is not emailed, and the invoice is finalized all the same.
 */
export type Finalized = Pick<Invoice, 'id' | 'customerId' | 'currency'> & { status: 'OPEN' | 'PAID' };

/** Answers the invoices as they are after it (credit applied), in the order given. */
export async function afterFinalizing(tx: Queryable, ctx: OperationContext, organization: Organization, finalized: readonly Finalized[]): Promise<Invoice[]> {
  const orgId = ctx.viewer.orgId;
  const owed = finalized.filter((i) => i.status === 'OPEN');
  const credit = await customersWithCredit(tx, orgId, [...new Set(owed.map((i) => i.customerId))]);
  const hasCredit = new Set(credit.map((c) => `${c.customerId} ${c.currency}`));
  const toCredit = owed.filter((i) => hasCredit.has(`${i.customerId} ${i.currency}`));
  // Stable: a customer's invoices keep their numbers' order, the first numbered taking the credit first.
  toCredit.sort((a, b) => compare(a.customerId, b.customerId));
  for (const invoice of toCredit) await applyCreditTo(tx, ctx, invoice.id);
  const byId = new Map((await invoicesByIds(tx, orgId, finalized.map((i) => i.id))).map((i) => [i.id, i]));
  const invoices = finalized.map((i) => byId.get(i.id)!);
  if (organization.settings.autoSendInvoices) await queueFirstInvoiceEmails(tx, orgId, organization, invoices);
  return invoices;
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
