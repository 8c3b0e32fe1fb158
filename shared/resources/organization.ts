import { defineShape, f } from '../schema/fields.js';
import { defineResource, type RecordOf } from '../schema/resource.js';
import { CHEMICAL_BILLING, FLAT_RATE_TIMINGS, TAX_ROUNDINGS } from './billing.js';
import { WaterChemistrySettingsShape } from './chemistry.js';
import { AddressShape } from './common.js';

export const OrganizationSettingsShape = defineShape('OrganizationSettings', {
  invoicePrefix: f.string().max(20).doc('Prefix for invoice numbers, e.g. INV-'),
  quotePrefix: f.string().max(20).doc('Prefix for quote numbers, e.g. Q-'),
  defaultTaxId: f.id().nullable().doc('Tax applied to quotes that name none'),
  autoSendInvoices: f.boolean(),
  invoiceDueDays: f.int().doc('Days until an invoice is due'),
  emailFromName: f.string().nullable().max(200),
  emailReplyTo: f.string().nullable().max(320),
  sendVisitReports: f.boolean().doc("Email / text each completed visit's report to its customer (as their reportNotification says)"),
  chemicalBilling: f.enum('ChemicalBilling', CHEMICAL_BILLING).nullable().doc('Chemicals and parts used on visits: INCLUDED in the service (null), at the item UNIT_PRICE, or COST_PLUS its cost price and chemicalMarkupPercent'),
  chemicalMarkupPercent: f.float().nullable().min(0).max(1000).doc('Markup on the cost price under COST_PLUS, percent (null: 0)'),
  taxRounding: f.enum('TaxRounding', TAX_ROUNDINGS).nullable().doc('Round tax PER_INVOICE (null: each rate summed, then rounded once) or PER_LINE'),
  flatRateTiming: f.enum('FlatRateTiming', FLAT_RATE_TIMINGS).nullable().doc("MONTHLY_FLAT customers billed in ARREARS (null: after the month) or in ADVANCE (the next month too)"),
  waterChemistry: f.object(WaterChemistrySettingsShape).nullable().doc('Target ranges, products and caps of the water chemistry engine; null: the defaults (read through chemistrySettingsOf)'),
});

export const SubscriptionShape = defineShape('Subscription', {
  plan: f.string().doc('Plan name, e.g. STARTER, PRO'),
  status: f.string().doc('e.g. ACTIVE, TRIALING, PAST_DUE, CANCELED'),
  currentPeriodEnd: f.dateTime().nullable(),
});

/** The business. Replicates read-only to devices (collection `organization`). */
export const organizationResource = defineResource({
  name: 'Organization',
  table: 'organizations',
  collection: 'organization',
  fields: {
    name: f.string().owner('office').max(200),
    slug: f.string().owner('server').doc('URL-friendly identifier, unique'),
    email: f.string().nullable().owner('office').max(320),
    phone: f.string().nullable().owner('office').max(50),
    website: f.string().nullable().owner('office').max(500),
    logo: f.string().nullable().owner('server').doc('Signed, expiring URL of the logo image (filled in when read)'),
    logoKey: f.string().nullable().owner('server').internal().doc('Object key of the logo'),
    address: f.object(AddressShape).nullable().owner('office'),
    timezone: f.string().owner('office').doc('IANA time zone, e.g. America/Phoenix'),
    currency: f.string().owner('office').doc('ISO 4217 code, e.g. USD'),
    settings: f.object(OrganizationSettingsShape).owner('office'),
    subscription: f.object(SubscriptionShape).nullable().owner('server'),
    accountingConnected: f.boolean().owner('server'),
    paymentProcessorConnected: f.boolean().owner('server'),
  },
});
export type Organization = RecordOf<typeof organizationResource>;
export type OrganizationSettings = Organization['settings'];
