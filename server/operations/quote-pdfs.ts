import { errors, type Customer, type Organization, type Quote, type Tax } from '../../shared/index.js';
import type { BlobStore } from '../storage/blobs.js';
import type { Database, Queryable } from '../storage/db.js';
import { customers } from '../storage/customers.js';
import { organizations } from '../storage/organizations.js';
import { recordGeneratedPdf } from '../storage/quote-pdfs.js';
import { lockQuote, quotes } from '../storage/quotes.js';
import { taxes } from '../storage/taxes.js';
import type { OperationContext } from './context.js';
import { contentHashOf, quoteDocumentOf, type QuoteDocument } from './pdf/quote-pdf-content.js';
import { renderQuotePdf } from './pdf/quote-pdf.js';
import { bytesOf, logoOf } from './pdf/logo.js';
import { fileKeys } from './file-keys.js';
import { assertMayChangeQuote } from './quotes.js';

/**
 * Every quote has a PDF: the custom one uploaded through POST /quotes/:id/pdf when there is one,
 * else one generated from the quote. Generating a PDF for every quote a list touches would be
 * ruinous, so a list only hashes what each PDF would show (pdf/quote-pdf-content.ts); the PDF itself is
 * made when its link is first fetched, stored under that hash, and served from storage after.
 * A changed quote hashes differently, so its link names a new PDF; an unchanged one is never
 * generated twice, and two processes generating it at once store the same bytes.
 */

/** Where a quote's document gets what it shows besides the quote (GraphQL passes its batch loaders). */
export interface DocumentSources {
  organization(): Promise<Organization | null>;
  customer(id: string): Promise<Customer | null>;
  tax(id: string): Promise<Tax | null>;
}

export function storeSources(q: Queryable, orgId: string): DocumentSources {
  return {
    organization: () => organizations.findById(q, orgId, orgId),
    customer: (id) => customers.findById(q, orgId, id),
    tax: (id) => taxes.findById(q, orgId, id),
  };
}

export async function quoteDocument(quote: Quote, sources: DocumentSources): Promise<QuoteDocument> {
  const [organization, customer, tax] = await Promise.all([
    sources.organization(),
    sources.customer(quote.customerId),
    quote.taxId ? sources.tax(quote.taxId) : null,
  ]);
  if (!organization) throw errors.notFound('Organization', 'of this quote');
  return quoteDocumentOf(quote, organization, customer, tax);
}

/** The hash naming the PDF that would be generated for the quote as it is now. */
export async function generatedPdfHash(quote: Quote, sources: DocumentSources): Promise<string> {
  return contentHashOf(await quoteDocument(quote, sources));
}

export interface QuotePdf {
  bytes: Buffer;
  /** e.g. "Q-0042.pdf" */
  fileName: string;
}

const inFlight = new Map<string, Promise<Buffer>>();

/**
 * The generated PDF a link names: from storage when it was made before, else made now and stored.
 * NOT_FOUND when the quote is gone, or shows something else now than when the link was made.
 */
export async function generatedQuotePdf(deps: { db: Database; blobs: BlobStore }, orgId: string, quoteId: string, contentHash: string): Promise<QuotePdf> {
  const quote = await quotes.findById(deps.db, orgId, quoteId);
  if (!quote) throw errors.notFound('Quote', quoteId);
  const key = fileKeys.generatedQuotePdf(orgId, quoteId, contentHash);
  const fileName = `${quote.number.replace(/[^\w.-]+/g, '_')}.pdf`;
  const stored = await deps.blobs.get(key);
  if (stored) return { bytes: await bytesOf(stored.body), fileName };
  // One generation per key in this process; another process may generate the same bytes meanwhile.
  let generating = inFlight.get(key);
  if (!generating) {
    generating = generate(deps, orgId, quote, contentHash, key).finally(() => inFlight.delete(key));
    inFlight.set(key, generating);
  }
  return { bytes: await generating, fileName };
}

async function generate(deps: { db: Database; blobs: BlobStore }, orgId: string, quote: Quote, contentHash: string, key: string): Promise<Buffer> {
  const document = await quoteDocument(quote, storeSources(deps.db, orgId));
  if (contentHashOf(document) !== contentHash) {
    throw errors.notFound('Quote PDF', `${quote.number} as it was (the quote has changed since this link was made; ask for its pdfUrl again)`);
  }
  const bytes = await renderQuotePdf(document, await logoOf(deps.blobs, document.organization.logoKey));
  await deps.blobs.put(key, bytes, 'application/pdf');
  const replaced = await deps.db.transaction((tx) => recordGeneratedPdf(tx, orgId, quote.id, { contentHash, key, size: bytes.length }));
  if (replaced) await deps.blobs.delete(replaced).catch(() => {});
  return bytes;
}

/**
 * Removes a quote's custom PDF, so its generated one is its PDF again (same rules as uploading one:
 * a technician only on quotes they created). Returns the quote.
 */
export async function removeCustomQuotePdf(ctx: OperationContext, quoteId: string): Promise<Quote> {
  const orgId = ctx.viewer.orgId;
  const { quote, previousKey } = await ctx.db.transaction(async (tx) => {
    const locked = await lockQuote(tx, orgId, quoteId);
    if (!locked) throw errors.notFound('Quote', quoteId);
    assertMayChangeQuote(ctx, locked);
    if (!locked.pdfKey) return { quote: locked, previousKey: null };
    return { quote: (await quotes.update(tx, orgId, quoteId, { pdfKey: null }))!, previousKey: locked.pdfKey };
  });
  if (previousKey) await ctx.blobs.delete(previousKey).catch(() => {});
  return quote;
}
