import type { BlobStore } from '../../storage/blobs.js';
import type { Database } from '../../storage/db.js';
import { markInvoiceSent } from '../../storage/invoice-sending.js';
import { markMessage, type OutboxMessage } from '../../storage/outgoing-messages.js';
import { loadInvoice, renderLoadedInvoice } from './invoice-documents.js';
import { INVOICE_LINK, invoicePagePath, issueInvoiceLink } from './invoice-links.js';

/**
 * Sending one queued invoice email: its link is made now (a fresh token; only its hash is kept) and
 * put where the email holds INVOICE_LINK, and the invoice's PDF is made now, as the invoice is, and
 * attached. Once the mail server accepted it, the message is SENT and the invoice's sentAt set in
 * one transaction.
 */
export interface InvoiceSending {
  db: Database;
  blobs: BlobStore;
  /** Where links point (PUBLIC_URL, or the address this server listens on). */
  baseUrl: () => string;
  /** INVOICE_LINK_DAYS */
  linkDays: number;
}

export interface Attachment {
  filename: string;
  content: Buffer;
  contentType: string;
}

export type InvoiceEmail = OutboxMessage & { attachments: Attachment[] };

/** The email as it goes: its link made, its PDF attached; null when the invoice is gone. */
export async function invoiceEmailToSend(sending: InvoiceSending, message: OutboxMessage): Promise<InvoiceEmail | null> {
  const loaded = await loadInvoice(sending.db, message.orgId, message.invoiceId!);
  if (!loaded) return null;
  const pdf = await renderLoadedInvoice(sending.blobs, loaded);
  const token = await issueInvoiceLink(sending.db, message.orgId, message.invoiceId!, sending.linkDays);
  const url = `${sending.baseUrl()}${invoicePagePath(token)}`;
  return {
    ...message,
    body: message.body.replaceAll(INVOICE_LINK, url),
    html: message.html?.replaceAll(INVOICE_LINK, url) ?? null,
    attachments: [{ filename: pdf.fileName, content: pdf.bytes, contentType: 'application/pdf' }],
  };
}

export async function recordInvoiceSent(db: Database, message: OutboxMessage): Promise<void> {
  await db.transaction(async (tx) => {
    await markMessage(tx, message.orgId, message.id, 'SENT', null);
    await markInvoiceSent(tx, message.orgId, message.invoiceId!);
  });
}
