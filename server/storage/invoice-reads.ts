import { invoiceLineResource, invoiceResource, type Invoice, type InvoiceLine } from '../../shared/index.js';
import type { Queryable } from './db.js';
import { recordTable } from './records.js';

/**
 * Invoices as delivery reads them: an invoice with its lines (for its PDF, page and email), the
 * invoice locked while its email is queued, and the time it was last sent.
 */
export const invoiceRecords = recordTable(invoiceResource);
export const invoiceLineRecords = recordTable(invoiceLineResource);

/** The invoice's lines in their order on it. */
export async function linesOfInvoice(q: Queryable, orgId: string, invoiceId: string): Promise<InvoiceLine[]> {
  const { rows } = await q.query(
    `select ${invoiceLineRecords.selectList('l', '$1')} from invoice_lines l where l.org_id = $1 and l.invoice_id = $2 order by l.position, l.id`,
    [orgId, invoiceId],
  );
  return rows.map(invoiceLineRecords.toRecord);
}

/** Locks an invoice for the rest of the transaction (its email queued once per sending). */
export async function lockInvoiceForDelivery(tx: Queryable, orgId: string, id: string): Promise<Invoice | null> {
  const { rows } = await tx.query(`select ${invoiceRecords.selectList(undefined, '$1')} from invoices where org_id = $1 and id = $2 for update`, [orgId, id]);
  return rows[0] ? invoiceRecords.toRecord(rows[0]) : null;
}

export async function markInvoiceSent(q: Queryable, orgId: string, id: string): Promise<void> {
  await q.query(`update invoices set sent_at = clock_timestamp() where org_id = $1 and id = $2`, [orgId, id]);
}
