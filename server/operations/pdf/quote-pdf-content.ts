import { createHash } from 'node:crypto';
import type { Customer, Organization, Quote, Tax } from '../../../shared/index.js';

/**
 * Everything a quote's PDF shows, and nothing else: the one input of the renderer (quote-pdf.ts).
 * Its hash names the stored PDF, so a change to anything shown (a line, the customer's address, the
 * organization's logo) names a new PDF, and a change to anything not shown (the quote's status)
 * does not. TEMPLATE is part of the hash: raise it when the layout changes, so stored PDFs made
 * with the old layout are not served as the new.
 */
const TEMPLATE = 1;

export interface QuoteDocument {
  template: number;
  organization: {
    name: string;
    contact: string[];
    currency: string;
    timezone: string;
    /** Object key of the logo (each upload has its own key), or null. */
    logoKey: string | null;
  };
  quote: {
    number: string;
    title: string;
    /** Also the PDF's creation date, so the same quote gives the same bytes. */
    createdAt: string;
    validUntil: string | null;
    lines: { description: string; quantity: number; unitPrice: number; amount: number }[];
    subtotal: number;
    tax: number;
    taxName: string | null;
    total: number;
    notes: string | null;
    terms: string | null;
  };
  customer: { name: string; address: string[] } | null;
}

const joined = (parts: (string | null | undefined)[], separator: string) => parts.filter((p) => p && p.trim()).join(separator);

export function quoteDocumentOf(quote: Quote, organization: Organization, customer: Customer | null, tax: Tax | null): QuoteDocument {
  const address = organization.address;
  return {
    template: TEMPLATE,
    organization: {
      name: organization.name,
      contact: [
        joined([address?.street, joined([address?.city, joined([address?.state, address?.zipCode], ' ')], ', ')], ', '),
        joined([organization.phone, organization.email], ' · '),
        organization.website ?? '',
      ].filter(Boolean),
      currency: organization.currency,
      timezone: organization.timezone,
      logoKey: organization.logoKey,
    },
    quote: {
      number: quote.number,
      title: quote.title,
      createdAt: quote.createdAt,
      validUntil: quote.validUntil,
      lines: quote.lineItems.map(({ description, quantity, unitPrice, amount }) => ({ description, quantity, unitPrice, amount })),
      subtotal: quote.subtotal,
      tax: quote.tax,
      taxName: tax?.name ?? null,
      total: quote.total,
      notes: quote.notes,
      terms: quote.terms,
    },
    customer: customer && {
      name: joined([customer.firstName, customer.lastName], ' '),
      address: [customer.streetAddress ?? '', joined([customer.city, joined([customer.state, customer.zipCode], ' ')], ', ')].filter(Boolean),
    },
  };
}

/** The hash that names a document's PDF: SHA-256 of its JSON, keys in a fixed order. */
export function contentHashOf(document: QuoteDocument): string {
  return createHash('sha256').update(JSON.stringify(document)).digest('hex').slice(0, 40);
}
