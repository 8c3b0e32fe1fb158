import type { Customer } from '../../shared/index.js';
import type { MonthBilled, UnbilledStockUse, UnbilledVisit } from './billable.js';
import { customers } from './customers.js';
import type { Queryable } from './db.js';

/**
 * The billable facts of a chunk of customers, each read in one statement over
 * `customer_id = any($2)`, for the month's run (server/operations/billing/README.md, "The month's
 * run"): a chunk costs the same few statements whatever its size. Rows name their customer; the
 * run groups them. Dates are calendar days in the organization's time zone; money is minor units.
 */

/** Day of a visit in the organization's time zone (the day it started; else the day it ended). */
const VISIT_DAY = `(coalesce(s.start_time, s.end_time) at time zone o.timezone)::date`;

/**
 * No live line bills the fact: one probe of invoice_lines_billed_once per fact. `offset 0` keeps
 * it a probe: as an anti-join the planner, trusting statistics that lag behind a run adding
 * thousands of lines a chunk, chose to scan every line of the type once per fact.
 */
const UNBILLED = (type: string, id: string) =>
  `not exists (select 1 from invoice_lines l where l.org_id = $1 and l.source_type = '${type}' and l.source_id = ${id} and not l.released offset 0)`;

/** The live customers among these ids (a customer deleted since the run started is absent). */
export async function liveCustomersByIds(q: Queryable, orgId: string, ids: readonly string[]): Promise<Customer[]> {
  if (!ids.length) return [];
  const { rows } = await q.query(
    `select ${customers.selectList(undefined, '$1')} from customers where org_id = $1 and id = any($2::text[]) and not _deleted`,
    [orgId, ids],
  );
  return rows.map(customers.toRecord);
}

export type CustomerVisit = UnbilledVisit & { customerId: string };

/**
 * The customers' completed visits in the period that no live line bills, each customer's oldest
 * first. A visit the office marked NO_CHARGE is left out (and so never billed).
 */
export async function unbilledVisitsOf(q: Queryable, orgId: string, customerIds: readonly string[], start: string, end: string): Promise<CustomerVisit[]> {
  if (!customerIds.length) return [];
  const { rows } = await q.query<CustomerVisit>(
    `select s.customer_id as "customerId", s.id, s.type_id as "typeId", t.display as "typeName", ${VISIT_DAY}::text as date
       from services s
       join organizations o on o.id = s.org_id
       left join service_types t on t.org_id = s.org_id and t.id = s.type_id
      where s.org_id = $1 and s.customer_id = any($2::text[]) and not s._deleted and s.end_time is not null
        and s.billing_status is distinct from 'NO_CHARGE'
        and ${VISIT_DAY} between $3::date and $4::date
        and ${UNBILLED('VISIT', 's.id')}
      order by s.customer_id, date, s.start_time, s.id`,
    [orgId, customerIds, start, end],
  );
  return rows;
}

export type CustomerStockUse = UnbilledStockUse & { customerId: string };

/**
 * Stock used (reason USE) on the customers' completed visits in the period that no live line
 * bills, whether or not the visit itself was billed before (a dose synced after its visit was
 * invoiced is billed by the next run).
 */
export async function unbilledStockUsesOf(q: Queryable, orgId: string, customerIds: readonly string[], start: string, end: string): Promise<CustomerStockUse[]> {
  if (!customerIds.length) return [];
  const { rows } = await q.query<CustomerStockUse>(
    `select s.customer_id as "customerId", m.id, m.service_id as "serviceId", ${VISIT_DAY}::text as date, m.item_id as "itemId",
            i.name as "itemName", i.unit, abs(m.delta)::float8 as quantity, i.unit_price::float8 as "unitPrice", i.cost_price::float8 as "costPrice"
       from stock_movements m
       join services s on s.org_id = m.org_id and s.id = m.service_id
       join organizations o on o.id = s.org_id
       join inventory_items i on i.org_id = m.org_id and i.id = m.item_id
      where m.org_id = $1 and s.customer_id = any($2::text[]) and m.reason = 'USE' and m.delta <> 0 and not m._deleted
        and not s._deleted and s.end_time is not null
        and ${VISIT_DAY} between $3::date and $4::date
        and ${UNBILLED('STOCK_MOVEMENT', 'm.id')}
      order by s.customer_id, date, m.service_id, m.created_at, m.id`,
    [orgId, customerIds, start, end],
  );
  return rows;
}

/**
 * Each customer's quoted price per service type (minor units); a null type is the customer's
 * default. Where a type is quoted twice, the lowest position wins (the last row read, as before).
 */
export async function quotedPricesOf(q: Queryable, orgId: string, customerIds: readonly string[]): Promise<Map<string, Map<string | null, number>>> {
  const byCustomer = new Map<string, Map<string | null, number>>();
  if (!customerIds.length) return byCustomer;
  const { rows } = await q.query<{ customerId: string; typeId: string | null; price: number }>(
    `select customer_id as "customerId", type_id as "typeId", price::float8 as price
       from customer_quoted_prices where org_id = $1 and customer_id = any($2::text[])
      order by customer_id, coalesce(position, 0) desc, id desc`,
    [orgId, customerIds],
  );
  for (const r of rows) {
    const prices = byCustomer.get(r.customerId) ?? new Map<string | null, number>();
    prices.set(r.typeId, r.price);
    byCustomer.set(r.customerId, prices);
  }
  return byCustomer;
}

export type CustomerMonthBilled = MonthBilled & { customerId: string };

/**
 * For each customer's month (YYYY-MM) with live lines: whether its flat rate is billed, and
 * whether any of its visits was billed at a price. A month is billed one way (README, "Changing
 * billing method"): the run reads this before it prices a month.
 */
export async function monthsBilledOf(q: Queryable, orgId: string, customerIds: readonly string[], months: readonly string[]): Promise<CustomerMonthBilled[]> {
  if (!customerIds.length || !months.length) return [];
  const { rows } = await q.query<CustomerMonthBilled>(
    `select i.customer_id as "customerId", to_char(l.date, 'YYYY-MM') as month,
            bool_or(l.source_type = 'FLAT_RATE') as flat,
            bool_or(l.source_type = 'VISIT' and l.amount <> 0) as "perVisit"
       from invoice_lines l
       join invoices i on i.org_id = l.org_id and i.id = l.invoice_id
      where l.org_id = $1 and i.customer_id = any($2::text[]) and not l.released and l.source_type in ('FLAT_RATE', 'VISIT')
        and to_char(l.date, 'YYYY-MM') = any($3::text[])
      group by 1, 2`,
    [orgId, customerIds, months],
  );
  return rows;
}
