import { DEFAULT_BILLING_METHOD, type Customer } from '../../../shared/index.js';
import { monthsBilled, quotedPriceByType, sourcesBilled, unbilledStockUses, unbilledVisits } from '../../storage/billable.js';
import type { RunResult } from '../../storage/billing-runs.js';
import { customers } from '../../storage/customers.js';
import type { Queryable } from '../../storage/db.js';
import { deleteDraft, insertLinesOnce, lockGeneratedDraft, nextLinePosition, type LineMinor } from '../../storage/invoices.js';
import { newId } from '../ids.js';
import { repriceDraft } from './draft-money.js';
import { firstDayOf, flatRateMonths, monthName, monthOf, monthsTouched, type Period } from './periods.js';
import { lineAmount, monthlyRate, stockUnitPrice, visitPrice } from './pricing.js';
import { customerTax, type AppliedTax, type BillingSettings } from './settings.js';

/**
 * The month's run for one customer (README, "The month's run"): the unbilled billable facts of the
 * period, priced, added to the customer's generated draft for the period (made if need be), or
 * the reason nothing was billed. Runs inside the run's chunk transaction.
 */
type Unbilled = Omit<LineMinor, 'id' | 'position'>;

type Priced = { lines: Unbilled[] } | { skip: string };

const NO_MONTHLY_RATE = 'no rate: billingMethod is MONTHLY_FLAT and service.monthlyRate is not set';

export async function billCustomer(tx: Queryable, settings: BillingSettings, customerId: string, period: Period, createdById: string | null): Promise<RunResult> {
  const skipped = (reason: string): RunResult => ({ customerId, outcome: 'SKIPPED', reason, invoiceId: null, lines: 0, amount: 0 });
  const customer = await customers.findById(tx, settings.orgId, customerId);
  if (!customer) return skipped('deleted since the run started');
  const refusal = whyNotBilled(customer);
  if (refusal) return skipped(refusal);

  const priced = await priceUnbilled(tx, settings, customer, period);
  if ('skip' in priced) return skipped(priced.skip);
  if (!priced.lines.length) return skipped('no billable work in the period');

  const { invoice, created } = await lockGeneratedDraft(tx, settings.orgId, {
    id: newId(),
    customerId,
    origin: 'GENERATED',
    periodStart: period.start,
    periodEnd: period.end,
    currency: settings.currency,
    taxRounding: settings.taxRounding,
    notes: null,
    quoteId: null,
    createdById,
  });
  const first = await nextLinePosition(tx, settings.orgId, invoice.id);
  const added = await insertLinesOnce(tx, settings.orgId, invoice.id, priced.lines.map((l, i) => ({ ...l, id: newId(), position: first + i })));
  if (!added.length) {
    // Another run billed every fact while this one waited for it: no empty draft is left behind.
    if (created) await deleteDraft(tx, settings.orgId, invoice.id);
    return skipped('no billable work in the period');
  }
  await repriceDraft(tx, settings.orgId, invoice.id, invoice.taxRounding, settings.currency);
  return { customerId, outcome: 'BILLED', reason: null, invoiceId: invoice.id, lines: added.length, amount: added.reduce((sum, l) => sum + l.amount, 0) };
}

/** Customers the run leaves out whatever their work, and why. */
function whyNotBilled(customer: Customer): string | null {
  if ((customer.status ?? '').trim().toUpperCase() === 'INACTIVE') return 'inactive';
  if (customer.readyForInvoice === false) return 'not ready for invoice (readyForInvoice is false)';
  return null;
}

/**
 * The facts no live line bills yet, priced. A month is billed one way: once its flat rate or any of
 * its visits at a price is on a live line, its other visits follow that way, whatever the
 * customer's billing method says now, so changing the method mid-month bills nothing twice.
 */
async function priceUnbilled(tx: Queryable, settings: BillingSettings, customer: Customer, period: Period): Promise<Priced> {
  const { orgId, currency } = settings;
  // One after another: a transaction is one connection, and pg refuses (from version 9; warns
  // today) queries queued on it at once.
  const visits = await unbilledVisits(tx, orgId, customer.id, period.start, period.end);
  const uses = await unbilledStockUses(tx, orgId, customer.id, period.start, period.end);
  const quoted = await quotedPriceByType(tx, orgId, customer.id);
  const tax = await customerTax(tx, settings, customer);
  const method = customer.billingMethod ?? DEFAULT_BILLING_METHOD;
  const flatMonths = method === 'MONTHLY_FLAT' ? flatRateMonths(period, settings.flatRateTiming) : [];
  const months = [...new Set([...monthsTouched(period), ...flatMonths])];
  const billed = new Map((await monthsBilled(tx, orgId, customer.id, months)).map((m) => [m.month, m]));
  const isFlat = (month: string) => billed.get(month)?.flat || (!billed.get(month)?.perVisit && method === 'MONTHLY_FLAT');

  const noMonthlyRate = method === 'MONTHLY_FLAT' && monthlyRate(customer, currency) === null;
  if (noMonthlyRate && (flatMonths.length || visits.some((v) => !billed.get(monthOf(v.date))?.flat))) {
    // Never list a month's visits at no charge for a month no flat rate will bill.
    return { skip: NO_MONTHLY_RATE };
  }

  const lines: Unbilled[] = [];
  const flat = await flatLines(tx, settings, customer, flatMonths.filter((m) => !billed.get(m)?.perVisit), tax);
  if ('skip' in flat) return flat;
  lines.push(...flat.lines);

  const unpriced: string[] = [];
  for (const visit of visits) {
    const included = isFlat(monthOf(visit.date));
    const price = included ? 0 : visitPrice(visit, quoted, customer, currency);
    if (price === null) {
      unpriced.push(visit.id);
      continue;
    }
    const name = visit.typeName ?? 'Service visit';
    lines.push({
      ...factLine('VISIT', visit.id, visit.id, visit.date, tax),
      description: included ? `${name} (in the monthly rate)` : name,
      quantity: 1,
      unitPrice: price,
      amount: price,
    });
  }
  if (unpriced.length) {
    return { skip: `no rate: ${unpriced.length} visit(s) have no quoted price for their service type and the customer has no service.rate` };
  }
  for (const use of uses) {
    const unitPrice = stockUnitPrice(use, settings.chemicalBilling, settings.chemicalMarkupPercent, currency);
    lines.push({
      ...factLine('STOCK_MOVEMENT', use.id, use.serviceId, use.date, tax),
      itemId: use.itemId,
      description: use.unit ? `${use.itemName} (${use.unit})` : use.itemName,
      quantity: use.quantity,
      unitPrice,
      amount: lineAmount(unitPrice, use.quantity, currency),
    });
  }
  lines.sort((a, b) => (a.date ?? '').localeCompare(b.date ?? ''));
  return { lines };
}

/** The flat-rate line of each month not billed yet. */
async function flatLines(tx: Queryable, settings: BillingSettings, customer: Customer, months: string[], tax: AppliedTax): Promise<Priced> {
  if (!months.length) return { lines: [] };
  const sources = months.map((m) => `${customer.id}/${m}`);
  const done = await sourcesBilled(tx, settings.orgId, 'FLAT_RATE', sources);
  const open = months.filter((_, i) => !done.has(sources[i]!));
  if (!open.length) return { lines: [] };
  const rate = monthlyRate(customer, settings.currency);
  if (rate === null) return { skip: NO_MONTHLY_RATE };
  return {
    lines: open.map((month) => ({
      ...factLine('FLAT_RATE', `${customer.id}/${month}`, null, firstDayOf(month), tax),
      description: `Monthly service, ${monthName(month)}`,
      quantity: 1,
      unitPrice: rate,
      amount: rate,
    })),
  };
}

function factLine(sourceType: LineMinor['sourceType'], sourceId: string, serviceId: string | null, date: string, tax: AppliedTax) {
  return { sourceType, sourceId, serviceId, date, itemId: null, taxId: tax.taxId, taxRate: tax.rate, taxAmount: null };
}
