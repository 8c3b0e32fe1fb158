/**
 * A technician's day in a few lines, against a running server:
 *
 *   npm start                       # prints the demo ADMIN token once
 *   TOKEN=pst_... node --import tsx client-sdk/examples/technician-flow.ts
 *
 * With the ADMIN token it sets up what an office would (a technician token, a customer and a truck
 * with chlorine assigned to that technician: their phone holds its technician's work), then works
 * as the technician through the SDK: records a visit with readings and a photo, uses stock, syncs,
 * and prints what the server now holds.
 */
import { createPoolClient } from '../index.js';

const baseUrl = process.env.BASE_URL ?? 'http://127.0.0.1:4000';
const adminToken = process.env.TOKEN;
if (!adminToken) throw new Error('Set TOKEN to an ADMIN token (npm start prints the demo one)');

async function graphql<T>(token: string, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const res = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: T; errors?: unknown };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data!;
}

// The office's part.
const { createApiToken } = await graphql<{ createApiToken: { token: string; apiToken: { userId: string } } }>(
  adminToken,
  `mutation { createApiToken(input: {name: "Example technician", role: TECHNICIAN}) { token apiToken { userId } } }`,
);
const technicianId = createApiToken.apiToken.userId;
const { createCustomer } = await graphql<{ createCustomer: { id: string } }>(
  adminToken,
  `mutation($t: ID) { createCustomer(input: {firstName: "Rosa", lastName: "Example", city: "Mesa", service: {technicianId: $t}}) { id } }`,
  { t: technicianId },
);
const { createInventoryLocation: truck } = await graphql<{ createInventoryLocation: { id: string } }>(
  adminToken,
  `mutation($t: ID) { createInventoryLocation(input: {name: "Example truck", technicianId: $t}) { id } }`,
  { t: technicianId },
);
const { createInventoryItem: chlorine } = await graphql<{ createInventoryItem: { id: string } }>(
  adminToken,
  `mutation($l: ID) { createInventoryItem(input: {name: "Liquid chlorine", category: CHEMICAL, unitPrice: 6.5, locationId: $l, quantity: 20}) { id } }`,
  { l: truck.id },
);

// The technician's part, through the SDK.
const client = await createPoolClient({ baseUrl, token: createApiToken.token, name: 'example-phone' });
client.sync.start();
await client.sync.awaitInSync();
const visit = await client.recordVisit({ customerId: createCustomer.id, notes: 'Brushed, vacuumed', readings: { freeChlorine: 2.5, ph: 7.4 } });
const png = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='), (c) => c.charCodeAt(0));
await client.addVisitPhoto(visit.id, png, 'Filter before cleaning');
await client.useStock(chlorine.id, truck.id, 2, visit.id);
await client.sync.awaitInSync();
console.log('status', JSON.stringify(await new Promise((resolve) => client.sync.status$.subscribe(resolve).unsubscribe())));
await client.close();

// What the office now sees.
const seen = await graphql<{ infiniteServices: { edges: { node: unknown }[] }; inventoryItem: { quantity: number } }>(
  adminToken,
  `query($v: ID, $i: ID!) {
     infiniteServices(selector: {filters: {id: {eq: $v}}}, first: 1) { edges { node { id notes chemicalReadings { freeChlorine ph } photos { caption size } } } }
     inventoryItem(selector: {id: $i}) { quantity } }`,
  { v: visit.id, i: chlorine.id },
);
console.log('visit on the server', JSON.stringify(seen.infiniteServices.edges[0]?.node));
console.log('chlorine left on the truck', seen.inventoryItem.quantity);
