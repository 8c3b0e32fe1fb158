import type { Customer, Invoice, InvoiceLine, Organization } from '../../../shared/index.js';

/**
 * Everything an invoice's PDF (and its page) shows, and nothing else: the one input of the
 * renderer (invoice-pdf.ts). Lines are grouped by the visit they belong to, in date order, each
 * visit's chemicals and parts under it; lines of no visit (a month's flat rate, a quote's lines, a
 * manual adjustment) come after, under "Other charges".
 */
export interface InvoiceDocument {
  organization: {
    name: string;
    contact: string[];
    timezone: string;
    /** Object key of the logo, or null. */
    logoKey: string | null;
  };
  invoice: {
    /** Null while a draft: the document then says DRAFT where the number goes. */
    number: string | null;
    status: Invoice['status'];
    currency: string;
    issueDate: string | null;
    dueDate: string | null;
    periodStart: string | null;
    periodEnd: string | null;
    /** The PDF's creation date: the invoice's, so the same invoice gives the same bytes. */
    createdAt: string;
    subtotal: number;
    tax: number;
    /** e.g. "Tax (Sales tax 8.25%)", naming each rate applied. */
    taxLabel: string;
    total: number;
    amountPaid: number;
    balanceDue: number;
    notes: string | null;
  };
  customer: {
    name: string;
    /** Who the invoice is addressed to and where: the billing name and address. */
    billTo: string[];
    /** Where the work was done, when it is not the billing address. */
    serviceAddress: string[] | null;
  };
  groups: InvoiceLineGroup[];
}

export interface InvoiceLineGroup {
  /** "Visit on <date>" (the date as YYYY-MM-DD, formatted by the renderer), or null for other charges. */
  visitDate: string | null;
  lines: DocumentLine[];
}

export interface DocumentLine {
  description: string;
  quantity: number;
  unitPrice: number;
  amount: number;
  /** Stock used on a visit (a chemical or a part), shown under the visit. */
  material: boolean;
}

const joined = (parts: (string | null | undefined)[], separator: string) => parts.filter((p) => p && p.trim()).join(separator);

/** Street, then "City, ST 12345", leaving out what is missing. */
const addressLines = (street: string | null | undefined, city: string | null | undefined, state: string | null | undefined, zip: string | null | undefined) =>
  [street ?? '', joined([city, joined([state, zip], ' ')], ', ')].filter((l) => l.trim());

export function organizationContact(organization: Organization): string[] {
  const a = organization.address;
  return [
    joined([a?.street, joined([a?.city, joined([a?.state, a?.zipCode], ' ')], ', ')], ', '),
    joined([organization.phone, organization.email], ' · '),
    organization.website ?? '',
  ].filter(Boolean);
}

function customerBlock(customer: Customer): InvoiceDocument['customer'] {
  const name = joined([customer.firstName, customer.lastName], ' ');
  const service = addressLines(customer.streetAddress, customer.city, customer.state, customer.zipCode);
  const billing = addressLines(customer.billingAddress, customer.billingCity, customer.billingState, customer.billingZipCode);
  const ownBilling = !customer.useAddressForBilling && billing.length > 0;
  const billName = joined([customer.billingFirstName, customer.billingLastName], ' ') || name;
  const billTo = [billName, ...(ownBilling ? billing : service)];
  const sameAsBilling = !ownBilling || billing.join('\n') === service.join('\n');
  return { name, billTo, serviceAddress: sameAsBilling || !service.length ? null : service };
}

/** Lines of each visit by date, then the rest, each in the invoice's order. */
export function groupLines(lines: readonly InvoiceLine[]): InvoiceLineGroup[] {
  const sorted = [...lines].sort((a, b) => a.position - b.position);
  const visits = new Map<string, InvoiceLine[]>();
  const other: InvoiceLine[] = [];
  for (const line of sorted) {
    const key = line.serviceId ? `${line.date ?? ''}\n${line.serviceId}` : null;
    if (!key) other.push(line);
    else visits.set(key, [...(visits.get(key) ?? []), line]);
  }
  // The visit line itself first, its materials after it.
  const visitFirst = (a: InvoiceLine, b: InvoiceLine) => Number(a.sourceType !== 'VISIT') - Number(b.sourceType !== 'VISIT');
  const groups: InvoiceLineGroup[] = [...visits.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, group]) => ({ visitDate: key.split('\n')[0] || null, lines: group.sort(visitFirst).map(documentLine) }));
  if (other.length) groups.push({ visitDate: null, lines: other.map(documentLine) });
  return groups;
}

const documentLine = (line: InvoiceLine): DocumentLine => ({
  description: line.description,
  quantity: line.quantity,
  unitPrice: line.unitPrice,
  amount: line.amount,
  material: line.sourceType === 'STOCK_MOVEMENT',
});

const percent = new Intl.NumberFormat('en-US', { maximumFractionDigits: 4 });

/** "Tax", or "Tax (Sales tax 8.25%, Water 2%)" naming each rate the lines applied. */
export function taxLabelOf(lines: readonly InvoiceLine[], taxNames: ReadonlyMap<string, string>): string {
  const rates = new Map<string, string>();
  for (const line of lines) {
    if (!line.taxRate) continue;
    const name = line.taxId ? taxNames.get(line.taxId) : undefined;
    const label = joined([name, `${percent.format(line.taxRate)}%`], ' ');
    rates.set(label, label);
  }
  return rates.size ? `Tax (${[...rates.keys()].join(', ')})` : 'Tax';
}

export function invoiceDocumentOf(
  invoice: Invoice,
  lines: readonly InvoiceLine[],
  organization: Organization,
  customer: Customer,
  taxNames: ReadonlyMap<string, string>,
): InvoiceDocument {
  return {
    organization: { name: organization.name, contact: organizationContact(organization), timezone: organization.timezone, logoKey: organization.logoKey },
    invoice: {
      number: invoice.number,
      status: invoice.status,
      currency: invoice.currency,
      issueDate: invoice.issueDate,
      dueDate: invoice.dueDate,
      periodStart: invoice.periodStart,
      periodEnd: invoice.periodEnd,
      createdAt: invoice.createdAt,
      subtotal: invoice.subtotal,
      tax: invoice.tax,
      taxLabel: taxLabelOf(lines, taxNames),
      total: invoice.total,
      amountPaid: invoice.amountPaid,
      balanceDue: invoice.balanceDue,
      notes: invoice.notes,
    },
    customer: customerBlock(customer),
    groups: groupLines(lines),
  };
}
