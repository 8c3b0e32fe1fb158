import { defineShape, f } from '../schema/fields.js';
import { defineResource, type RecordOf } from '../schema/resource.js';
import { BILLING_FREQUENCIES, BILLING_METHODS } from './billing.js';
import { volumeGallons } from './chemistry.js';

const BODY_OF_WATER_KINDS = ['POOL', 'SPA', 'FOUNTAIN', 'POND', 'OTHER'] as const;

export const CustomerPoolShape = defineShape('CustomerPoolEntity', {
  kind: f.enum('BodyOfWaterKind', BODY_OF_WATER_KINDS).nullable(),
  volumeGallons: volumeGallons(),
  surface: f.string().nullable().max(100).doc('e.g. PLASTER, VINYL, FIBERGLASS, PEBBLE'),
  sanitizer: f.string().nullable().max(100).doc('e.g. CHLORINE, SALT, BROMINE'),
  filterType: f.string().nullable().max(100).doc('e.g. SAND, CARTRIDGE, DE'),
  heated: f.boolean().nullable(),
  indoor: f.boolean().nullable(),
  gateCode: f.string().nullable().max(100),
  notes: f.string().nullable().max(10000),
});

export const BodyOfWaterShape = defineShape('BodyOfWaterEntity', {
  id: f.id(),
  name: f.string().max(200),
  kind: f.enum('BodyOfWaterKind', BODY_OF_WATER_KINDS),
  volumeGallons: volumeGallons(),
  surface: f.string().nullable().max(100),
  sanitizer: f.string().nullable().max(100),
  notes: f.string().nullable().max(10000),
});

export const CustomerServiceShape = defineShape('CustomerServiceEntity', {
  typeId: f.id().nullable().doc('Default service type'),
  technicianId: f.id().nullable().doc('Assigned technician'),
  frequency: f.string().nullable().max(50).doc('e.g. WEEKLY, BIWEEKLY, MONTHLY'),
  dayOfWeek: f.int().nullable().doc('0 = Sunday ... 6 = Saturday'),
  rate: f.money().nullable().doc('Price per visit'),
  monthlyRate: f.money().nullable().doc('Price per month when billingMethod is MONTHLY_FLAT'),
  startDate: f.date().nullable(),
  notes: f.string().nullable().max(10000),
});

const text = () => f.string().nullable().max(500);

/**
 * How a customer hears about a completed visit: the report by email, by text, both, or not at all.
 * Null means DEFAULT_REPORT_NOTIFICATION. A text goes only to a phone the customer enabled for SMS
 * and an email only to an address they gave, so BOTH by default sends on every channel the customer
 * opted into, and nothing to one who opted into none.
 */
export const REPORT_NOTIFICATIONS = ['EMAIL', 'TEXT', 'BOTH', 'NONE'] as const;
export type ReportNotification = (typeof REPORT_NOTIFICATIONS)[number];
export const DEFAULT_REPORT_NOTIFICATION: ReportNotification = 'BOTH';

/** The channels a preference asks for (null: the default). */
export function reportChannelsOf(preference: string | null | undefined): ('EMAIL' | 'TEXT')[] {
  const chosen = (preference ?? DEFAULT_REPORT_NOTIFICATION) as ReportNotification;
  return chosen === 'BOTH' ? ['EMAIL', 'TEXT'] : chosen === 'NONE' ? [] : [chosen];
}
const phone = () => f.string().nullable().max(50);
const email = () => f.string().nullable().max(320);
const flag = () => f.boolean().nullable();

/** A residential or commercial client. Replicates to devices; tags merge as a set. */
export const customerResource = defineResource({
  name: 'Customer',
  table: 'customers',
  collection: 'customers',
  relations: {
    quotedPrices: '[CustomerQuotedPriceEntity]',
    creditBalance: 'Float',
    balanceDue: 'Float',
    nextScheduledApt: 'Appointment',
  },
  fields: {
    firstName: text(),
    lastName: f.string().max(500),
    accountingName: text(),
    customerSinceDate: f.date().nullable(),
    streetAddress: text(),
    city: text(),
    state: text(),
    zipCode: f.string().nullable().max(20),
    billingAddress: text(),
    billingCity: text(),
    billingState: text(),
    billingZipCode: f.string().nullable().max(20),
    billingFirstName: text(),
    billingLastName: text(),
    useAddressForBilling: flag(),
    latitude: f.float().nullable(),
    longitude: f.float().nullable(),
    phoneNumber: phone(),
    alternatePhoneNumber: phone(),
    tertiaryPhoneNumber: phone(),
    fourthPhoneNumber: phone(),
    phoneNumberLabel: text(),
    alternatePhoneNumberLabel: text(),
    tertiaryPhoneNumberLabel: text(),
    fourthPhoneNumberLabel: text(),
    phoneNumberEnableSMS: flag(),
    alternatePhoneNumberEnableSMS: flag(),
    tertiaryPhoneNumberEnableSMS: flag(),
    fourthPhoneNumberEnableSMS: flag(),
    email: email(),
    alternateEmail: email(),
    tertiaryEmail: email(),
    fourthEmail: email(),
    billingEmail: email(),
    billingCCEmail: email(),
    status: f.string().nullable().max(50).doc('e.g. ACTIVE, INACTIVE, LEAD'),
    tags: f.list(f.string()).nullable().merge('set'),
    paymentMethod: text().owner('office'),
    billingMethod: f
      .string()
      .nullable()
      .oneOf(BILLING_METHODS)
      .owner('office')
      .doc('PER_VISIT (each completed visit at its quoted price, else service.rate) or MONTHLY_FLAT (service.monthlyRate a month); null is PER_VISIT'),
    contactMethod: text(),
    paymentType: text().owner('office'),
    billingFrequency: f.string().nullable().oneOf(BILLING_FREQUENCIES).owner('office').doc('How often invoices are made: MONTHLY (null is MONTHLY)'),
    reportNotification: f
      .string()
      .nullable()
      .oneOf(REPORT_NOTIFICATIONS)
      .doc('Visit reports: EMAIL, TEXT, BOTH or NONE; null is BOTH (each channel only where the customer has an email address / a phone enabled for SMS)'),
    zone: text(),
    pool: f.object(CustomerPoolShape).nullable(),
    bodiesOfWater: f.list(f.object(BodyOfWaterShape)).nullable().merge('unionById'),
    service: f.object(CustomerServiceShape).nullable().owner('office'),
    salesNotes: f.string().nullable().max(10000).owner('office'),
    notes: f.string().nullable().max(10000),
    readyForInvoice: flag().owner('office'),
    taxId: f.id().nullable().owner('office').doc("The tax on this customer's invoices; null: the organization's defaultTaxId"),
    isCommercial: flag(),
    paymentProcessorId: text().owner('office'),
    accountingId: text().owner('office'),
    customFields: f.json().nullable(),
    createdById: f.id().nullable().owner('server').internal().doc('Who created the customer (a technician who signs one up in the field holds it)'),
  },
});
export type Customer = RecordOf<typeof customerResource>;

/** A price quoted to a customer for one service type; replaced as a whole list. */
export const customerQuotedPriceResource = defineResource({
  name: 'CustomerQuotedPriceEntity',
  table: 'customer_quoted_prices',
  collection: null,
  relations: { serviceTypeDisplay: 'String' },
  fields: {
    customerId: f.id(),
    typeId: f.id().nullable(),
    price: f.money(),
    position: f.int().owner('server').internal().doc('Place in the submitted list, so it reads back in that order'),
  },
});
export type CustomerQuotedPrice = RecordOf<typeof customerQuotedPriceResource>;
