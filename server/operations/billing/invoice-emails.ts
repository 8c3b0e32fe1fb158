import { errors, type Customer, type Invoice, type InvoiceLine, type Organization } from '../../../shared/index.js';
import type { Queryable } from '../../storage/db.js';
import { liveCustomersByIds, invoices, linesOfInvoices, lockInvoice } from '../../storage/invoices.js';
import { insertMessages, invoiceMessagesOf, type NewMessage } from '../../storage/outgoing-messages.js';
import { taxesByIds } from '../../storage/taxes.js';
import { OFFICE_ROLES, requireRole, type OperationContext } from '../context.js';
import { newId } from '../ids.js';
import { recipientOf } from '../recipients.js';
import { invoiceDocumentOf } from '../pdf/invoice-pdf-content.js';
import { loadInvoice, type LoadedInvoice } from './invoice-documents.js';
import { INVOICE_LINK } from './invoice-links.js';
import { invoiceEmailHtml, invoiceEmailText, invoiceSubject } from './invoice-view.js';

/**
 * An invoice's email, queued in the outbox in the caller's transaction: to the customer's
 * billingEmail, else their first email address, with billingCCEmail copied. The outbox row holds the
 * text and HTML with INVOICE_LINK where the link goes, and the invoice's id; the invoice worker makes
 * the link and the PDF when it sends it (jobs/invoice-emails.ts), so no token and no PDF sit in the
 * database, and the PDF shows the invoice as it is when it goes.
 *
 * Queued at most once per sending: finalizing queues the invoice's first email (its "send 1"), and a
 * finalize run again, or a queue call from any retry of it, finds that one there and adds nothing.
 * sendInvoice is the office asking for another: each call is a sending of its own, numbered after
 * the invoice's emails so far under the invoice's row lock.
 */
export type InvoiceEmailOutcome =
  | { queued: true; messageId: string; recipient: string; cc: string | null; sending: number }
  | { queued: false; reason: string };

/** Only an invoice to someone (OPEN, or PAID) is emailed; a draft is the office's work, not yet an invoice. */
const SENDABLE: readonly Invoice['status'][] = ['OPEN', 'PAID'];

/** billingEmail, else the first email address the customer gave. */
export function invoiceRecipientOf(customer: Customer): string | null {
  return customer.billingEmail?.trim() || recipientOf(customer, 'EMAIL');
}

export interface QueueOptions {
  /** Queue a further sending (sendInvoice) rather than the invoice's first email (finalizing). */
  again?: boolean;
}

/**
 * Queues the invoice's email in `tx` (see above). Answers what was queued, or why nothing was: a
 * draft or void invoice, a customer with no email address, or (not `again`) an email already queued.
 */
export async function queueInvoiceEmail(tx: Queryable, ctx: Pick<OperationContext, 'viewer'>, invoiceId: string, options: QueueOptions = {}): Promise<InvoiceEmailOutcome> {
  const orgId = ctx.viewer.orgId;
  const locked = await lockInvoice(tx, orgId, invoiceId);
  if (!locked) throw errors.notFound('Invoice', invoiceId);
  if (!SENDABLE.includes(locked.status)) return { queued: false, reason: `the invoice is ${locked.status}` };
  const loaded = await loadInvoice(tx, orgId, invoiceId);
  if (!loaded) throw errors.notFound('Invoice', invoiceId);
  const recipient = invoiceRecipientOf(loaded.customer);
  if (!recipient) return { queued: false, reason: 'the customer has no billing email or email address' };
  const earlier = await invoiceMessagesOf(tx, orgId, invoiceId);
  if (!options.again && earlier.length) return { queued: false, reason: 'its email is already queued' };
  const sending = options.again ? earlier.length + 1 : 1;
  const message = invoiceMessage(loaded, recipient, sending);
  const added = await insertMessages(tx, orgId, [message]);
  if (!added) return { queued: false, reason: 'its email is already queued' };
  return { queued: true, messageId: message.id, recipient, cc: loaded.customer.billingCCEmail?.trim() || null, sending };
}

/** The outbox row of an invoice's `sending`-th email to `recipient`. */
function invoiceMessage(loaded: Omit<LoadedInvoice, 'lines'>, recipient: string, sending: number): NewMessage {
  const { organization, document, customer, invoice } = loaded;
  const cc = customer.billingCCEmail?.trim() || null;
  const links = { page: INVOICE_LINK, pdf: `${INVOICE_LINK}/pdf`, logo: organization.logoKey ? `${INVOICE_LINK}/logo` : null };
  return {
    id: newId(),
    operationId: `invoice:${invoice.id}:${sending}`,
    channel: 'EMAIL',
    customerId: customer.id,
    recipient,
    cc: cc && cc.toLowerCase() !== recipient.toLowerCase() ? cc : null,
    subject: invoiceSubject(document),
    body: invoiceEmailText(document, links),
    html: invoiceEmailHtml(document, links),
    invoiceId: invoice.id,
    senderName: organization.settings.emailFromName ?? organization.name,
    replyTo: organization.settings.emailReplyTo ?? organization.email,
    // The worker keeps it as STORED in a process with no SMTP server configured.
    status: 'PENDING',
  };
}

/**
 * The first email of each of these invoices just finalized, queued in `tx` as queueInvoiceEmail
 * queues one, for a whole batch in a fixed number of statements: the invoices as the caller read
 * them in `tx`, their lines, customers and taxes read once each, and one insert of every row. An
 * invoice not OPEN or PAID, or whose customer has no email address (or is deleted), is not
 * emailed; one whose first email is there already (operation `invoice:<id>:1`) is not emailed
 * again, the outbox's unique operation keeping it once. Answers how many were queued.
 */
export async function queueFirstInvoiceEmails(tx: Queryable, orgId: string, organization: Organization, invoices: readonly Invoice[]): Promise<number> {
  const found = invoices.filter((i) => SENDABLE.includes(i.status));
  if (!found.length) return 0;
  const ids = found.map((i) => i.id);
  const lines = linesByInvoice(await linesOfInvoices(tx, orgId, ids));
  const customers = new Map((await liveCustomersByIds(tx, orgId, [...new Set(found.map((i) => i.customerId))])).map((c) => [c.id, c]));
  const taxIds = [...new Set([...lines.values()].flat().flatMap((l) => (l.taxId ? [l.taxId] : [])))];
  const taxNames = new Map(taxIds.length ? (await taxesByIds(tx, orgId, taxIds)).map((t) => [t.id, t.name]) : []);
  const messages: NewMessage[] = [];
  for (const invoice of found) {
    const customer = customers.get(invoice.customerId);
    const recipient = customer && invoiceRecipientOf(customer);
    if (!customer || !recipient) continue;
    const document = invoiceDocumentOf(invoice, lines.get(invoice.id) ?? [], organization, customer, taxNames);
    messages.push(invoiceMessage({ invoice, customer, organization, document }, recipient, 1));
  }
  return insertMessages(tx, orgId, messages);
}

function linesByInvoice(lines: readonly InvoiceLine[]): Map<string, InvoiceLine[]> {
  const out = new Map<string, InvoiceLine[]>();
  for (const line of lines) {
    const list = out.get(line.invoiceId);
    if (list) list.push(line);
    else out.set(line.invoiceId, [line]);
  }
  return out;
}

/**
 * The office sends an invoice (again): one more email, with the PDF as the invoice now is
 * (ADMIN, OFFICE, API). A draft is refused (finalize it first); so is a void invoice, and a
 * customer with no email address to send to.
 */
export async function sendInvoice(ctx: OperationContext, invoiceId: string): Promise<Invoice> {
  requireRole(ctx.viewer, OFFICE_ROLES, 'send an invoice');
  const orgId = ctx.viewer.orgId;
  return ctx.db.transaction(async (tx) => {
    const invoice = await lockInvoice(tx, orgId, invoiceId);
    if (!invoice) throw errors.notFound('Invoice', invoiceId);
    if (invoice.status === 'DRAFT') throw errors.conflict(`Invoice ${invoiceId} is a DRAFT: finalize it before sending it`);
    if (invoice.status === 'VOID') throw errors.conflict(`Invoice ${invoice.number} is VOID and is not sent`);
    const outcome = await queueInvoiceEmail(tx, ctx, invoiceId, { again: true });
    if (!outcome.queued) throw errors.badInput(`Invoice ${invoice.number} cannot be sent: ${outcome.reason}`, { field: 'id' });
    return (await invoices.findById(tx, orgId, invoiceId))!;
  });
}
