import type { Queryable } from './db.js';

/**
 * The billable facts of customers that no live invoice line bills yet, as the month's run prices
 * them (server/operations/billing/README.md, "Sources"; read a chunk of customers at a time in
 * billable-batch.ts), and the visits' billingStatus billing owns. Dates are calendar days in the
 * organization's time zone; money is integer minor units.
 */

/** A completed visit (it has an end time), on the day it started. */
export interface UnbilledVisit {
  id: string;
  typeId: string | null;
  typeName: string | null;
  date: string;
}

/** Stock used on a visit (a dose, a part), with its item's prices in minor units. */
export interface UnbilledStockUse {
  id: string;
  serviceId: string;
  date: string;
  itemId: string;
  itemName: string;
  unit: string | null;
  /** Units used (the movement takes them: its delta is negative). */
  quantity: number;
  unitPrice: number;
  costPrice: number | null;
}

/** How a month of a customer's work was billed already: its flat rate, or visits at a price. */
export interface MonthBilled {
  month: string;
  flat: boolean;
  perVisit: boolean;
}

/** Whether a line already bills the source (FLAT_RATE months are checked this way). */
export async function sourcesBilled(q: Queryable, orgId: string, type: string, ids: readonly string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const { rows } = await q.query<{ id: string }>(
    `select source_id as id from invoice_lines where org_id = $1 and source_type = $2 and source_id = any($3::text[]) and not released`,
    [orgId, type, ids],
  );
  return new Set(rows.map((r) => r.id));
}

/** Live customers of the organization, by id: the month's run over everyone. */
export async function liveCustomerIds(q: Queryable, orgId: string): Promise<string[]> {
  const { rows } = await q.query<{ id: string }>('select id from customers where org_id = $1 and not _deleted order by id', [orgId]);
  return rows.map((r) => r.id);
}

/**
 * Sets the billingStatus of visits (billing owns it once they are billed). `from`, when given,
 * changes only visits whose status is that value (a void takes back only what billing wrote).
 */
export async function setVisitBillingStatus(q: Queryable, orgId: string, ids: readonly string[], status: string | null, from?: string): Promise<void> {
  if (!ids.length) return;
  await q.query(
    `update services set billing_status = $3
      where org_id = $1 and id = any($2::text[]) and billing_status is distinct from $3 ${from === undefined ? '' : 'and billing_status = $4'}`,
    from === undefined ? [orgId, ids, status] : [orgId, ids, status, from],
  );
}

/** Of these visits, those billing holds (their billingStatus is INVOICED). */
export async function invoicedVisitIds(q: Queryable, orgId: string, ids: readonly string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const { rows } = await q.query<{ id: string }>(
    `select id from services where org_id = $1 and id = any($2::text[]) and billing_status = 'INVOICED'`,
    [orgId, ids],
  );
  return new Set(rows.map((r) => r.id));
}
