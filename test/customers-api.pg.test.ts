import { describe, expect, it } from 'vitest';
import { appointments } from '../server/storage/appointments.js';
import { caller, ok, tokenFor } from './support/api.js';
import { engines, type TestStore } from './support/engines.js';
import { useTestServer } from './support/fixture.js';
import { errorCodes, newOrganization, type TestServer } from './support/server.js';

/** The spec's customer operations: search, every filter, sorts, both pagination directions, limits. */
const CREATE = `mutation CreateCustomer($input: CreateCustomerInput!) {
  createCustomer(input: $input) { id firstName lastName email phoneNumber streetAddress city state zipCode status tags createdAt updatedAt } }`;
const UPDATE = `mutation UpdateCustomer($id: ID!, $input: UpdateCustomerInput!) {
  updateCustomer(id: $id, input: $input) { id firstName lastName phoneNumber notes tags city updatedAt } }`;
const LIST = `query InfiniteCustomers($selector: CustomersSelector, $sort: [CustomersSort], $first: Int, $after: String, $last: Int, $before: String) {
  infiniteCustomers(selector: $selector, sort: $sort, first: $first, after: $after, last: $last, before: $before) {
    edges { node { id firstName lastName city customerSinceDate } cursor }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    totalCount } }`;
const LOOKUP = `query InfiniteCustomerLookup($query: String!, $first: Int, $after: String) {
  infiniteCustomerLookup(query: $query, first: $first, after: $after) {
    edges { node { id firstName lastName streetAddress city state } cursor } pageInfo { hasNextPage endCursor } } }`;
const QUOTED = `mutation UpdateCustomerQuotedPrices($customerId: ID!, $input: UpdateCustomerQuotedPricesInput!) {
  updateCustomerQuotedPrices(customerId: $customerId, input: $input) { id customerId typeId price serviceTypeDisplay } }`;
const CREATE_TYPE = `mutation CreateServiceType($input: CreateServiceTypeInput!) { createServiceType(input: $input) { id display desc } }`;

type Api = ReturnType<typeof caller>;

describe.each(engines)('customers on %s', (engine) => {
  let store: TestStore;
  let server: TestServer;
  let adminToken: string;
  let orgId: string;
  let admin: Api;

  useTestServer(engine, { organization: 'Customer Pools' }, async (t) => {
    ({ store, server } = t);
    adminToken = t.token;
    orgId = t.org.id;
    admin = caller(server, adminToken);
  });

  /** A separate organization per scenario keeps lists exact. */
  async function freshOrg(name: string): Promise<{ api: Api; orgId: string; token: string }> {
    const { org, token } = await newOrganization(store.db, name);
    return { api: caller(server, token), orgId: org.id, token };
  }
  const create = async (api: Api, input: Record<string, unknown>) => ok(await api(CREATE, { input })).createCustomer;
  const names = async (api: Api, vars: Record<string, unknown>) =>
    ok(await api(LIST, { first: 100, ...vars })).infiniteCustomers.edges.map((e: any) => `${e.node.firstName ?? ''} ${e.node.lastName}`.trim());

  it('createCustomer stores the spec fields; updateCustomer changes only what was submitted', async () => {
    const input = {
      firstName: 'Maria', lastName: 'Garcia', email: 'maria@example.com', phoneNumber: '(602) 555-0101',
      streetAddress: '12 Palm Ln', city: 'Phoenix', state: 'AZ', zipCode: '85001', status: 'ACTIVE', tags: ['weekly', 'vip'],
    };
    const customer = await create(admin, input);
    expect(customer).toMatchObject(input);
    const updated = ok(await admin(UPDATE, { id: customer.id, input: { phoneNumber: '602-555-0199', notes: 'Dog in yard' } })).updateCustomer;
    expect(updated).toMatchObject({ firstName: 'Maria', lastName: 'Garcia', phoneNumber: '602-555-0199', notes: 'Dog in yard', tags: ['weekly', 'vip'], city: 'Phoenix' });
    expect(updated.updatedAt > customer.updatedAt).toBe(true);
    const cleared = ok(await admin(UPDATE, { id: customer.id, input: { notes: null } })).updateCustomer;
    expect(cleared).toMatchObject({ notes: null, phoneNumber: '602-555-0199' });
  });

  it('deleteCustomer is soft: the customer leaves lists, shows with deleted: true, and is a tombstone for sync', async () => {
    const { api, orgId: dOrg } = await freshOrg('Delete Pools');
    const keep = await create(api, { lastName: 'Stays' });
    const gone = await create(api, { lastName: 'Leaves' });
    const seqBefore = (await store.db.query<{ s: number }>('select _seq as s from customers where id = $1', [gone.id])).rows[0]!.s;
    const res = ok(await api(`mutation DeleteCustomer($id: ID!) { deleteCustomer(id: $id) { id lastName } }`, { id: gone.id }));
    expect(res.deleteCustomer).toEqual({ id: gone.id, lastName: 'Leaves' });
    expect(await names(api, {})).toEqual(['Stays']);
    expect(await names(api, { selector: { filters: { deleted: { eq: true } } } })).toEqual(['Leaves']);
    const row = (await store.db.query<{ d: boolean; s: number }>('select _deleted as d, _seq as s from customers where org_id = $1 and id = $2', [dOrg, gone.id])).rows[0]!;
    expect(row.d).toBe(true);
    expect(row.s).toBeGreaterThan(seqBefore);
    const again = await api(`mutation DeleteCustomer($id: ID!) { deleteCustomer(id: $id) { id } }`, { id: gone.id });
    expect(errorCodes(again)).toEqual(['NOT_FOUND']);
    expect(errorCodes(await api(UPDATE, { id: gone.id, input: { notes: 'x' } }))).toEqual(['NOT_FOUND']);
    expect(errorCodes(await admin(`mutation DeleteCustomer($id: ID!) { deleteCustomer(id: $id) { id } }`, { id: keep.id }))).toEqual(['NOT_FOUND']);
    expect(await names(api, {})).toEqual(['Stays']);
  });

  it('a single customer is fetched with filters.id.eq and first: 1', async () => {
    const customer = await create(admin, { firstName: 'Solo', lastName: 'Single' });
    const res = ok(await admin(LIST, { selector: { filters: { id: { eq: customer.id } } }, first: 1 })).infiniteCustomers;
    expect(res.edges.map((e: any) => e.node.id)).toEqual([customer.id]);
    expect(res.totalCount).toBe(1);
  });

  it('search covers names, address, postal code and phones; multi-word tries first and last name combinations', async () => {
    const { api } = await freshOrg('Search Pools');
    await create(api, { firstName: 'John', lastName: 'Smith', streetAddress: '400 Oak St', city: 'Mesa', state: 'AZ', zipCode: '85201', phoneNumber: '(480) 555-1234' });
    await create(api, { firstName: 'Jane', lastName: 'Smithers', city: 'Tempe', alternatePhoneNumber: '480-555-9876' });
    await create(api, { firstName: 'Smitty', lastName: 'Jones', tertiaryPhoneNumber: '+1 623 555 0000', state: 'NV' });
    await create(api, { firstName: 'Adam', lastName: 'Johnson', fourthPhoneNumber: '7025550042', zipCode: '89101' });
    const search = (s: string) => names(api, { selector: { search: s } });
    expect(await search('smi')).toEqual(['Smitty Jones', 'John Smith', 'Jane Smithers']);
    expect(await search('john smith')).toEqual(['John Smith']);
    expect(await search('smith john')).toEqual(['John Smith']);
    expect(await search('JOHN')).toEqual(['Adam Johnson', 'John Smith']);
    expect(await search('oak st')).toEqual(['John Smith']);
    expect(await search('tempe')).toEqual(['Jane Smithers']);
    expect(await search('nv')).toEqual(['Smitty Jones']);
    expect(await search('85201')).toEqual(['John Smith']);
    expect(await search('555-9876')).toEqual(['Jane Smithers']);
    expect(await search('6235550000')).toEqual(['Smitty Jones']);
    expect(await search('0042')).toEqual(['Adam Johnson']);
    expect(await search('zzz')).toEqual([]);
    const firstTwo = ok(await api(LIST, { selector: { search: 'smi' }, first: 2 })).infiniteCustomers;
    expect(firstTwo.totalCount).toBe(3);
    const rest = ok(await api(LIST, { selector: { search: 'smi' }, first: 2, after: firstTwo.pageInfo.endCursor })).infiniteCustomers;
    expect(rest.edges.map((e: any) => e.node.lastName)).toEqual(['Smithers']);
    const back = ok(await api(LIST, { selector: { search: 'smi' }, last: 1, before: firstTwo.pageInfo.endCursor })).infiniteCustomers;
    expect(back.edges.map((e: any) => e.node.lastName)).toEqual(['Jones']);
    expect(back.pageInfo.hasPreviousPage).toBe(false);
    const descending = ok(await api(LIST, { selector: { search: 'smi' }, sort: [{ field: 'NAME', direction: 'DESC' }], first: 1 })).infiniteCustomers;
    expect(descending.edges[0].node.lastName).toBe('Smithers');
    const lookup = ok(await api(LOOKUP, { query: 'smith', first: 1 })).infiniteCustomerLookup;
    expect(lookup.edges[0].node).toMatchObject({ firstName: 'John', lastName: 'Smith', streetAddress: '400 Oak St', city: 'Mesa', state: 'AZ' });
    const next = ok(await api(LOOKUP, { query: 'smith', first: 1, after: lookup.pageInfo.endCursor })).infiniteCustomerLookup;
    expect(next.edges[0].node.lastName).toBe('Smithers');
    expect(next.pageInfo.hasNextPage).toBe(false);
  });

  it('SQL-looking and wildcard text is stored and searched literally', async () => {
    const { api } = await freshOrg('Literal Pools');
    const nasty = "Robert'); DROP TABLE customers;--";
    await create(api, { lastName: nasty, city: '100%_sure' });
    await create(api, { lastName: 'Plain', city: '100 other' });
    expect(await names(api, { selector: { search: "'); drop" } })).toEqual([nasty]);
    expect(await names(api, { selector: { search: '100%' } })).toEqual([nasty]);
    expect(await names(api, { selector: { search: '%' } })).toEqual([nasty]);
    expect(await names(api, { selector: { search: '_' } })).toEqual([nasty]);
    expect(await names(api, { selector: { filters: { city: { contains: '%_' } } } })).toEqual([nasty]);
    expect((await store.db.query('select count(*) from customers')).rows.length).toBe(1);
  });

  it('every CustomerFilter field filters; deleted defaults to false', async () => {
    const { api, orgId: fOrg } = await freshOrg('Filter Pools');
    const a = await create(api, { firstName: 'A', lastName: 'Able', status: 'ACTIVE', isCommercial: true, readyForInvoice: true, zone: 'North', city: 'Mesa', state: 'AZ', zipCode: '85201', tags: ['weekly', 'vip'], customerSinceDate: '2020-03-01' });
    await create(api, { firstName: 'B', lastName: 'Baker', status: 'LEAD', isCommercial: false, readyForInvoice: false, zone: 'South', city: 'Tempe', state: 'AZ', zipCode: '85281', tags: ['weekly'], customerSinceDate: '2023-07-15' });
    await create(api, { firstName: 'C', lastName: 'Cole', status: 'INACTIVE', zone: 'North East', city: 'Las Vegas', state: 'NV', zipCode: '89101', tags: [] });
    const gone = await create(api, { firstName: 'D', lastName: 'Dunn', status: 'ACTIVE', city: 'Mesa' });
    await store.db.query('update customers set _deleted = true where org_id = $1 and id = $2', [fOrg, gone.id]);
    const f = (filters: unknown) => names(api, { selector: { filters } });

    expect(await f({})).toEqual(['A Able', 'B Baker', 'C Cole']);
    expect(await f({ deleted: { eq: true } })).toEqual(['D Dunn']);
    expect(await f({ id: { eq: a.id } })).toEqual(['A Able']);
    expect(await f({ id: { in: [a.id, gone.id] } })).toEqual(['A Able']);
    expect(await f({ status: { eq: 'LEAD' } })).toEqual(['B Baker']);
    expect(await f({ status: { in: ['LEAD', 'INACTIVE'] } })).toEqual(['B Baker', 'C Cole']);
    expect(await f({ isCommercial: { eq: true } })).toEqual(['A Able']);
    expect(await f({ readyForInvoice: { eq: false } })).toEqual(['B Baker']);
    expect(await f({ zone: { eq: 'North' } })).toEqual(['A Able']);
    expect(await f({ zone: { contains: 'north' } })).toEqual(['A Able', 'C Cole']);
    expect(await f({ zone: { startsWith: 'nor' } })).toEqual(['A Able', 'C Cole']);
    expect(await f({ city: { equals: 'Tempe' } })).toEqual(['B Baker']);
    expect(await f({ city: { in: ['Mesa', 'Las Vegas'] } })).toEqual(['A Able', 'C Cole']);
    expect(await f({ state: { eq: 'NV' } })).toEqual(['C Cole']);
    expect(await f({ zipCode: { startsWith: '852' } })).toEqual(['A Able', 'B Baker']);
    expect(await f({ tags: { has: 'vip' } })).toEqual(['A Able']);
    expect(await f({ tags: { hasSome: ['vip', 'weekly'] } })).toEqual(['A Able', 'B Baker']);
    expect(await f({ tags: { hasEvery: ['vip', 'weekly'] } })).toEqual(['A Able']);
    expect(await f({ tags: { isEmpty: true } })).toEqual(['C Cole']);
    expect(await f({ customerSinceDate: { gte: '2021-01-01T00:00:00Z' } })).toEqual(['B Baker']);
    expect(await f({ customerSinceDate: { lte: '2020-03-01T00:00:00Z' } })).toEqual(['A Able']);
    expect(await f({ customerSinceDate: { gte: '2020-01-01T00:00:00Z', lte: '2023-12-31T00:00:00Z' } })).toEqual(['A Able', 'B Baker']);
    expect(await f({ city: { eq: 'Mesa' }, status: { eq: 'ACTIVE' } })).toEqual(['A Able']);
    expect(ok(await api(LIST, { selector: { filters: { state: { eq: 'AZ' } } }, first: 1 })).infiniteCustomers.totalCount).toBe(2);
  });

  it('sorts by name, city, created, updated and customerSinceDate both ways, with a stable tie-break', async () => {
    const { api } = await freshOrg('Sort Pools');
    const rows = [
      ['Zoe', 'Adams', 'Tempe', '2019-01-01'],
      ['Amy', 'Adams', 'Mesa', null],
      ['Bob', 'young', 'Chandler', '2022-05-05'],
      ['Cy', 'Baker', 'Mesa', '2021-02-02'],
    ] as const;
    for (const [firstName, lastName, city, customerSinceDate] of rows) await create(api, { firstName, lastName, city, customerSinceDate });
    const sorted = (sort: unknown) => names(api, { sort });
    expect(await sorted(null)).toEqual(['Amy Adams', 'Zoe Adams', 'Cy Baker', 'Bob young']);
    expect(await sorted([{ field: 'NAME', direction: 'DESC' }])).toEqual(['Bob young', 'Cy Baker', 'Zoe Adams', 'Amy Adams']);
    expect((await sorted([{ field: 'CITY' }, { field: 'NAME' }]))).toEqual(['Bob young', 'Amy Adams', 'Cy Baker', 'Zoe Adams']);
    expect(await sorted([{ field: 'CITY', direction: 'DESC' }, { field: 'NAME', direction: 'ASC' }])).toEqual([
      'Zoe Adams', 'Amy Adams', 'Cy Baker', 'Bob young',
    ]);
    expect(await sorted([{ field: 'CREATED_AT' }])).toEqual(['Zoe Adams', 'Amy Adams', 'Bob young', 'Cy Baker']);
    expect(await sorted([{ field: 'CREATED_AT', direction: 'DESC' }])).toEqual(['Cy Baker', 'Bob young', 'Amy Adams', 'Zoe Adams']);
    expect(await sorted([{ field: 'CUSTOMER_SINCE_DATE', direction: 'ASC' }])).toEqual(['Amy Adams', 'Zoe Adams', 'Cy Baker', 'Bob young']);
    expect(await sorted([{ field: 'CUSTOMER_SINCE_DATE', direction: 'DESC' }])).toEqual(['Bob young', 'Cy Baker', 'Zoe Adams', 'Amy Adams']);
    const zoe = ok(await api(LIST, { selector: { search: 'zoe' }, first: 1 })).infiniteCustomers.edges[0].node;
    ok(await api(UPDATE, { id: zoe.id, input: { notes: 'touched' } }));
    expect((await sorted([{ field: 'UPDATED_AT', direction: 'DESC' }]))[0]).toBe('Zoe Adams');

    // Mixed directions page exactly like the whole list.
    const sort = [{ field: 'CITY', direction: 'DESC' }, { field: 'NAME', direction: 'ASC' }];
    const paged: string[] = [];
    let after: string | null = null;
    do {
      const page: any = ok(await api(LIST, { sort, first: 1, after })).infiniteCustomers;
      paged.push(...page.edges.map((e: any) => `${e.node.firstName} ${e.node.lastName}`));
      after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
    } while (after);
    expect(paged).toEqual(['Zoe Adams', 'Amy Adams', 'Cy Baker', 'Bob young']);
  });

  it('pages forward and backward, without gaps or repeats while rows are inserted', async () => {
    const { api } = await freshOrg('Paging Pools');
    for (let i = 0; i < 30; i++) await create(api, { lastName: `P${String(i * 2).padStart(3, '0')}` });
    const forward: string[] = [];
    let after: string | null = null;
    let inserted = 0;
    for (;;) {
      const page: any = ok(await api(LIST, { first: 7, after })).infiniteCustomers;
      forward.push(...page.edges.map((e: any) => e.node.lastName));
      expect(page.totalCount).toBe(30 + inserted);
      // Insert one row behind the cursor and one ahead of it between pages.
      const last = Number(forward.at(-1)!.slice(1));
      await create(api, { lastName: `P${String(last - 1).padStart(3, '0')}` });
      await create(api, { lastName: `P${String(last + 1).padStart(3, '0')}x` });
      inserted += 2;
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(forward).toEqual([...new Set(forward)]);
    expect(forward).toEqual([...forward].sort());
    // Every row that existed before paging started was seen exactly once.
    for (let i = 0; i < 30; i++) expect(forward).toContain(`P${String(i * 2).padStart(3, '0')}`);

    const backward: string[] = [];
    let before: string | null = null;
    for (;;) {
      const page: any = ok(await api(LIST, { last: 9, before })).infiniteCustomers;
      backward.unshift(...page.edges.map((e: any) => e.node.lastName));
      if (!page.pageInfo.hasPreviousPage) break;
      before = page.pageInfo.startCursor;
    }
    const all = await names(api, {});
    expect(backward).toEqual(all);
    const tail = ok(await api(LIST, { last: 2 })).infiniteCustomers;
    expect(tail.edges.map((e: any) => e.node.lastName)).toEqual(all.slice(-2));
    expect(tail.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false });
  });

  it('updateCustomerQuotedPrices replaces all, ignores prices <= 0, and names the service type', async () => {
    const customer = await create(admin, { lastName: 'Priced' });
    const weekly = ok(await admin(CREATE_TYPE, { input: { display: 'Weekly cleaning', desc: 'Brush, skim, vacuum' } })).createServiceType;
    const filter = ok(await admin(CREATE_TYPE, { input: { display: 'Filter clean' } })).createServiceType;
    const first = ok(
      await admin(QUOTED, { customerId: customer.id, input: { quotedPrices: [{ typeId: weekly.id, price: 120 }, { typeId: filter.id, price: 85.5 }] } }),
    ).updateCustomerQuotedPrices;
    expect(first.map((p: any) => [p.serviceTypeDisplay, p.price, p.customerId])).toEqual([
      ['Weekly cleaning', 120, customer.id],
      ['Filter clean', 85.5, customer.id],
    ]);
    const second = ok(
      await admin(QUOTED, {
        customerId: customer.id,
        input: { quotedPrices: [{ typeId: filter.id, price: 90 }, { typeId: weekly.id, price: 0 }, { price: -3 }, { price: 40 }] },
      }),
    ).updateCustomerQuotedPrices;
    expect(second.map((p: any) => [p.typeId, p.price, p.serviceTypeDisplay])).toEqual([
      [filter.id, 90, 'Filter clean'],
      [null, 40, null],
    ]);
    const listed = ok(
      await admin(`query($id: ID!) { infiniteCustomers(selector: {filters: {id: {eq: $id}}}, first: 1) { edges { node { quotedPrices { price serviceTypeDisplay } } } } }`, { id: customer.id }),
    ).infiniteCustomers.edges[0].node.quotedPrices;
    expect(listed).toEqual([{ price: 90, serviceTypeDisplay: 'Filter clean' }, { price: 40, serviceTypeDisplay: null }]);
    const res = await admin(QUOTED, { customerId: customer.id, input: { quotedPrices: [{ typeId: 'nope', price: 5 }] } });
    expect(errorCodes(res)).toEqual(['BAD_USER_INPUT']);
    expect(listed).toHaveLength(2);
  });

  it('nextScheduledApt is the customer’s next scheduled appointment', async () => {
    const customer = await create(admin, { lastName: 'Scheduled' });
    const day = 86_400_000;
    const at = (d: number) => new Date(Date.now() + d * day).toISOString();
    await appointments.insert(store.db, orgId, { id: 'apt-past', customerId: customer.id, startTime: at(-1), status: 'SCHEDULED' });
    await appointments.insert(store.db, orgId, { id: 'apt-later', customerId: customer.id, startTime: at(9), status: 'SCHEDULED' });
    await appointments.insert(store.db, orgId, { id: 'apt-soon', customerId: customer.id, startTime: at(2), status: 'SCHEDULED' });
    await appointments.insert(store.db, orgId, { id: 'apt-cancel', customerId: customer.id, startTime: at(1), status: 'CANCELED' });
    const node = ok(
      await admin(`query($id: ID!) { infiniteCustomers(selector: {filters: {id: {eq: $id}}}, first: 1) { edges { node { nextScheduledApt { id status } } } } }`, { id: customer.id }),
    ).infiniteCustomers.edges[0].node;
    expect(node.nextScheduledApt).toEqual({ id: 'apt-soon', status: 'SCHEDULED' });
  });

  it('limits and bad input: clear errors, nothing changed', async () => {
    const { api } = await freshOrg('Limit Pools');
    const keep = await create(api, { lastName: 'Keep' });
    const codes = async (vars: Record<string, unknown>) => errorCodes(await api(LIST, vars));
    expect(await codes({ first: 101 })).toEqual(['BAD_USER_INPUT']);
    expect(await codes({ first: 0 })).toEqual(['BAD_USER_INPUT']);
    expect(await codes({ first: -1 })).toEqual(['BAD_USER_INPUT']);
    expect(await codes({ last: 101 })).toEqual(['BAD_USER_INPUT']);
    expect(await codes({ first: 5, selector: { search: 'x'.repeat(601) } })).toEqual(['BAD_USER_INPUT']);
    expect(await codes({ first: 5, selector: { search: 'x'.repeat(600) } })).toEqual([]);
    expect(await codes({ first: 5, after: 'garbage' })).toEqual(['BAD_USER_INPUT']);
    expect(await codes({ first: 5, after: Buffer.from('{"t":"x","k":["a","b"]}').toString('base64url') })).toEqual(['BAD_USER_INPUT']);
    const byName = ok(await api(LIST, { first: 1 })).infiniteCustomers.pageInfo.endCursor;
    expect(await codes({ first: 5, after: byName, sort: [{ field: 'CITY' }] })).toEqual(['BAD_USER_INPUT']);
    expect(await codes({ first: 5, sort: [{ field: 'SHOE_SIZE' }] })).toEqual(['BAD_USER_INPUT']);
    const badCreate = [{ firstName: 'No last name' }, { lastName: '   ' }, { lastName: 'x', isCommercial: 'yes' }, { lastName: 'x', shoeSize: 9 }];
    for (const input of badCreate) expect(errorCodes(await api(CREATE, { input }))).toEqual(['BAD_USER_INPUT']);
    expect(errorCodes(await api(UPDATE, { id: keep.id, input: { lastName: null } }))).toEqual(['BAD_USER_INPUT']);
    const nul = await api(UPDATE, { id: keep.id, input: { notes: 'a\u0000b' } });
    expect(errorCodes(nul)).toEqual(['BAD_USER_INPUT']);
    expect(nul.errors![0]!.message).toMatch(/NUL character/);

    // Another organization's customer does not exist for this one.
    expect(await names(admin, { selector: { filters: { id: { eq: keep.id } } } })).toEqual([]);
    expect(errorCodes(await admin(UPDATE, { id: keep.id, input: { notes: 'x' } }))).toEqual(['NOT_FOUND']);
    expect(errorCodes(await admin(QUOTED, { customerId: keep.id, input: { quotedPrices: [] } }))).toEqual(['NOT_FOUND']);
    const tech = caller(server, (await tokenFor(server, adminToken, 'TECHNICIAN')).token);
    expect(errorCodes(await tech(CREATE, { input: { lastName: 'By tech' } }))).toEqual(['FORBIDDEN']);
    expect(await names(api, {})).toEqual(['Keep']);
  });
});
