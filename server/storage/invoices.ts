import {
  invoiceLineResource,
  invoiceResource,
  paymentApplicationResource,
  type Customer,
  type Invoice,
  type InvoiceLine,
  type InvoiceLineSource,
  type InvoiceStatus,
  type PaymentApplication,
} from '../../shared/index.js';
import { customers } from './customers.js';
import type { Queryable } from './db.js';
import { readPage, type PageRows, type PageWindow, type SortKey } from './lists/keyset.js';
import { Params } from './lists/params.js';
import { recordTable } from './records.js';

/**
 * Invoices and their lines (server/operations/billing/README.md). Records carry money as decimals,
 * like every record; the statements billing computes with (lines to insert, totals to set) take and
 * give integer minor units, the form its arithmetic is done in.
 */
export const invoices = recordTable(invoiceResource);
export const invoiceLines = recordTable(invoiceLineResource);
const applications = recordTable(paymentApplicationResource);

export interface InvoiceFilter {
  status?: InvoiceStatus | null;
  customerId?: string | null;
  /** OPEN and due before `today`, or (false) anything else. */
  overdue?: { today: string; value: boolean } | null;
  periodStart?: string | null;
  accountingId?: string | null;
}

/** Newest first, as the office reads them; matches invoices_newest and invoices_by_customer. */
export const INVOICE_SORT_KEYS: readonly SortKey[] = [
  { expr: 'i.created_at', type: 'timestamptz', desc: true },
  { expr: 'i.id', type: 'text', desc: true },
];

const OVERDUE = (today: string) => `(i.status = 'OPEN' and i.due_date < ${today}::date)`;

export function invoicePage(q: Queryable, orgId: string, filter: InvoiceFilter, window: PageWindow): Promise<PageRows<Invoice>> {
  const p = new Params([orgId]);
  const where = ['i.org_id = $1'];
  if (filter.status) where.push(`i.status = ${p.add(filter.status)}`);
  if (filter.customerId) where.push(`i.customer_id = ${p.add(filter.customerId)}`);
  if (filter.periodStart) where.push(`i.period_start = ${p.add(filter.periodStart)}::date`);
  if (filter.accountingId) where.push(`i.accounting_id = ${p.add(filter.accountingId)}`);
  if (filter.overdue) {
    const condition = OVERDUE(p.add(filter.overdue.today));
    where.push(filter.overdue.value ? condition : `not ${condition}`);
  }
  return readPage(q, {
    select: invoices.selectList('i', '$1'),
    from: 'invoices i',
    where,
    params: p,
    keys: INVOICE_SORT_KEYS,
    window,
    toRecord: invoices.toRecord,
  });
}

/** Locks an invoice for a read-modify-write in this transaction. */
export async function lockInvoice(tx: Queryable, orgId: string, id: string): Promise<Invoice | null> {
  const { rows } = await tx.query(`select ${invoices.selectList(undefined, '$1')} from invoices where org_id = $1 and id = $2 for update`, [orgId, id]);
  return rows[0] ? invoices.toRecord(rows[0]) : null;
}

/** Several invoices locked in id order (the order every caller takes them in, so none deadlock). */
export async function lockInvoices(tx: Queryable, orgId: string, ids: readonly string[]): Promise<Invoice[]> {
  const { rows } = await tx.query(
    `select ${invoices.selectList(undefined, '$1')} from invoices where org_id = $1 and id = any($2::text[]) order by id for update`,
    [orgId, ids],
  );
  return rows.map(invoices.toRecord);
}

export async function invoicesByIds(q: Queryable, orgId: string, ids: readonly string[]): Promise<Invoice[]> {
  const { rows } = await q.query(`select ${invoices.selectList(undefined, '$1')} from invoices where org_id = $1 and id = any($2::text[])`, [orgId, ids]);
  return rows.map(invoices.toRecord);
}

/** Live customers by id (an invoice's email goes to its customer, if still there). */
export async function liveCustomersByIds(q: Queryable, orgId: string, ids: readonly string[]): Promise<Customer[]> {
  if (!ids.length) return [];
  const { rows } = await q.query(`select ${customers.selectList(undefined, '$1')} from customers where org_id = $1 and id = any($2::text[]) and not _deleted`, [orgId, ids]);
  return rows.map(customers.toRecord);
}

/** The ids of the organization's DRAFTs, oldest first, at most `limit` (finalize all). */
export async function draftIds(q: Queryable, orgId: string, limit: number): Promise<string[]> {
  const { rows } = await q.query<{ id: string }>(`select id from invoices where org_id = $1 and status = 'DRAFT' order by created_at, id limit $2`, [orgId, limit]);
  return rows.map((r) => r.id);
}

/** Lines of invoices, in their order on each invoice. */
export async function linesOfInvoices(q: Queryable, orgId: string, invoiceIds: readonly string[]): Promise<InvoiceLine[]> {
  const { rows } = await q.query(
    `select ${invoiceLines.selectList(undefined, '$1')} from invoice_lines where org_id = $1 and invoice_id = any($2::text[]) order by invoice_id, position, id`,
    [orgId, invoiceIds],
  );
  return rows.map(invoiceLines.toRecord);
}

export async function applicationsOfInvoices(q: Queryable, orgId: string, invoiceIds: readonly string[]): Promise<PaymentApplication[]> {
  const { rows } = await q.query(
    `select ${applications.selectList(undefined, '$1')} from payment_applications where org_id = $1 and invoice_id = any($2::text[]) order by applied_at, id`,
    [orgId, invoiceIds],
  );
  return rows.map(applications.toRecord);
}

/**
 * A line as billing computes it: money in minor units. `sourceId` null only for MANUAL lines;
 * `taxAmount` is set on PER_LINE invoices only.
 */
export interface LineMinor {
  id: string;
  position: number;
  sourceType: InvoiceLineSource;
  sourceId: string | null;
  serviceId: string | null;
  date: string | null;
  itemId: string | null;
  description: string;
  quantity: number;
  unitPrice: number;
  amount: number;
  taxId: string | null;
  taxRate: number;
  taxAmount: number | null;
}

const LINE_MINOR_COLUMNS = `id, position, source_type as "sourceType", source_id as "sourceId", service_id as "serviceId",
  date::text as date, item_id as "itemId", description, quantity, unit_price::float8 as "unitPrice", amount::float8 as amount,
  tax_id as "taxId", tax_rate as "taxRate", tax_amount::float8 as "taxAmount"`;

export async function linesMinor(q: Queryable, orgId: string, invoiceId: string): Promise<LineMinor[]> {
  const { rows } = await q.query<LineMinor>(
    `select ${LINE_MINOR_COLUMNS} from invoice_lines where org_id = $1 and invoice_id = $2 order by position, id`,
    [orgId, invoiceId],
  );
  return rows;
}

/** linesMinor of several invoices at once, each line with its invoice, in their order on each. */
export async function linesMinorOf(q: Queryable, orgId: string, invoiceIds: readonly string[]): Promise<(LineMinor & { invoiceId: string })[]> {
  if (!invoiceIds.length) return [];
  const { rows } = await q.query<LineMinor & { invoiceId: string }>(
    `select invoice_id as "invoiceId", ${LINE_MINOR_COLUMNS} from invoice_lines
      where org_id = $1 and invoice_id = any($2::text[]) order by invoice_id, position, id`,
    [orgId, invoiceIds],
  );
  return rows;
}

/** Sets the tax of lines of several invoices (PER_LINE taxes repriced), in one statement. */
export async function setLineTaxes(tx: Queryable, orgId: string, lines: readonly { invoiceId: string; id: string; taxAmount: number | null }[]): Promise<void> {
  if (!lines.length) return;
  await tx.query(
    `update invoice_lines l set tax_amount = x."taxAmount"
       from jsonb_to_recordset($2::jsonb) as x("invoiceId" text, id text, "taxAmount" bigint)
      where l.org_id = $1 and l.invoice_id = x."invoiceId" and l.id = x.id`,
    [orgId, JSON.stringify(lines)],
  );
}

const LINE_RECORDSET = `id text, position integer, "sourceType" text, "sourceId" text, "serviceId" text, date date, "itemId" text,
  description text, quantity float8, "unitPrice" bigint, amount bigint, "taxId" text, "taxRate" float8, "taxAmount" bigint`;

/**
 * Adds lines to an invoice, each source at most once: a line whose source some live line already
 * bills (another run's, or one committed by another process while this one waited) is left out.
 * Returns the lines added.
 */
export async function insertLinesOnce(tx: Queryable, orgId: string, invoiceId: string, lines: readonly LineMinor[]): Promise<LineMinor[]> {
  if (!lines.length) return [];
  const { rows } = await tx.query<LineMinor>(
    `insert into invoice_lines (org_id, id, invoice_id, position, source_type, source_id, service_id, date, item_id, description,
                                quantity, unit_price, amount, tax_id, tax_rate, tax_amount)
     select $1, x.id, $2, x.position, x."sourceType", x."sourceId", x."serviceId", x.date, x."itemId", x.description,
            x.quantity, x."unitPrice", x.amount, x."taxId", x."taxRate", x."taxAmount"
       from jsonb_to_recordset($3::jsonb) as x(${LINE_RECORDSET})
     on conflict (org_id, source_type, source_id) where source_id is not null and not released do nothing
     returning ${LINE_MINOR_COLUMNS}`,
    [orgId, invoiceId, JSON.stringify(lines)],
  );
  return rows;
}

/** Rewrites the editable parts of a draft's lines (description, quantity, prices, tax, place). */
export async function rewriteLines(tx: Queryable, orgId: string, invoiceId: string, lines: readonly LineMinor[]): Promise<void> {
  if (!lines.length) return;
  await tx.query(
    `update invoice_lines l
        set position = x.position, description = x.description, quantity = x.quantity, unit_price = x."unitPrice",
            amount = x.amount, tax_id = x."taxId", tax_rate = x."taxRate", tax_amount = x."taxAmount"
       from jsonb_to_recordset($3::jsonb) as x(${LINE_RECORDSET})
      where l.org_id = $1 and l.invoice_id = $2 and l.id = x.id`,
    [orgId, invoiceId, JSON.stringify(lines)],
  );
}

/** Removes lines from a draft: what they billed is free to be billed again. */
export async function deleteLines(tx: Queryable, orgId: string, invoiceId: string, ids: readonly string[]): Promise<void> {
  if (!ids.length) return;
  await tx.query('delete from invoice_lines where org_id = $1 and invoice_id = $2 and id = any($3::text[])', [orgId, invoiceId, ids]);
}

export interface TotalsMinor {
  subtotal: number;
  tax: number;
  total: number;
}

/** Sets an invoice's money (minor units); the balance follows from what was paid. */
export async function setTotals(tx: Queryable, orgId: string, id: string, totals: TotalsMinor): Promise<void> {
  await tx.query(
    `update invoices set subtotal = $3, tax = $4, total = $5, balance_due = $5 - amount_paid where org_id = $1 and id = $2`,
    [orgId, id, totals.subtotal, totals.tax, totals.total],
  );
}

/** What a new invoice needs; money starts at zero and is set from its lines. */
export interface NewInvoice {
  id: string;
  customerId: string;
  origin: Invoice['origin'];
  periodStart: string | null;
  periodEnd: string | null;
  currency: string;
  taxRounding: Invoice['taxRounding'];
  notes: string | null;
  quoteId: string | null;
  createdById: string | null;
}

const NEW_INVOICE = `insert into invoices (org_id, id, customer_id, status, origin, period_start, period_end, currency, subtotal, tax, total,
                                 amount_paid, balance_due, tax_rounding, notes, quote_id, created_by_id)
     values ($1, $2, $3, 'DRAFT', $4, $5, $6, $7, 0, 0, 0, 0, 0, $8, $9, $10, $11)`;

const newInvoiceParams = (orgId: string, v: NewInvoice) => [
  orgId, v.id, v.customerId, v.origin, v.periodStart, v.periodEnd, v.currency, v.taxRounding, v.notes, v.quoteId, v.createdById,
];

export async function insertDraft(tx: Queryable, orgId: string, values: NewInvoice): Promise<void> {
  await tx.query(NEW_INVOICE, newInvoiceParams(orgId, values));
}

export async function deleteDraft(tx: Queryable, orgId: string, id: string): Promise<boolean> {
  const { rowCount } = await tx.query(`delete from invoices where org_id = $1 and id = $2 and status = 'DRAFT'`, [orgId, id]);
  return rowCount > 0;
}

/** What finalizing gives one draft: its number, status and money (minor units). */
export interface Finalization extends TotalsMinor {
  id: string;
  number: string;
  status: 'OPEN' | 'PAID';
}

/**
 * Finalizes several drafts in one statement: each its number, status and money (the balance is the
 * total: nothing is paid on a draft), all the same issue and due dates. A row no longer a DRAFT is
 * left as it is. Answers the ids finalized.
 */
export async function markFinalizedMany(
  tx: Queryable,
  orgId: string,
  drafts: readonly Finalization[],
  dates: { issueDate: string; dueDate: string },
): Promise<string[]> {
  if (!drafts.length) return [];
  const { rows } = await tx.query<{ id: string }>(
    `update invoices i
        set number = x.number, status = x.status, subtotal = x.subtotal, tax = x.tax, total = x.total,
            balance_due = x.total - i.amount_paid, issue_date = $3, due_date = $4, finalized_at = clock_timestamp()
       from jsonb_to_recordset($2::jsonb) as x(id text, number text, status text, subtotal bigint, tax bigint, total bigint)
      where i.org_id = $1 and i.id = x.id and i.status = 'DRAFT'
      returning i.id`,
    [orgId, JSON.stringify(drafts), dates.issueDate, dates.dueDate],
  );
  return rows.map((r) => r.id);
}

/** Voids an invoice and releases its lines, so the work they billed may be billed again. */
export async function markVoided(tx: Queryable, orgId: string, id: string, reason: string): Promise<void> {
  await tx.query(`update invoices set status = 'VOID', voided_at = clock_timestamp(), void_reason = $3 where org_id = $1 and id = $2`, [orgId, id, reason]);
  await tx.query('update invoice_lines set released = true where org_id = $1 and invoice_id = $2 and not released', [orgId, id]);
}

/** The live (not void) invoice converted from a quote, if any. */
export async function invoiceOfQuote(q: Queryable, orgId: string, quoteId: string): Promise<Invoice | null> {
  const { rows } = await q.query(
    `select ${invoices.selectList(undefined, '$1')} from invoices where org_id = $1 and quote_id = $2 and status <> 'VOID' order by created_at limit 1`,
    [orgId, quoteId],
  );
  return rows[0] ? invoices.toRecord(rows[0]) : null;
}

/** Visits whose VISIT line is on the invoice. */
export async function billedVisitIds(q: Queryable, orgId: string, invoiceId: string): Promise<string[]> {
  const { rows } = await q.query<{ id: string }>(
    `select source_id as id from invoice_lines where org_id = $1 and invoice_id = $2 and source_type = 'VISIT'`,
    [orgId, invoiceId],
  );
  return rows.map((r) => r.id);
}
