import { z } from 'zod';
import { errors, idValidator, toMinor, type Invoice } from '../../../shared/index.js';
import { customers } from '../../storage/customers.js';
import type { Queryable } from '../../storage/db.js';
import { deleteDraft, deleteLines, insertDraft, insertLinesOnce, invoices, linesMinor, lockInvoice, rewriteLines, type LineMinor } from '../../storage/invoices.js';
import { requireRole, type OperationContext } from '../context.js';
import { newId } from '../ids.js';
import { parseInput } from '../input.js';
import { requireBilling } from './access.js';
import { repriceDraft } from './draft-money.js';
import { CalendarDate, checkedPeriod } from './periods.js';
import { lineAmount } from './pricing.js';
import { billingSettings, customerTax, taxById, type AppliedTax, type BillingSettings } from './settings.js';

/**
 * Drafts by hand: a manual invoice, changes to a draft's lines (the office's own work, which no run
 * overwrites: a run only adds lines for facts not billed yet), and deleting a draft, which has no
 * number to leave a hole in the sequence.
 */
const text = (max: number) => z.string().trim().max(max);
const LineInput = z.strictObject({
  id: idValidator().nullish(),
  description: text(2000).min(1, 'must not be empty'),
  quantity: z.number().finite().positive('must be greater than 0').max(1_000_000),
  unitPrice: z.number().finite().min(-100_000_000).max(100_000_000),
  // Omitted: the customer's tax (else the organization's default); null: not taxed.
  taxId: idValidator().nullish(),
});
type LineInput = z.output<typeof LineInput>;
const Lines = z.array(LineInput).max(1000);

const CreateInvoiceInput = z.strictObject({
  customerId: idValidator(),
  periodStart: CalendarDate.nullish(),
  periodEnd: CalendarDate.nullish(),
  notes: text(5000).nullish(),
  lines: Lines.default([]),
});

const UpdateInvoiceInput = z.strictObject({
  notes: text(5000).nullish(),
  accountingId: text(200).nullish(),
  lines: Lines.optional(),
});

export async function createInvoice(ctx: OperationContext, raw: unknown): Promise<Invoice> {
  requireBilling(ctx, 'create invoices');
  const input = parseInput(CreateInvoiceInput, raw);
  if (input.lines.some((l) => l.id)) throw errors.badInput('lines: a new invoice has no lines to keep; leave out id', { fields: ['lines'] });
  const period = periodOf(input.periodStart ?? null, input.periodEnd ?? null);
  const orgId = ctx.viewer.orgId;
  return ctx.db.transaction(async (tx) => {
    const customer = await customers.findById(tx, orgId, input.customerId);
    if (!customer) throw errors.notFound('Customer', input.customerId);
    const settings = await billingSettings(tx, orgId);
    const id = newId();
    await insertDraft(tx, orgId, {
      id,
      customerId: customer.id,
      origin: 'MANUAL',
      periodStart: period?.start ?? null,
      periodEnd: period?.end ?? null,
      currency: settings.currency,
      taxRounding: settings.taxRounding,
      notes: input.notes ?? null,
      quoteId: null,
      createdById: ctx.viewer.userId,
    });
    const fallback = await customerTax(tx, settings, customer);
    await insertLinesOnce(tx, orgId, id, await manualLines(tx, settings, input.lines, [], fallback));
    await repriceDraft(tx, orgId, id, settings.taxRounding, settings.currency);
    return (await invoices.findById(tx, orgId, id))!;
  });
}

/**
 * Changes a draft: notes, accountingId, and `lines`, which replaces every line (a line given with
 * its id keeps its source and takes the new text and prices; a line left out is removed, its work
 * free to be billed again; a line without id is a MANUAL one). Once finalized only accountingId may
 * change: an invoice's money and lines never do (void it and issue another).
 */
export async function updateInvoice(ctx: OperationContext, id: string, raw: unknown): Promise<Invoice> {
  requireBilling(ctx, 'change invoices');
  const input = parseInput(UpdateInvoiceInput, raw);
  // The link to the accounting system is kept by the integration (API) or an administrator.
  if (input.accountingId !== undefined) requireRole(ctx.viewer, ['ADMIN', 'API'], 'set accountingId');
  const orgId = ctx.viewer.orgId;
  return ctx.db.transaction(async (tx) => {
    const invoice = await lockInvoice(tx, orgId, id);
    if (!invoice) throw errors.notFound('Invoice', id);
    if (invoice.status !== 'DRAFT') assertOnlyAccountingId(invoice, input);
    const patch: Partial<Invoice> = {};
    if (input.notes !== undefined) patch.notes = input.notes;
    if (input.accountingId !== undefined) patch.accountingId = input.accountingId;
    if (Object.keys(patch).length) await invoices.update(tx, orgId, id, patch);
    if (input.lines) await replaceLines(tx, orgId, invoice, input.lines);
    return (await invoices.findById(tx, orgId, id))!;
  });
}

function assertOnlyAccountingId(invoice: Invoice, input: z.output<typeof UpdateInvoiceInput>): void {
  const refused = Object.entries(input).filter(([field, value]) => value !== undefined && field !== 'accountingId').map(([field]) => field);
  if (!refused.length) return;
  throw errors.conflict(
    `Invoice ${invoice.number ?? invoice.id} is ${invoice.status}: its ${refused.join(' and ')} can no longer change (void it and issue another invoice); only accountingId may be set`,
  );
}

/** Deletes a draft (its work may be billed again). A finalized invoice is voided, never deleted. */
export async function deleteInvoice(ctx: OperationContext, id: string): Promise<Invoice> {
  requireBilling(ctx, 'delete invoices');
  const orgId = ctx.viewer.orgId;
  return ctx.db.transaction(async (tx) => {
    const invoice = await lockInvoice(tx, orgId, id);
    if (!invoice) throw errors.notFound('Invoice', id);
    if (invoice.status !== 'DRAFT') throw errors.conflict(`Invoice ${invoice.number} is ${invoice.status}: only a draft may be deleted (void it instead)`);
    await deleteDraft(tx, orgId, id);
    return invoice;
  });
}

async function replaceLines(tx: Queryable, orgId: string, invoice: Invoice, input: readonly LineInput[]): Promise<void> {
  const settings = await billingSettings(tx, orgId);
  const current = await linesMinor(tx, orgId, invoice.id);
  const byId = new Map(current.map((l) => [l.id, l]));
  const unknown = input.filter((l) => l.id && !byId.has(l.id)).map((l) => l.id);
  if (unknown.length) throw errors.badInput(`lines: ${unknown.join(', ')} are not lines of invoice ${invoice.id}`, { fields: ['lines'] });
  const kept = new Set(input.flatMap((l) => (l.id ? [l.id] : [])));
  await deleteLines(tx, orgId, invoice.id, current.filter((l) => !kept.has(l.id)).map((l) => l.id));
  const customer = await customers.findById(tx, orgId, invoice.customerId);
  const fallback = customer ? await customerTax(tx, settings, customer) : await taxById(tx, orgId, settings.defaultTaxId);
  const priced = await manualLines(tx, settings, input, current, fallback);
  await rewriteLines(tx, orgId, invoice.id, priced.filter((l) => byId.has(l.id)));
  await insertLinesOnce(tx, orgId, invoice.id, priced.filter((l) => !byId.has(l.id)));
  await repriceDraft(tx, orgId, invoice.id, invoice.taxRounding, settings.currency);
}

/** Lines from input, in the order given; a kept line keeps its source and (unless given) its tax. */
async function manualLines(tx: Queryable, settings: BillingSettings, input: readonly LineInput[], current: readonly LineMinor[], fallback: AppliedTax): Promise<LineMinor[]> {
  const byId = new Map(current.map((l) => [l.id, l]));
  const lines: LineMinor[] = [];
  for (const [i, line] of input.entries()) {
    const kept = line.id ? byId.get(line.id) : undefined;
    const tax = await lineTax(tx, settings, line.taxId, kept, fallback);
    const unitPrice = toMinor(line.unitPrice, settings.currency);
    lines.push({
      id: kept?.id ?? newId(),
      position: i + 1,
      sourceType: kept?.sourceType ?? 'MANUAL',
      sourceId: kept?.sourceId ?? null,
      serviceId: kept?.serviceId ?? null,
      date: kept?.date ?? null,
      itemId: kept?.itemId ?? null,
      description: line.description,
      quantity: line.quantity,
      unitPrice,
      amount: lineAmount(unitPrice, line.quantity, settings.currency),
      taxId: tax.taxId,
      taxRate: tax.rate,
      taxAmount: null,
    });
  }
  return lines;
}

async function lineTax(tx: Queryable, settings: BillingSettings, taxId: string | null | undefined, kept: LineMinor | undefined, fallback: AppliedTax): Promise<AppliedTax> {
  if (taxId === null) return { taxId: null, rate: 0 };
  if (taxId === undefined) return kept ? { taxId: kept.taxId, rate: kept.taxRate } : fallback;
  const tax = await taxById(tx, settings.orgId, taxId);
  if (!tax.taxId) throw errors.badInput(`lines: tax ${taxId} was not found`, { fields: ['lines'] });
  return tax;
}

function periodOf(start: string | null, end: string | null) {
  if (start === null && end === null) return null;
  if (start === null || end === null) throw errors.badInput('periodStart and periodEnd: give both or neither', { fields: ['periodStart', 'periodEnd'] });
  return checkedPeriod(start, end);
}
