import { z } from 'zod';
import {
  errors,
  exponentOf,
  fromMinor,
  idValidator,
  PAYMENT_METHODS,
  toMinor,
  type Payment,
  type PaymentMethod,
} from '../../../shared/index.js';
import { customers } from '../../storage/customers.js';
import type { Queryable } from '../../storage/db.js';
import { organizations } from '../../storage/organizations.js';
import {
  appendApplication,
  applicationsOfPayment,
  lockCustomerLedger,
  lockInvoice,
  lockInvoicesByIds,
  lockOpenInvoices,
  payableInvoice,
  payments,
  paymentsWithCredit,
  reversalOf,
  type PayableInvoice,
} from '../../storage/payments.js';
import { heldCustomers } from '../../storage/receivables.js';
import { everHeld } from '../../storage/scope-entries.js';
import { OFFICE_ROLES, requireRole, type OperationContext } from '../context.js';
import { newId } from '../ids.js';
import { parseInput } from '../input.js';

/**
 * Payments: a ledger of money received (and reversals of it), applied to a customer's invoices.
 * Recording is idempotent by the payment's id, which the device that took the payment may have made:
 * the same payment sent again (a retried push, a second device's copy) is answered with the stored
 * one and changes nothing. What a payment does not apply to invoices is the customer's credit,
 * applied to the next invoice finalized (applyCreditTo). README.md beside this file tells the rules.
 */

/** What recording a payment takes; GraphQL's RecordPaymentInput and a device's payment document. */
export interface PaymentInput {
  /** Made by the caller for a payment taken offline; the server makes one otherwise. */
  id?: string | null;
  customerId: string;
  amount: number;
  /** ISO 4217; must be the organization's (its currency when omitted). */
  currency?: string | null;
  method: PaymentMethod;
  reference?: string | null;
  receivedAt?: string | null;
  /** Invoices to pay first, in this order. */
  invoiceIds?: readonly string[] | null;
  paymentProcessorId?: string | null;
  accountingId?: string | null;
}

const text = (max: number) => z.string().trim().max(max);
/**
 * The fields of a payment; unknown fields are dropped (a device's document carries the server's
 * own fields too, which it may not set). Bounded so a stored amount always fits.
 */
const PaymentFields = z.object({
  id: idValidator().nullish(),
  customerId: idValidator(),
  amount: z.number().finite().positive('must be greater than 0').max(1_000_000_000),
  currency: z.string().trim().toUpperCase().length(3, 'must be a 3-letter ISO 4217 code').nullish(),
  method: z.enum(PAYMENT_METHODS),
  reference: text(200).nullish(),
  receivedAt: z.iso.datetime({ offset: true }).nullish(),
  invoiceIds: z.array(idValidator()).max(100).nullish(),
  paymentProcessorId: text(200).nullish(),
  accountingId: text(200).nullish(),
});
type ParsedPayment = z.output<typeof PaymentFields>;

/** Who may record payments: the office's roles, and a technician for the customers it serves. */
const PAYMENT_ROLES = [...OFFICE_ROLES, 'TECHNICIAN'] as const;

/** Records a payment in its own transaction (GraphQL's recordPayment). */
export function recordPayment(ctx: OperationContext, input: unknown): Promise<Payment> {
  return ctx.db.transaction((tx) => recordPaymentIn(tx, ctx, input as PaymentInput));
}

/**
 * Records a payment inside the caller's transaction (a sync push applies a device's payments
 * through this) and applies it: to the invoices it names, in their order, then to the customer's
 * other invoices still owed, oldest due first; what is left is the customer's credit. Idempotent
 * by id. Refused, changing nothing: an amount not above zero or finer than the currency's minor
 * unit, another currency than the organization's, a customer or invoice not of the organization,
 * an invoice of another customer, a technician's payment for a customer it does not serve.
 */
export async function recordPaymentIn(tx: Queryable, ctx: OperationContext, raw: PaymentInput, options: RecordOptions = {}): Promise<Payment> {
  requireRole(ctx.viewer, PAYMENT_ROLES, 'record payments');
  const input = parseInput(PaymentFields, raw);
  const orgId = ctx.viewer.orgId;
  if (input.id) {
    const stored = await payments.findById(tx, orgId, input.id);
    if (stored) return sameOrRefuse(stored, input);
  }
  const currency = await requirePaymentCurrency(tx, orgId, input);
  const amountMinor = exactMinor(input.amount, currency);
  await requirePayableCustomer(tx, ctx, input.customerId, options.takenOnDevice === true);
  await lockCustomerLedger(tx, orgId, input.customerId);
  const named = await requireNamedInvoices(tx, orgId, input);
  const payment = await payments.insertIfAbsent(tx, orgId, {
    id: input.id ?? newId(),
    customerId: input.customerId,
    kind: 'PAYMENT',
    amount: input.amount,
    currency,
    method: input.method,
    reference: input.reference || null,
    receivedAt: input.receivedAt ? new Date(input.receivedAt).toISOString() : new Date().toISOString(),
    invoiceIds: input.invoiceIds?.length ? [...input.invoiceIds] : null,
    reversesPaymentId: null,
    reason: null,
    paymentProcessorId: input.paymentProcessorId || null,
    accountingId: input.accountingId || null,
    createdById: ctx.viewer.userId,
  });
  // Another transaction recorded the same id meanwhile (it held the ledger lock first).
  if (!payment) return sameOrRefuse((await payments.findById(tx, orgId, input.id!))!, input);
  const others = await lockOpenInvoices(tx, orgId, input.customerId, currency);
  const order = [...named, ...others.filter((i) => !named.some((n) => n.id === i.id))];
  await applyInOrder(tx, orgId, payment.id, amountMinor, order, payment.receivedAt);
  return payment;
}

/** A replay: the stored payment when it is the same one, else a clear refusal. */
function sameOrRefuse(stored: Payment, input: ParsedPayment): Payment {
  const differs = differingFields(stored, input);
  if (differs.length) {
    throw errors.conflict(`Payment ${stored.id} was already recorded with another ${differs.join(', ')}; a payment is never changed (reverse it and record another)`);
  }
  return stored;
}

function differingFields(stored: Payment, input: ParsedPayment): string[] {
  const out: string[] = [];
  if (stored.kind !== 'PAYMENT') out.push('kind (it is a reversal)');
  if (stored.customerId !== input.customerId) out.push('customerId');
  if (stored.amount !== input.amount) out.push('amount');
  if (input.currency && stored.currency !== input.currency) out.push('currency');
  if (stored.method !== input.method) out.push('method');
  if ((stored.reference ?? '') !== (input.reference ?? '')) out.push('reference');
  if (input.receivedAt && Date.parse(stored.receivedAt) !== Date.parse(input.receivedAt)) out.push('receivedAt');
  if ((stored.invoiceIds ?? []).join('\n') !== (input.invoiceIds ?? []).join('\n')) out.push('invoiceIds');
  return out;
}

async function requirePaymentCurrency(tx: Queryable, orgId: string, input: ParsedPayment): Promise<string> {
  const { currency } = (await organizations.findById(tx, orgId, orgId))!;
  if (input.currency && input.currency !== currency) {
    throw errors.badInput(`currency: payments are in the organization's currency, ${currency} (not ${input.currency})`, { fields: ['currency'] });
  }
  return currency;
}

/** The amount in minor units; an amount finer than the currency's minor unit is refused, not rounded. */
function exactMinor(amount: number, currency: string): number {
  const minor = toMinor(amount, currency);
  if (fromMinor(minor, currency) !== amount) {
    throw errors.badInput(`amount: ${currency} has ${exponentOf(currency)} decimals; ${amount} has more`, { fields: ['amount'] });
  }
  return minor;
}

export interface RecordOptions {
  /**
   * Pushed by the device that took it (a sync push): a technician's payment is then accepted for
   * a customer its phone holds or once held. Taken offline while the customer was its own, it is
   * recorded even if the office has given the customer to someone else since: money received is
   * never turned away. A customer that was never on the phone is refused all the same.
   */
  takenOnDevice?: boolean;
}

/** The customer must be the organization's, and a technician's own (a customer its device holds, or held when it took the payment). */
async function requirePayableCustomer(tx: Queryable, ctx: OperationContext, customerId: string, takenOnDevice: boolean): Promise<void> {
  const orgId = ctx.viewer.orgId;
  if (!(await customers.findById(tx, orgId, customerId))) throw errors.notFound('Customer', customerId);
  if (ctx.viewer.role !== 'TECHNICIAN') return;
  if (takenOnDevice && (await everHeld(tx, orgId, ctx.viewer.userId, 'customers', customerId))) return;
  await requireServedBy(tx, ctx, customerId);
}

/**
 * A technician serves the customers its device holds: those of its visits, those assigned to it,
 * those it signed up (shared/sync/scopes.ts). A payment or a balance of anyone else's is refused.
 */
export async function requireServedBy(q: Queryable, ctx: OperationContext, customerId: string): Promise<void> {
  if (ctx.viewer.role !== 'TECHNICIAN') return;
  if (!(await heldCustomers(q, ctx.viewer.orgId, ctx.viewer.userId, [customerId])).has(customerId)) {
    throw errors.forbidden(`A technician may take payments only from its own customers; customer ${customerId} is not one of them`);
  }
}

/**
 * The invoices the payment names, in its order, locked: each must be the customer's; those no
 * longer owed (paid meanwhile, voided) are passed over, so a payment taken offline is never lost.
 */
async function requireNamedInvoices(tx: Queryable, orgId: string, input: ParsedPayment): Promise<PayableInvoice[]> {
  const ids = [...new Set(input.invoiceIds ?? [])];
  const found = new Map((await lockInvoicesByIds(tx, orgId, ids)).map((i) => [i.id, i]));
  const out: PayableInvoice[] = [];
  for (const id of ids) {
    const invoice = found.get(id);
    if (!invoice) throw errors.notFound('Invoice', id);
    if (invoice.customerId !== input.customerId) {
      throw errors.badInput(`invoiceIds: invoice ${id} is not customer ${input.customerId}'s`, { fields: ['invoiceIds'] });
    }
    if (invoice.status === 'DRAFT') throw errors.badInput(`invoiceIds: invoice ${id} is a draft, not yet owed`, { fields: ['invoiceIds'] });
    if (invoice.status === 'OPEN' && invoice.balanceMinor > 0) out.push(invoice);
  }
  return out;
}

let applicationCount = 0;

/**
 * An application's id, in the order they are made: the applications of one transaction share its
 * created_at, and are read back in id order after it (a reversal lists its lines in the order of
 * what it reverses). Milliseconds, then this process's count, then randomness against other processes.
 */
function applicationId(): string {
  applicationCount = (applicationCount + 1) % 36 ** 6;
  return `${Date.now().toString(36).padStart(9, '0')}${applicationCount.toString(36).padStart(6, '0')}-${newId()}`;
}

/** Applies up to `amountMinor` to the invoices in order, each up to its balance; returns what is left. */
async function applyInOrder(
  tx: Queryable,
  orgId: string,
  paymentId: string,
  amountMinor: number,
  invoices: readonly PayableInvoice[],
  appliedAt: string,
): Promise<number> {
  let left = amountMinor;
  for (const invoice of invoices) {
    if (left <= 0) break;
    const part = Math.min(left, invoice.balanceMinor);
    if (part <= 0) continue;
    await appendApplication(tx, orgId, { id: applicationId(), paymentId, invoiceId: invoice.id, amountMinor: part, appliedAt });
    left -= part;
  }
  return left;
}

/**
 * Applies the customer's credit (what its payments left unapplied, oldest payment first) to an
 * invoice just finalized, as further applications of those payments: never a negative line. Does
 * nothing for an invoice not owed or a customer without credit. Returns the amount applied
 * (decimal, in the invoice's currency).
 */
export async function applyCreditTo(tx: Queryable, ctx: OperationContext, invoiceId: string): Promise<number> {
  const orgId = ctx.viewer.orgId;
  // The ledger's lock first, then the invoice's, the order recording a payment takes them in.
  const before = await payableInvoice(tx, orgId, invoiceId);
  if (!before) throw errors.notFound('Invoice', invoiceId);
  await lockCustomerLedger(tx, orgId, before.customerId);
  const invoice = (await lockInvoice(tx, orgId, invoiceId))!;
  if (invoice.status !== 'OPEN' || invoice.balanceMinor <= 0) return 0;
  let left = invoice.balanceMinor;
  const appliedAt = new Date().toISOString();
  for (const credit of await paymentsWithCredit(tx, orgId, invoice.customerId, invoice.currency)) {
    if (left <= 0) break;
    const part = Math.min(left, credit.unappliedMinor);
    await appendApplication(tx, orgId, { id: applicationId(), paymentId: credit.id, invoiceId, amountMinor: part, appliedAt });
    left -= part;
  }
  return fromMinor(invoice.balanceMinor - left, invoice.currency);
}

const ReverseInput = z.strictObject({ id: idValidator(), reason: text(1000).min(1, 'must say why (a bounced check, a refund, ...)') });

/**
 * Reverses a payment (a bounced check, a refund): a REVERSAL entry of the negative amount, and the
 * negative of each of the payment's applications, which reopens the invoices it paid. Once only;
 * a reversal is not reversed (record the payment again instead). Office roles only.
 */
export async function reversePayment(ctx: OperationContext, id: string, reason: string): Promise<Payment> {
  requireRole(ctx.viewer, OFFICE_ROLES, 'reverse payments');
  const input = parseInput(ReverseInput, { id, reason });
  const orgId = ctx.viewer.orgId;
  return ctx.db.transaction(async (tx) => {
    const payment = await payments.findById(tx, orgId, input.id);
    if (!payment) throw errors.notFound('Payment', input.id);
    if (payment.kind === 'REVERSAL') throw errors.badInput(`Payment ${payment.id} is a reversal; a reversal is not reversed (record the payment again)`);
    await lockCustomerLedger(tx, orgId, payment.customerId);
    const earlier = await reversalOf(tx, orgId, payment.id);
    if (earlier) throw errors.conflict(`Payment ${payment.id} was already reversed (by ${earlier.id})`);
    const now = new Date().toISOString();
    const reversal = await payments.insert(tx, orgId, {
      id: newId(),
      customerId: payment.customerId,
      kind: 'REVERSAL',
      amount: -payment.amount,
      currency: payment.currency,
      method: payment.method,
      reference: payment.reference,
      receivedAt: now,
      invoiceIds: null,
      reversesPaymentId: payment.id,
      reason: input.reason,
      paymentProcessorId: null,
      accountingId: null,
      createdById: ctx.viewer.userId,
    });
    const applications = await applicationsOfPayment(tx, orgId, payment.id);
    await lockInvoicesByIds(tx, orgId, applications.map((a) => a.invoiceId));
    for (const a of applications) {
      await appendApplication(tx, orgId, { id: applicationId(), paymentId: reversal.id, invoiceId: a.invoiceId, amountMinor: -a.amountMinor, appliedAt: now });
    }
    return reversal;
  });
}
