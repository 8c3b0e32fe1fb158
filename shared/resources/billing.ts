import { f } from '../schema/fields.js';
import { defineResource, type RecordOf } from '../schema/resource.js';

/**
 * Billing: invoices made on the server from the work recorded (visits, doses and stock used, an
 * accepted quote, a month's flat rate), and payments, an append-only ledger applied to them.
 * Amounts are in the organization's currency, stored as minor units and read as decimals at the
 * currency's precision (shared/money.ts); server/operations/billing/README.md tells the whole story.
 */

/**
 * DRAFT: being put together, its lines and money may change, it has no number. OPEN: finalized
 * (numbered, issued, its money frozen), some of it still owed. PAID: nothing owed. VOID: withdrawn;
 * the work it billed may be billed again. Partly paid and overdue are read from the amounts and the
 * due date, not statuses of their own.
 */
export const INVOICE_STATUSES = ['DRAFT', 'OPEN', 'PAID', 'VOID'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/** How an invoice came about: the month's run, a quote converted, or put together by hand. */
export const INVOICE_ORIGINS = ['GENERATED', 'QUOTE', 'MANUAL'] as const;
export type InvoiceOrigin = (typeof INVOICE_ORIGINS)[number];

/**
 * What a line bills; each source is billed by at most one live line (a unique index), so no fact
 * is billed twice whatever runs twice. VISIT: a completed visit (sourceId: the visit). STOCK_MOVEMENT:
 * stock used on a visit, a dose or a part (the movement). QUOTE_LINE: a line of an accepted quote
 * (`<quote id>/<line id>`). FLAT_RATE: a month of a MONTHLY_FLAT customer (`<customer id>/<YYYY-MM>`).
 * MANUAL: typed by the office (no source).
 */
export const INVOICE_LINE_SOURCES = ['VISIT', 'STOCK_MOVEMENT', 'QUOTE_LINE', 'FLAT_RATE', 'MANUAL'] as const;
export type InvoiceLineSource = (typeof INVOICE_LINE_SOURCES)[number];

/** Tax rounded on each line then summed, or summed per rate then rounded once (the default). */
export const TAX_ROUNDINGS = ['PER_INVOICE', 'PER_LINE'] as const;
export type TaxRounding = (typeof TAX_ROUNDINGS)[number];
export const DEFAULT_TAX_ROUNDING: TaxRounding = 'PER_INVOICE';

export const PAYMENT_METHODS = ['CASH', 'CHECK', 'CARD', 'ACH', 'OTHER'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

/** A payment received, or the reversal of one (a bounced check, a refund): an entry of its own. */
export const PAYMENT_KINDS = ['PAYMENT', 'REVERSAL'] as const;
export type PaymentKind = (typeof PAYMENT_KINDS)[number];

/**
 * How a customer's regular service is billed (Customer.billingMethod; null: PER_VISIT).
 * PER_VISIT: each completed visit at the customer's quoted price for its service type, else their
 * service rate. MONTHLY_FLAT: one line a month at service.monthlyRate, the month's visits listed at
 * no charge.
 */
export const BILLING_METHODS = ['PER_VISIT', 'MONTHLY_FLAT'] as const;
export type BillingMethod = (typeof BILLING_METHODS)[number];
export const DEFAULT_BILLING_METHOD: BillingMethod = 'PER_VISIT';

/** How often a customer is billed (Customer.billingFrequency; null: MONTHLY). */
export const BILLING_FREQUENCIES = ['MONTHLY'] as const;
export type BillingFrequency = (typeof BILLING_FREQUENCIES)[number];

/**
 * Chemicals and parts used on a visit (the organization's chemicalBilling; null: INCLUDED):
 * INCLUDED in the service price (listed at no charge), at the item's UNIT_PRICE, or at its cost
 * price plus chemicalMarkupPercent (COST_PLUS).
 */
export const CHEMICAL_BILLING = ['INCLUDED', 'UNIT_PRICE', 'COST_PLUS'] as const;
export type ChemicalBilling = (typeof CHEMICAL_BILLING)[number];

/** When a month's flat rate is billed (the organization's flatRateTiming; null: ARREARS): after the month, or before it. */
export const FLAT_RATE_TIMINGS = ['ARREARS', 'ADVANCE'] as const;
export type FlatRateTiming = (typeof FLAT_RATE_TIMINGS)[number];

/**
 * A visit's billingStatus once an invoice holds it, and only then: billing writes it (and takes it
 * back when the invoice is voided or the draft line removed); no one may write it by hand.
 */
export const VISIT_INVOICED = 'INVOICED';
/** A visit the office marked not to bill: the month's run leaves it out (and says so). */
export const VISIT_NO_CHARGE = 'NO_CHARGE';

const server = () => f.money().owner('server');

/** An invoice to one customer for a period (or for a quote, or by hand). */
export const invoiceResource = defineResource({
  name: 'Invoice',
  table: 'invoices',
  collection: 'invoices',
  relations: {
    customer: 'Customer!',
    lines: '[InvoiceLine!]!',
    applications: '[PaymentApplication!]!',
    overdue: 'Boolean!',
    partlyPaid: 'Boolean!',
    replacedBy: 'Invoice',
    pdfUrl: 'String',
  },
  fields: {
    number: f.string().nullable().owner('server').doc('invoicePrefix plus the next number, given when finalized (a draft has none)'),
    customerId: f.id().owner('server'),
    status: f.enum('InvoiceStatus', INVOICE_STATUSES).owner('server'),
    origin: f.enum('InvoiceOrigin', INVOICE_ORIGINS).owner('server'),
    periodStart: f.date().nullable().doc('First day billed, in the organization time zone'),
    periodEnd: f.date().nullable().doc('Last day billed (included)'),
    currency: f.string().owner('server').doc("ISO 4217 code: the organization's currency when the invoice was made"),
    subtotal: server(),
    tax: server(),
    total: server(),
    amountPaid: server().doc('Sum of the payment applications (reversals subtract)'),
    balanceDue: server().doc('total - amountPaid'),
    taxRounding: f.enum('TaxRounding', TAX_ROUNDINGS).owner('server').doc('How its tax was rounded, kept so the total never changes when the rule does'),
    issueDate: f.date().nullable().owner('server').doc('The day it was finalized, in the organization time zone'),
    dueDate: f.date().nullable().owner('server').doc('issueDate + invoiceDueDays'),
    notes: f.string().nullable().max(5000),
    accountingId: f.string().nullable().max(200).doc('Its id in the accounting system (ADMIN and API tokens set it)'),
    quoteId: f.id().nullable().owner('server').doc('The accepted quote it was converted from'),
    replacesInvoiceId: f.id().nullable().owner('server').doc('The voided invoice this one reissues'),
    finalizedAt: f.dateTime().nullable().owner('server'),
    sentAt: f.dateTime().nullable().owner('server').doc('When it was last emailed'),
    voidedAt: f.dateTime().nullable().owner('server'),
    voidReason: f.string().nullable().max(1000).owner('server'),
    createdById: f.id().nullable().owner('server').internal(),
  },
});
export type Invoice = RecordOf<typeof invoiceResource>;

/** One line of an invoice; `sourceType` and `sourceId` say what it bills. */
export const invoiceLineResource = defineResource({
  name: 'InvoiceLine',
  table: 'invoice_lines',
  collection: null,
  fields: {
    invoiceId: f.id().owner('server'),
    position: f.int().owner('server').doc('Its place on the invoice'),
    sourceType: f.enum('InvoiceLineSource', INVOICE_LINE_SOURCES).owner('server'),
    sourceId: f.string().nullable().owner('server').doc('What it bills (see InvoiceLineSource); null for a MANUAL line'),
    serviceId: f.id().nullable().owner('server').doc('The visit it belongs to (a visit, or stock used on one)'),
    date: f.date().nullable().owner('server').doc('The day of the work (a visit), or the first day of a flat-rate month'),
    itemId: f.id().nullable().owner('server').doc('The inventory item of stock used'),
    description: f.string().max(2000),
    quantity: f.float(),
    unitPrice: f.money(),
    amount: server().doc('quantity x unitPrice, rounded to the minor unit'),
    taxId: f.id().nullable(),
    taxRate: f.float().owner('server').doc('Percent of the tax applied, as it was when the line was priced (0: none)'),
    taxAmount: f.money().nullable().owner('server').doc("The line's own tax, rounded, on a PER_LINE invoice; null on a PER_INVOICE one"),
    released: f.boolean().owner('server').internal().doc('Its invoice was voided: what it billed may be billed again'),
  },
});
export type InvoiceLine = RecordOf<typeof invoiceLineResource>;

/**
 * Money received from a customer, or a reversal of such a payment: a ledger entry, never edited
 * or deleted (only its accounting link fields are filled in later). Its id may be made by the
 * device that took it: recorded once by id, however often it is sent.
 */
export const paymentResource = defineResource({
  name: 'Payment',
  table: 'payments',
  collection: 'payments',
  relations: { customer: 'Customer!', applications: '[PaymentApplication!]!', unapplied: 'Float!', reversedBy: 'Payment' },
  fields: {
    customerId: f.id(),
    kind: f.enum('PaymentKind', PAYMENT_KINDS).owner('server'),
    amount: f.money().doc('What was received; a reversal carries the negative of what it reverses'),
    currency: f.string().max(3).doc("ISO 4217 code; must be the organization's"),
    method: f.enum('PaymentMethod', PAYMENT_METHODS),
    reference: f.string().nullable().max(200).doc('Check number, receipt number, ...'),
    receivedAt: f.dateTime(),
    invoiceIds: f.list(f.id()).nullable().doc('The invoices the payer named, as recorded (paid first, in this order)'),
    reversesPaymentId: f.id().nullable().owner('server').doc('On a reversal: the payment it reverses'),
    reason: f.string().nullable().max(1000).owner('server').doc('Why a reversal was made'),
    paymentProcessorId: f.string().nullable().max(200).doc('Its id at the payment processor (card payments through a processor are not taken here yet)'),
    accountingId: f.string().nullable().max(200),
    createdById: f.id().nullable().owner('server'),
  },
});
export type Payment = RecordOf<typeof paymentResource>;

/**
 * Part of a payment put against an invoice. Appended, never changed: a reversal appends the
 * negative of each application of what it reverses, and credit (what a payment left over) is
 * applied to a later invoice by a further application of the same payment.
 */
export const paymentApplicationResource = defineResource({
  name: 'PaymentApplication',
  table: 'payment_applications',
  collection: null,
  relations: { invoice: 'Invoice!', payment: 'Payment!' },
  fields: {
    paymentId: f.id().owner('server'),
    invoiceId: f.id().owner('server'),
    amount: f.money().owner('server'),
    appliedAt: f.dateTime().owner('server').doc('When it counts from: the payment received, or credit applied'),
  },
});
export type PaymentApplication = RecordOf<typeof paymentApplicationResource>;
