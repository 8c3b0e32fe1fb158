import type { Customer, Organization } from '../../shared/index.js';

/**
 * The organization and customer the PDF benches (quotes in documents.ts, invoices in
 * invoice-pdf.ts) print: a logo-less letterhead, and a name with accents so the fonts' glyphs are
 * exercised as a real customer's would be.
 */
export const SAMPLE_ORGANIZATION = {
  name: 'Blue Lagoon Pools',
  email: 'office@bluelagoon.example',
  phone: '(602) 555-0100',
  website: 'https://bluelagoon.example',
  address: { street: '12 Main St', city: 'Phoenix', state: 'AZ', zipCode: '85001' },
  currency: 'USD',
  timezone: 'America/Phoenix',
  logoKey: null,
} as unknown as Organization;

export const SAMPLE_CUSTOMER = { firstName: 'José', lastName: 'Müller', streetAddress: '3 Palm Way', city: 'Scottsdale', state: 'AZ', zipCode: '85251' } as Customer;
