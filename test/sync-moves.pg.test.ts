import { afterEach, describe, expect, it } from 'vitest';
import { isDeparture } from '../shared/index.js';
import { caller, ok, tokenFor } from './support/api.js';
import { engines } from './support/engines.js';
import { openEventStream, type EventStream } from './support/event-stream.js';
import { useTestServer } from './support/fixture.js';
import type { TestServer } from './support/server.js';
import { pullAll, pullChanges, pushChanges } from './support/sync.js';

/**
 * What a technician's phone holds (shared/sync/scopes.ts), over the protocol as any client speaks
 * it: each role's pull, and rows moving in and out of a phone's scope when the office reassigns a
 * visit, a customer or a truck: on the next pull even though the rows' own changes lie behind
 * the phone's checkpoint, on the live stream within a second, between two pages of a first sync,
 * and with an offline edit of a row that moved away.
 */
const COLLECTIONS = ['organization', 'serviceTypes', 'customers', 'appointments', 'services', 'quotes', 'inventoryLocations', 'inventoryItems', 'stockLevels', 'stockMovements'];

/** A device as the protocol sees it: per collection a checkpoint and the documents it holds. */
class Device {
  readonly held = new Map<string, Map<string, Record<string, unknown>>>();
  private readonly checkpoints = new Map<string, number>();
  readonly departed: string[] = [];

  constructor(
    private readonly server: TestServer,
    readonly token: string,
  ) {}

  ids(collection: string): string[] {
    return [...(this.held.get(collection)?.keys() ?? [])].sort();
  }

  apply(collection: string, documents: Record<string, unknown>[]): void {
    const held = this.held.get(collection) ?? new Map();
    this.held.set(collection, held);
    for (const doc of documents) {
      if (isDeparture(doc)) this.departed.push(`${collection}/${String(doc.id)}`);
      if (doc._deleted) held.delete(String(doc.id));
      else held.set(String(doc.id), doc);
    }
  }

  async pull(collection: string, limit = 1000): Promise<void> {
    const { documents, checkpoint } = await pullAll(this.server, this.token, collection, this.checkpoints.get(collection) ?? 0, limit);
    this.apply(collection, documents);
    this.checkpoints.set(collection, checkpoint);
  }

  /** One page, as a first sync interrupted between two pages would have it. */
  async pullPage(collection: string, limit: number): Promise<number> {
    const { body } = await pullChanges(this.server, this.token, collection, this.checkpoints.get(collection) ?? 0, limit);
    this.apply(collection, body.documents);
    this.checkpoints.set(collection, body.checkpoint.seq);
    return body.documents.length;
  }

  async pullEverything(): Promise<void> {
    for (const c of COLLECTIONS) await this.pull(c);
  }

  /** Applies a live batch as a client must: only when it follows on from the checkpoint. */
  applyBatch(batch: { collection: string; documents: Record<string, unknown>[]; checkpoint: { seq: number }; since: { seq: number } }): boolean {
    const at = this.checkpoints.get(batch.collection) ?? 0;
    if (batch.since.seq > at) return false;
    this.apply(batch.collection, batch.documents);
    this.checkpoints.set(batch.collection, Math.max(at, batch.checkpoint.seq));
    return true;
  }

  checkpoint(collection: string): number {
    return this.checkpoints.get(collection) ?? 0;
  }
}

describe.each(engines)('what a phone holds, and rows moving between phones, on %s', (engine) => {
  let server: TestServer;
  let office: string;
  let gql: ReturnType<typeof caller>;
  let techA: { token: string; id: string };
  let techB: { token: string; id: string };
  const streams: EventStream[] = [];

  useTestServer(engine, { organization: 'Route Pools', server: { heartbeatMs: 500 } }, async (t) => {
    ({ server } = t);
    office = t.token;
    gql = caller(server, office);
    const a = await tokenFor(server, office, 'TECHNICIAN');
    const b = await tokenFor(server, office, 'TECHNICIAN');
    techA = { token: a.token, id: a.apiToken.userId };
    techB = { token: b.token, id: b.apiToken.userId };
  });
  afterEach(() => {
    for (const s of streams.splice(0)) s.close();
  });

  const customer = async (name: string, technicianId: string | null = null) =>
    ok(await gql(`mutation($n: String!, $t: ID) { createCustomer(input: {lastName: $n, service: {technicianId: $t}}) { id } }`, { n: name, t: technicianId })).createCustomer.id as string;
  const visit = async (customerId: string, technicianId: string | null, secondary: string | null = null) =>
    ok(
      await gql(`mutation($c: ID, $t: ID, $s: ID) { createService(input: {customerId: $c, newTechnicianId: $t, newSecondaryTechnicianId: $s, startTime: "${new Date().toISOString()}"}) { id } }`, {
        c: customerId,
        t: technicianId,
        s: secondary,
      }),
    ).createService.id as string;
  const assign = (visitId: string, fields: Record<string, string | null>) =>
    gql(`mutation($id: ID!, $input: UpdateServiceInput!) { updateService(id: $id, input: $input) { id } }`, { id: visitId, input: fields }).then(ok);
  const quote = async (customerId: string) =>
    ok(await gql(`mutation($c: ID!) { createQuote(input: {customerId: $c, title: "Heater", lineItems: [{description: "Heater", quantity: 1, unitPrice: 900}]}) { id } }`, { c: customerId })).createQuote.id as string;
  const truck = async (name: string, technicianId: string | null) =>
    ok(await gql(`mutation($n: String!, $t: ID) { createInventoryLocation(input: {name: $n, technicianId: $t}) { id } }`, { n: name, t: technicianId })).createInventoryLocation.id as string;
  const stockAt = async (locationId: string) =>
    ok(await gql(`mutation($l: ID) { createInventoryItem(input: {name: "Tabs", category: CHEMICAL, unitPrice: 3, locationId: $l, quantity: 10}) { id } }`, { l: locationId })).createInventoryItem.id as string;
  const officeIds = async (collection: string, where: (d: any) => boolean) =>
    (await pullAll(server, office, collection)).documents.filter((d: any) => !d._deleted && where(d)).map((d: any) => d.id as string).sort();

  it('each role holds what the scope says: a technician their own work, the office everything', async () => {
    const mine = await customer('Mine');
    const shared = await customer('Shared');
    const assigned = await customer('Assigned to A', techA.id);
    const elsewhere = await customer('Nobody’s');
    const v1 = await visit(mine, techA.id);
    const v2 = await visit(shared, techA.id);
    const v3 = await visit(shared, techB.id);
    const helping = await visit(elsewhere, techB.id, techA.id);
    const q = await quote(mine);
    const nobodys = await customer('Quoted, not A’s');
    const otherQuote = await quote(nobodys);
    // Appointments are the office's to write, through sync.
    const appointment = `appt-${Math.random().toString(36).slice(2)}`;
    const scheduled = { customerId: mine, startTime: new Date().toISOString(), status: 'SCHEDULED' };
    expect((await pushChanges(server, office, 'appointments', [{ newDocumentState: { id: appointment, technicianId: techA.id, ...scheduled } }, { newDocumentState: { id: `${appointment}-b`, technicianId: techB.id, ...scheduled } }])).status).toBe(200);
    const truckA = await truck('Truck A', techA.id);
    const truckB = await truck('Truck B', techB.id);
    const warehouse = await truck('Warehouse', null);
    const itemOnTruck = await stockAt(truckA);
    await stockAt(warehouse);
    const a = new Device(server, techA.token);
    const b = new Device(server, techB.token);
    const theOffice = new Device(server, office);
    await Promise.all([a.pullEverything(), b.pullEverything(), theOffice.pullEverything()]);

    expect(a.ids('services')).toEqual([v1, v2, helping].sort());
    expect(a.ids('customers')).toEqual([mine, shared, assigned, elsewhere].sort());
    expect(a.ids('quotes')).toEqual([q]);
    expect(a.ids('appointments')).toEqual([appointment]);
    expect(b.ids('appointments')).toEqual([`${appointment}-b`]);
    // Their truck and the warehouse (to take stock from), not another technician's truck; the
    // stock in both; but only the movements of their own truck.
    expect(a.ids('inventoryLocations')).toEqual([truckA, warehouse].sort());
    expect([...a.held.get('stockLevels')!.values()].map((l) => l.locationId).sort()).toEqual([truckA, warehouse].sort());
    expect([...a.held.get('stockMovements')!.values()].map((m) => [m.itemId, m.locationId])).toEqual([[itemOnTruck, truckA]]);
    expect(b.ids('services')).toEqual([v3, helping].sort());
    expect(b.ids('customers')).toEqual([shared, elsewhere].sort());
    expect(b.ids('quotes')).toEqual([]);
    expect(b.ids('inventoryLocations')).toEqual([truckB, warehouse].sort());
    // The organization, service types and the item catalog are whole on every phone.
    for (const c of ['organization', 'serviceTypes', 'inventoryItems']) expect(a.ids(c)).toEqual(theOffice.ids(c));
    expect(a.ids('inventoryItems')).toHaveLength(2);
    // The office holds everything.
    expect(theOffice.ids('services')).toEqual(expect.arrayContaining([v1, v2, v3, helping]));
    expect(theOffice.ids('quotes')).toEqual(expect.arrayContaining([q, otherQuote]));
    expect(theOffice.ids('inventoryLocations')).toEqual(expect.arrayContaining([truckA, truckB, warehouse]));
    // Nothing on a phone is anyone else's: a customer no technician visits is on no phone, nor its quote.
    for (const phone of [a, b]) {
      expect(phone.ids('customers')).not.toContain(nobodys);
      expect(phone.ids('quotes')).not.toContain(otherQuote);
    }
  });

  it('a visit reassigned from A to B: B gets it and its customer on the next pull, A gets departures', async () => {
    const c = await customer('Moved customer');
    const v = await visit(c, techA.id);
    const q = await quote(c);
    // B's feed moves on past the customer's own last change.
    await visit(await customer('B’s own'), techB.id);
    const a = new Device(server, techA.token);
    const b = new Device(server, techB.token);
    await Promise.all([a.pullEverything(), b.pullEverything()]);
    expect(a.ids('services')).toContain(v);
    expect(b.ids('customers')).not.toContain(c);
    const bCheckpoint = b.checkpoint('customers');

    await assign(v, { newTechnicianId: techB.id });
    await Promise.all([a.pullEverything(), b.pullEverything()]);
    expect(b.ids('services')).toContain(v);
    // The customer's own last change lies behind B's checkpoint; it still arrives.
    const { rows } = await server.db.query<{ seq: number }>('select _seq as seq from customers where id = $1', [c]);
    expect(rows[0]!.seq).toBeLessThan(bCheckpoint);
    expect(b.ids('customers')).toContain(c);
    expect(b.ids('quotes')).toContain(q);
    // A's phone drops the visit, and the customer and quote nothing else of A's needs.
    expect(a.ids('services')).not.toContain(v);
    expect(a.ids('customers')).not.toContain(c);
    expect(a.ids('quotes')).not.toContain(q);
    expect(a.departed).toEqual(expect.arrayContaining([`services/${v}`, `customers/${c}`, `quotes/${q}`]));
    // The departure is A's alone: the visit is not deleted for anyone.
    expect(await officeIds('services', (d) => d.id === v)).toEqual([v]);

    // Moved back: A holds it again.
    await assign(v, { newTechnicianId: techA.id });
    await Promise.all([a.pullEverything(), b.pullEverything()]);
    expect(a.ids('services')).toContain(v);
    expect(a.ids('customers')).toContain(c);
    expect(b.ids('services')).not.toContain(v);
  });

  it('on the live stream: the new phone has the visit and its customer within a second, the old one its departure', async () => {
    const c = await customer('Live move');
    const v = await visit(c, techA.id);
    const a = new Device(server, techA.token);
    const b = new Device(server, techB.token);
    await Promise.all([a.pullEverything(), b.pullEverything()]);
    const streamA = await openEventStream(server, techA.token);
    const streamB = await openEventStream(server, techB.token);
    streams.push(streamA, streamB);
    await Promise.all([streamA.next((e) => e.type === 'RESYNC'), streamB.next((e) => e.type === 'RESYNC')]);

    const started = Date.now();
    await assign(v, { newTechnicianId: techB.id });
    const visitEvent = await streamB.next((e) => e.type === 'changes' && e.collection === 'services' && e.documents.some((d: any) => d.id === v), 1000);
    const customerEvent = await streamB.next((e) => e.type === 'changes' && e.collection === 'customers' && e.documents.some((d: any) => d.id === c), 1000);
    const departure = await streamA.next((e) => e.type === 'changes' && e.documents.some((d: any) => d.id === v && isDeparture(d)), 1000);
    expect(Date.now() - started).toBeLessThan(1000);
    // Each batch follows on from what the phone pulled: applied without a pull.
    expect(b.applyBatch(visitEvent)).toBe(true);
    expect(b.applyBatch(customerEvent)).toBe(true);
    expect(a.applyBatch(departure)).toBe(true);
    expect(b.held.get('services')!.get(v)).toMatchObject({ newTechnicianId: techB.id, customerId: c });
    expect(b.held.get('customers')!.get(c)).toMatchObject({ lastName: 'Live move' });
    expect(a.ids('services')).not.toContain(v);
    // B's stream carries nothing of A's: no batch names a visit of A's that did not move.
    const others = streamB.events.filter((e) => e.type === 'changes').flatMap((e) => e.documents.map((d: any) => d.id));
    expect(others.every((id: string) => [v, c].includes(id))).toBe(true);
  });

  it('a move between two pages of a first sync: the phone ends with exactly its scope', async () => {
    // A technician of their own, so the first pages hold this test's visits only.
    const paged = await tokenFor(server, office, 'TECHNICIAN');
    const c = await customer('Paged');
    const visits = [];
    for (let i = 0; i < 6; i++) visits.push(await visit(c, paged.apiToken.userId));
    const bVisit = await visit(c, techB.id);
    const a = new Device(server, paged.token);
    expect(await a.pullPage('services', 3)).toBe(3);
    const delivered = a.ids('services');
    const notYet = visits.filter((v) => !delivered.includes(v));
    // One already delivered and one not yet delivered leave; one of B's arrives.
    await assign(delivered[0]!, { newTechnicianId: techB.id });
    await assign(notYet[0]!, { newTechnicianId: techB.id });
    await assign(bVisit, { newTechnicianId: paged.apiToken.userId });
    await a.pull('services', 3);
    expect(a.ids('services')).toEqual(await officeIds('services', (d) => d.newTechnicianId === paged.apiToken.userId));
    expect(a.ids('services')).toContain(bVisit);
    expect(a.ids('services')).not.toContain(delivered[0]);
    expect(a.ids('services')).not.toContain(notYet[0]);
  });

  it('an offline edit of a visit that moved away is merged, reaches the new phone, and only then leaves', async () => {
    const c = await customer('Offline edit');
    const v = await visit(c, techA.id);
    const a = new Device(server, techA.token);
    const b = new Device(server, techB.token);
    await Promise.all([a.pull('services'), b.pull('services')]);
    const base = a.held.get('services')!.get(v)!;
    // A works offline while the office gives the visit to B.
    await assign(v, { newTechnicianId: techB.id });
    const pushed = await pushChanges(
      server,
      techA.token,
      'services',
      [{ assumedMasterState: base, newDocumentState: { ...base, notes: 'A was here', chemicalReadings: { ph: 7.6, freeChlorine: 2 } }, changeId: 'offline-edit-1' }],
      a.checkpoint('services'),
    );
    expect(pushed.status).toBe(200);
    // The departure is still to come: the phone must pull, not skip ahead.
    expect(pushed.movedTo).toBeNull();
    await b.pull('services');
    expect(b.held.get('services')!.get(v)).toMatchObject({ notes: 'A was here', newTechnicianId: techB.id, chemicalReadings: expect.objectContaining({ ph: 7.6 }) });
    await a.pull('services');
    expect(a.ids('services')).not.toContain(v);
    expect(a.departed).toContain(`services/${v}`);
  });

  it('a truck, a customer and a secondary technician change hands', async () => {
    const t = await truck('Truck moving', techA.id);
    const item = await stockAt(t);
    const c = await customer('Reassigned', techA.id);
    const other = await customer('Other');
    const v = await visit(other, techB.id);
    const a = new Device(server, techA.token);
    const b = new Device(server, techB.token);
    await Promise.all([a.pullEverything(), b.pullEverything()]);
    expect(a.ids('inventoryLocations')).toContain(t);
    expect(a.ids('customers')).toContain(c);
    expect(a.ids('services')).not.toContain(v);

    ok(await gql(`mutation($id: ID!, $t: ID) { updateInventoryLocation(id: $id, input: {technicianId: $t}) { id } }`, { id: t, t: techB.id }));
    ok(await gql(`mutation($id: ID!, $t: ID) { updateCustomer(id: $id, input: {service: {technicianId: $t}}) { id } }`, { id: c, t: techB.id }));
    await assign(v, { newSecondaryTechnicianId: techA.id });
    await Promise.all([a.pullEverything(), b.pullEverything()]);
    const levelsOf = (d: Device) => [...(d.held.get('stockLevels')?.values() ?? [])].filter((l) => l.itemId === item).map((l) => l.locationId);
    expect(a.ids('inventoryLocations')).not.toContain(t);
    expect(levelsOf(a)).toEqual([]);
    expect(b.ids('inventoryLocations')).toContain(t);
    expect(levelsOf(b)).toEqual([t]);
    expect([...b.held.get('stockMovements')!.values()].some((m) => m.itemId === item)).toBe(true);
    expect(a.ids('customers')).not.toContain(c);
    expect(b.ids('customers')).toContain(c);
    // Added as the secondary technician: A holds the visit and its customer; removed: neither.
    expect(a.ids('services')).toContain(v);
    expect(a.ids('customers')).toContain(other);
    await assign(v, { newSecondaryTechnicianId: null });
    await a.pullEverything();
    expect(a.ids('services')).not.toContain(v);
    expect(a.ids('customers')).not.toContain(other);
  });
});
