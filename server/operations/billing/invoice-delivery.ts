import type { BlobStore } from '../../storage/blobs.js';
import type { Database } from '../../storage/db.js';
import { markInvoicesSent } from '../../storage/invoice-sending.js';
import { markMessagesSent, type OutboxMessage } from '../../storage/outgoing-messages.js';
import { lockOrganizationFeed } from '../../storage/table-feed.js';
import type { InvoicePdfRenderer } from '../pdf/invoice-pdf-pool.js';
import { logoOf } from '../pdf/logo.js';
import type { Logo } from '../pdf/pdf-page.js';
import { invoicePdfFileName, loadInvoice } from './invoice-documents.js';
import { INVOICE_LINK, invoicePagePath, issueInvoiceLinks } from './invoice-links.js';

/**
 * Sending queued invoice emails, a round of them at a time: each gets a link of its own (a fresh
 * token; only its hash is kept; the round's links made in one statement) put where the email holds
 * INVOICE_LINK, and the invoice's PDF, made now as the invoice is (on a PDF thread: `pdfs`), is
 * attached. Once the mail server accepted them, the round's messages are SENT and their invoices'
 * sentAt set in one transaction.
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

/** What one round shares: its links by message id, the PDF threads, and each organization's logo read once. */
export interface InvoiceRound {
  links: Map<string, string>;
  pdfs: InvoicePdfRenderer;
  logos: Map<string, Promise<Logo | null>>;
}

/** A round for these messages: a link made for each, in one statement. */
export async function startInvoiceRound(sending: InvoiceSending, messages: readonly OutboxMessage[], pdfs: InvoicePdfRenderer): Promise<InvoiceRound> {
  const tokens = await issueInvoiceLinks(sending.db, messages.map((m) => ({ orgId: m.orgId, invoiceId: m.invoiceId! })), sending.linkDays);
  return { links: new Map(messages.map((m, i) => [m.id, tokens[i]!])), pdfs, logos: new Map() };
}

/** The email as it goes: its link put in, its PDF attached; null when the invoice is gone. */
export async function invoiceEmailToSend(sending: InvoiceSending, round: InvoiceRound, message: OutboxMessage): Promise<InvoiceEmail | null> {
  const loaded = await loadInvoice(sending.db, message.orgId, message.invoiceId!);
  if (!loaded) return null;
  const { logoKey } = loaded.document.organization;
  let logo = round.logos.get(`${message.orgId}/${logoKey}`);
  if (!logo) round.logos.set(`${message.orgId}/${logoKey}`, (logo = logoOf(sending.blobs, logoKey)));
  const bytes = await round.pdfs.render(loaded.document, await logo);
  const url = `${sending.baseUrl()}${invoicePagePath(round.links.get(message.id)!)}`;
  return {
    ...message,
    body: message.body.replaceAll(INVOICE_LINK, url),
    html: message.html?.replaceAll(INVOICE_LINK, url) ?? null,
    attachments: [{ filename: invoicePdfFileName(loaded.invoice), content: bytes, contentType: 'application/pdf' }],
  };
}

/**
 * The messages the mail server accepted: SENT, and their invoices' sentAt, one short transaction per
 * organization (in id order). Setting sentAt fires the invoices' change-feed trigger, which takes
 * the organization's feed lock: taken first, explicitly, as every writer of several invoices takes
 * it before their rows, and never two organizations' at once, so no other writer waits on a lock
 * this holds while it waits on theirs.
 */
export async function recordInvoicesSent(db: Database, messages: readonly OutboxMessage[]): Promise<void> {
  const byOrg = new Map<string, OutboxMessage[]>();
  for (const m of messages) byOrg.set(m.orgId, [...(byOrg.get(m.orgId) ?? []), m]);
  for (const orgId of [...byOrg.keys()].sort()) {
    const theirs = byOrg.get(orgId)!;
    await db.transaction(async (tx) => {
      await lockOrganizationFeed(tx, orgId);
      await markMessagesSent(tx, theirs);
      await markInvoicesSent(tx, theirs.map((m) => ({ orgId: m.orgId, id: m.invoiceId! })));
    });
  }
}
