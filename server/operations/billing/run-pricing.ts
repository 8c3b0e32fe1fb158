import { DEFAULT_BILLING_METHOD, type Customer } from '../../../shared/index.js';
import type { MonthBilled, UnbilledStockUse, UnbilledVisit } from '../../storage/billable.js';
import type { LineMinor } from '../../storage/invoices.js';
import { firstDayOf, flatRateMonths, monthName, monthOf, monthsTouched, type Period } from './periods.js';
import { lineAmount, monthlyRate, stockUnitPrice, visitPrice } from './pricing.js';
import type { AppliedTax, BillingSettings } from './settings.js';

/**
 * One customer of the month's run priced in memory (README, "The month's run"): which customers
 * are left out whatever their work, and the lines of the unbilled facts the run read for them.
 * Pure: generate.ts reads a chunk's facts in a few statements and hands each customer's here.
 */
export type Unbilled = Omit<LineMinor, 'id' | 'position'>;

export type Priced = { lines: Unbilled[] } | { skip: string };

/** What the run read about one customer. */
export interface CustomerFacts {
  customer: Customer;
  visits: readonly UnbilledVisit[];
  uses: readonly UnbilledStockUse[];
  quoted: ReadonlyMap<string | null, number>;
  tax: AppliedTax;
  /** How each month of the customer's that has live lines was billed. */
  billed: ReadonlyMap<string, MonthBilled>;
  /** FLAT_RATE sources (`<customer id>/<YYYY-MM>`) some live line bills. */
  flatBilled: ReadonlySet<string>;
}

const NO_MONTHLY_RATE = 'no rate: billingMethod is MONTHLY_FLAT and service.monthlyRate is not set';

/** Customers the run leaves out whatever their work, and why. */
export function whyNotBilled(customer: Customer): string | null {
  if ((customer.status ?? '').trim().toUpperCase() === 'INACTIVE') return 'inactive';
  if (customer.readyForInvoice === false) return 'not ready for invoice (readyForInvoice is false)';
  return null;
}

/** The months whose billing a customer's pricing depends on: the period's, and flat months. */
export function monthsToRead(customer: Customer, settings: BillingSettings, period: Period): { months: string[]; flatMonths: string[] } {
  const flatMonths = methodOf(customer) === 'MONTHLY_FLAT' ? flatRateMonths(period, settings.flatRateTiming) : [];
  return { months: [...new Set([...monthsTouched(period), ...flatMonths])], flatMonths };
}

export const flatSource = (customerId: string, month: string) => `${customerId}/${month}`;

const methodOf = (customer: Customer) => customer.billingMethod ?? DEFAULT_BILLING_METHOD;

/**
 * The facts no live line bills yet, priced, sorted by date. A month is billed one way: once its
 * flat rate or any of its visits at a price is on a live line, its other visits follow that way,
 * whatever the customer's billing method says now, so changing the method mid-month bills
 * nothing twice.
 */
export function priceUnbilled(settings: BillingSettings, period: Period, facts: CustomerFacts): Priced {
  const { customer, visits, billed, tax } = facts;
  const { currency } = settings;
  const method = methodOf(customer);
  const { flatMonths } = monthsToRead(customer, settings, period);
  const isFlat = (month: string) => billed.get(month)?.flat || (!billed.get(month)?.perVisit && method === 'MONTHLY_FLAT');

  const noMonthlyRate = method === 'MONTHLY_FLAT' && monthlyRate(customer, currency) === null;
  if (noMonthlyRate && (flatMonths.length || visits.some((v) => !billed.get(monthOf(v.date))?.flat))) {
    // Never list a month's visits at no charge for a month no flat rate will bill.
    return { skip: NO_MONTHLY_RATE };
  }

  const flat = flatLines(settings, facts, flatMonths.filter((m) => !billed.get(m)?.perVisit));
  if ('skip' in flat) return flat;
  const lines: Unbilled[] = [...flat.lines];

  const unpriced: string[] = [];
  for (const visit of visits) {
    const included = isFlat(monthOf(visit.date));
    const price = included ? 0 : visitPrice(visit, facts.quoted, customer, currency);
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
  lines.push(...facts.uses.map((use) => stockLine(settings, use, tax)));
  lines.sort((a, b) => (a.date ?? '').localeCompare(b.date ?? ''));
  return { lines };
}

/** The flat-rate line of each month not billed yet. */
function flatLines(settings: BillingSettings, facts: CustomerFacts, months: string[]): Priced {
  const { customer } = facts;
  const open = months.filter((m) => !facts.flatBilled.has(flatSource(customer.id, m)));
  if (!open.length) return { lines: [] };
  const rate = monthlyRate(customer, settings.currency);
  if (rate === null) return { skip: NO_MONTHLY_RATE };
  return {
    lines: open.map((month) => ({
      ...factLine('FLAT_RATE', flatSource(customer.id, month), null, firstDayOf(month), facts.tax),
      description: `Monthly service, ${monthName(month)}`,
      quantity: 1,
      unitPrice: rate,
      amount: rate,
    })),
  };
}

function stockLine(settings: BillingSettings, use: UnbilledStockUse, tax: AppliedTax): Unbilled {
  const unitPrice = stockUnitPrice(use, settings.chemicalBilling, settings.chemicalMarkupPercent, settings.currency);
  return {
    ...factLine('STOCK_MOVEMENT', use.id, use.serviceId, use.date, tax),
    itemId: use.itemId,
    description: use.unit ? `${use.itemName} (${use.unit})` : use.itemName,
    quantity: use.quantity,
    unitPrice,
    amount: lineAmount(unitPrice, use.quantity, settings.currency),
  };
}

function factLine(sourceType: LineMinor['sourceType'], sourceId: string, serviceId: string | null, date: string, tax: AppliedTax) {
  return { sourceType, sourceId, serviceId, date, itemId: null, taxId: tax.taxId, taxRate: tax.rate, taxAmount: null };
}
