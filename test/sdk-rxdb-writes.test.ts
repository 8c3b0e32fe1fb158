import { firstValueFrom } from 'rxjs';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPoolClient, PoolClientError, type PoolClient } from '../client-sdk/index.js';
import { ID_RULE } from '../shared/index.js';
import { caller, ok, tokenFor } from './support/api.js';
import { startFaultProxy, type FaultProxy } from './support/fault-proxy.js';
import { useTestServer } from './support/fixture.js';
import { type TestServer } from './support/server.js';
import { pullAll, serverDocument } from './support/sync.js';

/**
 * `client.db` is an RxDB database, and RxDB apps write to it directly. Every such write to a
 * synced collection must sync exactly as the SDK's actions' writes do (outbox, change ids, base,
 * exactly once), be validated the same way, and survive a restart; a write that cannot sync is
 * refused with an error naming what to do instead, never accepted and kept on the device alone.
 */
const COLLECTIONS = ['customers', 'services', 'stockLevels', 'stockMovements'];

describe('writes made the RxDB way sync like the actions', () => {
  let server: TestServer;
  let proxy: FaultProxy;
  let office: string;
  let tech: string;
  let techUser: string;
  let customerId: string;
  let gql: ReturnType<typeof caller>;
  const open: PoolClient[] = [];

  useTestServer('pglite', { organization: 'RxDB Way Pools' }, async (t) => {
    ({ server } = t);
    office = t.token;
    gql = caller(server, office);
    const technician = await tokenFor(server, office, 'TECHNICIAN');
    tech = technician.token;
    techUser = technician.apiToken.userId;
    // The technician's own customer: their phone holds it, and the visits assigned to them.
    customerId = ok(await gql(`mutation($t: ID) { createCustomer(input: {firstName: "Rx", lastName: "Way", service: {technicianId: $t}}) { id } }`, { t: techUser })).createCustomer.id;
  });
  // A network of its own per test: connections a test leaves dead stay dead (as they would), and must not be the next test's.
  beforeEach(async () => {
    proxy = await startFaultProxy(server.url);
  });
  afterEach(async () => {
    while (open.length) await open.pop()!.close();
    await proxy.close();
  });

  async function device(options: Partial<Parameters<typeof createPoolClient>[0]> = {}) {
    const c = await createPoolClient({ baseUrl: proxy.url, token: tech, collections: COLLECTIONS, retryMs: 50, requestTimeoutMs: 2000, name: `rx${Math.random().toString(36).slice(2)}`, ...options });
    open.push(c);
    return c;
  }
  const pending = async (c: PoolClient) => (await firstValueFrom(c.sync.status$)).pendingPushes;
  const visit = (label: string) => ({ id: crypto.randomUUID(), customerId, notes: label, photos: [] });

  it('all ten write methods, made offline and across a restart, reach the server exactly once', async () => {
    const storage = getRxStorageMemory();
    const name = `rx-restart-${Date.now()}`;
    let c = await device({ storage, name });
    c.sync.start();
    await c.sync.awaitInSync();
    // Documents that exist on the server before the device goes offline, to be changed offline.
    const existing = await Promise.all(Array.from({ length: 6 }, (_, i) => c.recordVisit({ customerId, notes: `existing ${i}` })));
    await c.sync.awaitInSync();
    await expect.poll(() => pending(c)).toBe(0);

    // Offline, with sync not even tried (so nothing was ever sent of what follows).
    proxy.setMode('refuse');
    open.splice(open.indexOf(c), 1);
    await c.close();
    c = await device({ storage, name });
    const services = c.db.collections.services!;
    const customers = c.db.collections.customers!;
    const inserted = visit('insert');
    await services.insert(inserted);
    const bulk = [visit('bulkInsert 1'), visit('bulkInsert 2')];
    await services.bulkInsert(bulk);
    const upserted = visit('upsert new');
    await services.upsert(upserted);
    await services.upsert({ ...(await services.findOne(existing[0]!.id).exec())!.toMutableJSON(), notes: 'upsert existing' });
    const bulkUpserted = visit('bulkUpsert new');
    await services.bulkUpsert([bulkUpserted, { ...(await services.findOne(existing[1]!.id).exec())!.toMutableJSON(), notes: 'bulkUpsert existing' }]);
    await (await services.findOne(existing[2]!.id).exec())!.patch({ notes: 'patch' });
    await (await services.findOne(existing[3]!.id).exec())!.incrementalPatch({ notes: 'incrementalPatch' });
    await (await services.findOne(existing[4]!.id).exec())!.modify((d) => ({ ...d, notes: 'modify' }));
    await (await customers.findOne(customerId).exec())!.incrementalModify((d) => ({ ...d, notes: 'incrementalModify' }));
    await (await services.findOne(inserted.id).exec())!.remove();
    await services.bulkRemove([existing[5]!.id]);
    // inserted then removed (never seen by the server: nothing to send), 2 bulk, 2 upserts, 2 bulkUpserts,
    // patch, incrementalPatch, modify, incrementalModify, bulkRemove.
    await expect.poll(() => pending(c)).toBe(11);

    // The app is killed and opened again, still offline: nothing is forgotten.
    open.splice(open.indexOf(c), 1);
    await c.close();
    c = await device({ storage, name });
    await expect.poll(() => pending(c)).toBe(11);
    proxy.setMode('pass');
    c.sync.start();
    await c.sync.awaitInSync({ timeoutMs: 20_000 });
    await expect.poll(() => pending(c)).toBe(0);

    const onServer = async (id: string) => serverDocument(server, office, 'services', id);
    for (const doc of [...bulk, upserted, bulkUpserted]) expect(await onServer(doc.id)).toMatchObject({ notes: doc.notes, customerId, _deleted: false });
    expect(await onServer(inserted.id)).toBeUndefined();
    expect(await onServer(existing[0]!.id)).toMatchObject({ notes: 'upsert existing' });
    expect(await onServer(existing[1]!.id)).toMatchObject({ notes: 'bulkUpsert existing' });
    expect(await onServer(existing[2]!.id)).toMatchObject({ notes: 'patch' });
    expect(await onServer(existing[3]!.id)).toMatchObject({ notes: 'incrementalPatch' });
    expect(await onServer(existing[4]!.id)).toMatchObject({ notes: 'modify' });
    expect(await onServer(existing[5]!.id)).toMatchObject({ _deleted: true });
    expect(await serverDocument(server, office, 'customers', customerId)).toMatchObject({ notes: 'incrementalModify' });
    // Exactly once: each label once among the server's visits.
    const notes = (await pullAll(server, office, 'services')).documents.map((d: { notes: string }) => d.notes);
    for (const label of ['bulkInsert 1', 'bulkInsert 2', 'upsert new', 'bulkUpsert new']) expect(notes.filter((n: string) => n === label)).toHaveLength(1);
    // The server's timestamps came back into the replica.
    const local = (await c.db.collections.services!.findOne(bulk[0]!.id).exec())?.toJSON();
    expect(local?.updatedAt).toBe((await onServer(bulk[0]!.id)).updatedAt);
  });

  it('an invalid write is refused before anything is written, with the same words as an action', async () => {
    const c = await device();
    c.sync.start();
    await c.sync.awaitInSync();
    const services = c.db.collections.services!;
    const bad = { ...visit('bad'), notes: 42 };
    // The app's own types would catch this; a JavaScript app's would not, and the SDK must.
    const insertError = await services.insert(bad as never).catch((e: unknown) => e);
    expect(insertError).toBeInstanceOf(PoolClientError);
    expect((insertError as Error).message).toMatch(/^insert into services: notes/);
    const actionError = await c.recordVisit({ customerId, notes: 42 as never }).catch((e: unknown) => e);
    expect((actionError as Error).message.replace(/^recordVisit/, 'insert into services')).toBe((insertError as Error).message);
    expect(await services.findOne(bad.id).exec()).toBeNull();
    // An id breaking the id rule is refused on the device in the words the server uses.
    const badId = await services.insert({ ...visit('bad id'), id: 'has space' } as never).catch((e: unknown) => e);
    expect((badId as Error).message).toBe(`insert into services: id: ${ID_RULE}`);
    const badReference = await services.insert({ ...visit('bad reference'), customerId: '../x' } as never).catch((e: unknown) => e);
    expect((badReference as Error).message).toBe(`insert into services: customerId: ${ID_RULE}`);

    const good = await c.recordVisit({ customerId, notes: 'kept as it was' });
    const doc = (await services.findOne(good.id).exec())!;
    await expect(doc.incrementalPatch({ notes: 42 as never })).rejects.toThrow(/notes/);
    expect((await services.findOne(good.id).exec())!.notes).toBe('kept as it was');
    await expect.poll(() => pending(c)).toBe(1);
  });

  it('a write that cannot sync is refused and names what to do instead', async () => {
    const c = await device();
    await expect(
      c.db.collections.stockLevels!.insert({ id: crypto.randomUUID(), itemId: 'i', locationId: 'l', quantity: 5, createdAt: new Date().toISOString(), updatedAt: new Date().toISOString() }),
    ).rejects.toThrow(/stockLevels documents cannot be added on a device; levels follow from stock movements: use useStock or transferStock/);
    const movements = c.db.collections.stockMovements!;
    const movement = { id: crypto.randomUUID(), itemId: 'item', locationId: 'loc', toLocationId: null, delta: -1, reason: 'USE' as const, serviceId: null, note: null, createdById: null };
    await movements.insert(movement);
    await expect((await movements.findOne(movement.id).exec())!.incrementalPatch({ delta: -5 })).rejects.toThrow(/stockMovements documents cannot be changed on a device; a movement is never changed/);
    await expect(movements.bulkRemove([movement.id])).rejects.toThrow(/stockMovements documents cannot be deleted/);
    expect((await movements.findOne(movement.id).exec())!.delta).toBe(-1);
    expect(await c.db.collections.stockLevels!.count().exec()).toBe(0);
  });

  it("the SDK's own writes (pulled states, push answers) are not taken for local changes", async () => {
    const c = await device();
    c.sync.start();
    await c.sync.awaitInSync();
    const id = ok(await gql(`mutation($c: ID, $t: ID) { createService(input: {customerId: $c, notes: "from the office", newTechnicianId: $t}) { id } }`, { c: customerId, t: techUser })).createService.id;
    await c.sync.awaitInSync();
    expect(await c.db.collections.services!.findOne(id).exec()).not.toBeNull();
    await c.db.collections.services!.findOne(id).exec().then((d) => d!.incrementalPatch({ notes: 'from the device' }));
    await c.sync.awaitInSync();
    await expect.poll(() => pending(c)).toBe(0);
    expect(await serverDocument(server, office, 'services', id)).toMatchObject({ notes: 'from the device' });
  });
});
