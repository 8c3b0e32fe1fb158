import { invoiceLineResource, invoiceResource, type Invoice } from '../../shared/index.js';
import type { Database } from '../../server/storage/db.js';
import { recordTable } from '../../server/storage/records.js';
import { newId } from '../../server/operations/ids.js';

/**
 * OPEN invoices for the payment tests, written through the storage layer's record table (no SQL
 * here): a finalized invoice with its money as billing would leave it, before billing's own
 * finalize is at hand. Once it is, these tests can make their invoices through it instead.
 */
const invoices = recordTable(invoiceResource);
const invoiceLines = recordTable(invoiceLineResource);

let sequence = 0;

export interface OpenInvoiceFixture {
  customerId: string;
  /** Decimal, in the organization's currency. */
  total: number;
  issueDate: string;
  dueDate: string;
  currency?: string;
  status?: 'OPEN' | 'DRAFT';
  number?: string;
  accountingId?: string;
  /** Manual lines (the total is given separately, as billing would have summed them). */
  lines?: { description: string; quantity: number; unitPrice: number; amount: number; itemId?: string; date?: string }[];
}

export async function openInvoice(db: Database, orgId: string, fixture: OpenInvoiceFixture): Promise<Invoice> {
  const draft = fixture.status === 'DRAFT';
  sequence += 1;
  const invoice = await invoices.insert(db, orgId, {
    id: newId(),
    number: draft ? null : (fixture.number ?? `TEST-${String(sequence).padStart(5, '0')}`),
    customerId: fixture.customerId,
    status: fixture.status ?? 'OPEN',
    origin: 'MANUAL',
    periodStart: null,
    periodEnd: null,
    currency: fixture.currency ?? 'USD',
    subtotal: fixture.total,
    tax: 0,
    total: fixture.total,
    amountPaid: 0,
    balanceDue: fixture.total,
    taxRounding: 'PER_INVOICE',
    issueDate: draft ? null : fixture.issueDate,
    dueDate: draft ? null : fixture.dueDate,
    notes: null,
    accountingId: fixture.accountingId ?? null,
    quoteId: null,
    replacesInvoiceId: null,
    finalizedAt: draft ? null : `${fixture.issueDate}T12:00:00.000Z`,
    sentAt: null,
    voidedAt: null,
    voidReason: null,
    createdById: null,
  });
  for (const [position, line] of (fixture.lines ?? []).entries()) {
    await invoiceLines.insert(db, orgId, {
      id: newId(),
      invoiceId: invoice.id,
      position,
      sourceType: 'MANUAL',
      sourceId: null,
      serviceId: null,
      date: line.date ?? null,
      itemId: line.itemId ?? null,
      description: line.description,
      quantity: line.quantity,
      unitPrice: line.unitPrice,
      amount: line.amount,
      taxId: null,
      taxRate: 0,
      taxAmount: null,
      released: false,
    });
  }
  return invoice;
}

/** An invoice as stored now (its amount paid, balance and status after payments). */
export function storedInvoice(db: Database, orgId: string, id: string): Promise<Invoice | null> {
  return invoices.findById(db, orgId, id);
}
