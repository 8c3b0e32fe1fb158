import { z } from 'zod';
import { errors, fromMinor, idValidator, QUOTE_STATUSES, roundToCurrency, type Quote, type QuoteStatus } from '../../shared/index.js';
import type { Queryable } from '../storage/db.js';
import { nextCounterValue } from '../storage/counters.js';
import { customers } from '../storage/customers.js';
import { organizations } from '../storage/organizations.js';
import { lockQuote, QUOTE_SORT_KEYS, quotePage, quotes } from '../storage/quotes.js';
import { taxes } from '../storage/taxes.js';
import type { OperationContext } from './context.js';
import { newId } from './ids.js';
import { parseInput } from './input.js';
import { lineAmountMinor, quoteTotals } from './money.js';
import { listTag, pageWindow, toConnection, type Connection, type PageArgs } from './pagination.js';
import { assertEditable, assertQuoteTransition, whyMayNotChangeQuote } from './quote-rules.js';

/**
 * Quotes: numbered and priced by the server (also when first created offline), with status
 * changes through the state machine (quote-rules.ts).
 */

const text = (max: number) => z.string().trim().max(max);
const LineItemInput = z.strictObject({
  id: idValidator().nullish(),
  description: text(2000).min(1, 'must not be empty'),
  quantity: z.number().finite().positive('must be greater than 0').max(1_000_000),
  unitPrice: z.number().finite().min(-100_000_000).max(100_000_000),
});
const editableFields = {
  title: text(500).min(1, 'must not be empty'),
  validUntil: z.iso.datetime({ offset: true }).nullish(),
  lineItems: z.array(LineItemInput).max(500),
  taxId: idValidator().nullish(),
  notes: text(20000).nullish(),
  terms: text(20000).nullish(),
};
const CreateQuoteInput = z.strictObject({
  customerId: idValidator(),
  ...editableFields,
  lineItems: editableFields.lineItems.default([]),
});
const UpdateQuoteInput = z.strictObject({
  status: z.enum(QUOTE_STATUSES).optional(),
  customerId: idValidator().optional(),
  title: editableFields.title.optional(),
  validUntil: editableFields.validUntil,
  lineItems: editableFields.lineItems.optional(),
  taxId: editableFields.taxId,
  notes: editableFields.notes,
  terms: editableFields.terms,
});
const QuoteFilterInput = z
  .strictObject({ status: z.enum(QUOTE_STATUSES).nullish(), customerId: idValidator().nullish() })
  .nullish();

type LineInput = z.output<typeof LineItemInput>;

export async function getQuote(ctx: OperationContext, id: string): Promise<Quote> {
  const quote = await quotes.findById(ctx.db, ctx.viewer.orgId, id);
  if (!quote) throw errors.notFound('Quote', id);
  return quote;
}

export async function listQuotes(
  ctx: OperationContext,
  args: PageArgs & { filter?: unknown },
): Promise<Connection<Quote>> {
  const filter = parseInput(QuoteFilterInput, args.filter) ?? {};
  const tag = listTag(ctx.viewer.orgId, 'quotes', `${filter.status ?? ''}/${filter.customerId ?? ''}`);
  const window = pageWindow(args, tag, QUOTE_SORT_KEYS.length);
  return toConnection(await quotePage(ctx.db, ctx.viewer.orgId, filter, window), window, tag);
}

export async function createQuote(ctx: OperationContext, raw: unknown): Promise<Quote> {
  const input = parseInput(CreateQuoteInput, raw);
  const orgId = ctx.viewer.orgId;
  return ctx.db.transaction(async (tx) => {
    await requireCustomer(tx, orgId, input.customerId);
    const { number, defaultTaxId } = await nextQuoteNumber(tx, orgId);
    const taxId = input.taxId ?? defaultTaxId;
    return quotes.insert(tx, orgId, {
      id: newId(),
      number,
      title: input.title,
      customerId: input.customerId,
      status: 'DRAFT',
      taxId,
      validUntil: input.validUntil ?? null,
      acceptedAt: null,
      notes: input.notes ?? null,
      terms: input.terms ?? null,
      photos: [],
      pdfKey: null,
      createdById: ctx.viewer.userId,
      ...(await priceQuote(tx, orgId, input.lineItems, taxId)),
    });
  });
}

/**
 * Changes a quote. Content may change only while it is DRAFT; `status` moves it through the state
 * machine (accepting stamps acceptedAt). A technician may change only quotes they created.
 */
export async function updateQuote(ctx: OperationContext, id: string, raw: unknown): Promise<Quote> {
  const input = parseInput(UpdateQuoteInput, raw);
  const orgId = ctx.viewer.orgId;
  return ctx.db.transaction(async (tx) => {
    const quote = await lockQuote(tx, orgId, id);
    if (!quote) throw errors.notFound('Quote', id);
    assertMayChangeQuote(ctx, quote);
    const { status, ...content } = input;
    const edits = Object.fromEntries(Object.entries(content).filter(([, v]) => v !== undefined));
    if (Object.keys(edits).length) assertEditable(quote, Object.keys(edits));
    if (status) assertQuoteTransition(quote.status, status);
    if (content.customerId) await requireCustomer(tx, orgId, content.customerId);
    const patch: Partial<Quote> = { ...edits, ...statusChange(quote.status, status) };
    if (content.lineItems || content.taxId !== undefined) {
      const taxId = content.taxId === undefined ? quote.taxId : content.taxId;
      Object.assign(patch, await priceQuote(tx, orgId, content.lineItems ?? quote.lineItems, taxId));
    }
    return (await quotes.update(tx, orgId, id, patch))!;
  });
}

function statusChange(from: QuoteStatus, to: QuoteStatus | undefined): Partial<Quote> {
  if (!to || to === from) return {};
  return to === 'ACCEPTED' ? { status: to, acceptedAt: new Date().toISOString() } : { status: to };
}

/** Office roles change any quote; a technician only the quotes they created. */
export function assertMayChangeQuote(ctx: OperationContext, quote: Quote): void {
  const refusal = whyMayNotChangeQuote(ctx.viewer, quote);
  if (refusal) throw errors.forbidden(refusal);
}

async function requireCustomer(tx: Queryable, orgId: string, customerId: string): Promise<void> {
  if (!(await customers.findById(tx, orgId, customerId))) throw errors.notFound('Customer', customerId);
}

/** The next number in the organization's quote sequence, and its default tax. */
export async function nextQuoteNumber(tx: Queryable, orgId: string): Promise<{ number: string; defaultTaxId: string | null }> {
  const org = await organizations.findById(tx, orgId, orgId);
  const value = await nextCounterValue(tx, orgId, 'quote');
  return { number: `${org!.settings.quotePrefix}${String(value).padStart(4, '0')}`, defaultTaxId: org!.settings.defaultTaxId ?? null };
}

/**
 * Line amounts, subtotal, tax and total in the organization's currency (unit prices kept at its
 * precision); the tax must be one of the organization's.
 */
export async function priceQuote(tx: Queryable, orgId: string, lines: readonly LineInput[], taxId: string | null | undefined) {
  let rate = 0;
  if (taxId) {
    const tax = await taxes.findById(tx, orgId, taxId);
    if (!tax) throw errors.badInput(`taxId: tax ${taxId} was not found`, { fields: ['taxId'] });
    rate = tax.rate;
  }
  const { currency } = (await organizations.findById(tx, orgId, orgId))!;
  const amounts = lines.map((l) => lineAmountMinor(l.quantity, l.unitPrice, currency));
  const lineItems = lines.map((l, i) => ({
    id: l.id ?? newId(),
    description: l.description,
    quantity: l.quantity,
    unitPrice: roundToCurrency(l.unitPrice, currency),
    amount: fromMinor(amounts[i]!, currency),
  }));
  const totals = quoteTotals(amounts, rate, currency);
  if (totals.subtotal < 0) throw errors.badInput('lineItems: the subtotal must not be negative', { fields: ['lineItems'] });
  return { lineItems, ...totals };
}
