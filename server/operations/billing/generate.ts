import type { Customer } from '../../../shared/index.js';
import { sourcesBilled } from '../../storage/billable.js';
import { liveCustomersByIds, monthsBilledOf, quotedPricesOf, unbilledStockUsesOf, unbilledVisitsOf } from '../../storage/billable-batch.js';
import type { RunResult } from '../../storage/billing-runs.js';
import type { Queryable } from '../../storage/db.js';
import {
  deleteDrafts,
  insertDraftLinesOnce,
  insertGeneratedDrafts,
  lockGeneratedDrafts,
  setDraftTotals,
  type DraftLine,
  type GeneratedDraft,
} from '../../storage/generated-drafts.js';
import { taxesByIds } from '../../storage/taxes.js';
import { newId } from '../ids.js';
import { repriceDraft } from './draft-money.js';
import type { Period } from './periods.js';
import { flatSource, monthsToRead, priceUnbilled, whyNotBilled, type CustomerFacts, type Priced, type Unbilled } from './run-pricing.js';
import { NO_TAX, type AppliedTax, type BillingSettings } from './settings.js';
import { invoiceMoney } from './tax.js';

/**
 * The month's run for a chunk of customers (README, "The month's run"), set-based: the chunk's
 * customers and each kind of their unbilled facts are read in one statement each, priced in
 * memory (run-pricing.ts), and written back in one statement each (drafts made, drafts locked,
 * lines added, empty drafts removed, totals set), so a chunk costs the same dozen statements
 * whatever its size. Answers one result per customer, in the order given. Runs inside the chunk's
 * transaction.
 */
export async function billCustomers(tx: Queryable, settings: BillingSettings, customerIds: readonly string[], period: Period, createdById: string | null): Promise<RunResult[]> {
  const found = new Map((await liveCustomersByIds(tx, settings.orgId, customerIds)).map((c) => [c.id, c]));
  const results = new Map<string, RunResult>();
  const eligible: Customer[] = [];
  for (const id of customerIds) {
    const customer = found.get(id);
    const refusal = customer ? whyNotBilled(customer) : 'deleted since the run started';
    if (refusal) results.set(id, skipped(id, refusal));
    else eligible.push(customer!);
  }

  const toBill = new Map<string, Unbilled[]>();
  for (const [customerId, priced] of await priceChunk(tx, settings, eligible, period)) {
    if ('skip' in priced) results.set(customerId, skipped(customerId, priced.skip));
    else if (!priced.lines.length) results.set(customerId, skipped(customerId, NO_WORK));
    else toBill.set(customerId, priced.lines);
  }
  for (const result of await addToDrafts(tx, settings, toBill, period, createdById)) results.set(result.customerId, result);
  return customerIds.map((id) => results.get(id)!);
}

const NO_WORK = 'no billable work in the period';

const skipped = (customerId: string, reason: string): RunResult => ({ customerId, outcome: 'SKIPPED', reason, invoiceId: null, lines: 0, amount: 0 });

/** Each customer's unbilled facts read for the whole chunk at once, then priced one by one. */
async function priceChunk(tx: Queryable, settings: BillingSettings, customers: readonly Customer[], period: Period): Promise<Map<string, Priced>> {
  const priced = new Map<string, Priced>();
  if (!customers.length) return priced;
  const { orgId } = settings;
  const ids = customers.map((c) => c.id);
  // One after another: a transaction is one connection, and pg refuses (from version 9; warns
  // today) queries queued on it at once.
  const visits = groupBy(await unbilledVisitsOf(tx, orgId, ids, period.start, period.end), byCustomer);
  const uses = groupBy(await unbilledStockUsesOf(tx, orgId, ids, period.start, period.end), byCustomer);
  const quoted = await quotedPricesOf(tx, orgId, ids);
  const taxes = await taxesOf(tx, settings, customers);
  const reads = customers.map((c) => ({ customer: c, ...monthsToRead(c, settings, period) }));
  const months = [...new Set(reads.flatMap((r) => r.months))];
  const billed = groupBy(await monthsBilledOf(tx, orgId, ids, months), byCustomer);
  const flatBilled = await sourcesBilled(tx, orgId, 'FLAT_RATE', reads.flatMap((r) => r.flatMonths.map((m) => flatSource(r.customer.id, m))));
  for (const customer of customers) {
    const facts: CustomerFacts = {
      customer,
      visits: visits.get(customer.id) ?? [],
      uses: uses.get(customer.id) ?? [],
      quoted: quoted.get(customer.id) ?? new Map(),
      tax: taxes.get(taxIdOf(settings, customer)) ?? NO_TAX,
      billed: new Map((billed.get(customer.id) ?? []).map((m) => [m.month, m])),
      flatBilled,
    };
    priced.set(customer.id, priceUnbilled(settings, period, facts));
  }
  return priced;
}

const byCustomer = (row: { customerId: string }) => row.customerId;

function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const group = groups.get(key(row));
    if (group) group.push(row);
    else groups.set(key(row), [row]);
  }
  return groups;
}

/** The tax on a customer's lines: their own taxId, else the organization's defaultTaxId. */
const taxIdOf = (settings: BillingSettings, customer: Customer) => customer.taxId ?? settings.defaultTaxId;

/** The chunk's taxes by id, each read once (its percent now); a tax no longer there taxes nothing. */
async function taxesOf(tx: Queryable, settings: BillingSettings, customers: readonly Customer[]): Promise<Map<string | null, AppliedTax>> {
  const ids = [...new Set(customers.map((c) => taxIdOf(settings, c)).filter((id): id is string => id !== null))];
  const found = ids.length ? await taxesByIds(tx, settings.orgId, ids) : [];
  return new Map(found.map((t) => [t.id, { taxId: t.id, rate: t.rate }]));
}

/**
 * The priced lines added to each customer's generated draft for the period (made if need be):
 * what was added, or why nothing was (another run billed every fact while this one waited: no
 * empty draft is left behind). A new draft's money is computed from its lines here; a draft
 * that existed before is repriced from all its lines.
 */
async function addToDrafts(tx: Queryable, settings: BillingSettings, toBill: ReadonlyMap<string, Unbilled[]>, period: Period, createdById: string | null): Promise<RunResult[]> {
  if (!toBill.size) return [];
  const { orgId, currency } = settings;
  const { drafts, created } = await generatedDrafts(tx, settings, [...toBill.keys()], period, createdById);
  const lines = [...toBill].flatMap(([customerId, priced]) => draftLines(drafts.get(customerId)!, priced, currency));
  const added = groupBy(await insertDraftLinesOnce(tx, orgId, lines), (l) => l.invoiceId);

  await deleteDrafts(tx, orgId, [...created].filter((id) => !added.has(id)));
  const totals = [...created].flatMap((id) => {
    const money = added.has(id) ? invoiceMoney(added.get(id)!, settings.taxRounding, currency) : null;
    return money ? [{ id, subtotal: money.subtotal, tax: money.tax, total: money.total }] : [];
  });
  await setDraftTotals(tx, orgId, totals);
  const results: RunResult[] = [];
  for (const customerId of toBill.keys()) {
    const draft = drafts.get(customerId)!;
    const mine = added.get(draft.id) ?? [];
    if (!mine.length) {
      results.push(skipped(customerId, NO_WORK));
      continue;
    }
    // Rare (a run again after new work, or the office's edits): the draft's other lines count too.
    if (!created.has(draft.id)) await repriceDraft(tx, orgId, draft.id, draft.taxRounding, currency);
    results.push({ customerId, outcome: 'BILLED', reason: null, invoiceId: draft.id, lines: mine.length, amount: mine.reduce((sum, l) => sum + l.amount, 0) });
  }
  return results;
}

/**
 * A customer's lines for their draft, after its last line, each with its own tax on a PER_LINE
 * draft (a line's tax depends on that line alone, so it holds whichever of them are added).
 */
function draftLines(draft: GeneratedDraft, priced: readonly Unbilled[], currency: string): DraftLine[] {
  const lines = priced.map((l, i) => ({ ...l, id: newId(), invoiceId: draft.id, position: i + 1 }));
  const { lineTax } = invoiceMoney(lines, draft.taxRounding, currency);
  return lines.map((l) => ({ ...l, taxAmount: lineTax.get(l.id) ?? null }));
}

/**
 * Each customer's generated draft for the period, locked, made when there is none; `created`
 * holds the ids this transaction made. Two runs at once meet on the invoices_generated_draft
 * index: the second waits for the first's commit and then takes its draft. A draft found there
 * but finalized or deleted before it could be locked is made anew (three tries, as one at a time).
 */
async function generatedDrafts(tx: Queryable, settings: BillingSettings, customerIds: string[], period: Period, createdById: string | null) {
  const drafts = new Map<string, GeneratedDraft>();
  const created = new Set<string>();
  let missing = [...customerIds].sort();
  for (let attempt = 1; missing.length; attempt++) {
    if (attempt > 3) throw new Error(`the generated drafts of customers ${missing.slice(0, 5).join(', ')} kept changing under the run`);
    const made = await insertGeneratedDrafts(
      tx,
      settings.orgId,
      missing.map((customerId) => ({
        id: newId(), customerId, origin: 'GENERATED', periodStart: period.start, periodEnd: period.end, currency: settings.currency,
        taxRounding: settings.taxRounding, notes: null, quoteId: null, createdById,
      })),
    );
    for (const [customerId, id] of made) {
      drafts.set(customerId, { id, customerId, taxRounding: settings.taxRounding });
      created.add(id);
    }
    // Another run's drafts (committed, or committed while this one waited on them): lock them.
    const theirs = missing.filter((c) => !made.has(c));
    for (const draft of await lockGeneratedDrafts(tx, settings.orgId, theirs, period.start, period.end)) drafts.set(draft.customerId, draft);
    missing = missing.filter((c) => !drafts.has(c));
  }
  return { drafts, created };
}
