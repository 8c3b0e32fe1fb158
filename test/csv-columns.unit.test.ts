import { describe, expect, it } from 'vitest';
import { csvColumnsOf, customerResource, serviceResource } from '../shared/index.js';

/** Export columns derived from the resource definitions: what a spreadsheet user gets. */
describe('csvColumnsOf', () => {
  const customer = csvColumnsOf(customerResource);
  const headers = customer.map((c) => c.header);
  const cell = (header: string, row: Record<string, unknown>) => customer.find((c) => c.header === header)!.value(row);

  it('puts id first and the timestamps last, every public field between, in definition order', () => {
    expect(headers[0]).toBe('id');
    expect(headers.slice(-2)).toEqual(['createdAt', 'updatedAt']);
    expect(headers.indexOf('firstName')).toBeLessThan(headers.indexOf('lastName'));
    expect(headers).toEqual(expect.arrayContaining(['email', 'zone', 'tags', 'readyForInvoice', 'customerSinceDate']));
  });

  it('spreads embedded objects, leaves out lists of records and free JSON', () => {
    expect(headers).toEqual(expect.arrayContaining(['pool.volumeGallons', 'pool.gateCode', 'service.frequency']));
    expect(headers.filter((h) => h.startsWith('bodiesOfWater') || h === 'customFields' || h === 'pool')).toEqual([]);
    const visit = csvColumnsOf(serviceResource).map((c) => c.header);
    expect(visit).toEqual(expect.arrayContaining(['chemicalReadings.ph', 'chemicalReadings.freeChlorine', 'notes']));
    expect(visit.filter((h) => h.startsWith('photos'))).toEqual([]);
  });

  it('writes one value per cell: lists joined, booleans as words, numbers as numbers, null as empty', () => {
    expect(cell('tags', { tags: ['vip', 'salt'] })).toBe('vip;salt');
    expect(cell('readyForInvoice', { readyForInvoice: false })).toBe('false');
    expect(cell('pool.volumeGallons', { pool: { volumeGallons: 15000 } })).toBe(15000);
    expect(cell('pool.volumeGallons', { pool: null })).toBeNull();
    expect(cell('email', { email: null })).toBeNull();
  });
});
