import { firstValueFrom } from 'rxjs';
import { filter } from 'rxjs/operators';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPoolClient, type PoolClient } from '../client-sdk/index.js';
import { caller, ok, tokenFor } from './support/api.js';
import { engines } from './support/engines.js';
import { useTestServer } from './support/fixture.js';
import { startFaultProxy, type FaultProxy } from './support/fault-proxy.js';
import { type TestServer } from './support/server.js';
import { streamValve } from './support/stream-valve.js';
import { serverDocument } from './support/sync.js';

/**
 * The SDK on a bad network: what RxDB's replication got wrong, and what made devices
 * hang. The server heartbeats every 200 ms, so a silent stream is found dead within half a second;
 * every request has a one-second deadline.
 */
describe.each(engines)('client SDK under faults, server on %s', (engine) => {
  let server: TestServer;
  let proxy: FaultProxy;
  let office: string;
  let tech: string;
  let techUser: string;
  let gql: ReturnType<typeof caller>;
  let customerId: string;
  const open: PoolClient[] = [];

  useTestServer(engine, { organization: 'Faulty Pools', server: { heartbeatMs: 200 } }, async (t) => {
    ({ server } = t);
    office = t.token;
    gql = caller(server, office);
    const technician = await tokenFor(server, office, 'TECHNICIAN');
    tech = technician.token;
    techUser = technician.apiToken.userId;
    // The technician's own customer: their phone holds it, and the visits assigned to them.
    customerId = ok(await gql(`mutation($t: ID) { createCustomer(input: {firstName: "Net", lastName: "Work", service: {technicianId: $t}}) { id } }`, { t: techUser })).createCustomer.id;
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
    const c = await createPoolClient({ baseUrl: proxy.url, token: tech, collections: ['customers', 'services'], retryMs: 50, requestTimeoutMs: 1000, name: `d${Math.random().toString(36).slice(2)}`, ...options });
    open.push(c);
    return c;
  }
  const officeVisit = async (notes: string) =>
    ok(await gql(`mutation($c: ID, $t: ID) { createService(input: {customerId: $c, notes: "${notes}", newTechnicianId: $t}) { id } }`, { c: customerId, t: techUser })).createService.id as string;
  const holds = (c: PoolClient, id: string) => firstValueFrom(c.db.collections.services!.findOne(id).$.pipe(filter((d) => d !== null)));
  const status = (c: PoolClient, when: (s: Awaited<ReturnType<typeof firstValueFrom<any>>>) => boolean) => firstValueFrom(c.sync.status$.pipe(filter(when)));

  it('a live batch that does not follow on from the checkpoint is pulled, so a lost one is never skipped', async () => {
    // Drops the first batch of visits the stream carries, as a lost event would be.
    let dropped = 0;
    const valve = streamValve((block) => (!dropped && block.includes('"collection":"services"') ? (dropped++, 'drop') : 'pass'));
    const c = await device({ fetch: valve.fetch });
    c.sync.start();
    await c.sync.awaitInSync();
    const lost = await officeVisit('its batch is lost');
    await expect.poll(() => dropped).toBe(1);
    const next = await officeVisit('its batch arrives');
    await holds(c, next);
    expect(await c.db.collections.services!.findOne(lost).exec()).not.toBeNull();
  });

  it('a live batch read before a push was answered does not take the document back when it arrives after', async () => {
    // While closed, the valve holds data events (heartbeats pass, so the stream stays alive).
    let closed = false;
    const valve = streamValve((block) => (closed && block.startsWith('data:') ? 'hold' : 'pass'));
    const c = await device({ fetch: valve.fetch });
    c.sync.start();
    const id = await officeVisit('before');
    await c.sync.awaitInSync();
    await holds(c, id);
    closed = true;
    ok(await gql(`mutation($id: ID!) { updateService(id: $id, input: {notes: "office wrote this"}) { id } }`, { id }));
    await c.updateVisit(id, { waterLevel: 'HIGH' });
    // The push is answered with the merge of both writes.
    await firstValueFrom(c.db.collections.services!.findOne(id).$.pipe(filter((d) => d?.get('notes') === 'office wrote this')));
    await status(c, (s) => s.pendingPushes === 0);
    expect((await c.db.collections.services!.findOne(id).exec())!.get('waterLevel')).toBe('HIGH');
    // Now the office's batch, read before the push, arrives.
    expect(valve.held.length).toBeGreaterThan(0);
    valve.release(1);
    await expect.poll(async () => (await c.db.collections.services!.findOne(id).exec())!.toJSON()).toMatchObject({ notes: 'office wrote this', waterLevel: 'HIGH' });
    closed = false;
    valve.release();
  });

  it('an edit undone on the device while the server moved on still ends with the server’s version', async () => {
    let pushesFail = false;
    const failingPushes: typeof fetch = (input, init) =>
      pushesFail && String(input).includes('/push') ? Promise.reject(new TypeError('push refused by the test')) : fetch(input, init);
    const c = await device({ fetch: failingPushes });
    c.sync.start();
    const id = await officeVisit('as scheduled');
    await c.sync.awaitInSync();
    await holds(c, id);
    pushesFail = true;
    await c.updateVisit(id, { waterLevel: 'HIGH' });
    // The office's change arrives while the device's edit waits: it is passed over (local changes
    // win until pushed), and the checkpoint moves on.
    ok(await gql(`mutation($id: ID!) { updateService(id: $id, input: {notes: "changed by the office"}) { id } }`, { id }));
    await new Promise((r) => setTimeout(r, 500));
    expect((await c.db.collections.services!.findOne(id).exec())!.get('notes')).toBe('as scheduled');
    await c.updateVisit(id, { waterLevel: null }); // undone: the document equals its base again
    pushesFail = false;
    await c.sync.awaitInSync({ timeoutMs: 10_000 });
    expect((await c.db.collections.services!.findOne(id).exec())!.toJSON()).toMatchObject({ notes: 'changed by the office', waterLevel: null });
  });

  it('a black hole: the device knows it is offline at once, does not hang, and catches up when the network heals', async () => {
    const c = await device();
    c.sync.start();
    await c.sync.awaitInSync();
    proxy.setMode('black-hole');
    const offline = await status(c, (s) => !s.online);
    expect(offline.online).toBe(false);
    const visit = await c.recordVisit({ customerId, notes: 'Recorded in the dead zone' });
    const fromOffice = await officeVisit('written while the device was in the dead zone');
    await new Promise((r) => setTimeout(r, 1500)); // requests sent into the black hole time out
    expect(await serverDocument(server, office, 'services', visit.id)).toBeUndefined();
    proxy.setMode('pass');
    const started = Date.now();
    await c.sync.awaitInSync({ timeoutMs: 10_000 });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await serverDocument(server, office, 'services', visit.id)).toMatchObject({ notes: 'Recorded in the dead zone' });
    await holds(c, fromOffice);
    expect(await status(c, (s) => s.online)).toMatchObject({ online: true, pendingPushes: 0 });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('close() returns at once while a request hangs', async () => {
    const c = await device({ requestTimeoutMs: 60_000 });
    c.sync.start();
    await c.sync.awaitInSync();
    proxy.setMode('stall');
    await c.recordVisit({ customerId, notes: 'pushed into a stalled connection' });
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    open.splice(open.indexOf(c), 1);
    await c.close();
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('an edit made while a push hangs after the server committed is not logged as a conflict with itself', async () => {
    const c = await device();
    c.sync.start();
    await c.sync.awaitInSync();
    proxy.setMode('stall');
    const visit = await c.recordVisit({ customerId, notes: 'first words', waterLevel: 'LOW' });
    // The push reached the server (on a new connection, once the one that died in the switch
    // was given up); its answer is held.
    await expect.poll(() => serverDocument(server, office, 'services', visit.id), { timeout: 5000 }).toMatchObject({ notes: 'first words' });
    await c.updateVisit(visit.id, { notes: 'second words', waterLevel: 'HIGH' });
    await new Promise((r) => setTimeout(r, 1200)); // the held push times out
    proxy.setMode('pass');
    await c.sync.awaitInSync({ timeoutMs: 10_000 });
    expect(await serverDocument(server, office, 'services', visit.id)).toMatchObject({ notes: 'second words', waterLevel: 'HIGH' });
    const log = ok(await gql(`query($id: ID) { syncConflicts(filter: {documentId: $id}) { edges { node { field } } } }`, { id: visit.id })).syncConflicts.edges;
    expect(log).toEqual([]);
  });

  it('documents a device may not change are refused locally, before anything is written', async () => {
    const c = await device({ collections: ['customers', 'services', 'stockLevels', 'stockMovements'] });
    for (const [call, pattern] of [
      [() => c.patch('stockLevels', 'any', { quantity: 5 }), /stockLevels documents cannot be changed/],
      [() => c.remove('stockMovements', 'any'), /stockMovements documents cannot be deleted/],
      [() => c.patch('services', 'no-such-visit', { notes: 'x' }), /services no-such-visit is not in the local replica/],
      // A JavaScript app's typo, which TypeScript would have caught.
      [() => c.patch('nothing' as 'services', 'x', {}), /nothing documents cannot be changed/],
    ] as const) {
      await expect(call()).rejects.toThrow(pattern);
    }
    expect((await firstValueFrom(c.sync.status$)).pendingPushes).toBe(0);
  });

  it('pending changes are counted from the replica, also right after a restart', async () => {
    const storage = getRxStorageMemory();
    const name = `restart-${Date.now()}`;
    const first = await device({ storage, name });
    first.sync.start();
    await first.sync.awaitInSync();
    proxy.setMode('refuse');
    await status(first, (s) => !s.online);
    for (let i = 0; i < 3; i++) await first.recordVisit({ customerId, notes: `offline ${i}` });
    expect((await firstValueFrom(first.sync.status$)).pendingPushes).toBe(3);
    open.splice(open.indexOf(first), 1);
    await first.close();
    const again = await device({ storage, name });
    expect((await status(again, (s) => s.pendingPushes > 0)).pendingPushes).toBe(3);
    proxy.setMode('pass');
    again.sync.start();
    await again.sync.awaitInSync();
    expect((await firstValueFrom(again.sync.status$)).pendingPushes).toBe(0);
  });

  it('awaitInSync() resolves only after pulling what the server had when it was called, stream or not', async () => {
    const noStream: typeof fetch = (input, init) =>
      String(input).includes('/sync/stream') ? new Promise((_, reject) => init?.signal?.addEventListener('abort', () => reject(new Error('aborted')))) : fetch(input, init);
    const c = await device({ fetch: noStream });
    c.sync.start();
    await c.sync.awaitInSync();
    const id = await officeVisit('written just before asking');
    await c.sync.awaitInSync();
    expect(await c.db.collections.services!.findOne(id).exec()).not.toBeNull();
    expect((await firstValueFrom(c.sync.status$)).online).toBe(false);
  });
});
