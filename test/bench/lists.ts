import { provisionOrganization } from '../../server/operations/organization.js';
import type { Database } from '../../server/storage/db.js';
import { startTestServer } from '../support/server.js';
import { measure, printTimings, secondsSince, type Timing } from './measure.js';
import { SEED_TECHNICIANS, seedOrganizationData, type SeedCounts } from './seed.js';

/**
 * The list benchmark: a customer search page with totalCount and a filtered visit page,
 * over HTTP against a real server, on a seeded organization.
 */
const CUSTOMER_SEARCH = `query InfiniteCustomers($selector: CustomersSelector, $first: Int) {
  infiniteCustomers(selector: $selector, first: $first) {
    edges { node { id firstName lastName streetAddress city phoneNumber } cursor } pageInfo { hasNextPage endCursor } totalCount } }`;
const SERVICE_PAGE = `query InfiniteServices($selector: ServicesSelector, $first: Int!, $after: String) {
  infiniteServices(selector: $selector, first: $first, after: $after) {
    edges { node { id reference startTime billingStatus chemicalReadings { ph freeChlorine } } cursor } pageInfo { hasNextPage endCursor } } }`;

export async function benchLists(db: Database, counts: SeedCounts, runs: number): Promise<Timing[]> {
  const { organization, token } = await provisionOrganization(db, { name: 'Bench Pools' });
  let start = performance.now();
  await seedOrganizationData(db, organization.id, counts);
  console.log(`seeded ${counts.customers} customers and ${counts.services} services in ${secondsSince(start)} s`);

  // A budget it never reaches: the limiter runs (its cost is part of the figures), never refuses.
  const server = await startTestServer(db, { platformAdminToken: undefined, bodyLimitBytes: 1_000_000, http: { rateLimitPerMinute: 1_000_000 } });
  const url = `${server.url}/graphql`;
  const call = async (query: string, variables: unknown) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await res.json()) as { errors?: unknown; data: any };
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data;
  };

  const filtered = {
    filters: { technicians: [SEED_TECHNICIANS[2]], startTime: { gte: '2026-01-01T00:00:00Z', lte: '2026-03-31T23:59:59Z' } },
  };
  const page1 = await call(SERVICE_PAGE, { selector: filtered, first: 50 });
  const found = await call(CUSTOMER_SEARCH, { selector: { search: 'smi' }, first: 50 });
  console.log(`"smi" matches ${found.infiniteCustomers.totalCount} customers; the filtered visit page holds ${page1.infiniteServices.edges.length}`);
  try {
    start = performance.now();
    return [
      await measure('customer search "smi", first 50, totalCount', runs, () => call(CUSTOMER_SEARCH, { selector: { search: 'smi' }, first: 50 })),
      await measure('customer search "john smi", first 50, totalCount', runs, () => call(CUSTOMER_SEARCH, { selector: { search: 'john smi' }, first: 50 })),
      await measure('customers by name, first 50, totalCount', runs, () => call(CUSTOMER_SEARCH, { first: 50 })),
      await measure('visits of one technician in a quarter, first 50', runs, () => call(SERVICE_PAGE, { selector: filtered, first: 50 })),
      await measure('same, second page', runs, () => call(SERVICE_PAGE, { selector: filtered, first: 50, after: page1.infiniteServices.pageInfo.endCursor })),
      await measure('visits search "skimmer", first 50', runs, () => call(SERVICE_PAGE, { selector: { search: 'skimmer' }, first: 50 })),
    ];
  } finally {
    await server.close();
  }
}

export { printTimings };
