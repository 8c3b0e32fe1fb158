import { z } from 'zod';
import { errors, idValidator, type Invoice, type Payment, type PaymentApplication } from '../../../shared/index.js';
import { invoicesByIds } from '../../storage/invoices.js';
import { applicationsOf, PAYMENT_SORT_KEYS, paymentPage, payments, reversalsOf, unappliedOf } from '../../storage/payments.js';
import { OFFICE_ROLES, requireRole, type OperationContext } from '../context.js';
import { parseInput } from '../input.js';
import { listTag, pageWindow, toConnection, type Connection, type PageArgs } from '../pagination.js';
import { requireServedBy } from './payments.js';

/** Reading the payments ledger: the office's list, one payment, and what a payment relates to. */

const text = (max: number) => z.string().trim().max(max);
const PaymentFilterInput = z
  .strictObject({ customerId: idValidator().nullish(), accountingId: text(200).nullish(), paymentProcessorId: text(200).nullish() })
  .nullish();

/** The ledger, newest received first (payments and reversals alike). Office roles. */
export async function listPayments(ctx: OperationContext, args: PageArgs & { filter?: unknown }): Promise<Connection<Payment>> {
  requireRole(ctx.viewer, OFFICE_ROLES, 'list payments');
  const filter = parseInput(PaymentFilterInput, args.filter) ?? {};
  const tag = listTag(ctx.viewer.orgId, 'payments', `${filter.customerId ?? ''}/${filter.accountingId ?? ''}/${filter.paymentProcessorId ?? ''}`);
  const window = pageWindow(args, tag, PAYMENT_SORT_KEYS.length);
  return toConnection(await paymentPage(ctx.db, ctx.viewer.orgId, filter, window), window, tag);
}

/** One payment: the office's any, a technician's of its own customers only. */
export async function getPayment(ctx: OperationContext, id: string): Promise<Payment> {
  const payment = await payments.findById(ctx.db, ctx.viewer.orgId, id);
  if (!payment) throw errors.notFound('Payment', id);
  await requireServedBy(ctx.db, ctx, payment.customerId);
  return payment;
}

/** Batch reads of a payment's relations, keyed by payment id (GraphQL's loaders). */
export const paymentRelations = {
  applications: (ctx: OperationContext, paymentIds: readonly string[]): Promise<PaymentApplication[]> =>
    applicationsOf(ctx.db, ctx.viewer.orgId, 'payment', paymentIds),
  reversals: (ctx: OperationContext, paymentIds: readonly string[]): Promise<Payment[]> => reversalsOf(ctx.db, ctx.viewer.orgId, paymentIds),
  unapplied: (ctx: OperationContext, paymentIds: readonly string[]): Promise<Map<string, number>> =>
    unappliedOf(ctx.db, ctx.viewer.orgId, paymentIds),
  invoices: (ctx: OperationContext, ids: readonly string[]): Promise<Invoice[]> => invoicesByIds(ctx.db, ctx.viewer.orgId, ids),
  byIds: async (ctx: OperationContext, ids: readonly string[]): Promise<Payment[]> => {
    const found = await Promise.all(ids.map((id) => payments.findById(ctx.db, ctx.viewer.orgId, id)));
    return found.filter((p): p is Payment => p !== null);
  },
};
