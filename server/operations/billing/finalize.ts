import { z } from 'zod';
import { errors, idValidator, VISIT_INVOICED, type Invoice } from '../../../shared/index.js';
import { setVisitBillingStatus } from '../../storage/billable.js';
import { nextCounterValue } from '../../storage/counters.js';
import type { Queryable } from '../../storage/db.js';
import { billedVisitIds, draftIds, invoices, lineCount, lockInvoice, markFinalized } from '../../storage/invoices.js';
import type { OperationContext } from '../context.js';
import { parseInput } from '../input.js';
import { requireBilling } from './access.js';
import { afterFinalizing } from './after-finalize.js';
import { repriceDraft } from './draft-money.js';
import { addDays, todayIn } from './periods.js';
import { billingSettings, type BillingSettings } from './settings.js';

/**
 * Finalizing: a draft becomes an invoice. Its number is the organization's invoicePrefix and the
 * next value of its invoice counter, drawn in the finalizing transaction (a locked row, not a
 * sequence: a transaction that fails takes its number back with it, so numbers have no gaps, and
 * two processes finalizing at once wait for each other's row lock, so none is given twice). It is
 * issued today in the organization's time zone and due invoiceDueDays later. Finalizing again
 * answers the invoice as it is: the same number, nothing changed.
 */
export const INVOICE_COUNTER = 'invoice';

export async function finalizeInvoice(ctx: OperationContext, id: string): Promise<Invoice> {
  requireBilling(ctx, 'finalize invoices');
  parseInput(idValidator(), id);
  return ctx.db.transaction(async (tx) => finalizeIn(tx, ctx, await billingSettings(tx, ctx.viewer.orgId), id));
}

const FinalizeInput = z
  .strictObject({ ids: z.array(idValidator()).min(1).max(10_000).nullish(), all: z.boolean().nullish() })
  .refine((i) => Boolean(i.ids) !== Boolean(i.all), 'give ids, or all: true');

/**
 * Finalizes the drafts named (in the order given), or every draft (oldest first). Each is its own
 * transaction: a draft refused (no lines, a negative total) is told in the error after the others
 * are finalized, which stay so.
 */
export async function finalizeInvoices(ctx: OperationContext, raw: unknown): Promise<Invoice[]> {
  requireBilling(ctx, 'finalize invoices');
  const input = parseInput(FinalizeInput, raw);
  const orgId = ctx.viewer.orgId;
  const ids = input.ids ? [...new Set(input.ids)] : await draftIds(ctx.db, orgId);
  const settings = await billingSettings(ctx.db, orgId);
  const done: Invoice[] = [];
  for (const id of ids) done.push(await ctx.db.transaction((tx) => finalizeIn(tx, ctx, settings, id)));
  return done;
}

async function finalizeIn(tx: Queryable, ctx: OperationContext, settings: BillingSettings, id: string): Promise<Invoice> {
  const orgId = ctx.viewer.orgId;
  const invoice = await lockInvoice(tx, orgId, id);
  if (!invoice) throw errors.notFound('Invoice', id);
  if (invoice.status === 'OPEN' || invoice.status === 'PAID') return invoice;
  if (invoice.status === 'VOID') throw errors.conflict(`Invoice ${invoice.number} is VOID: it cannot be finalized again (issue a new invoice)`);
  const totals = await repriceDraft(tx, orgId, id, invoice.taxRounding, invoice.currency);
  const visits = await billedVisitIds(tx, orgId, id);
  if ((await lineCount(tx, orgId, id)) === 0) throw errors.badInput(`Invoice ${id} has no lines: add some, or delete the draft`);
  if (totals.total < 0) throw errors.badInput(`Invoice ${id} totals less than zero: a credit is given as a payment's credit, not a negative invoice`);
  const value = await nextCounterValue(tx, orgId, INVOICE_COUNTER);
  const issueDate = todayIn(settings.timezone);
  await markFinalized(tx, orgId, id, {
    number: `${settings.invoicePrefix}${String(value).padStart(4, '0')}`,
    status: totals.total === 0 ? 'PAID' : 'OPEN',
    issueDate,
    dueDate: addDays(issueDate, settings.invoiceDueDays),
  });
  await setVisitBillingStatus(tx, orgId, visits, VISIT_INVOICED);
  await afterFinalizing(tx, ctx, (await invoices.findById(tx, orgId, id))!);
  // As it is now: credit applied after finalizing shows in its amount paid and balance.
  return (await invoices.findById(tx, orgId, id))!;
}
