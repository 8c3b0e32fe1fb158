import type { Queryable } from './db.js';
import { minorUnitOf } from './money-sql.js';

/**
 * What customers owe, read from invoices and the payments ledger: balances, a customer's statement
 * and the receivables' aging. Finalized invoices count (OPEN and PAID); drafts are not yet owed and
 * a voided invoice is withdrawn. Dates are the organization's calendar days (its time zone), as
 * invoices' issue and due dates are.
 */

/** The organization's time zone, for a timestamp's calendar day. */
const ORG_ZONE = `(select o.timezone from organizations o where o.id = $1)`;

export interface CustomerBalance {
  customerId: string;
  /** The sum of the customer's OPEN invoices' balances (decimal). */
  balanceDue: number;
  /** What the customer's payments have not applied to any invoice (decimal). */
  creditBalance: number;
}

/**
 * Each customer's balance due and credit. Credit is every payment's amount less its applications:
 * a reversal is the negative of its payment and of each application, so a reversed payment counts
 * for nothing.
 */
export async function customerBalances(q: Queryable, orgId: string, customerIds: readonly string[]): Promise<CustomerBalance[]> {
  if (!customerIds.length) return [];
  const { rows } = await q.query<CustomerBalance>(
    `select c.id as "customerId",
            coalesce((select sum(i.balance_due) from invoices i
                       where i.org_id = $1 and i.customer_id = c.id and i.status = 'OPEN'), 0) * ${minorUnitOf('$1')} as "balanceDue",
            (coalesce((select sum(p.amount) from payments p where p.org_id = $1 and p.customer_id = c.id), 0)
             - coalesce((select sum(a.amount) from payments p
                           join payment_applications a on a.org_id = p.org_id and a.payment_id = p.id
                          where p.org_id = $1 and p.customer_id = c.id), 0)) * ${minorUnitOf('$1')} as "creditBalance"
       from unnest($2::text[]) as c(id)`,
    [orgId, customerIds],
  );
  return rows;
}

export type StatementEntryKind = 'INVOICE' | 'PAYMENT' | 'REVERSAL';

/** One entry of a statement, in minor units: an invoice owes (positive), a payment pays (negative). */
export interface StatementEntry {
  date: string;
  kind: StatementEntryKind;
  id: string;
  /** An invoice's number, a payment's reference. */
  reference: string | null;
  method: string | null;
  amountMinor: number;
}

/** What was owed before `from`: finalized invoices issued before it less payments received before it (minor units). */
export async function balanceBefore(q: Queryable, orgId: string, customerId: string, from: string): Promise<number> {
  const { rows } = await q.query<{ owed: number }>(
    `select coalesce((select sum(i.total) from invoices i
                       where i.org_id = $1 and i.customer_id = $2 and i.status in ('OPEN', 'PAID') and i.issue_date < $3::date), 0)
          - coalesce((select sum(p.amount) from payments p
                       where p.org_id = $1 and p.customer_id = $2 and (p.received_at at time zone ${ORG_ZONE})::date < $3::date), 0) as owed`,
    [orgId, customerId, from],
  );
  return rows[0]?.owed ?? 0;
}

/**
 * The customer's invoices issued and payments received from `from` to `to` (both included), by
 * date; on one day invoices come before payments, each in the order it was made.
 */
export async function statementEntries(q: Queryable, orgId: string, customerId: string, from: string, to: string): Promise<StatementEntry[]> {
  const { rows } = await q.query<StatementEntry>(
    `select date, kind, id, reference, method, "amountMinor" from (
       select i.issue_date as date, 'INVOICE' as kind, i.id, i.number as reference, null::text as method, i.total as "amountMinor",
              0 as rank, i.finalized_at as at
         from invoices i
        where i.org_id = $1 and i.customer_id = $2 and i.status in ('OPEN', 'PAID') and i.issue_date between $3::date and $4::date
       union all
       select (p.received_at at time zone ${ORG_ZONE})::date, p.kind, p.id, p.reference, p.method, -p.amount,
              1, p.received_at
         from payments p
        where p.org_id = $1 and p.customer_id = $2 and (p.received_at at time zone ${ORG_ZONE})::date between $3::date and $4::date
     ) e
     order by date, rank, at, id`,
    [orgId, customerId, from, to],
  );
  return rows;
}

/** A customer's receivables by how long past due, on a day (minor units). */
export interface AgingRow {
  customerId: string;
  customerName: string;
  current: number;
  days1to30: number;
  days31to60: number;
  days61to90: number;
  over90: number;
  total: number;
}

/**
 * What each customer owed on `asOf`, by days past due on that day: the finalized invoices issued by
 * then, each less the applications made by then (so a past day reads as it was, not as it is now).
 * Customers who owed nothing are left out; ordered by name.
 */
export async function agingRows(q: Queryable, orgId: string, asOf: string): Promise<AgingRow[]> {
  const { rows } = await q.query<AgingRow>(
    `with owed as (
       select i.customer_id, $2::date - coalesce(i.due_date, i.issue_date) as late,
              i.total - coalesce((select sum(a.amount) from payment_applications a
                                   where a.org_id = i.org_id and a.invoice_id = i.id
                                     and (a.applied_at at time zone ${ORG_ZONE})::date <= $2::date), 0) as outstanding
         from invoices i
        where i.org_id = $1 and i.status in ('OPEN', 'PAID') and i.issue_date <= $2::date
     )
     select o.customer_id as "customerId", trim(concat_ws(' ', c.first_name, c.last_name)) as "customerName",
            coalesce(sum(o.outstanding) filter (where o.late <= 0), 0) as current,
            coalesce(sum(o.outstanding) filter (where o.late between 1 and 30), 0) as "days1to30",
            coalesce(sum(o.outstanding) filter (where o.late between 31 and 60), 0) as "days31to60",
            coalesce(sum(o.outstanding) filter (where o.late between 61 and 90), 0) as "days61to90",
            coalesce(sum(o.outstanding) filter (where o.late > 90), 0) as over90,
            sum(o.outstanding) as total
       from owed o join customers c on c.org_id = $1 and c.id = o.customer_id
      where o.outstanding > 0
      group by o.customer_id, c.first_name, c.last_name
      order by "customerName", o.customer_id`,
    [orgId, asOf],
  );
  return rows;
}

/** Which of the ids are among the customers an audience's device holds. */
export async function heldCustomers(q: Queryable, orgId: string, audience: string, customerIds: readonly string[]): Promise<Set<string>> {
  if (!customerIds.length) return new Set();
  const { rows } = await q.query<{ id: string }>(
    `select row_id as id from scope_rows where org_id = $1 and audience = $2 and collection = 'customers' and row_id = any($3::text[]) and present`,
    [orgId, audience, customerIds],
  );
  return new Set(rows.map((r) => r.id));
}
