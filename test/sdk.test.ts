import { withoutReplicaKeys } from '../shared/index.js';
import { firstValueFrom } from 'rxjs';
import { filter } from 'rxjs/operators';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPoolClient, PoolClientError, type PoolClient } from '../client-sdk/index.js';
import { sampleFiles } from './fixtures/files.js';
import { caller, ok, tokenFor } from './support/api.js';
import { startFaultProxy, type FaultProxy } from './support/fault-proxy.js';
import { useTestServer } from './support/fixture.js';
import { type TestServer } from './support/server.js';
import { pullAll } from './support/sync.js';

/**
 * The client SDK against a real running server, through a proxy that fails like a field network
 * (a network change leaves connections dead without a word, so the server heartbeats every
 * 500 ms here and a dead stream is found within 1.25 s). Several clients live in this one
 * process, so each opens only the collections it needs (RxDB's open-source edition allows 13 per
 * process).
 */
const DEVICE = ['services', 'customers', 'stockMovements', 'inventoryItems', 'inventoryLocations', 'stockLevels'];

describe('client SDK', () => {
  let server: TestServer;
  let proxy: FaultProxy;
  let office: string;
  let orgId: string;
  let tech: string;
  let techUser: string;
  let gql: ReturnType<typeof caller>;
  let customerId: string;
  let locationId: string;
  let itemId: string;
  const open: PoolClient[] = [];

  useTestServer('pglite', { organization: 'SDK Pools', server: { heartbeatMs: 500 } }, async (t) => {
    ({ server } = t);
    office = t.token;
    orgId = t.org.id;
    gql = caller(server, office);
    const technician = await tokenFor(server, office, 'TECHNICIAN');
    tech = technician.token;
    techUser = technician.apiToken.userId;
    // The technician's customer and truck: what their phone holds (shared/sync/scopes.ts).
    customerId = ok(await gql(`mutation($t: ID) { createCustomer(input: {firstName: "Dee", lastName: "Vice", service: {technicianId: $t}}) { id } }`, { t: techUser })).createCustomer.id;
    locationId = ok(await gql(`mutation($t: ID) { createInventoryLocation(input: {name: "Truck 1", technicianId: $t}) { id } }`, { t: techUser })).createInventoryLocation.id;
    itemId = ok(await gql(`mutation($l: ID) { createInventoryItem(input: {name: "Chlorine", category: CHEMICAL, unitPrice: 5, locationId: $l, quantity: 100}) { id } }`, { l: locationId })).createInventoryItem.id;
  });
  // A network of its own per test: connections a test leaves dead stay dead (as they would), and must not be the next test's.
  beforeEach(async () => {
    proxy = await startFaultProxy(server.url);
  });
  afterEach(async () => {
    while (open.length) await open.pop()!.close();
    await proxy.close();
  });

  async function client(options: Partial<Parameters<typeof createPoolClient>[0]> = {}) {
    const c = await createPoolClient({ baseUrl: proxy.url, token: tech, collections: DEVICE, retryMs: 100, name: `c${Math.random().toString(36).slice(2)}`, ...options });
    open.push(c);
    return c;
  }
  const close = async (c: PoolClient) => {
    open.splice(open.indexOf(c), 1);
    await c.close();
  };
  const itemQuantity = async () => ok(await gql(`query($id: ID!) { inventoryItem(selector: {id: $id}) { quantity } }`, { id: itemId })).inventoryItem.quantity as number;
  const serverVisits = async () => (await pullAll(server, office, 'services')).documents.filter((d: any) => !d._deleted);
  const photoObjects = async () => {
    const keys: string[] = [];
    for (const v of await serverVisits()) for (const p of v.photos) if (p.size != null) keys.push(p.id);
    return keys;
  };

  it('offline for a day: 50 visits, 20 stock uses and 10 photos survive a restart and arrive exactly once', async () => {
    const storage = getRxStorageMemory();
    const name = 'technician-phone';
    const before = { visits: (await serverVisits()).length, quantity: await itemQuantity() };
    const first = await client({ storage, name });
    first.sync.start();
    await first.sync.awaitInSync();
    expect(await first.db.collections.inventoryItems!.findOne(itemId).exec()).not.toBeNull();

    proxy.setMode('refuse');
    await firstValueFrom(first.sync.status$.pipe(filter((s) => !s.online)));
    const visits: { id: string }[] = [];
    for (let i = 0; i < 50; i++) {
      visits.push(await first.recordVisit({ customerId, notes: `visit ${i}`, readings: { freeChlorine: 1 + i / 10, ph: 7.2, totalAlkalinity: 90 + i } }));
    }
    for (let i = 0; i < 20; i++) await first.useStock(itemId, locationId, 1, visits[i]!.id);
    const photos = new Map<string, Buffer>();
    for (let i = 0; i < 10; i++) {
      const bytes = sampleFiles.jpeg(3000 + i);
      photos.set(await first.addVisitPhoto(visits[i]!.id, bytes, `photo ${i}`), bytes);
    }
    const offline = await firstValueFrom(first.sync.status$);
    expect(offline).toMatchObject({ online: false, pendingPhotoUploads: 10 });
    expect(offline.pendingPushes).toBeGreaterThanOrEqual(70);
    await close(first); // the app is killed

    const again = await client({ storage, name });
    expect(await again.db.collections.services!.count().exec()).toBeGreaterThanOrEqual(50);
    proxy.setMode('pass');
    again.sync.start();
    await again.sync.awaitInSync();

    // In sync means pushed and acknowledged: every visit is on the server.
    const mine = (await serverVisits()).filter((v: any) => visits.some((x) => x.id === v.id));
    expect(mine).toHaveLength(50);
    expect((await serverVisits()).length).toBe(before.visits + 50);
    expect(mine.find((v: any) => v.id === visits[7]!.id).chemicalReadings).toMatchObject({ freeChlorine: 1.7, ph: 7.2, totalAlkalinity: 97 });
    expect(await itemQuantity()).toBe(before.quantity - 20);
    expect((await photoObjects()).sort()).toEqual([...photos.keys()].sort());
    for (const [id, bytes] of photos) {
      const visit = mine.find((v: any) => v.photos.some((p: any) => p.id === id));
      const blob = await server.blobs.get(`org/${orgId}/services/${visit.id}/photos/${id}`);
      const chunks: Buffer[] = [];
      for await (const c of blob!.body) chunks.push(Buffer.from(c));
      expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
    }
    expect(await again.db.collections.photoUploads!.count().exec()).toBe(0);
    expect(await firstValueFrom(again.sync.status$)).toMatchObject({ online: true, pendingPushes: 0, pendingPhotoUploads: 0, lastError: null });
  });

  it('a visit moved to another technician while this phone worked on it offline: its changes and photo reach the server, then it leaves, and the app is told', async () => {
    const other = await tokenFor(server, office, 'TECHNICIAN');
    const visitId = ok(await gql(`mutation($c: ID, $t: ID) { createService(input: {customerId: $c, notes: "to move", newTechnicianId: $t}) { id } }`, { c: customerId, t: techUser })).createService.id as string;
    const device = await client();
    const departures: unknown[] = [];
    device.departures$.subscribe((d) => departures.push(d));
    device.sync.start();
    await device.sync.awaitInSync();
    expect(await device.db.collections.services!.findOne(visitId).exec()).not.toBeNull();

    // Offline: readings and a photo; meanwhile the office gives the visit to someone else.
    proxy.setMode('refuse');
    await firstValueFrom(device.sync.status$.pipe(filter((s) => !s.online)));
    await device.updateVisit(visitId, { notes: 'done before it moved', readings: { ph: 7.4 } });
    const photo = sampleFiles.jpeg(4000);
    const photoId = await device.addVisitPhoto(visitId, new Blob([new Uint8Array(photo)], { type: 'image/jpeg' }), 'Filter');
    ok(await gql(`mutation($id: ID!, $t: ID) { updateService(id: $id, input: {newTechnicianId: $t}) { id } }`, { id: visitId, t: other.apiToken.userId }));

    proxy.setMode('pass');
    await device.sync.awaitInSync();
    await expect.poll(async () => device.db.collections.services!.findOne(visitId).exec()).toBeNull();
    const stored = (await serverVisits()).find((v: any) => v.id === visitId);
    expect(stored).toMatchObject({ notes: 'done before it moved', newTechnicianId: other.apiToken.userId, chemicalReadings: expect.objectContaining({ ph: 7.4 }) });
    expect(stored.photos.find((p: any) => p.id === photoId)).toMatchObject({ size: photo.length });
    expect(departures).toEqual([{ collection: 'services', id: visitId, changesDelivered: true, held: expect.objectContaining({ id: visitId, notes: 'done before it moved' }) }]);
    expect(await firstValueFrom(device.sync.status$)).toMatchObject({ pendingPushes: 0, pendingPhotoUploads: 0 });
  });

  it('faults at each step (refused, answer lost after commit, upload cut mid-body) lose nothing and double nothing', async () => {
    // A push or upload sent on a connection that died in a switch hangs until its deadline:
    // nothing gets an answer in these modes to show the network is back. Short deadlines keep
    // the test short.
    const device = await client({ requestTimeoutMs: 2000, uploadStallMs: 2000 });
    device.sync.start();
    await device.sync.awaitInSync();
    const before = { visits: (await serverVisits()).length, quantity: await itemQuantity(), photos: (await photoObjects()).length };

    proxy.setMode('cut-responses');
    const made: { id: string }[] = [];
    for (let i = 0; i < 5; i++) made.push(await device.recordVisit({ customerId, notes: `lossy ${i}` }));
    for (let i = 0; i < 3; i++) await device.useStock(itemId, locationId, 1, made[i]!.id);
    // The pushes reach the server (their answers are lost on the way back).
    await expect.poll(async () => (await serverVisits()).length, { timeout: 10_000 }).toBe(before.visits + 5);
    await expect.poll(itemQuantity, { timeout: 10_000 }).toBe(before.quantity - 3);
    proxy.setMode('cut-uploads');
    await device.addVisitPhoto(made[0]!.id, sampleFiles.png(40_000), 'cut upload');
    await new Promise((r) => setTimeout(r, 1000));
    proxy.setMode('pass');
    await device.sync.awaitInSync();

    expect((await serverVisits()).length).toBe(before.visits + 5);
    expect(await itemQuantity()).toBe(before.quantity - 3);
    expect((await photoObjects()).length).toBe(before.photos + 1);
    const visit = (await serverVisits()).find((v: any) => v.id === made[0]!.id);
    expect(visit.photos).toHaveLength(1);
  });

  it('two devices and the office: both edits merge, both stock uses count, the clash is logged, all replicas equal the server', async () => {
    // A visit of two technicians: A leads, B assists; both phones hold it.
    const second = await tokenFor(server, office, 'TECHNICIAN');
    const visitId = ok(
      await gql(`mutation($c: ID, $a: ID, $b: ID) { createService(input: {customerId: $c, notes: "scheduled", newTechnicianId: $a, newSecondaryTechnicianId: $b}) { id } }`, { c: customerId, a: techUser, b: second.apiToken.userId }),
    ).createService.id;
    const quantity = await itemQuantity();
    const few = ['services', 'stockMovements', 'inventoryItems']; // 3 + 2 local each, 13 in all with the office's
    const a = await client({ collections: few });
    const proxyB = await startFaultProxy(server.url);
    const b = await client({ collections: few, baseUrl: proxyB.url, token: second.token });
    const officeClient = await client({ collections: ['services'], baseUrl: server.url, token: office });
    try {
      for (const c of [a, b, officeClient]) c.sync.start();
      await Promise.all([a, b, officeClient].map((c) => c.sync.awaitInSync()));
      proxy.setMode('refuse');
      proxyB.setMode('refuse');
      await a.updateVisit(visitId, { notes: 'A: cleaned filter', waterLevel: 'LOW' });
      await b.updateVisit(visitId, { notes: 'B: shocked pool', waterColor: 'GREEN' });
      await a.useStock(itemId, locationId, 2, visitId);
      await b.useStock(itemId, locationId, 2, visitId);
      const merged: unknown[] = [];
      b.conflicts$.subscribe((c) => merged.push(c));
      proxy.setMode('pass');
      await a.sync.awaitInSync();
      proxyB.setMode('pass');
      await b.sync.awaitInSync();
      await Promise.all([a, b, officeClient].map((c) => c.sync.awaitInSync()));

      const server_ = (await serverVisits()).find((v: any) => v.id === visitId);
      expect(server_).toMatchObject({ waterLevel: 'LOW', waterColor: 'GREEN', notes: 'B: shocked pool' });
      for (const c of [a, b, officeClient]) {
        const { _deleted, ...expected } = server_;
        // b's merge reaches a and the office by their live streams.
        await expect.poll(async () => withoutReplicaKeys('services', (await c.db.collections.services!.findOne(visitId).exec())!.toJSON())).toEqual(expected);
      }
      expect(await itemQuantity()).toBe(quantity - 4);
      const log = ok(await gql(`query($id: ID) { syncConflicts(filter: {documentId: $id}) { edges { node { field keptValue lostValue } } } }`, { id: visitId })).syncConflicts.edges.map((e: any) => e.node);
      expect(log).toEqual([{ field: 'notes', keptValue: 'B: shocked pool', lostValue: 'A: cleaned filter' }]);
      // Only the merged visit is reported; the stock use came back as stored (with its server
      // timestamps), which is not a merge.
      expect([...new Set(merged.map((m: any) => `${m.collection}/${m.id}`))]).toEqual([`services/${visitId}`]);
    } finally {
      await proxyB.close();
    }
  });

  it('the office sees a device’s visit arrive through the live stream, without polling', async () => {
    let pulls = 0;
    const counting: typeof fetch = (input, init) => {
      if (String(input).includes('/pull')) pulls++;
      return fetch(input, init);
    };
    const device = await client({ collections: ['services'] });
    const officeClient = await client({ collections: ['services'], baseUrl: server.url, token: office, fetch: counting });
    device.sync.start();
    officeClient.sync.start();
    await Promise.all([device.sync.awaitInSync(), officeClient.sync.awaitInSync()]);
    const pullsBefore = pulls;
    const visit = await device.recordVisit({ customerId, notes: 'live to the office' });
    const started = Date.now();
    const seen = await firstValueFrom(officeClient.db.collections.services!.findOne(visit.id).$.pipe(filter((d) => d !== null)));
    expect(seen!.toJSON()).toMatchObject({ notes: 'live to the office' });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(pulls).toBe(pullsBefore);
  });

  it('a device does not pull its own pushed visits back, yet pulls what others wrote meanwhile', async () => {
    const pulled: string[] = [];
    // No live stream, which would bring the same batches (and move the checkpoint) first: pulls
    // are how a device catches up whenever its stream is down.
    const recording: typeof fetch = async (input, init) => {
      if (String(input).includes('/sync/stream')) throw new TypeError('no live stream in this test');
      const res = await fetch(input, init);
      if (String(input).includes('/services/pull')) pulled.push(...((await res.clone().json()) as { documents: { id: string }[] }).documents.map((d) => d.id));
      return res;
    };
    const device = await client({ collections: ['services'], fetch: recording });
    device.sync.start();
    await device.sync.awaitInSync();
    await device.sync.stop();
    const mine: string[] = [];
    for (let i = 0; i < 20; i++) mine.push((await device.recordVisit({ customerId, notes: `own ${i}` })).id);
    await device.updateVisit(mine[0]!, { notes: 'own 0, edited' });
    pulled.length = 0;
    device.sync.start();
    await device.sync.awaitInSync();
    expect(pulled.filter((id) => mine.includes(id))).toEqual([]);
    // The replica holds each visit as the server stored it (timestamps and all).
    const stored = new Map((await serverVisits()).map((v: any) => [v.id, v]));
    for (const id of mine) {
      const { _deleted, ...expected } = stored.get(id) as Record<string, unknown>;
      expect(withoutReplicaKeys('services', (await device.db.collections.services!.findOne(id).exec())!.toJSON())).toEqual(expected);
    }

    // The office schedules a visit while the device is offline: the shortcut is not taken, and the
    // pull after the push brings the office's visit.
    await device.sync.stop();
    const scheduled = ok(await gql(`mutation($c: ID, $t: ID) { createService(input: {customerId: $c, notes: "scheduled meanwhile", newTechnicianId: $t}) { id } }`, { c: customerId, t: techUser })).createService.id;
    await device.recordVisit({ customerId, notes: 'after the office' });
    pulled.length = 0;
    device.sync.start();
    await device.sync.awaitInSync();
    expect(pulled).toContain(scheduled);
    expect(await device.db.collections.services!.findOne(scheduled).exec()).not.toBeNull();
  });

  it('bad input to an action is rejected locally, before anything is written', async () => {
    const device = await client();
    device.sync.start();
    await device.sync.awaitInSync();
    const count = async () => [await device.db.collections.services!.count().exec(), await device.db.collections.stockMovements!.count().exec()];
    const before = await count();
    const rejects = async (p: Promise<unknown>, pattern: RegExp) => {
      const error = await p.then(() => null, (e: unknown) => e);
      expect(error).toBeInstanceOf(PoolClientError);
      expect((error as Error).message).toMatch(pattern);
    };
    await rejects(device.useStock('no-such-item', locationId, 1), /Inventory item no-such-item/);
    await rejects(device.useStock(itemId, locationId, -3), /whole number greater than 0/);
    await rejects(device.useStock(itemId, locationId, 1.5), /whole number greater than 0/);
    await rejects(device.transferStock(itemId, locationId, locationId, 1), /must differ/);
    await rejects(device.recordVisit({ customerId, readings: { ph: 'high' as never } }), /chemicalReadings\.ph/);
    await rejects(device.recordVisit({ customerId, readings: { acidity: 3 } as never }), /unknown readings acidity/);
    await rejects(device.recordVisit({ customerId: 'nobody' }), /Customer nobody/);
    await rejects(device.addVisitPhoto('no-visit', sampleFiles.jpeg()), /Visit no-visit/);
    expect(await count()).toEqual(before);
  });
});
