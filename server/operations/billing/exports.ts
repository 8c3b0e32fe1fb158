import { z } from 'zod';
import { invoiceExportBatch, paymentExportBatch, type InvoiceExportRow, type InvoiceSeek, type PaymentExportRow, type PaymentSeek } from '../../storage/billing-exports.js';
import { OFFICE_ROLES, requireRole, type OperationContext } from '../context.js';
import type { CsvColumn } from '../csv.js';
import { parseInput } from '../input.js';

/**
 * CSV exports of invoices and payments for an accounting system's import: a row per invoice line
 * (the invoice's own fields repeated on each, as QuickBooks' and Xero's invoice imports take them)
 * and a row per payment application (the payment's fields repeated), with every accountingId, so
 * an import can match what it already holds. Text cells are guarded against formulas by csv.ts.
 */

const day = () => z.iso.date('must be a date such as 2026-01-31');
const RangeInput = z
  .strictObject({ from: day().nullish(), to: day().nullish() })
  .refine((r) => !r.from || !r.to || r.from <= r.to, { message: 'the period ends before it starts', path: ['to'] });

export const INVOICE_CSV_COLUMNS: readonly CsvColumn<InvoiceExportRow>[] = [
  { header: 'invoiceNumber', value: (r) => r.invoiceNumber },
  { header: 'invoiceAccountingId', value: (r) => r.invoiceAccountingId },
  { header: 'status', value: (r) => r.status },
  { header: 'customerName', value: (r) => r.customerName },
  { header: 'customerAccountingName', value: (r) => r.customerAccountingName },
  { header: 'customerAccountingId', value: (r) => r.customerAccountingId },
  { header: 'issueDate', value: (r) => r.issueDate },
  { header: 'dueDate', value: (r) => r.dueDate },
  { header: 'periodStart', value: (r) => r.periodStart },
  { header: 'periodEnd', value: (r) => r.periodEnd },
  { header: 'currency', value: (r) => r.currency },
  { header: 'lineNumber', value: (r) => r.lineNumber },
  { header: 'lineSource', value: (r) => r.lineSource },
  { header: 'lineDate', value: (r) => r.lineDate },
  { header: 'description', value: (r) => r.description },
  { header: 'itemAccountingId', value: (r) => r.itemAccountingId },
  { header: 'quantity', value: (r) => r.quantity },
  { header: 'unitPrice', value: (r) => r.unitPrice },
  { header: 'lineAmount', value: (r) => r.lineAmount },
  { header: 'taxRate', value: (r) => r.taxRate },
  { header: 'lineTax', value: (r) => r.lineTax },
  { header: 'subtotal', value: (r) => r.subtotal },
  { header: 'tax', value: (r) => r.tax },
  { header: 'total', value: (r) => r.total },
  { header: 'amountPaid', value: (r) => r.amountPaid },
  { header: 'balanceDue', value: (r) => r.balanceDue },
  { header: 'voidReason', value: (r) => r.voidReason },
  { header: 'invoiceId', value: (r) => r.invoiceId },
  { header: 'customerId', value: (r) => r.customerId },
];

export const PAYMENT_CSV_COLUMNS: readonly CsvColumn<PaymentExportRow>[] = [
  { header: 'date', value: (r) => r.date },
  { header: 'kind', value: (r) => r.kind },
  { header: 'paymentAccountingId', value: (r) => r.paymentAccountingId },
  { header: 'customerName', value: (r) => r.customerName },
  { header: 'customerAccountingName', value: (r) => r.customerAccountingName },
  { header: 'customerAccountingId', value: (r) => r.customerAccountingId },
  { header: 'method', value: (r) => r.method },
  { header: 'reference', value: (r) => r.reference },
  { header: 'currency', value: (r) => r.currency },
  { header: 'amount', value: (r) => r.amount },
  { header: 'unapplied', value: (r) => r.unapplied },
  { header: 'invoiceNumber', value: (r) => r.invoiceNumber },
  { header: 'invoiceAccountingId', value: (r) => r.invoiceAccountingId },
  { header: 'appliedAmount', value: (r) => r.appliedAmount },
  { header: 'appliedDate', value: (r) => r.appliedDate },
  { header: 'reason', value: (r) => r.reason },
  { header: 'reversesPaymentId', value: (r) => r.reversesPaymentId },
  { header: 'paymentProcessorId', value: (r) => r.paymentProcessorId },
  { header: 'receivedAt', value: (r) => r.receivedAt },
  { header: 'paymentId', value: (r) => r.paymentId },
  { header: 'customerId', value: (r) => r.customerId },
];

/** Invoices (or payments) per batch read; their lines (or applications) come along. */
const BATCH = 200;

/** Finalized invoices issued from `from` to `to` (both included, either optional). Office roles; a bad request fails before any byte. */
export function exportInvoices(ctx: OperationContext, raw: { from?: unknown; to?: unknown }): AsyncIterable<InvoiceExportRow> {
  requireRole(ctx.viewer, OFFICE_ROLES, 'export invoices');
  const range = parseInput(RangeInput, { from: raw.from, to: raw.to });
  return (async function* () {
    let after: InvoiceSeek | null = null;
    for (;;) {
      const batch = await invoiceExportBatch(ctx.db, ctx.viewer.orgId, { from: range.from ?? null, to: range.to ?? null }, after, BATCH);
      yield* batch.rows;
      if (batch.invoices < BATCH || !batch.seek) return;
      after = batch.seek;
    }
  })();
}

/** Payments and reversals received from `from` to `to` (both included, either optional). Office roles. */
export function exportPayments(ctx: OperationContext, raw: { from?: unknown; to?: unknown }): AsyncIterable<PaymentExportRow> {
  requireRole(ctx.viewer, OFFICE_ROLES, 'export payments');
  const range = parseInput(RangeInput, { from: raw.from, to: raw.to });
  return (async function* () {
    let after: PaymentSeek | null = null;
    for (;;) {
      const batch = await paymentExportBatch(ctx.db, ctx.viewer.orgId, { from: range.from ?? null, to: range.to ?? null }, after, BATCH);
      yield* batch.rows;
      if (batch.payments < BATCH || !batch.seek) return;
      after = batch.seek;
    }
  })();
}
