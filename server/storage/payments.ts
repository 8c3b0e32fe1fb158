import { paymentApplicationResource, paymentResource, type Payment, type PaymentApplication } from '../../shared/index.js';
import type { Queryable } from './db.js';
import { readPage, type PageRows, type PageWindow, type SortKey } from './lists/keyset.js';
import { Params } from './lists/params.js';
import { recordTable } from './records.js';
import { lockOrganizationFeed } from './table-feed.js';

/**
 * The payments ledger (migration 0022): payments and their applications to invoices, append-only
 * in the database itself (triggers refuse edits and deletes). Arithmetic happens in integer minor
 * units: the functions here that take or give `...Minor` amounts read and write the columns as they
 * are stored; records (`payments.findById`, pages) carry decimals like every other record.
 *
 * An application and the change it makes to its invoice's amount paid, balance and status are one
 * statement, so the invoice always equals the sum of its applications.
 */
export const payments = recordTable(paymentResource);
export const paymentApplications = recordTable(paymentApplicationResource);

/**
 * Serializes the ledger work of one customer (recording, applying credit, reversing) until the
 * transaction ends: two payments of the same customer never pick the same open balance or the same
 * credit. A transaction-scoped advisory lock, so nothing else of the customer's row is blocked.
 */
export async function lockCustomerLedger(tx: Queryable, orgId: string, customerId: string): Promise<void> {
  // The organization's feed lock first, which every write takes at its first row and a sync push
  // before anything else: taken after the customer's, an office payment and a device's push of one
  // customer's payments could each hold the lock the other waits for.
  await lockOrganizationFeed(tx, orgId);
  await tx.query(`select pg_advisory_xact_lock(hashtextextended('payments:' || $1 || ':' || $2, 0))`, [orgId, customerId]);
}

/** An invoice as a payment sees it: whose it is, whether it is owed, and how much (minor units). */
export interface PayableInvoice {
  id: string;
  customerId: string;
  status: string;
  currency: string;
  balanceMinor: number;
}

const PAYABLE_COLUMNS = `id, customer_id as "customerId", status, currency, balance_due as "balanceMinor"`;

/** The named invoices of the organization (locked for the application), whatever their state. */
export async function lockInvoicesByIds(tx: Queryable, orgId: string, ids: readonly string[]): Promise<PayableInvoice[]> {
  if (!ids.length) return [];
  const { rows } = await tx.query<PayableInvoice>(
    `select ${PAYABLE_COLUMNS} from invoices where org_id = $1 and id = any($2::text[]) order by id for update`,
    [orgId, ids],
  );
  return rows;
}

/**
 * The customer's invoices still owed in the currency, oldest first: by due date, then issue date
 * (then number, for a stable order). Locked in id order, the order every locker of several
 * invoices takes them in, so two never wait on each other.
 */
export async function lockOpenInvoices(tx: Queryable, orgId: string, customerId: string, currency: string): Promise<PayableInvoice[]> {
  const { rows } = await tx.query<PayableInvoice & { dueDate: string | null; issueDate: string | null; number: string | null }>(
    `select ${PAYABLE_COLUMNS}, due_date as "dueDate", issue_date as "issueDate", number from invoices
      where org_id = $1 and customer_id = $2 and currency = $3 and status = 'OPEN' and balance_due > 0
      order by id
      for update`,
    [orgId, customerId, currency],
  );
  const key = (i: (typeof rows)[number]) => [i.dueDate ?? '9999-12-31', i.issueDate ?? '9999-12-31', i.number ?? '', i.id];
  const oldestFirst = rows.sort((a, b) => compareKeys(key(a), key(b)));
  return oldestFirst.map(({ id, customerId: customer, status, currency: code, balanceMinor }) => ({ id, customerId: customer, status, currency: code, balanceMinor }));
}

function compareKeys(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return 0;
}

/** One invoice as it is, not locked (null: not in the organization). */
export async function payableInvoice(q: Queryable, orgId: string, id: string): Promise<PayableInvoice | null> {
  const { rows } = await q.query<PayableInvoice>(`select ${PAYABLE_COLUMNS} from invoices where org_id = $1 and id = $2`, [orgId, id]);
  return rows[0] ?? null;
}

/** One invoice, locked (null: not in the organization). */
export async function lockInvoice(tx: Queryable, orgId: string, id: string): Promise<PayableInvoice | null> {
  return (await lockInvoicesByIds(tx, orgId, [id]))[0] ?? null;
}

export interface NewApplication {
  id: string;
  paymentId: string;
  invoiceId: string;
  /** Positive: paid; negative: taken back by a reversal. */
  amountMinor: number;
  appliedAt: string;
}

/**
 * Appends an application and moves its invoice's amount paid and balance by it, in one statement:
 * an OPEN invoice with nothing left owed becomes PAID, a PAID one owed again becomes OPEN (other
 * states keep theirs; payments are only applied to OPEN invoices).
 */
export async function appendApplication(tx: Queryable, orgId: string, app: NewApplication): Promise<void> {
  const { rowCount } = await tx.query(
    `with applied as (
       insert into payment_applications (org_id, id, payment_id, invoice_id, amount, applied_at)
       values ($1, $2, $3, $4, $5, $6)
       returning invoice_id, amount)
     update invoices i
        set amount_paid = i.amount_paid + a.amount,
            balance_due = i.balance_due - a.amount,
            status = case
              when i.status in ('OPEN', 'PAID') and i.balance_due - a.amount <= 0 then 'PAID'
              when i.status in ('OPEN', 'PAID') then 'OPEN'
              else i.status end
       from applied a
      where i.org_id = $1 and i.id = a.invoice_id`,
    [orgId, app.id, app.paymentId, app.invoiceId, app.amountMinor, app.appliedAt],
  );
  if (rowCount !== 1) throw new Error(`payment application to invoice ${app.invoiceId} found no invoice`);
}

/** A payment's applications as stored (minor units), in the order they were made. */
export async function applicationsOfPayment(q: Queryable, orgId: string, paymentId: string): Promise<{ invoiceId: string; amountMinor: number }[]> {
  const { rows } = await q.query<{ invoiceId: string; amountMinor: number }>(
    `select invoice_id as "invoiceId", amount as "amountMinor" from payment_applications
      where org_id = $1 and payment_id = $2 order by created_at, id`,
    [orgId, paymentId],
  );
  return rows;
}

/**
 * The customer's payments in the currency with money not yet applied (its credit), oldest first;
 * a reversed payment holds none (the reversal took it back).
 */
export async function paymentsWithCredit(q: Queryable, orgId: string, customerId: string, currency: string): Promise<{ id: string; unappliedMinor: number }[]> {
  const { rows } = await q.query<{ id: string; unappliedMinor: number }>(
    `select p.id, p.amount - coalesce(sum(a.amount), 0) as "unappliedMinor"
       from payments p
       left join payment_applications a on a.org_id = p.org_id and a.payment_id = p.id
      where p.org_id = $1 and p.customer_id = $2 and p.currency = $3 and p.kind = 'PAYMENT'
        and not exists (select 1 from payments r where r.org_id = p.org_id and r.reverses_payment_id = p.id)
      group by p.id, p.amount, p.received_at
     having p.amount - coalesce(sum(a.amount), 0) > 0
      order by p.received_at, p.id`,
    [orgId, customerId, currency],
  );
  return rows;
}

/**
 * Of these customers, those with credit (a payment with money not yet applied, as paymentsWithCredit
 * reads it), each with the currency it is in: in one statement, so finalizing many invoices applies
 * credit only where there is some.
 */
export async function customersWithCredit(q: Queryable, orgId: string, customerIds: readonly string[]): Promise<{ customerId: string; currency: string }[]> {
  if (!customerIds.length) return [];
  const { rows } = await q.query<{ customerId: string; currency: string }>(
    `select distinct c."customerId", c.currency from (
       select p.customer_id as "customerId", p.currency
         from payments p
         left join payment_applications a on a.org_id = p.org_id and a.payment_id = p.id
        where p.org_id = $1 and p.customer_id = any($2::text[]) and p.kind = 'PAYMENT'
          and not exists (select 1 from payments r where r.org_id = p.org_id and r.reverses_payment_id = p.id)
        group by p.id, p.customer_id, p.currency, p.amount
       having p.amount - coalesce(sum(a.amount), 0) > 0) c`,
    [orgId, customerIds],
  );
  return rows;
}

/** The reversal of a payment, if it has been reversed. */
export async function reversalOf(q: Queryable, orgId: string, paymentId: string): Promise<Payment | null> {
  const { rows } = await q.query(
    `select ${payments.selectList(undefined, '$1')} from payments where org_id = $1 and reverses_payment_id = $2`,
    [orgId, paymentId],
  );
  return rows[0] ? payments.toRecord(rows[0]) : null;
}

/** Reversals of the given payments, keyed by the payment reversed. */
export async function reversalsOf(q: Queryable, orgId: string, paymentIds: readonly string[]): Promise<Payment[]> {
  if (!paymentIds.length) return [];
  const { rows } = await q.query(
    `select ${payments.selectList(undefined, '$1')} from payments where org_id = $1 and reverses_payment_id = any($2::text[])`,
    [orgId, paymentIds],
  );
  return rows.map(payments.toRecord);
}

/** Applications of the given payments (or to the given invoices), as records, oldest first. */
export async function applicationsOf(q: Queryable, orgId: string, by: 'payment' | 'invoice', ids: readonly string[]): Promise<PaymentApplication[]> {
  if (!ids.length) return [];
  const { rows } = await q.query(
    `select ${paymentApplications.selectList(undefined, '$1')} from payment_applications
      where org_id = $1 and ${by === 'payment' ? 'payment_id' : 'invoice_id'} = any($2::text[])
      order by created_at, id`,
    [orgId, ids],
  );
  return rows.map(paymentApplications.toRecord);
}

/** What each payment has not applied (decimal; a reversal's is the negative of what its payment had left). */
export async function unappliedOf(q: Queryable, orgId: string, paymentIds: readonly string[]): Promise<Map<string, number>> {
  if (!paymentIds.length) return new Map();
  const { rows } = await q.query<{ id: string; unapplied: number }>(
    `select p.id, (p.amount - coalesce((select sum(a.amount) from payment_applications a where a.org_id = p.org_id and a.payment_id = p.id), 0))
              * (select ('1e-' || currency_exponent(p.currency))::numeric) as unapplied
       from payments p where p.org_id = $1 and p.id = any($2::text[])`,
    [orgId, paymentIds],
  );
  return new Map(rows.map((r) => [r.id, r.unapplied]));
}

export interface PaymentFilter {
  customerId?: string | null;
  accountingId?: string | null;
  paymentProcessorId?: string | null;
}

/** Newest received first, as the office reads its ledger; matches payments_newest. */
export const PAYMENT_SORT_KEYS: readonly SortKey[] = [
  { expr: 'p.received_at', type: 'timestamptz', desc: true },
  { expr: 'p.id', type: 'text', desc: true },
];

export function paymentPage(q: Queryable, orgId: string, filter: PaymentFilter, window: PageWindow): Promise<PageRows<Payment>> {
  const p = new Params([orgId]);
  const where = ['p.org_id = $1'];
  if (filter.customerId) where.push(`p.customer_id = ${p.add(filter.customerId)}`);
  if (filter.accountingId) where.push(`p.accounting_id = ${p.add(filter.accountingId)}`);
  if (filter.paymentProcessorId) where.push(`p.payment_processor_id = ${p.add(filter.paymentProcessorId)}`);
  return readPage(q, {
    select: payments.selectList('p', '$1'),
    from: 'payments p',
    where,
    params: p,
    keys: PAYMENT_SORT_KEYS,
    window,
    toRecord: payments.toRecord,
  });
}
