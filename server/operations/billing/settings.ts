import {
  DEFAULT_TAX_ROUNDING,
  type ChemicalBilling,
  type Customer,
  type FlatRateTiming,
  type Organization,
  type TaxRounding,
} from '../../../shared/index.js';
import type { Queryable } from '../../storage/db.js';
import { organizations } from '../../storage/organizations.js';
import { taxes } from '../../storage/taxes.js';

/** The organization's billing settings, with their documented defaults filled in. */
export interface BillingSettings {
  orgId: string;
  currency: string;
  timezone: string;
  invoicePrefix: string;
  invoiceDueDays: number;
  defaultTaxId: string | null;
  taxRounding: TaxRounding;
  chemicalBilling: ChemicalBilling | null;
  chemicalMarkupPercent: number;
  flatRateTiming: FlatRateTiming;
}

export function settingsOf(org: Organization): BillingSettings {
  const s = org.settings;
  return {
    orgId: org.id,
    currency: org.currency,
    timezone: org.timezone,
    invoicePrefix: s.invoicePrefix,
    invoiceDueDays: s.invoiceDueDays,
    defaultTaxId: s.defaultTaxId ?? null,
    taxRounding: s.taxRounding ?? DEFAULT_TAX_ROUNDING,
    chemicalBilling: s.chemicalBilling ?? null,
    chemicalMarkupPercent: s.chemicalMarkupPercent ?? 0,
    flatRateTiming: s.flatRateTiming ?? 'ARREARS',
  };
}

export async function billingSettings(q: Queryable, orgId: string): Promise<BillingSettings> {
  return settingsOf((await organizations.findById(q, orgId, orgId))!);
}

export interface AppliedTax {
  taxId: string | null;
  rate: number;
}

export const NO_TAX: AppliedTax = { taxId: null, rate: 0 };

/** A tax by id as lines record it (its percent now); a tax no longer there taxes nothing. */
export async function taxById(q: Queryable, orgId: string, taxId: string | null): Promise<AppliedTax> {
  if (!taxId) return NO_TAX;
  const tax = await taxes.findById(q, orgId, taxId);
  return tax ? { taxId, rate: tax.rate } : NO_TAX;
}

/** The tax on a customer's lines: their own taxId, else the organization's defaultTaxId. */
export function customerTax(q: Queryable, settings: BillingSettings, customer: Customer): Promise<AppliedTax> {
  return taxById(q, settings.orgId, customer.taxId ?? settings.defaultTaxId);
}
