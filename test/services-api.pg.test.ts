import { describe, expect, it } from 'vitest';
import type { Service } from '../shared/index.js';
import { customers } from '../server/storage/customers.js';
import { SERVICE_DATE_FILTERS, SERVICE_STRING_FILTERS, services, serviceTypes } from '../server/storage/services.js';
import { caller, ok, tokenFor } from './support/api.js';
import { engines, type TestStore } from './support/engines.js';
import { useTestServer } from './support/fixture.js';
import { errorCodes, newOrganization, type TestServer } from './support/server.js';

/** infiniteServices: every ServiceFilter field, search, include/exclude, sorts and limits. */
const LIST = `query InfiniteServices($selector: ServicesSelector, $sort: ServiceSort, $first: Int!, $after: String) {
  infiniteServices(selector: $selector, sort: $sort, first: $first, after: $after) {
    edges { node { id reference notes startTime customer { id lastName } type { id display desc } photos { id } chemicalReadings { ph } } cursor }
    pageInfo { hasNextPage endCursor } } }`;

describe.each(engines)('services on %s', (engine) => {
  let store: TestStore;
  let server: TestServer;
  let api: ReturnType<typeof caller>;
  let adminToken: string;
  let orgId: string;
  let n = 0;

  useTestServer(engine, { organization: 'Visit Pools' }, async (t) => {
    ({ store, server } = t);
    orgId = t.org.id;
    adminToken = t.token;
    api = caller(server, t.token);
  });

  /** Visits arrive by sync in production; here they are written through storage. */
  async function visit(fields: Partial<Service> = {}): Promise<Service> {
    n += 1;
    return services.insert(store.db, orgId, { id: `svc-${n}`, photos: [], reference: `R-${n}`, ...fields });
  }
  const ids = async (selector: unknown, sort?: unknown) =>
    ok(await api(LIST, { selector, sort, first: 100 })).infiniteServices.edges.map((e: any) => e.node.id).sort();

  it('every string filter takes equals and contains', async () => {
    for (const field of Object.keys(SERVICE_STRING_FILTERS)) {
      const value = `Unique-${field}-Value`;
      const target = await visit({ [field]: value });
      await visit({ [field]: `other-${field}` });
      expect(await ids({ filters: { [field]: { equals: value } } }), field).toEqual([target.id]);
      expect(await ids({ filters: { [field]: { contains: `${field.toLowerCase()}-VALUE` } } }), field).toEqual([target.id]);
    }
  });

  it('every date-time filter takes gte, lte and equals', async () => {
    for (const field of Object.keys(SERVICE_DATE_FILTERS)) {
      const early = await visit({ reference: `dt-${field}`, [field]: '2031-01-01T08:00:00.000Z' });
      const late = await visit({ reference: `dt-${field}`, [field]: '2031-06-01T08:00:00.000Z' });
      const only = (filter: unknown) => ids({ filters: { reference: { equals: `dt-${field}` }, [field]: filter } });
      expect(await only({ gte: '2031-03-01T00:00:00Z' }), field).toEqual([late.id]);
      expect(await only({ lte: '2031-03-01T00:00:00Z' }), field).toEqual([early.id]);
      expect(await only({ equals: '2031-01-01T08:00:00Z' }), field).toEqual([early.id]);
      expect(await only({ gte: '2030-01-01T00:00:00Z', lte: '2032-01-01T00:00:00Z' }), field).toEqual([early.id, late.id].sort());
    }
  });

  it('filters by customer tags, customer readiness for invoice, notification state and technicians', async () => {
    const vip = await customers.insert(store.db, orgId, { id: 'cust-vip', lastName: 'Vip', tags: ['vip', 'weekly'], readyForInvoice: true });
    const plain = await customers.insert(store.db, orgId, { id: 'cust-plain', lastName: 'Plain', tags: ['weekly'], readyForInvoice: false });
    const a = await visit({ customerId: vip.id, reference: 'cx', dateEmailed: '2030-01-01T00:00:00Z', newTechnicianId: 'tech-1' });
    const b = await visit({ customerId: plain.id, reference: 'cx', dateTexted: '2030-01-01T00:00:00Z', newSecondaryTechnicianId: 'tech-2' });
    const c = await visit({ customerId: plain.id, reference: 'cx', newTechnicianId: 'tech-3' });
    const only = (filters: Record<string, unknown>) => ids({ filters: { reference: { equals: 'cx' }, ...filters } });
    expect(await only({ customerTags: { eq: 'vip' } })).toEqual([a.id]);
    expect(await only({ customerTags: { in: ['weekly'] } })).toEqual([a.id, b.id, c.id].sort());
    expect(await only({ customerTags: { notIn: ['vip'] } })).toEqual([b.id, c.id].sort());
    expect(await only({ customerReadyForInvoice: { eq: true } })).toEqual([a.id]);
    expect(await only({ customerReadyForInvoice: { eq: false } })).toEqual([b.id, c.id].sort());
    expect(await only({ notification: ['EMAILED'] })).toEqual([a.id]);
    expect(await only({ notification: ['EMAILED', 'TEXTED'] })).toEqual([a.id, b.id].sort());
    expect(await only({ notification: ['NOT_NOTIFIED'] })).toEqual([c.id]);
    expect(await only({ technicians: ['tech-2', 'tech-3'] })).toEqual([b.id, c.id].sort());
    expect(await only({ id: { in: [a.id, c.id] } })).toEqual([a.id, c.id].sort());
  });

  it('search matches the visit’s own text or its customer; include adds and exclude removes', async () => {
    const cust = await customers.insert(store.db, orgId, { id: 'cust-search', firstName: 'Olive', lastName: 'Quartermaine', city: 'Gilbert' });
    const byNotes = await visit({ reference: 'sx', notes: 'Replaced skimmer basket' });
    const byCustomer = await visit({ reference: 'sx', customerId: cust.id });
    const neither = await visit({ reference: 'sx', notes: 'Nothing to see' });
    expect(await ids({ search: 'skimmer' })).toEqual([byNotes.id]);
    expect(await ids({ search: 'quartermaine olive' })).toEqual([byCustomer.id]);
    expect(await ids({ search: 'skimmer', include: [neither.id] })).toEqual([byNotes.id, neither.id].sort());
    expect(await ids({ filters: { reference: { equals: 'sx' } }, exclude: [byNotes.id] })).toEqual([byCustomer.id, neither.id].sort());
    expect(await ids({ search: "'; delete from services; --" })).toEqual([]);
  });

  it('sorts by start time (newest first by default) and pages without repeats; relations load', async () => {
    const type = await serviceTypes.insert(store.db, orgId, { id: 'type-weekly', display: 'Weekly', desc: 'Full service' });
    const cust = await customers.insert(store.db, orgId, { id: 'cust-sort', lastName: 'Sorter' });
    const made: Service[] = [];
    for (let i = 0; i < 7; i++) {
      made.push(await visit({
        reference: 'sort', customerId: cust.id, typeId: type.id,
        startTime: `2032-01-0${1 + (i % 3)}T10:00:00.000Z`, chemicalReadings: { ph: 7.4 } as Service['chemicalReadings'],
      }));
    }
    const pageAll = async (sort?: unknown) => {
      const seen: any[] = [];
      let after: string | null = null;
      do {
        const page: any = ok(await api(LIST, { selector: { filters: { reference: { equals: 'sort' } } }, sort, first: 3, after })).infiniteServices;
        seen.push(...page.edges.map((e: any) => e.node));
        after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
      } while (after);
      return seen;
    };
    const desc = await pageAll();
    expect(desc).toHaveLength(7);
    expect(new Set(desc.map((s) => s.id)).size).toBe(7);
    expect(desc.map((s) => s.startTime)).toEqual([...desc.map((s) => s.startTime)].sort().reverse());
    expect(desc[0]).toMatchObject({ customer: { lastName: 'Sorter' }, type: { display: 'Weekly', desc: 'Full service' }, chemicalReadings: { ph: 7.4 } });
    const asc = await pageAll({ field: 'START_TIME', direction: 'ASC' });
    expect(asc.map((s) => s.startTime)).toEqual([...asc.map((s) => s.startTime)].sort());
    const created = await pageAll({ field: 'CREATED_AT', direction: 'ASC' });
    expect(created.map((s) => s.id)).toEqual(made.map((s) => s.id));
  });

  it('createService and updateService write visits; technicians may not set office fields', async () => {
    const CREATE = `mutation CreateService($input: CreateServiceInput!) {
      createService(input: $input) { id customerId newTechnicianId notes waterLevel billingStatus startTime chemicalReadings { ph freeChlorine } photos { id } } }`;
    const UPDATE = `mutation UpdateService($id: ID!, $input: UpdateServiceInput!) {
      updateService(id: $id, input: $input) { id notes waterLevel billingStatus updatedAt } }`;
    const cust = await customers.insert(store.db, orgId, { id: 'cust-write', lastName: 'Writer' });
    const made = ok(await api(CREATE, { input: {
      customerId: cust.id, notes: 'Weekly clean', waterLevel: 'NORMAL', startTime: '2033-05-01T09:00:00Z',
      chemicalReadings: { ph: 7.6, freeChlorine: 2.5 }, billingStatus: 'NOT_BILLED',
    } })).createService;
    expect(made).toMatchObject({ customerId: cust.id, notes: 'Weekly clean', chemicalReadings: { ph: 7.6, freeChlorine: 2.5 }, photos: [], startTime: '2033-05-01T09:00:00.000Z' });
    const changed = ok(await api(UPDATE, { id: made.id, input: { waterLevel: 'LOW' } })).updateService;
    expect(changed).toMatchObject({ notes: 'Weekly clean', waterLevel: 'LOW', billingStatus: 'NOT_BILLED' });

    const token = await tokenFor(server, adminToken, 'TECHNICIAN');
    const tech = caller(server, token.token);
    const own = ok(await tech(CREATE, { input: { customerId: cust.id, notes: 'Green pool' } })).createService;
    expect(own.newTechnicianId).toBe(token.apiToken.userId);
    expect(errorCodes(await tech(UPDATE, { id: own.id, input: { billingStatus: 'INVOICED' } }))).toEqual(['FORBIDDEN']);
    expect(ok(await tech(UPDATE, { id: own.id, input: { notes: 'Green pool, shocked' } })).updateService.notes).toBe('Green pool, shocked');
    expect(errorCodes(await api(CREATE, { input: { customerId: 'nobody' } }))).toEqual(['NOT_FOUND']);
    expect(errorCodes(await api(CREATE, { input: { chemicalReadings: { ph: 'high' } } }))).toEqual(['BAD_USER_INPUT']);
    expect(errorCodes(await api(UPDATE, { id: 'svc-none', input: { notes: 'x' } }))).toEqual(['NOT_FOUND']);
  });

  it('limits and bad input are refused clearly', async () => {
    const codes = async (vars: Record<string, unknown>) => errorCodes(await api(LIST, { first: 10, ...vars }));
    expect(await codes({ first: 101 })).toEqual(['BAD_USER_INPUT']);
    expect(await codes({ first: 0 })).toEqual(['BAD_USER_INPUT']);
    expect(await codes({ selector: { search: 's'.repeat(601) } })).toEqual(['BAD_USER_INPUT']);
    expect(await codes({ selector: { filters: { notification: ['SHOUTED'] } } })).toEqual(['BAD_USER_INPUT']);
    expect(await codes({ selector: { filters: { startTime: { gte: 'yesterday' } } } })).toEqual(['BAD_USER_INPUT']);
    expect(await codes({ after: 'bm90IGEgY3Vyc29y' })).toEqual(['BAD_USER_INPUT']);
    const rival = caller(server, (await newOrganization(store.db, 'Rival Visits')).token);
    expect(ok(await rival(LIST, { first: 100 })).infiniteServices.edges).toEqual([]);
    expect(ok(await rival(LIST, { first: 100, selector: { include: ['svc-1'] } })).infiniteServices.edges).toEqual([]);
  });
});
