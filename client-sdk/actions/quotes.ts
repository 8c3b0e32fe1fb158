import type { Quote } from '../../shared/index.js';
import { badInput } from '../errors.js';
import type { Replica } from './replica.js';
import { newId } from './validate.js';

/**
 * A quote made in the field. Number, amounts and status are the server's: the device shows its
 * own estimate (in cents, like the server) until the pushed quote comes back numbered and priced.
 */
export interface QuoteInput {
  customerId: string;
  title: string;
  lineItems?: { description: string; quantity: number; unitPrice: number }[];
  taxId?: string | null;
  validUntil?: string | null;
  notes?: string | null;
  terms?: string | null;
}

export async function createQuote({ changes }: Replica, input: QuoteInput): Promise<Quote> {
  if (!input || typeof input.title !== 'string' || !input.title.trim()) throw badInput('createQuote: title is required');
  const lines = (input.lineItems ?? []).map((line) => {
    if (!(line.quantity > 0)) throw badInput('createQuote: every line quantity must be greater than 0');
    return { id: newId(), ...line, amount: Math.round(line.quantity * Math.round(line.unitPrice * 100)) / 100 };
  });
  const subtotal = Math.round(lines.reduce((sum, l) => sum + l.amount * 100, 0)) / 100;
  const doc = {
    id: newId(),
    number: '',
    title: input.title,
    customerId: input.customerId,
    status: 'DRAFT' as const,
    subtotal,
    tax: 0,
    total: subtotal,
    taxId: input.taxId ?? null,
    validUntil: input.validUntil ?? null,
    acceptedAt: null,
    lineItems: lines,
    notes: input.notes ?? null,
    terms: input.terms ?? null,
    photos: [],
    pdfKey: null,
    createdById: null,
  };
  return changes.insert('quotes', doc, 'createQuote');
}
