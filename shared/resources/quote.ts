import { defineShape, f } from '../schema/fields.js';
import { defineResource, type RecordOf } from '../schema/resource.js';
import { QuotePhotoShape } from './photos.js';

export const QUOTE_STATUSES = ['DRAFT', 'SENT', 'ACCEPTED', 'DECLINED', 'EXPIRED'] as const;
export type QuoteStatus = (typeof QUOTE_STATUSES)[number];

/**
 * The quote state machine, shared by the server (which enforces it) and the office app (which
 * offers only the moves it allows). DRAFT is the only editable state; a SENT quote is answered by
 * the customer (ACCEPTED, DECLINED) or runs out (EXPIRED). Terminal states do not move.
 */
export const QUOTE_TRANSITIONS: Readonly<Record<QuoteStatus, readonly QuoteStatus[]>> = {
  DRAFT: ['SENT'],
  SENT: ['ACCEPTED', 'DECLINED', 'EXPIRED'],
  ACCEPTED: [],
  DECLINED: [],
  EXPIRED: [],
};

export const QuoteLineItemShape = defineShape('QuoteLineItem', {
  id: f.id(),
  description: f.string().max(2000),
  quantity: f.float().doc('Units, may be fractional (e.g. 2.5 hours)'),
  unitPrice: f.money(),
  amount: f.money().owner('server').doc('quantity x unitPrice, rounded to cents by the server'),
});

/**
 * A priced proposal to a customer. Number, amounts and acceptedAt are always computed by the
 * server, also for a quote first created offline; status moves through the server's state machine.
 */
export const quoteResource = defineResource({
  name: 'Quote',
  table: 'quotes',
  collection: 'quotes',
  relations: { customer: 'Customer!', pdfUrl: 'String' },
  fields: {
    number: f.string().owner('server').doc('Organization quotePrefix plus a sequence'),
    title: f.string().max(500),
    customerId: f.id(),
    status: f.enum('QuoteStatus', QUOTE_STATUSES).owner('server'),
    subtotal: f.money().owner('server'),
    tax: f.money().owner('server'),
    total: f.money().owner('server'),
    taxId: f.id().nullable(),
    validUntil: f.dateTime().nullable(),
    acceptedAt: f.dateTime().nullable().owner('server'),
    lineItems: f.list(f.object(QuoteLineItemShape)),
    notes: f.string().nullable().max(20000),
    terms: f.string().nullable().max(20000),
    photos: f.list(f.object(QuotePhotoShape)).merge('unionById'),
    pdfKey: f.string().nullable().owner('server').internal().doc('Object key of the PDF'),
    createdById: f.id().nullable().owner('server').doc('User who created the quote'),
  },
});
export type Quote = RecordOf<typeof quoteResource>;
