import type { Blob, BlobStore } from '../../storage/blobs.js';
import type { Database } from '../../storage/db.js';
import { organizations } from '../../storage/organizations.js';
import { loadInvoice, renderLoadedInvoice, type InvoicePdf } from './invoice-documents.js';
import { invoicePagePath, openInvoiceLink } from './invoice-links.js';
import { invoicePageHtml } from './invoice-view.js';

/**
 * What an invoice link opens, without signing in: the page (the invoice as it is now, so a payment
 * recorded since the email went shows), its PDF and the organization's logo. Null for a link that
 * does not work (never issued, expired, revoked) or an invoice no longer there.
 */
export async function invoicePage(db: Database, token: string): Promise<string | null> {
  const link = await openInvoiceLink(db, token);
  if (!link) return null;
  const loaded = await loadInvoice(db, link.orgId, link.invoiceId);
  if (!loaded) return null;
  const base = invoicePagePath(token);
  return invoicePageHtml(loaded.document, { page: base, pdf: `${base}/pdf`, logo: loaded.organization.logoKey ? `${base}/logo` : null });
}

export async function invoicePagePdf(db: Database, blobs: BlobStore, token: string): Promise<InvoicePdf | null> {
  const link = await openInvoiceLink(db, token);
  if (!link) return null;
  const loaded = await loadInvoice(db, link.orgId, link.invoiceId);
  return loaded ? renderLoadedInvoice(blobs, loaded) : null;
}

export async function invoicePageLogo(db: Database, blobs: BlobStore, token: string): Promise<Blob | null> {
  const link = await openInvoiceLink(db, token);
  if (!link) return null;
  const organization = await organizations.findById(db, link.orgId, link.orgId);
  return organization?.logoKey ? blobs.get(organization.logoKey) : null;
}
