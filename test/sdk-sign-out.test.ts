import { firstValueFrom } from 'rxjs';
import { filter } from 'rxjs/operators';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { normalizeMangoQuery, prepareQuery, type RxCollection, type RxStorage } from 'rxdb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPoolClient, DEFAULT_COLLECTIONS, type PoolClient, type SyncStatus } from '../client-sdk/index.js';
import { collectionByName } from '../client-sdk/replica/database.js';
import { sampleFiles } from './fixtures/files.js';
import { caller, ok } from './support/api.js';
import { startFaultProxy, type FaultProxy } from './support/fault-proxy.js';
import { useTestServer } from './support/fixture.js';
import { phoneTokenFor, redeemCode, signInCodeFor } from './support/phones.js';
import { type TestServer } from './support/server.js';
import { pullAll } from './support/sync.js';

/**
 * A phone signed out by the server (its token revoked, or unused past TOKEN_IDLE_DAYS) deletes what
 * it holds of the company at its next contact, gate codes included, and keeps only its work not yet
 * synced, which reaches the server exactly once when the technician signs in again with a new code.
 * The SDK in Node, the same code path the apps run (client.wipeSyncedData); the technician app's
 * own flow is in test/technician-app.test.ts. The phone's storage is one memory storage kept across
 * both sign-ins, as a phone's IndexedDB is.
 */
const DAY = 86_400_000;
const GATE = 'GATE-4711';

describe('a phone signed out keeps only its unsynced work', () => {
  let server: TestServer;
  let admin: ReturnType<typeof caller>;
  let adminToken: string;
  let proxy: FaultProxy;
  let skew = 0;
  let technicianId: string;
  let truck: string;
  let chlorine: string;
  const visits: string[] = [];
  const open: PoolClient[] = [];

  useTestServer('pglite', { organization: 'Lost Phone Pools', server: { heartbeatMs: 300, clock: () => new Date(Date.now() + skew), http: { rateLimitPerMinute: 0 } } }, async (t) => {
    server = t.server;
    adminToken = t.token;
    admin = caller(server, adminToken);
    technicianId = ok(await admin('mutation { createApiToken(input: {name: "Sam Carter", role: TECHNICIAN}) { apiToken { userId } } }')).createApiToken.apiToken.userId;
    truck = ok(await admin('mutation($t: ID) { createInventoryLocation(input: {name: "Truck 7", technicianId: $t}) { id } }', { t: technicianId })).createInventoryLocation.id;
    chlorine = ok(await admin('mutation($l: ID) { createInventoryItem(input: {name: "Liquid chlorine", category: CHEMICAL, unitPrice: 5, costPrice: 2, unit: "gal", locationId: $l, quantity: 100}) { id } }', { l: truck })).createInventoryItem.id;
    for (let i = 0; i < 3; i++) {
      const customer = ok(
        await admin('mutation($t: ID, $g: String) { createCustomer(input: {firstName: "Gail", lastName: "Gate", pool: {kind: POOL, gateCode: $g}, service: {technicianId: $t}}) { id } }', { t: technicianId, g: `${GATE}-${i}` }),
      ).createCustomer.id;
      visits.push(ok(await admin('mutation($c: ID, $t: ID, $at: DateTime) { createService(input: {customerId: $c, newTechnicianId: $t, startTime: $at}) { id } }', { c: customer, t: technicianId, at: new Date(Date.now() + 3_600_000).toISOString() })).createService.id);
    }
  });
  beforeEach(async () => {
    skew = 0;
    proxy = await startFaultProxy(server.url);
  });
  afterEach(async () => {
    while (open.length) await open.pop()!.close();
    await proxy.close();
  });

  async function phone(token: string, storage: RxStorage<unknown, unknown>, options: { fetch?: typeof fetch } = {}): Promise<PoolClient> {
    const client = await createPoolClient({ baseUrl: proxy.url, token, storage, name: 'phone', retryMs: 50, requestTimeoutMs: 2000, ...options });
    open.push(client);
    return client;
  }
  const statusWhere = (c: PoolClient, when: (s: SyncStatus) => boolean, timeoutMs = 15_000) =>
    Promise.race([
      firstValueFrom(c.sync.status$.pipe(filter(when))),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`status not reached within ${timeoutMs} ms`)), timeoutMs)),
    ]);
  /** Every document the replica's storage holds, tombstones included, by collection. */
  async function stored(c: PoolClient): Promise<Record<string, Record<string, unknown>[]>> {
    const all: Record<string, Record<string, unknown>[]> = {};
    for (const name of DEFAULT_COLLECTIONS) {
      const collection = collectionByName(c.db, name) as RxCollection;
      const schema = collection.schema.jsonSchema;
      all[name] = (await collection.storageInstance.query(prepareQuery(schema, normalizeMangoQuery(schema, { selector: {} })))).documents as Record<string, unknown>[];
    }
    return all;
  }
  const idsOf = (docs: Record<string, Record<string, unknown>[]>) => Object.fromEntries(Object.entries(docs).filter(([, d]) => d.length).map(([name, d]) => [name, d.map((doc) => doc.id).sort()]));
  const serverVisit = async (id: string) =>
    ok(await admin('query($id: ID) { infiniteServices(first: 1, selector: {filters: {id: {eq: $id}}}) { edges { node { notes photos { id url } } } } }', { id })).infiniteServices.edges[0]?.node;
  const truckLevel = async () =>
    ok(await admin('query($id: ID!) { inventoryItem(selector: { id: $id }) { stockLevels { quantity location { id } } } }', { id: chlorine })).inventoryItem.stockLevels.find((l: any) => l.location.id === truck).quantity as number;
  const phoneTokenId = async (name: string) => (ok(await admin('{ apiTokens { id name revokedAt } }')).apiTokens as { id: string; name: string; revokedAt: string | null }[]).filter((t) => t.name === name && !t.revokedAt).map((t) => t.id);

  it('revoked: at its next contact the phone deletes every synced document and keeps its unsynced visit, stock use and photo, which arrive exactly once after a new code', async () => {
    const storage = getRxStorageMemory();
    const first = await phone(await phoneTokenFor(server, adminToken, technicianId, 'Pixel 8'), storage);
    first.sync.start();
    await first.sync.awaitInSync({ timeoutMs: 20_000 });
    expect(await first.db.collections.customers!.count().exec()).toBe(3);
    expect(JSON.stringify(await stored(first))).toContain(GATE);
    const levelBefore = await truckLevel();

    // No signal: the technician records the visit, the chlorine poured and a photo of the gate.
    proxy.setMode('refuse');
    const visitId = visits[0]!;
    await first.updateVisit(visitId, { notes: 'Gate left open by the gardener' });
    const movement = await first.useStock(chlorine, truck, 3, visitId);
    const photoId = await first.addVisitPhoto(visitId, sampleFiles.jpeg(), 'The gate');
    // Signal comes and goes: everything reaches the server, whose answers are lost on the way back.
    proxy.setMode('cut-responses');
    await expect.poll(async () => (await serverVisit(visitId))?.photos.some((p: { id: string; url: string | null }) => p.id === photoId && p.url), { timeout: 20_000 }).toBe(true);
    await expect.poll(truckLevel, { timeout: 20_000 }).toBe(levelBefore - 3);
    proxy.setMode('refuse');
    // Meanwhile the office revokes the phone (it was lost in a customer's yard, say).
    for (const id of await phoneTokenId("Sam Carter's phone (Pixel 8)")) ok(await admin('mutation($id: ID!) { revokeApiToken(id: $id) { id } }', { id }));
    proxy.setMode('pass');

    const status = await statusWhere(first, (s) => s.state === 'signed-out');
    expect(status).toMatchObject({ errorKind: 'signed-out', signedOutReason: 'revoked' });
    const wiped = await first.wipeSyncedData();
    expect(wiped).toMatchObject({ kept: 2, pendingChanges: 2, photos: 1 });
    expect(wiped.deleted).toBeGreaterThan(8);
    // Nothing of the company is left, tombstones included: only the visit and the movement waiting for the server.
    const left = await stored(first);
    expect(idsOf(left)).toEqual({ services: [visitId], stockMovements: [movement.id] });
    expect(JSON.stringify(left)).not.toContain(GATE);
    expect(await first.db.collections.customers!.count().exec()).toBe(0);
    expect(await first.db.collections.photoUploads.count().exec()).toBe(1);
    expect((await firstValueFrom(first.sync.status$)).pendingPushes).toBe(2);
    await first.close();
    open.splice(open.indexOf(first), 1);

    // A new code from the office: the same phone (its storage) signs in again, pushes what it kept, and pulls its route anew.
    const again = await phone(await phoneTokenFor(server, adminToken, technicianId, 'Pixel 8'), storage);
    again.sync.start();
    await again.sync.awaitInSync({ timeoutMs: 20_000 });
    expect(await truckLevel()).toBe(levelBefore - 3);
    const movements = ok(await admin('query($id: ID!) { stockMovements(itemId: $id) { id } }', { id: chlorine })).stockMovements.filter((m: { id: string }) => m.id === movement.id);
    expect(movements).toHaveLength(1);
    const onServer = await serverVisit(visitId);
    expect(onServer.notes).toBe('Gate left open by the gardener');
    expect(onServer.photos.filter((p: { id: string }) => p.id === photoId)).toHaveLength(1);
    expect(await again.db.collections.customers!.count().exec()).toBe(3);
    expect(JSON.stringify(await stored(again))).toContain(GATE);
    expect(await again.db.collections.photoUploads.count().exec()).toBe(0);
  });

  it('expired: unused past TOKEN_IDLE_DAYS, the phone keeps a visit recorded since and the visit a waiting photo belongs to, and the visit arrives once', async () => {
    const storage = getRxStorageMemory();
    let uploadsFail = false;
    // Photo uploads find no network; everything else goes through.
    const uploadsOffline: typeof fetch = (input, init) => (uploadsFail && String(input).endsWith('/photos') ? Promise.reject(new TypeError('fetch failed')) : fetch(input, init));
    const first = await phone(await phoneTokenFor(server, adminToken, technicianId), storage, { fetch: uploadsOffline });
    first.sync.start();
    await first.sync.awaitInSync({ timeoutMs: 20_000 });
    uploadsFail = true;
    const photoVisit = visits[1]!;
    const photoId = await first.addVisitPhoto(photoVisit, sampleFiles.jpeg(), 'Pump');
    await statusWhere(first, (s) => s.pendingPushes === 0 && s.pendingPhotoUploads === 1);

    // Five weeks later (a phone in a drawer): the next change meets a token gone stale.
    skew = 35 * DAY;
    const recorded = await first.recordVisit({ customerId: (await first.db.collections.customers!.find().exec())[0]!.id, notes: 'Recorded after the holidays' });
    const status = await statusWhere(first, (s) => s.state === 'signed-out');
    expect(status.signedOutReason).toBe('expired');
    const wiped = await first.wipeSyncedData();
    expect(wiped).toMatchObject({ kept: 2, pendingChanges: 1, photos: 1 });
    expect(idsOf(await stored(first))).toEqual({ services: [photoVisit, recorded.id].sort() });
    await first.close();
    open.splice(open.indexOf(first), 1);

    uploadsFail = false;
    const { code } = await signInCodeFor(server, adminToken, technicianId);
    const token = (await redeemCode(server, { code, deviceName: 'Pixel 8' })).body.token as string;
    const again = await phone(token, storage);
    again.sync.start();
    await again.sync.awaitInSync({ timeoutMs: 20_000 });
    const { documents } = await pullAll(server, adminToken, 'services');
    expect(documents.filter((d) => d.notes === 'Recorded after the holidays').map((d) => d.id)).toEqual([recorded.id]);
    expect((await serverVisit(photoVisit)).photos.find((p: { id: string }) => p.id === photoId)?.url).toBeTruthy();
    expect(await again.db.collections.customers!.count().exec()).toBe(3);
  });
});
