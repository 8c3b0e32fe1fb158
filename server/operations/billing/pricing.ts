import {
  percentOf,
  timesQuantity,
  toMinor,
  type ChemicalBilling,
  type Customer,
} from '../../../shared/index.js';
import type { UnbilledStockUse, UnbilledVisit } from '../../storage/billable.js';

/**
 * What each billable fact costs (README, "Pricing"), in minor units of the organization's currency.
 * Pure: the month's run reads the facts and settings, these functions price them.
 */

/**
 * A PER_VISIT visit's price: the customer's quoted price for the visit's service type when one is
 * set, else their service rate; null when neither is (the customer is skipped with the reason).
 */
export function visitPrice(visit: Pick<UnbilledVisit, 'typeId'>, quoted: ReadonlyMap<string | null, number>, customer: Customer, currency: string): number | null {
  if (visit.typeId !== null) {
    const price = quoted.get(visit.typeId);
    if (price !== undefined) return price;
  }
  const rate = customer.service?.rate;
  return rate === null || rate === undefined ? null : toMinor(rate, currency);
}

/** A MONTHLY_FLAT customer's month, or null when they have no monthly rate. */
export function monthlyRate(customer: Customer, currency: string): number | null {
  const rate = customer.service?.monthlyRate;
  return rate === null || rate === undefined ? null : toMinor(rate, currency);
}

/**
 * The unit price of stock used on a visit under the organization's chemicalBilling: INCLUDED (null)
 * lists it at no charge, UNIT_PRICE at the item's price, COST_PLUS at its cost plus the markup (an
 * item without a cost price is billed at its unit price).
 */
export function stockUnitPrice(use: Pick<UnbilledStockUse, 'unitPrice' | 'costPrice'>, billing: ChemicalBilling | null, markupPercent: number, currency: string): number {
  if (!billing || billing === 'INCLUDED') return 0;
  if (billing === 'UNIT_PRICE' || use.costPrice === null) return use.unitPrice;
  return use.costPrice + percentOf(use.costPrice, markupPercent, currency);
}

export function lineAmount(unitPrice: number, quantity: number, currency: string): number {
  return timesQuantity(unitPrice, quantity, currency);
}
