import type { Queryable } from './db.js';
import { Params } from './lists/params.js';
import { moneyOut } from './money-sql.js';

/**
 * Invoices and payments as rows for an accounting import (server/operations/billing/README.md
 * lists the columns), read in keyset batches so an export of any size streams in flat memory.
 * Money is the decimal amount of the organization's currency; dates are its calendar days.
 */

const ORG_ZONE = `(select o.timezone from organizations o where o.id = $1)`;
const CUSTOMER_NAME = `trim(concat_ws(' ', c.first_name, c.last_name))`;

/** One line of a finalized invoice, with its invoice's fields repeated (an invoice without lines: one row, line cells empty). */
export interface InvoiceExportRow {
  invoiceNumber: string;
  invoiceId: string;
  invoiceAccountingId: string | null;
  status: string;
  customerId: string;
  customerName: string;
  customerAccountingName: string | null;
  customerAccountingId: string | null;
  issueDate: string;
  dueDate: string | null;
  periodStart: string | null;
  periodEnd: string | null;
  currency: string;
  lineNumber: number | null;
  lineSource: string | null;
  lineDate: string | null;
  description: string | null;
  itemAccountingId: string | null;
  quantity: number | null;
  unitPrice: number | null;
  lineAmount: number | null;
  taxRate: number | null;
  lineTax: number | null;
  subtotal: number;
  tax: number;
  total: number;
  amountPaid: number;
  balanceDue: number;
  voidReason: string | null;
}

/** Where the next invoice batch starts: after this invoice's issue date, number and id. */
export type InvoiceSeek = [string, string, string];

/**
 * Finalized invoices (OPEN, PAID, VOID: a void is exported so the accounting copy can be voided
 * too) issued in [from, to] (either open-ended), by issue date then number; `limit` invoices,
 * each with all its lines in position order.
 */
export async function invoiceExportBatch(
  q: Queryable,
  orgId: string,
  range: { from: string | null; to: string | null },
  after: InvoiceSeek | null,
  limit: number,
): Promise<{ rows: InvoiceExportRow[]; invoices: number; seek: InvoiceSeek | null }> {
  const p = new Params([orgId]);
  const where = [`i.org_id = $1`, `i.status <> 'DRAFT'`];
  if (range.from) where.push(`i.issue_date >= ${p.add(range.from)}::date`);
  if (range.to) where.push(`i.issue_date <= ${p.add(range.to)}::date`);
  if (after) where.push(`(i.issue_date, i.number, i.id) > (${p.add(after[0])}::date, ${p.add(after[1])}::text, ${p.add(after[2])}::text)`);
  const money = (column: string) => moneyOut(column, '$1');
  const { rows } = await q.query<InvoiceExportRow & { seekDate: string }>(
    `with batch as (
       select i.* from invoices i where ${where.join(' and ')} order by i.issue_date, i.number, i.id limit ${p.add(limit)}
     )
     select i.number as "invoiceNumber", i.id as "invoiceId", i.accounting_id as "invoiceAccountingId", i.status,
            i.customer_id as "customerId", ${CUSTOMER_NAME} as "customerName", c.accounting_name as "customerAccountingName",
            c.accounting_id as "customerAccountingId", i.issue_date as "issueDate", i.issue_date::text as "seekDate", i.due_date as "dueDate",
            i.period_start as "periodStart", i.period_end as "periodEnd", i.currency,
            l.position as "lineNumber", l.source_type as "lineSource", l.date as "lineDate", l.description,
            it.accounting_id as "itemAccountingId", l.quantity, ${money('l.unit_price')} as "unitPrice", ${money('l.amount')} as "lineAmount",
            l.tax_rate as "taxRate", ${money('l.tax_amount')} as "lineTax",
            ${money('i.subtotal')} as subtotal, ${money('i.tax')} as tax, ${money('i.total')} as total,
            ${money('i.amount_paid')} as "amountPaid", ${money('i.balance_due')} as "balanceDue", i.void_reason as "voidReason"
       from batch i
       left join customers c on c.org_id = i.org_id and c.id = i.customer_id
       left join invoice_lines l on l.org_id = i.org_id and l.invoice_id = i.id
       left join inventory_items it on it.org_id = l.org_id and it.id = l.item_id
      order by i.issue_date, i.number, i.id, l.position, l.id`,
    p.values,
  );
  const last = rows.at(-1);
  const invoices = new Set(rows.map((r) => r.invoiceId)).size;
  return {
    rows: rows.map(({ seekDate: _, ...row }) => row),
    invoices,
    seek: last ? [last.seekDate, last.invoiceNumber, last.invoiceId] : null,
  };
}

/** One application of a payment (a payment with none applied: one row, invoice cells empty). */
export interface PaymentExportRow {
  paymentId: string;
  paymentAccountingId: string | null;
  kind: string;
  date: string;
  receivedAt: string;
  customerId: string;
  customerName: string;
  customerAccountingName: string | null;
  customerAccountingId: string | null;
  method: string;
  reference: string | null;
  currency: string;
  amount: number;
  unapplied: number;
  invoiceNumber: string | null;
  invoiceAccountingId: string | null;
  appliedAmount: number | null;
  appliedDate: string | null;
  reversesPaymentId: string | null;
  reason: string | null;
  paymentProcessorId: string | null;
}

export type PaymentSeek = [string, string];

/**
 * Payments and reversals received in [from, to] (the organization's days; either open-ended), by
 * time received; `limit` payments, each with its applications in the order they were made.
 */
export async function paymentExportBatch(
  q: Queryable,
  orgId: string,
  range: { from: string | null; to: string | null },
  after: PaymentSeek | null,
  limit: number,
): Promise<{ rows: PaymentExportRow[]; payments: number; seek: PaymentSeek | null }> {
  const p = new Params([orgId]);
  const where = [`p.org_id = $1`];
  const day = `(p.received_at at time zone ${ORG_ZONE})::date`;
  if (range.from) where.push(`${day} >= ${p.add(range.from)}::date`);
  if (range.to) where.push(`${day} <= ${p.add(range.to)}::date`);
  if (after) where.push(`(p.received_at, p.id) > (${p.add(after[0])}::timestamptz, ${p.add(after[1])}::text)`);
  const money = (column: string) => moneyOut(column, '$1');
  const { rows } = await q.query<PaymentExportRow & { seekAt: string }>(
    `with batch as (
       select p.*, p.amount - coalesce((select sum(x.amount) from payment_applications x where x.org_id = p.org_id and x.payment_id = p.id), 0) as left_over
         from payments p where ${where.join(' and ')} order by p.received_at, p.id limit ${p.add(limit)}
     )
     select p.id as "paymentId", p.accounting_id as "paymentAccountingId", p.kind,
            (p.received_at at time zone ${ORG_ZONE})::date as date, p.received_at as "receivedAt", p.received_at::text as "seekAt",
            p.customer_id as "customerId", ${CUSTOMER_NAME} as "customerName", c.accounting_name as "customerAccountingName",
            c.accounting_id as "customerAccountingId", p.method, p.reference, p.currency,
            ${money('p.amount')} as amount, ${money('p.left_over')} as unapplied,
            i.number as "invoiceNumber", i.accounting_id as "invoiceAccountingId", ${money('a.amount')} as "appliedAmount",
            (a.applied_at at time zone ${ORG_ZONE})::date as "appliedDate",
            p.reverses_payment_id as "reversesPaymentId", p.reason, p.payment_processor_id as "paymentProcessorId"
       from batch p
       left join customers c on c.org_id = p.org_id and c.id = p.customer_id
       left join payment_applications a on a.org_id = p.org_id and a.payment_id = p.id
       left join invoices i on i.org_id = a.org_id and i.id = a.invoice_id
      order by p.received_at, p.id, a.created_at, a.id`,
    p.values,
  );
  const last = rows.at(-1);
  return {
    rows: rows.map(({ seekAt: _, ...row }) => row),
    payments: new Set(rows.map((r) => r.paymentId)).size,
    seek: last ? [last.seekAt, last.paymentId] : null,
  };
}
