import type { Invoice, PaymentMethod } from '../shared/index.js';
import { finalizeInvoice, finalizeInvoices } from './operations/billing/finalize.js';
import { convertQuoteToInvoice } from './operations/billing/from-quote.js';
import { recordPaymentIn } from './operations/billing/payments.js';
import { addDays } from './operations/billing/periods.js';
import { GENERATE_INVOICES } from './operations/bulk/kinds/invoices.js';
import { getBulkOperation, startBulkOperation } from './operations/bulk/operations.js';
import type { OperationContext } from './operations/context.js';
import { updateOrganizationSettings } from './operations/organization.js';
import { createQuote, updateQuote } from './operations/quotes.js';
import { BulkWorker } from './jobs/worker.js';
import { createMessenger } from './jobs/messenger.js';
import { createLogger } from './logger.js';
import { backdateInvoice } from './storage/demo-history.js';

/**
 * The demo organization's billing: last month billed as an office would bill it, through the same
 * operations (the month's run as the bulk operation INVOICES_GENERATE, finalizing every draft,
 * payments recorded on the ledger). Of last month's invoices most are paid in full, some partly
 * and the rest still owed; a repair billed from an accepted quote six weeks ago is overdue. The
 * choice of who pays what follows the invoices' numbers, so every first start looks the same.
 */
export const DEMO_INVOICE_DUE_DAYS = 14;
/** How long ago the overdue repair invoice was issued (so it is past due on any day). */
const REPAIR_ISSUED_DAYS_AGO = 40;
const METHODS: readonly PaymentMethod[] = ['CHECK', 'ACH', 'CASH', 'CHECK', 'CARD'];

export interface DemoBilling {
  period: { start: string; end: string };
  invoices: number;
  paid: number;
  partlyPaid: number;
  overdue: number;
}

export async function billDemoLastMonth(ctx: OperationContext, now: number, repairCustomerId: string): Promise<DemoBilling> {
  await updateOrganizationSettings(ctx, { invoicePrefix: 'DPS-', invoiceDueDays: DEMO_INVOICE_DUE_DAYS, autoSendInvoices: false });
  const period = lastMonth(now);
  await runTheMonth(ctx, period);
  const finalized = await finalizeInvoices(ctx, { all: true });
  const { paid, partlyPaid } = await recordDemoPayments(ctx, finalized);
  await addOverdueRepair(ctx, now, repairCustomerId);
  return { period, invoices: finalized.length + 1, paid, partlyPaid, overdue: 1 };
}

/** The calendar month before the one `now` falls in (the demo organization's zone is UTC). */
export function lastMonth(now: number): { start: string; end: string } {
  const date = new Date(now);
  const firstOfThis = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
  const end = new Date(firstOfThis - 86_400_000).toISOString().slice(0, 10);
  return { start: `${end.slice(0, 7)}-01`, end };
}

/**
 * Starts the month's run and works it to the end here, with a worker of its own: the seed runs
 * before the server's workers start, and the demo's first screen should show the invoices made.
 */
async function runTheMonth(ctx: OperationContext, period: { start: string; end: string }): Promise<void> {
  const { operation } = await startBulkOperation(ctx, { kind: GENERATE_INVOICES, periodStart: period.start, periodEnd: period.end });
  const worker = new BulkWorker({ db: ctx.db, blobs: ctx.blobs, messenger: createMessenger({ emailFrom: 'demo@localhost' }), logger: createLogger('error'), pollMs: 10 });
  worker.start();
  try {
    for (;;) {
      const state = await getBulkOperation(ctx, operation.id);
      if (state.status === 'SUCCEEDED') return;
      if (state.status !== 'QUEUED' && state.status !== 'RUNNING') throw new Error(`The demo's month's run ended ${state.status}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    await worker.stop();
  }
}

/**
 * In number order: three of five paid in full, one partly (about a third, in whole units), one
 * still owed, by check, bank transfer, cash or card.
 */
async function recordDemoPayments(ctx: OperationContext, invoices: readonly Invoice[]): Promise<{ paid: number; partlyPaid: number }> {
  const owed = invoices.filter((i) => i.status === 'OPEN').sort((a, b) => (a.number ?? '').localeCompare(b.number ?? ''));
  // One transaction for the lot: the seed's first start should not wait for a commit per payment.
  return ctx.db.transaction(async (tx) => {
    let paid = 0;
    let partlyPaid = 0;
    for (const [n, invoice] of owed.entries()) {
      const share = n % 5;
      if (share === 4) continue;
      const full = share < 3;
      const amount = full ? invoice.total : Math.max(1, Math.floor(invoice.total / 3));
      const method = METHODS[n % METHODS.length]!;
      await recordPaymentIn(tx, ctx, {
        customerId: invoice.customerId,
        amount,
        method,
        reference: method === 'CHECK' ? `Check ${1040 + n}` : null,
        invoiceIds: [invoice.id],
      });
      if (full) paid++;
      else partlyPaid++;
    }
    return { paid, partlyPaid };
  });
}

/**
 * A heater repair quoted, accepted and billed from its quote six weeks ago, never paid: the
 * demo's overdue invoice. Finalizing dates it today, so its dates are then moved back as the rest
 * of the demo's history is made in the past.
 */
async function addOverdueRepair(ctx: OperationContext, now: number, customerId: string): Promise<void> {
  const quote = await createQuote(ctx, {
    customerId,
    title: 'Heater repair',
    lineItems: [
      { description: 'Heater igniter, replaced', quantity: 1, unitPrice: 165 },
      { description: 'Repair labour (hours)', quantity: 2, unitPrice: 95 },
    ],
  });
  await updateQuote(ctx, quote.id, { status: 'SENT' });
  await updateQuote(ctx, quote.id, { status: 'ACCEPTED' });
  const draft = await convertQuoteToInvoice(ctx, quote.id);
  const invoice = await finalizeInvoice(ctx, draft.id);
  const issueDate = addDays(new Date(now).toISOString().slice(0, 10), -REPAIR_ISSUED_DAYS_AGO);
  await ctx.db.transaction((tx) =>
    backdateInvoice(tx, ctx.viewer.orgId, invoice.id, { issueDate, dueDate: addDays(issueDate, DEMO_INVOICE_DUE_DAYS) }),
  );
}
