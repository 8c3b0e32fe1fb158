import type { TaxRounding } from '../../../shared/index.js';
import type { RunResult } from '../../storage/billing-runs.js';
import type { Queryable } from '../../storage/db.js';
import { deleteDrafts, insertDraftLinesOnce, insertGeneratedDrafts, lockGeneratedDrafts, type DraftLine, type GeneratedDraft } from '../../storage/generated-drafts.js';
import { newId } from '../ids.js';
import { repriceDraft } from './draft-money.js';
import type { Period } from './periods.js';
import type { Unbilled } from './run-pricing.js';
import type { BillingSettings } from './settings.js';
import { invoiceMoney } from './tax.js';

/**
 * The month's run's writes for a chunk (README, "The month's run"): each customer's priced lines
 * added to their generated draft for the period, made if need be, in a few statements for the
 * whole chunk (server/storage/generated-drafts.ts says how two runs at once still bill each fact
 * once). A new draft is made with its money already computed from the lines priced for it, the
 * usual outcome; only a draft that existed before, or a new one that another run beat to some of
 * its facts, is repriced from its lines afterwards, one by one (rare).
 */
export const NO_WORK = 'no billable work in the period';

export const skipped = (customerId: string, reason: string): RunResult => ({ customerId, outcome: 'SKIPPED', reason, invoiceId: null, lines: 0, amount: 0 });

export async function addToDrafts(tx: Queryable, settings: BillingSettings, toBill: ReadonlyMap<string, Unbilled[]>, period: Period, createdById: string | null): Promise<RunResult[]> {
  if (!toBill.size) return [];
  const { orgId, currency } = settings;
  const { drafts, created } = await generatedDrafts(tx, settings, toBill, period, createdById);
  const lines = [...toBill].flatMap(([customerId, priced]) => draftLines(drafts.get(customerId)!, priced, currency));
  const added = new Map<string, { lines: number; amount: number }>();
  for (const line of await insertDraftLinesOnce(tx, orgId, lines)) {
    const sum = added.get(line.invoiceId) ?? { lines: 0, amount: 0 };
    added.set(line.invoiceId, { lines: sum.lines + 1, amount: sum.amount + line.amount });
  }
  // Every fact billed by another run while this one waited: no empty draft is left behind.
  await deleteDrafts(tx, orgId, [...created].filter((id) => !added.has(id)));

  const results: RunResult[] = [];
  for (const [customerId, priced] of toBill) {
    const draft = drafts.get(customerId)!;
    const mine = added.get(draft.id);
    if (!mine) {
      results.push(skipped(customerId, NO_WORK));
      continue;
    }
    if (!created.has(draft.id) || mine.lines < priced.length) await repriceDraft(tx, orgId, draft.id, draft.taxRounding, currency);
    results.push({ customerId, outcome: 'BILLED', reason: null, invoiceId: draft.id, ...mine });
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

/** The money of a new draft holding these lines. */
function moneyOf(lines: readonly Unbilled[], rounding: TaxRounding, currency: string) {
  const { subtotal, tax, total } = invoiceMoney(lines.map((l, i) => ({ id: String(i), amount: l.amount, taxRate: l.taxRate })), rounding, currency);
  return { subtotal, tax, total };
}

/**
 * Each customer's generated draft for the period, locked, made when there is none; `created`
 * holds the ids this transaction made. Two runs at once meet on the invoices_generated_draft
 * index: the second waits for the first's commit and then takes its draft. A draft found there
 * but finalized or deleted before it could be locked is made anew (three tries, as one at a time).
 */
async function generatedDrafts(tx: Queryable, settings: BillingSettings, toBill: ReadonlyMap<string, Unbilled[]>, period: Period, createdById: string | null) {
  const { orgId, currency, taxRounding } = settings;
  const drafts = new Map<string, GeneratedDraft>();
  const created = new Set<string>();
  let missing = [...toBill.keys()].sort();
  for (let attempt = 1; missing.length; attempt++) {
    if (attempt > 3) throw new Error(`the generated drafts of customers ${missing.slice(0, 5).join(', ')} kept changing under the run`);
    const made = await insertGeneratedDrafts(
      tx,
      orgId,
      missing.map((customerId) => ({
        id: newId(), customerId, origin: 'GENERATED', periodStart: period.start, periodEnd: period.end, currency, taxRounding,
        notes: null, quoteId: null, createdById, ...moneyOf(toBill.get(customerId)!, taxRounding, currency),
      })),
    );
    for (const [customerId, id] of made) {
      drafts.set(customerId, { id, customerId, taxRounding });
      created.add(id);
    }
    // Another run's drafts (committed, or committed while this one waited on them): lock them.
    const theirs = missing.filter((c) => !made.has(c));
    for (const draft of await lockGeneratedDrafts(tx, orgId, theirs, period.start, period.end)) drafts.set(draft.customerId, draft);
    missing = missing.filter((c) => !drafts.has(c));
  }
  return { drafts, created };
}
