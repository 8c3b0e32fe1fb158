import type { Queryable } from './db.js';

/**
 * The billable facts of a customer that no live invoice line bills yet, read for the month's run
 * (server/operations/billing/README.md, "Sources"). Dates are calendar days in the organization's
 * time zone; money is integer minor units.
 */

/** A completed visit (it has an end time), on the day it started. */
export interface UnbilledVisit {
  id: string;
  typeId: string | null;
  typeName: string | null;
  date: string;
}

/** Day of a visit in the organization's time zone (the day it started; else the day it ended). */
const VISIT_DAY = `(coalesce(s.start_time, s.end_time) at time zone o.timezone)::date`;

const UNBILLED = (type: string, id: string) =>
  `not exists (select 1 from invoice_lines l where l.org_id = $1 and l.source_type = '${type}' and l.source_id = ${id} and not l.released)`;

/**
 * The customer's completed visits in the period that no live line bills, oldest first. A visit the
 * office marked NO_CHARGE is left out (and so never billed).
 */
export async function unbilledVisits(q: Queryable, orgId: string, customerId: string, start: string, end: string): Promise<UnbilledVisit[]> {
  const { rows } = await q.query<UnbilledVisit>(
    `select s.id, s.type_id as "typeId", t.display as "typeName", ${VISIT_DAY}::text as date
       from services s
       join organizations o on o.id = s.org_id
       left join service_types t on t.org_id = s.org_id and t.id = s.type_id
      where s.org_id = $1 and s.customer_id = $2 and not s._deleted and s.end_time is not null
        and s.billing_status is distinct from 'NO_CHARGE'
        and ${VISIT_DAY} between $3::date and $4::date
        and ${UNBILLED('VISIT', 's.id')}
      order by date, s.start_time, s.id`,
    [orgId, customerId, start, end],
  );
  return rows;
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

/**
 * Stock used (reason USE) on the customer's completed visits in the period that no live line bills,
 * whether or not the visit itself was billed before (a dose synced after its visit was invoiced is
 * billed by the next run).
 */
export async function unbilledStockUses(q: Queryable, orgId: string, customerId: string, start: string, end: string): Promise<UnbilledStockUse[]> {
  const { rows } = await q.query<UnbilledStockUse>(
    `select m.id, m.service_id as "serviceId", ${VISIT_DAY}::text as date, m.item_id as "itemId", i.name as "itemName", i.unit,
            abs(m.delta)::float8 as quantity, i.unit_price::float8 as "unitPrice", i.cost_price::float8 as "costPrice"
       from stock_movements m
       join services s on s.org_id = m.org_id and s.id = m.service_id
       join organizations o on o.id = s.org_id
       join inventory_items i on i.org_id = m.org_id and i.id = m.item_id
      where m.org_id = $1 and s.customer_id = $2 and m.reason = 'USE' and m.delta <> 0 and not m._deleted
        and not s._deleted and s.end_time is not null
        and ${VISIT_DAY} between $3::date and $4::date
        and ${UNBILLED('STOCK_MOVEMENT', 'm.id')}
      order by date, m.service_id, m.created_at, m.id`,
    [orgId, customerId, start, end],
  );
  return rows;
}

/** How a month of a customer's work was billed already: its flat rate, or visits at a price. */
export interface MonthBilled {
  month: string;
  flat: boolean;
  perVisit: boolean;
}

/**
 * For each month (YYYY-MM) of the customer's with live lines: whether its flat rate is billed, and
 * whether any of its visits was billed at a price. A month is billed one way (README, "Changing
 * billing method"): the run reads this before it prices a month.
 */
export async function monthsBilled(q: Queryable, orgId: string, customerId: string, months: readonly string[]): Promise<MonthBilled[]> {
  if (!months.length) return [];
  const { rows } = await q.query<MonthBilled>(
    `select to_char(l.date, 'YYYY-MM') as month,
            bool_or(l.source_type = 'FLAT_RATE') as flat,
            bool_or(l.source_type = 'VISIT' and l.amount <> 0) as "perVisit"
       from invoice_lines l
       join invoices i on i.org_id = l.org_id and i.id = l.invoice_id
      where l.org_id = $1 and i.customer_id = $2 and not l.released and l.source_type in ('FLAT_RATE', 'VISIT')
        and to_char(l.date, 'YYYY-MM') = any($3::text[])
      group by 1`,
    [orgId, customerId, months],
  );
  return rows;
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

/** The customer's quoted price per service type (minor units); a null type is the customer's default. */
export async function quotedPriceByType(q: Queryable, orgId: string, customerId: string): Promise<Map<string | null, number>> {
  const { rows } = await q.query<{ typeId: string | null; price: number }>(
    `select type_id as "typeId", price::float8 as price from customer_quoted_prices where org_id = $1 and customer_id = $2 order by coalesce(position, 0) desc, id desc`,
    [orgId, customerId],
  );
  return new Map(rows.map((r) => [r.typeId, r.price]));
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
