import { describe, expect, it } from 'vitest';
import { caller, ok, tokenFor } from './support/api.js';
import { engines } from './support/engines.js';
import { useTestServer } from './support/fixture.js';
import type { TestServer } from './support/server.js';

/**
 * Linking records: a connector (an API token) sets its own ids on our customers and items, finds
 * a record by them, and sends each write with an Idempotency-Key, so a run retried after a lost
 * answer changes nothing twice and a run repeated later updates what it linked instead of making
 * another.
 */
const FIND_CUSTOMER = `query($f: CustomerFilter) { infiniteCustomers(first: 5, selector: {filters: $f}) { totalCount edges { node { id lastName accountingId paymentProcessorId } } } }`;
const CREATE_CUSTOMER = `mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { id accountingId paymentProcessorId } }`;
const UPDATE_CUSTOMER = `mutation($id: ID!, $input: UpdateCustomerInput!) { updateCustomer(id: $id, input: $input) { id accountingId } }`;

describe.each(engines)('linking records on %s', (engine) => {
  let server: TestServer;
  let admin: string;
  useTestServer(engine, { organization: 'Linked Pools', server: { http: { rateLimitPerMinute: 0 } } }, (t) => {
    ({ server, token: admin } = t);
  });

  /** A GraphQL request with an Idempotency-Key, as a connector sends each write. */
  async function once(token: string, key: string, query: string, variables: Record<string, unknown>) {
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ query, variables }),
    });
    return { replayed: res.headers.get('idempotent-replayed') === 'true', body: (await res.json()) as { data: any; errors?: { extensions: { code: string } }[] } };
  }

  it('an API token sets accountingId and paymentProcessorId on customers and finds them by it', async () => {
    const api = (await tokenFor(server, admin, 'API')).token;
    const gql = caller(server, api);
    const made = await once(api, 'qb-sync-1:customer:QB-17', CREATE_CUSTOMER, { input: { lastName: 'Sorensen', accountingId: 'QB-17', paymentProcessorId: 'cus_P1' } });
    expect(made.body.data.createCustomer).toMatchObject({ accountingId: 'QB-17', paymentProcessorId: 'cus_P1' });
    // The connector's retry after a lost answer: the same answer, no second customer.
    const retried = await once(api, 'qb-sync-1:customer:QB-17', CREATE_CUSTOMER, { input: { lastName: 'Sorensen', accountingId: 'QB-17', paymentProcessorId: 'cus_P1' } });
    expect(retried.replayed).toBe(true);
    expect(retried.body.data.createCustomer.id).toBe(made.body.data.createCustomer.id);
    ok(await gql(CREATE_CUSTOMER, { input: { lastName: 'Unlinked' } }));

    const found = ok(await gql(FIND_CUSTOMER, { f: { accountingId: { eq: 'QB-17' } } })).infiniteCustomers;
    expect(found.totalCount).toBe(1);
    expect(found.edges[0].node).toEqual({ id: made.body.data.createCustomer.id, lastName: 'Sorensen', accountingId: 'QB-17', paymentProcessorId: 'cus_P1' });
    expect(ok(await gql(FIND_CUSTOMER, { f: { paymentProcessorId: { eq: 'cus_P1' } } })).infiniteCustomers.totalCount).toBe(1);
    expect(ok(await gql(FIND_CUSTOMER, { f: { accountingId: { in: ['QB-17', 'QB-99'] } } })).infiniteCustomers.totalCount).toBe(1);
    expect(ok(await gql(FIND_CUSTOMER, { f: { accountingId: { eq: 'QB-99' } } })).infiniteCustomers.edges).toEqual([]);

    // A later run finds the linked record and updates it (a new key: a new request).
    const id = found.edges[0].node.id;
    const relinked = await once(api, 'qb-sync-2:customer:QB-17', UPDATE_CUSTOMER, { id, input: { accountingId: 'QB-17-B' } });
    expect(relinked.body.data.updateCustomer).toEqual({ id, accountingId: 'QB-17-B' });
    expect(ok(await gql(FIND_CUSTOMER, { f: { accountingId: { eq: 'QB-17' } } })).infiniteCustomers.totalCount).toBe(0);
    expect(ok(await gql(FIND_CUSTOMER, { f: { accountingId: { eq: 'QB-17-B' } } })).infiniteCustomers.totalCount).toBe(1);
  });

  it('an API token sets an item accountingId and finds the item by it', async () => {
    const api = (await tokenFor(server, admin, 'API')).token;
    const gql = caller(server, api);
    const item = ok(await gql(`mutation { createInventoryItem(input: {name: "DE powder", category: SUPPLIES, unitPrice: 24, accountingId: "QB-ITEM-4"}) { id accountingId } }`)).createInventoryItem;
    ok(await gql(`mutation { createInventoryItem(input: {name: "Unlinked", category: SUPPLIES, unitPrice: 1}) { id } }`));
    const found = ok(await gql(`{ infiniteInventoryItems(first: 5, filter: {accountingId: "QB-ITEM-4"}) { edges { node { id accountingId } } } }`)).infiniteInventoryItems.edges;
    expect(found.map((e: { node: unknown }) => e.node)).toEqual([item]);
  });

  it('a technician cannot link records', async () => {
    const tech = caller(server, (await tokenFor(server, admin, 'TECHNICIAN')).token);
    const res = await tech(CREATE_CUSTOMER, { input: { lastName: 'Sneaky', accountingId: 'QB-X' } });
    expect(res.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});
