import { combineLatest, map, type Observable } from 'rxjs';
import { exponentOf, fromMinor, sumMinor, toMinor, type Invoice, type Payment } from '../../shared/index.js';
import { badInput, notFound } from '../errors.js';
import { documentOf } from '../replica/database.js';
import { PENDING_CHANGES } from '../replica/local-collections.js';
import type { Replica } from './replica.js';
import { newId, nowIso } from './validate.js';

/**
 * Payments taken at the door: a ledger entry with its own id, written to the replica first (so it
 * works offline and survives a restart), pushed once like a stock movement; the server applies it
 * to the customer's invoices (those it names first, then the oldest owed) and the invoices' new
 * balances come back through sync.
 */
export interface TakePaymentInput {
  customerId: string;
  /** In the organization's currency, at most its decimals (USD 2, JPY 0, KWD 3). */
  amount: number;
  /** A device takes cash or a check; cards and transfers are the office's. */
  method: 'CASH' | 'CHECK';
  /** The check's number, a receipt number. */
  reference?: string | null;
  /** Invoices to pay first, in this order (the customer's own). */
  invoiceIds?: readonly string[] | null;
}

const DEVICE_METHODS = ['CASH', 'CHECK'] as const;

export async function takePayment(replica: Replica, input: TakePaymentInput): Promise<Payment> {
  const { db } = replica;
  if (!db.collections.payments) throw badInput('takePayment: this client does not replicate payments (open it with the payments collection)');
  const customerId = input?.customerId;
  if (typeof customerId !== 'string' || !customerId) throw badInput('takePayment: customerId is required');
  if (db.collections.customers && !(await db.collections.customers.findOne(customerId).exec())) throw notFound('Customer', customerId);
  if (!DEVICE_METHODS.includes(input.method)) throw badInput(`takePayment: method must be CASH or CHECK, got ${JSON.stringify(input.method)}`);
  const currency = await organizationCurrency(replica);
  const amount = input.amount;
  if (typeof amount !== 'number' || !Number.isFinite(amount) || amount <= 0) throw badInput(`takePayment: amount must be a number greater than 0, got ${JSON.stringify(amount)}`);
  if (currency && fromMinor(toMinor(amount, currency), currency) !== amount) {
    throw badInput(`takePayment: amount ${amount} has more decimals than ${currency} has (${exponentOf(currency)})`);
  }
  const reference = typeof input.reference === 'string' && input.reference.trim() ? input.reference.trim() : null;
  if (reference && reference.length > 200) throw badInput('takePayment: reference is longer than 200 characters');
  const invoiceIds = await namedInvoices(replica, customerId, input.invoiceIds);
  return replica.changes.insert(
    'payments',
    {
      id: newId(),
      customerId,
      kind: 'PAYMENT',
      amount,
      ...(currency ? { currency } : {}),
      method: input.method,
      reference,
      receivedAt: nowIso(),
      invoiceIds,
      reversesPaymentId: null,
      reason: null,
      paymentProcessorId: null,
      accountingId: null,
      createdById: null,
    },
    'takePayment',
  );
}

/** The organization's currency as the replica holds it (null before the first sync brought it). */
async function organizationCurrency({ db }: Replica): Promise<string | null> {
  const organization = await db.collections.organization?.findOne().exec();
  return organization ? documentOf('organization', organization.toJSON()).currency : null;
}

/** The invoices named, each an invoice of the customer on the device where invoices replicate. */
async function namedInvoices({ db }: Replica, customerId: string, ids: readonly string[] | null | undefined): Promise<string[] | null> {
  if (ids == null || ids.length === 0) return null;
  if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string' || !id)) throw badInput('takePayment: invoiceIds must be invoice ids');
  const invoices = db.collections.invoices;
  for (const id of ids) {
    const invoice = invoices ? await invoices.findOne(id).exec() : null;
    if (invoices && !invoice) throw notFound('Invoice', id);
    if (invoice && invoice.customerId !== customerId) throw badInput(`takePayment: invoice ${id} is not this customer's`);
  }
  return [...new Set(ids)];
}

/**
 * What a customer owes as this device knows it: the balances of their OPEN invoices as last
 * synced, less the payments taken on this device that the server has not accepted yet (each is
 * in the pending changes until its push is answered). Once the server has a payment, it is in the
 * invoices' balances the server sends back in the same round of sync (a push is followed by a pull
 * of what it changed, or the live stream brings it). In the organization's currency, summed in
 * its minor units.
 */
export interface BalanceDue {
  customerId: string;
  currency: string | null;
  /** What the customer's open invoices on the device say is owed. */
  synced: number;
  /** Payments taken on this device not yet accepted by the server, newest last. */
  pending: Payment[];
  /** Their sum. */
  takenSince: number;
  /** synced - takenSince (below zero: taken more than the device knows is owed; the server keeps it as credit). */
  due: number;
  /** The open invoices it sums, oldest due first. */
  invoices: Invoice[];
}

export function balanceDue$({ db }: Replica, customerId: string): Observable<BalanceDue> {
  const invoices = db.collections.invoices;
  const payments = db.collections.payments;
  if (!invoices || !payments) throw badInput('balanceDue: this client does not replicate invoices and payments');
  const open$ = invoices.find({ selector: { customerId, status: 'OPEN' } }).$;
  const taken$ = payments.find({ selector: { customerId } }).$;
  const waiting$ = db.collections[PENDING_CHANGES].find({ selector: { collectionName: 'payments' } }).$;
  const organization$ = db.collections.organization ? db.collections.organization.findOne().$ : null;
  const currency$ = organization$ ? organization$.pipe(map((o) => (o ? documentOf('organization', o.toJSON()).currency : null))) : null;
  return combineLatest([open$, taken$, waiting$, ...(currency$ ? [currency$] : [])]).pipe(
    map(([open, taken, waiting, currency]) => {
      const waitingIds = new Set(waiting.map((w) => w.docId));
      const openInvoices = open.map((d) => documentOf('invoices', d.toJSON())).sort(byDueDate);
      const pending = taken
        .map((d) => documentOf('payments', d.toJSON()))
        .filter((p) => waitingIds.has(p.id))
        .sort((a, b) => a.receivedAt.localeCompare(b.receivedAt));
      return balanceOf(customerId, (currency as string | null | undefined) ?? openInvoices[0]?.currency ?? null, openInvoices, pending);
    }),
  );
}

const byDueDate = (a: Invoice, b: Invoice) => (a.dueDate ?? '').localeCompare(b.dueDate ?? '') || (a.number ?? '').localeCompare(b.number ?? '');

/** The sums, in minor units of the currency (as decimals when the currency is not known yet). */
function balanceOf(customerId: string, currency: string | null, invoices: Invoice[], pending: Payment[]): BalanceDue {
  const code = currency ?? 'USD';
  const synced = sumMinor(invoices.map((i) => toMinor(i.balanceDue, code)));
  const takenSince = sumMinor(pending.map((p) => toMinor(p.amount, code)));
  return {
    customerId,
    currency,
    synced: fromMinor(synced, code),
    pending,
    takenSince: fromMinor(takenSince, code),
    due: fromMinor(synced - takenSince, code),
    invoices,
  };
}
