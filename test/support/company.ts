import { caller, ok } from './api.js';
import { pushChanges } from './sync.js';

/**
 * A pool company as the office's board meets it, written through the API as an import would
 * (GraphQL for people, trucks and the service type; sync pushes of 2,000 for customers and visits):
 * `technicians` technicians with 65 customers each, every customer visited weekly from two weeks
 * back to next week. Each week has five working days starting on today's weekday, so whatever the
 * day the test or bench runs, today holds a fifth of the customers (2,600 visits for 200
 * technicians); earlier visits are done, with notes and readings. Customers are in eight zones,
 * by technician.
 */
export interface Company {
  technicians: { id: string; name: string; token: string }[];
  customers: number;
  visits: number;
  /** Visits today (the board's first view). */
  today: number;
  /** How long each part of the seed took, in seconds: people and trucks (GraphQL), customers, visits (sync pushes). */
  seconds: { people: number; customers: number; visits: number };
}

const CUSTOMERS_EACH = 65;
const WEEKS = [-2, -1, 0, 1];
const ZONES = ['Arcadia', 'Biltmore', 'Chandler', 'Desert Ridge', 'Estrella', 'Fountain Hills', 'Gilbert', 'Goodyear'];
const PUSH_ROWS = 2000;

export async function seedCompany(url: string, adminToken: string, technicianCount: number): Promise<Company> {
  const started = performance.now();
  const gql = caller({ url }, adminToken);
  const typeId = ok(await gql('mutation { createServiceType(input: {display: "Weekly service"}) { id } }')).createServiceType.id as string;
  const technicians: Company['technicians'] = [];
  for (let t = 0; t < technicianCount; t++) {
    const name = `Tech ${String(t + 1).padStart(3, '0')}`;
    const { token, apiToken } = ok(await gql('mutation($i: CreateApiTokenInput!) { createApiToken(input: $i) { token apiToken { userId } } }', { i: { name, role: 'TECHNICIAN' } })).createApiToken;
    technicians.push({ id: apiToken.userId, name, token });
    await gql('mutation($n: String!, $t: ID) { createInventoryLocation(input: {name: $n, technicianId: $t}) { id } }', { n: `Truck ${t + 1}`, t: apiToken.userId }).then(ok);
  }
  const count = technicianCount * CUSTOMERS_EACH;
  const technicianOf = (c: number) => technicians[c % technicianCount]!;
  const customers = Array.from({ length: count }, (_, c) => ({
    id: `cust-${c}`,
    firstName: `First${c}`,
    lastName: `Customer ${c}`,
    streetAddress: `${100 + (c % 9000)} Palm St`,
    city: 'Phoenix',
    state: 'AZ',
    zipCode: `850${String(c % 100).padStart(2, '0')}`,
    zone: ZONES[(c % technicianCount) % ZONES.length],
    service: { technicianId: technicianOf(c).id, typeId },
    pool: { kind: 'POOL', volumeGallons: 15000 + (c % 10) * 1000, gateCode: String((c * 7) % 10000).padStart(4, '0') },
  }));
  const people = performance.now();
  await pushAll(url, adminToken, 'customers', customers);
  const customersPushed = performance.now();
  const today = new Date();
  today.setHours(0, 0, 0, 0);
  const visits = WEEKS.flatMap((w) =>
    customers.map((customer, c) => {
      const start = new Date(today);
      // Each technician's customers spread over the five days: 13 a day (customer c is technician
      // c % n's, visited on day floor(c / n) % 5, at a time of its own).
      const day = Math.floor(c / technicianCount) % 5;
      start.setDate(start.getDate() + 7 * w + day);
      start.setHours(8 + (Math.floor(c / technicianCount / 5) % 9), (c % 4) * 15);
      const done = start.getTime() < Date.now() - 3_600_000;
      return {
        id: `visit-${c}-${w + 2}`,
        customerId: customer.id,
        typeId,
        newTechnicianId: technicianOf(c).id,
        startTime: start.toISOString(),
        endTime: done ? new Date(start.getTime() + 35 * 60_000).toISOString() : null,
        notes: done ? 'Brushed walls, emptied baskets, backwashed the filter. Water clear.' : null,
        chemicalReadings: done ? { freeChlorine: 2 + (c % 3), ph: 7.4, totalAlkalinity: 90 } : null,
        photos: [],
      };
    }),
  );
  await pushAll(url, adminToken, 'services', visits);
  const seconds = (from: number, to: number) => Math.round(to - from) / 1000;
  return {
    technicians,
    customers: count,
    visits: visits.length,
    today: customers.filter((_, c) => Math.floor(c / technicianCount) % 5 === 0).length,
    seconds: { people: seconds(started, people), customers: seconds(people, customersPushed), visits: seconds(customersPushed, performance.now()) },
  };
}

async function pushAll(url: string, token: string, collection: string, documents: Record<string, unknown>[]): Promise<void> {
  for (let i = 0; i < documents.length; i += PUSH_ROWS) {
    const answer = await pushChanges({ url }, token, collection, documents.slice(i, i + PUSH_ROWS).map((newDocumentState) => ({ newDocumentState })));
    if (answer.status !== 200) throw new Error(`pushing ${collection} failed: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
  }
}
