import type { TaxRounding } from '../../shared/index.js';
import type { Queryable } from './db.js';
import type { LineMinor, NewInvoice, TotalsMinor } from './invoices.js';

/**
 * The month's run's writes for a whole chunk of customers, each one statement
 * (server/operations/billing/README.md, "The month's run"). The guarantees are the per-customer
 * ones, kept in bulk: the partial unique index invoices_generated_draft makes one generated draft
 * per customer and period (a second run waits on the first's uncommitted draft, then takes it),
 * and invoice_lines_billed_once one live line per source (`on conflict do nothing`: a fact another
 * run billed meanwhile is left out). New drafts are written in customer id order, existing drafts
 * locked in id order, and lines in source order: two runs at once wait for each other instead of
 * deadlocking. The drafts' insert comes first: its change-feed trigger takes the organization's
 * feed lock before any existing draft is locked, the order finalizing takes them in too.
 */

const INVOICE_RECORDSET = `id text, "customerId" text, "periodStart" date, "periodEnd" date, currency text, "taxRounding" text, "createdById" text,
  subtotal bigint, tax bigint, total bigint`;

/**
 * Makes the generated draft of each customer that has none for the period, with its money (that of
 * the lines about to be added). Answers the drafts this statement made, by customer; a customer
 * left out already had one (or another run's, committed while this one waited).
 */
export async function insertGeneratedDrafts(tx: Queryable, orgId: string, drafts: readonly (NewInvoice & TotalsMinor)[]): Promise<Map<string, string>> {
  if (!drafts.length) return new Map();
  const { rows } = await tx.query<{ id: string; customerId: string }>(
    `insert into invoices (org_id, id, customer_id, status, origin, period_start, period_end, currency, subtotal, tax, total,
                           amount_paid, balance_due, tax_rounding, created_by_id)
     select $1, x.id, x."customerId", 'DRAFT', 'GENERATED', x."periodStart", x."periodEnd", x.currency, x.subtotal, x.tax, x.total, 0, x.total,
            x."taxRounding", x."createdById"
       from jsonb_to_recordset($2::jsonb) as x(${INVOICE_RECORDSET})
      order by x."customerId"
     on conflict (org_id, customer_id, period_start, period_end) where status = 'DRAFT' and origin = 'GENERATED' do nothing
     returning id, customer_id as "customerId"`,
    [orgId, JSON.stringify(drafts)],
  );
  return new Map(rows.map((r) => [r.customerId, r.id]));
}

/** A generated draft as the run adds to it. */
export interface GeneratedDraft {
  id: string;
  customerId: string;
  taxRounding: TaxRounding;
}

/**
 * The customers' generated drafts for the period, locked for this transaction in id order. A
 * draft another run finalized or deleted meanwhile is not among them (the caller makes another).
 */
export async function lockGeneratedDrafts(tx: Queryable, orgId: string, customerIds: readonly string[], periodStart: string, periodEnd: string): Promise<GeneratedDraft[]> {
  if (!customerIds.length) return [];
  const { rows } = await tx.query<GeneratedDraft>(
    `select id, customer_id as "customerId", tax_rounding as "taxRounding" from invoices
      where org_id = $1 and customer_id = any($2::text[]) and period_start = $3 and period_end = $4 and status = 'DRAFT' and origin = 'GENERATED'
      order by id
      for update`,
    [orgId, customerIds, periodStart, periodEnd],
  );
  return rows;
}

/**
 * A line for a draft. `position` counts from 1 after the draft's last line: the statement adds
 * the draft's current highest position (0 for a new draft).
 */
export type DraftLine = Omit<LineMinor, 'position'> & { invoiceId: string; position: number };

export interface AddedLine {
  id: string;
  invoiceId: string;
  amount: number;
}

const LINE_RECORDSET = `id text, "invoiceId" text, position integer, "sourceType" text, "sourceId" text, "serviceId" text, date date, "itemId" text,
  description text, quantity float8, "unitPrice" bigint, amount bigint, "taxId" text, "taxRate" float8, "taxAmount" bigint`;

/**
 * Adds lines to drafts, each source at most once: a line whose source a live line already bills
 * (another run's, or one committed by another process while this one waited) is left out. The
 * drafts must be locked by this transaction. Answers the lines added (their money in minor units).
 */
export async function insertDraftLinesOnce(tx: Queryable, orgId: string, lines: readonly DraftLine[]): Promise<AddedLine[]> {
  if (!lines.length) return [];
  const { rows } = await tx.query<AddedLine>(
    `insert into invoice_lines (org_id, id, invoice_id, position, source_type, source_id, service_id, date, item_id, description,
                                quantity, unit_price, amount, tax_id, tax_rate, tax_amount)
     select $1, x.id, x."invoiceId",
            x.position + coalesce((select max(e.position) from invoice_lines e where e.org_id = $1 and e.invoice_id = x."invoiceId"), 0),
            x."sourceType", x."sourceId", x."serviceId", x.date, x."itemId", x.description,
            x.quantity, x."unitPrice", x.amount, x."taxId", x."taxRate", x."taxAmount"
       from jsonb_to_recordset($2::jsonb) as x(${LINE_RECORDSET})
      order by x."sourceType", x."sourceId"
     on conflict (org_id, source_type, source_id) where source_id is not null and not released do nothing
     returning id, invoice_id as "invoiceId", amount::float8 as amount`,
    [orgId, JSON.stringify(lines)],
  );
  return rows;
}

/** Deletes drafts (a draft only: one finalized meanwhile stays). */
export async function deleteDrafts(tx: Queryable, orgId: string, ids: readonly string[]): Promise<void> {
  if (!ids.length) return;
  await tx.query(`delete from invoices where org_id = $1 and id = any($2::text[]) and status = 'DRAFT'`, [orgId, ids]);
}
