import { errors, type Customer, type Invoice, type InvoiceLine, type Organization } from '../../../shared/index.js';
import type { BlobStore } from '../../storage/blobs.js';
import { customers } from '../../storage/customers.js';
import type { Queryable } from '../../storage/db.js';
import { invoices, linesOfInvoices } from '../../storage/invoices.js';
import { organizations } from '../../storage/organizations.js';
import { taxes } from '../../storage/taxes.js';
import { OFFICE_ROLES, requireRole, type OperationContext } from '../context.js';
import { invoiceDocumentOf, type InvoiceDocument } from '../pdf/invoice-pdf-content.js';
import { renderInvoicePdf } from '../pdf/invoice-pdf.js';
import { logoOf } from '../pdf/logo.js';

/**
 * An invoice as its customer sees it: what its PDF, its page and its email show, read as the
 * invoice is now (so a payment recorded since shows in the amount paid and balance due). The PDF is
 * made on each request and for each email, never stored: an OPEN invoice's balance moves with its
 * payments, and a PDF takes tens of milliseconds.
 */
export interface LoadedInvoice {
  invoice: Invoice;
  lines: InvoiceLine[];
  customer: Customer;
  organization: Organization;
  document: InvoiceDocument;
}

export async function loadInvoice(q: Queryable, orgId: string, invoiceId: string): Promise<LoadedInvoice | null> {
  const invoice = await invoices.findById(q, orgId, invoiceId);
  if (!invoice) return null;
  const [lines, customer, organization] = await Promise.all([
    linesOfInvoices(q, orgId, [invoiceId]),
    customers.findById(q, orgId, invoice.customerId),
    organizations.findById(q, orgId, orgId),
  ]);
  if (!customer || !organization) return null;
  const taxNames = new Map<string, string>();
  for (const taxId of new Set(lines.map((l) => l.taxId).filter((id): id is string => Boolean(id)))) {
    const tax = await taxes.findById(q, orgId, taxId);
    if (tax) taxNames.set(taxId, tax.name);
  }
  return { invoice, lines, customer, organization, document: invoiceDocumentOf(invoice, lines, organization, customer, taxNames) };
}

export interface InvoicePdf {
  bytes: Buffer;
  /** e.g. "INV-0042.pdf", "invoice-draft.pdf" */
  fileName: string;
}

export const invoicePdfFileName = (invoice: Pick<Invoice, 'number'>) => (invoice.number ? `${invoice.number.replace(/[^\w.-]+/g, '_')}.pdf` : 'invoice-draft.pdf');

/** The loaded invoice's PDF, with the organization's logo when it has one pdfkit can place. */
export async function renderLoadedInvoice(blobs: BlobStore, loaded: LoadedInvoice): Promise<InvoicePdf> {
  const bytes = await renderInvoicePdf(loaded.document, await logoOf(blobs, loaded.document.organization.logoKey));
  return { bytes, fileName: invoicePdfFileName(loaded.invoice) };
}

/** The invoice's PDF, or null when there is no such invoice (or its customer is gone). */
export async function invoicePdfOf(deps: { db: Queryable; blobs: BlobStore }, orgId: string, invoiceId: string): Promise<InvoicePdf | null> {
  const loaded = await loadInvoice(deps.db, orgId, invoiceId);
  return loaded ? renderLoadedInvoice(deps.blobs, loaded) : null;
}

/** The office's download (ADMIN, OFFICE, API): any invoice of the organization, a draft included. */
export async function downloadInvoicePdf(ctx: OperationContext, invoiceId: string): Promise<InvoicePdf> {
  requireRole(ctx.viewer, OFFICE_ROLES, "download an invoice's PDF");
  const pdf = await invoicePdfOf(ctx, ctx.viewer.orgId, invoiceId);
  if (!pdf) throw errors.notFound('Invoice', invoiceId);
  return pdf;
}
