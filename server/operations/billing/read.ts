import { z } from 'zod';
import { errors, idValidator, INVOICE_STATUSES, type Invoice, type InvoiceLine, type PaymentApplication } from '../../../shared/index.js';
import { applicationsOfInvoices, INVOICE_SORT_KEYS, invoicePage, invoices, linesOfInvoices } from '../../storage/invoices.js';
import type { OperationContext } from '../context.js';
import { parseInput } from '../input.js';
import { listTag, pageWindow, toConnection, type Connection, type PageArgs } from '../pagination.js';
import { requireBilling } from './access.js';
import { CalendarDate, todayIn } from './periods.js';
import { billingSettings } from './settings.js';

/** Reading invoices: one, a filtered list, and what is derived from one (overdue, partly paid). */

const InvoiceFilterInput = z
  .strictObject({
    status: z.enum(INVOICE_STATUSES).nullish(),
    customerId: idValidator().nullish(),
    overdue: z.boolean().nullish(),
    periodStart: CalendarDate.nullish(),
    accountingId: z.string().max(200).nullish(),
  })
  .nullish();

export async function getInvoice(ctx: OperationContext, id: string): Promise<Invoice> {
  requireBilling(ctx, 'read invoices');
  const invoice = await invoices.findById(ctx.db, ctx.viewer.orgId, id);
  if (!invoice) throw errors.notFound('Invoice', id);
  return invoice;
}

/** Newest first. `overdue` compares due dates with today in the organization's time zone. */
export async function listInvoices(ctx: OperationContext, args: PageArgs & { filter?: unknown }): Promise<Connection<Invoice>> {
  requireBilling(ctx, 'read invoices');
  const filter = parseInput(InvoiceFilterInput, args.filter) ?? {};
  const orgId = ctx.viewer.orgId;
  const overdue = filter.overdue == null ? null : { value: filter.overdue, today: todayIn((await billingSettings(ctx.db, orgId)).timezone) };
  const tag = listTag(orgId, 'invoices', [filter.status, filter.customerId, filter.overdue, filter.periodStart, filter.accountingId].join('/'));
  const window = pageWindow(args, tag, INVOICE_SORT_KEYS.length);
  return toConnection(await invoicePage(ctx.db, orgId, { ...filter, overdue }, window), window, tag);
}

export async function linesOf(ctx: OperationContext, invoiceIds: readonly string[]): Promise<InvoiceLine[]> {
  return linesOfInvoices(ctx.db, ctx.viewer.orgId, invoiceIds);
}

export async function applicationsOf(ctx: OperationContext, invoiceIds: readonly string[]): Promise<PaymentApplication[]> {
  return applicationsOfInvoices(ctx.db, ctx.viewer.orgId, invoiceIds);
}

/** OPEN with its due date passed (today in the organization's time zone). */
export function isOverdue(invoice: Invoice, today: string): boolean {
  return invoice.status === 'OPEN' && invoice.dueDate !== null && invoice.dueDate < today;
}

/** OPEN with some of it paid. */
export function isPartlyPaid(invoice: Invoice): boolean {
  return invoice.status === 'OPEN' && invoice.amountPaid !== 0;
}
