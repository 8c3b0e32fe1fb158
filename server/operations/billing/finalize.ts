import { z } from 'zod';
import { AppError, errors, idValidator, VISIT_INVOICED, type Invoice, type Organization } from '../../../shared/index.js';
import { setVisitBillingStatus } from '../../storage/billable.js';
import { nextCounterValues } from '../../storage/counters.js';
import type { Queryable } from '../../storage/db.js';
import { draftIds, lockInvoices, markFinalizedMany, setLineTaxes } from '../../storage/invoices.js';
import { organizations } from '../../storage/organizations.js';
import { lockOrganizationFeed } from '../../storage/table-feed.js';
import type { OperationContext } from '../context.js';
import { parseInput } from '../input.js';
import { requireBilling } from './access.js';
import { afterFinalizing, type Finalized } from './after-finalize.js';
import { priceDrafts, type PricedDraft } from './draft-money.js';
import { addDays, todayIn } from './periods.js';
import { settingsOf } from './settings.js';

/**
 * Finalizing: a draft becomes an invoice. Its number is the organization's invoicePrefix and the
 * next value of its invoice counter, drawn in the finalizing transaction (a locked row, not a
 * sequence: a transaction that fails takes its numbers back with it, so numbers have no gaps, and
 * two processes finalizing at once wait for each other's row lock, so none is given twice). It is
 * issued today in the organization's time zone and due invoiceDueDays later. Finalizing again
 * answers the invoice as it is: the same number, nothing changed.
 *
 * Drafts are finalized in batches of FINALIZE_BATCH, a transaction each, set-based: a fixed number
 * of statements per batch whatever its size (README.md beside this file, Numbering).
 */
export const INVOICE_COUNTER = 'invoice';

/** Drafts finalized in one transaction. */
export const FINALIZE_BATCH = 250;

/** Drafts one finalizeInvoices call takes (ids given, or the oldest drafts for `all`), so it answers well within REQUEST_TIMEOUT_MS. */
export const FINALIZE_MAX = 1_000;

export async function finalizeInvoice(ctx: OperationContext, id: string): Promise<Invoice> {
  requireBilling(ctx, 'finalize invoices');
  parseInput(idValidator(), id);
  return (await finalizeInBatches(ctx, [id]))[0]!;
}

const FinalizeInput = z
  .strictObject({ ids: z.array(idValidator()).min(1).max(FINALIZE_MAX).nullish(), all: z.boolean().nullish() })
  .refine((i) => Boolean(i.ids) !== Boolean(i.all), 'give ids, or all: true');

/**
 * Finalizes the drafts named (numbered in the order given), or the oldest FINALIZE_MAX drafts
 * (`all`; call again for the rest), and answers them. A draft refused (VOID, no lines, a negative
 * total, not found) is told in the error after the others are finalized, which stay so.
 */
export async function finalizeInvoices(ctx: OperationContext, raw: unknown): Promise<Invoice[]> {
  requireBilling(ctx, 'finalize invoices');
  const input = parseInput(FinalizeInput, raw);
  const ids = input.ids ? [...new Set(input.ids)] : await draftIds(ctx.db, ctx.viewer.orgId, FINALIZE_MAX);
  return finalizeInBatches(ctx, ids);
}

interface Refusal {
  id: string;
  error: AppError;
}

async function finalizeInBatches(ctx: OperationContext, ids: readonly string[]): Promise<Invoice[]> {
  const done: Invoice[] = [];
  const refused: Refusal[] = [];
  for (let i = 0; i < ids.length; i += FINALIZE_BATCH) {
    const batch = await ctx.db.transaction((tx) => finalizeBatch(tx, ctx, ids.slice(i, i + FINALIZE_BATCH)));
    done.push(...batch.invoices);
    refused.push(...batch.refused);
  }
  if (refused.length) throw refusalError(refused, done.length);
  return done;
}

/** One refusal is its own error; several are one of the first's kind naming each, with the ids in `details.refused`. */
function refusalError(refused: readonly Refusal[], finalized: number): AppError {
  const details = { ...refused[0]!.error.details, refused: refused.map((r) => r.id) };
  if (refused.length === 1) return new AppError(refused[0]!.error.kind, refused[0]!.error.message, details);
  const reasons = refused.map((r) => r.error.message).join('; ');
  return new AppError(refused[0]!.error.kind, `${refused.length} drafts were not finalized (${finalized} others were): ${reasons}`, details);
}

/**
 * One batch, in its transaction: its invoices locked in one statement (in id order, as every
 * locker of several invoices takes them), those already OPEN or PAID answered as they are, the
 * refused left as they were, and the drafts priced, numbered and finalized together.
 */
async function finalizeBatch(tx: Queryable, ctx: OperationContext, ids: readonly string[]): Promise<{ invoices: Invoice[]; refused: Refusal[] }> {
  const orgId = ctx.viewer.orgId;
  // The change feed's lock before any invoice's row, as every writer of invoices takes them (the
  // month's run, payments, a device's push: their first write takes the feed's); taken after the
  // rows, a batch could hold a row another writer waits for while it waits for that writer's lock.
  await lockOrganizationFeed(tx, orgId);
  const organization = (await organizations.findById(tx, orgId, orgId))!;
  const locked = new Map((await lockInvoices(tx, orgId, ids)).map((i) => [i.id, i]));
  const refused: Refusal[] = [];
  const drafts: Invoice[] = [];
  for (const id of ids) {
    const invoice = locked.get(id);
    if (!invoice) refused.push({ id, error: errors.notFound('Invoice', id) });
    else if (invoice.status === 'VOID') refused.push({ id, error: errors.conflict(`Invoice ${invoice.number} is VOID: it cannot be finalized again (issue a new invoice)`) });
    else if (invoice.status === 'DRAFT') drafts.push(invoice);
  }
  const priced = await priceDrafts(tx, orgId, drafts);
  const accepted: { draft: Invoice; priced: PricedDraft }[] = [];
  for (const draft of drafts) {
    const refusal = draftRefusal(draft.id, priced.get(draft.id)!);
    if (refusal) refused.push({ id: draft.id, error: refusal });
    else accepted.push({ draft, priced: priced.get(draft.id)! });
  }
  const done = accepted.length ? await finalizeDrafts(tx, ctx, organization, accepted) : [];
  // The finalized as they are after their credit; the others (OPEN, PAID) as locked.
  const now = new Map(locked);
  for (const invoice of done) now.set(invoice.id, invoice);
  const refusedIds = new Set(refused.map((r) => r.id));
  const place = new Map(ids.map((id, i) => [id, i]));
  refused.sort((a, b) => place.get(a.id)! - place.get(b.id)!); // told in the order given
  return { invoices: ids.filter((id) => !refusedIds.has(id)).map((id) => now.get(id)!), refused };
}

function draftRefusal(id: string, priced: PricedDraft): AppError | null {
  if (!priced.lines.length) return errors.badInput(`Invoice ${id} has no lines: add some, or delete the draft`);
  if (priced.totals.total < 0) return errors.badInput(`Invoice ${id} totals less than zero: a credit is given as a payment's credit, not a negative invoice`);
  return null;
}

/**
 * Numbers the drafts in their order, consecutively, and makes them invoices (a fixed number of
 * statements); answers them as they are after it.
 */
async function finalizeDrafts(tx: Queryable, ctx: OperationContext, organization: Organization, accepted: readonly { draft: Invoice; priced: PricedDraft }[]): Promise<Invoice[]> {
  const orgId = ctx.viewer.orgId;
  const settings = settingsOf(organization);
  await setLineTaxes(tx, orgId, accepted.flatMap((a) => a.priced.retaxed));
  // The counter's row after the feed's lock (taken by finalizeBatch), so two batches never wait on each other.
  const first = await nextCounterValues(tx, orgId, INVOICE_COUNTER, accepted.length);
  const issueDate = todayIn(settings.timezone);
  const finalizations = accepted.map(({ draft, priced }, i) => ({
    id: draft.id,
    number: `${settings.invoicePrefix}${String(first + i).padStart(4, '0')}`,
    status: priced.totals.total === 0 ? ('PAID' as const) : ('OPEN' as const),
    ...priced.totals,
  }));
  await markFinalizedMany(tx, orgId, finalizations, { issueDate, dueDate: addDays(issueDate, settings.invoiceDueDays) });
  const visits = accepted.flatMap((a) => a.priced.lines.flatMap((l) => (l.sourceType === 'VISIT' && l.sourceId ? [l.sourceId] : [])));
  await setVisitBillingStatus(tx, orgId, visits, VISIT_INVOICED);
  const finalized: Finalized[] = accepted.map(({ draft }, i) => ({ id: draft.id, customerId: draft.customerId, currency: draft.currency, status: finalizations[i]!.status }));
  return afterFinalizing(tx, ctx, organization, finalized);
}
