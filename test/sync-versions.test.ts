import { createRxDatabase, type RxCollection, type RxStorage } from 'rxdb';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { firstValueFrom, filter as rxFilter } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPoolClient, type PoolClient } from '../client-sdk/index.js';
import { replicateCollection } from '../client-sdk/replication/replicate.js';
import { LiveStream } from '../client-sdk/replication/stream.js';
import { PROTOCOL_VERSION_HEADER, rxSchemaOf, serviceResource, SYNC_PROTOCOL_VERSION } from '../shared/index.js';
import { caller, ok, tokenFor } from './support/api.js';
import { useTestServer } from './support/fixture.js';
import { startTestServer, type TestServer } from './support/server.js';
import { pushChanges, serverDocument } from './support/sync.js';

/**
 * The sync protocol's versions (shared/sync/protocol-version.ts) against one store served twice:
 * as it ships (floor 0: every client, those that name no version included) and upgraded with its
 * floor at 1. A client from before versions (no header: today's installed apps, a stock RxDB
 * replication) syncs with the first; the second refuses it with 426 before anything is written,
 * its changes stay on the device, and the updated app pushes them, each exactly once.
 */
describe('sync protocol versions', () => {
  let server: TestServer;
  let upgraded: TestServer;
  let office: string;
  let tech: string;
  let customerId: string;
  const open: PoolClient[] = [];

  useTestServer('pglite', { organization: 'Versioned Pools' }, async (t) => {
    ({ server } = t);
    office = t.token;
    tech = (await tokenFor(server, office, 'TECHNICIAN')).token;
    customerId = ok(await caller(server, office)('mutation { createCustomer(input: {firstName: "Old", lastName: "Phone"}) { id } }')).createCustomer.id;
    // A visit of the technician's at the customer, so the customer is on the technician's phones.
    await pushChanges(server, tech, 'services', [{ newDocumentState: { id: 'scope-visit', customerId, photos: [] } }]);
  });
  beforeAll(async () => {
    // The same store, as the upgraded server serves it: only version 1 and up.
    upgraded = await startTestServer(server.db, { minProtocolVersion: 1 });
  });
  afterAll(async () => {
    while (open.length) await open.pop()!.close();
    await upgraded?.close();
  });

  /** A push as a client of `version` sends it (0: no header, as before versions). */
  async function push(target: TestServer, rows: unknown[], version: number | string | null) {
    const headers: Record<string, string> = { authorization: `Bearer ${tech}`, 'content-type': 'application/json' };
    if (version !== null) headers[PROTOCOL_VERSION_HEADER] = String(version);
    const res = await fetch(`${target.url}/sync/services/push`, { method: 'POST', headers, body: JSON.stringify(rows) });
    return { status: res.status, upgrade: res.headers.get('upgrade'), body: (await res.json()) as any };
  }
  const visit = (id: string, notes: string) => ({ id, customerId, notes, photos: [] });
  const notesOnServer = async (id: string) => (await serverDocument(server, office, 'services', id))?.notes ?? null;

  it('serves a client that names no version, and one that names the current version, while the floor allows them', async () => {
    expect(await push(server, [{ newDocumentState: visit('v0-visit', 'from an app before versions') }], null)).toMatchObject({ status: 200 });
    expect(await push(server, [{ newDocumentState: visit('v1-visit', 'from the current app'), changeId: 'v1-change' }], SYNC_PROTOCOL_VERSION)).toMatchObject({ status: 200 });
    expect(await notesOnServer('v0-visit')).toBe('from an app before versions');
    expect(await notesOnServer('v1-visit')).toBe('from the current app');
    // The upgraded server serves the current version as well.
    expect((await push(upgraded, [{ newDocumentState: visit('v1-visit-2', 'current app, upgraded server') }], SYNC_PROTOCOL_VERSION)).status).toBe(200);
  });

  it('refuses a version below the floor with 426 and the versions, before anything is written: push, pull and stream', async () => {
    const refused = await push(upgraded, [{ newDocumentState: visit('refused-visit', 'kept on the phone'), changeId: 'refused-change' }], null);
    expect(refused.status).toBe(426);
    expect(refused.upgrade).toBe(`pool-sync/${SYNC_PROTOCOL_VERSION}`);
    expect(refused.body.error).toMatchObject({ code: 'VERSION_NOT_SUPPORTED', clientVersion: 0, minVersion: 1, currentVersion: SYNC_PROTOCOL_VERSION });
    expect(refused.body.error.message).toMatch(/Update the app/);
    expect(await notesOnServer('refused-visit'), 'nothing of the refused push is on the server').toBeNull();
    // Nothing was kept of it either, not even a receipt: the same change id, pushed again by an
    // updated app, is applied.
    expect((await push(upgraded, [{ newDocumentState: visit('refused-visit', 'kept on the phone'), changeId: 'refused-change' }], SYNC_PROTOCOL_VERSION)).status).toBe(200);
    expect(await notesOnServer('refused-visit')).toBe('kept on the phone');

    for (const path of ['/sync/services/pull?checkpoint=0', '/sync/stream']) {
      const res = await fetch(`${upgraded.url}${path}`, { headers: { authorization: `Bearer ${tech}` } });
      expect(res.status, path).toBe(426);
      expect(((await res.json()) as any).error.code).toBe('VERSION_NOT_SUPPORTED');
    }
  });

  it('refuses a version above its own and a header that is not a number, changing nothing', async () => {
    const newer = await push(server, [{ newDocumentState: visit('newer-visit', 'from a newer app') }], SYNC_PROTOCOL_VERSION + 1);
    expect(newer.status).toBe(426);
    expect(newer.body.error.message).toMatch(/older than this app/);
    const garbled = await push(server, [{ newDocumentState: visit('newer-visit', 'from a newer app') }], 'one');
    expect(garbled.status).toBe(400);
    expect(garbled.body.error.message).toMatch(PROTOCOL_VERSION_HEADER);
    expect(await notesOnServer('newer-visit')).toBeNull();
  });

  it('checks GraphQL only when an app names its version: third parties, who name none, are served', async () => {
    const query = JSON.stringify({ query: '{ organization { name } }' });
    const ask = (headers: Record<string, string>) => fetch(`${upgraded.url}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${office}`, 'content-type': 'application/json', ...headers }, body: query });
    const thirdParty = await ask({});
    expect(thirdParty.status).toBe(200);
    expect(((await thirdParty.json()) as any).data.organization.name).toBe('Versioned Pools');
    const oldApp = await ask({ [PROTOCOL_VERSION_HEADER]: '0' });
    expect(oldApp.status).toBe(426);
    expect(((await oldApp.json()) as any).errors[0].extensions).toMatchObject({ code: 'VERSION_NOT_SUPPORTED', clientVersion: 0, minVersion: 1 });
  });

  it("a stock RxDB replication (it names no version) syncs within the floor, and above it is refused with its write kept", async () => {
    const db = await createRxDatabase<{ services: RxCollection }>({ name: `stock${Date.now()}`, storage: getRxStorageMemory(), multiInstance: false });
    await db.addCollections({ services: { schema: rxSchemaOf(serviceResource) as never } });
    const replicate = async (target: TestServer) => {
      const endpoint = { baseUrl: target.url, token: tech, protocolVersion: 0 };
      const stream = new LiveStream(endpoint, { collections: ['services'], retryMs: 50, maxRetryMs: 200 });
      const replication = replicateCollection(db.collections.services!, { endpoint, stream, identifier: target.url, retryTime: 100 });
      stream.start();
      return { replication, stop: async () => (await replication.cancel(), await stream.close()) };
    };
    const now = new Date().toISOString();
    try {
      const first = await replicate(server);
      await first.replication.awaitInSync();
      await db.collections.services!.insert({ ...visit('stock-rx-visit', 'written the RxDB way'), createdAt: now, updatedAt: now });
      await first.replication.awaitInSync();
      await first.stop();
      expect(await notesOnServer('stock-rx-visit')).toBe('written the RxDB way');

      await db.collections.services!.insert({ ...visit('stock-rx-refused', 'after the upgrade'), createdAt: now, updatedAt: now });
      const second = await replicate(upgraded);
      const error = await firstValueFrom(second.replication.error$);
      await second.stop();
      expect(JSON.stringify(error.parameters)).toMatch(/VERSION_NOT_SUPPORTED|426|Update the app/);
      expect(await notesOnServer('stock-rx-refused')).toBeNull();
      expect((await db.collections.services!.findOne('stock-rx-refused').exec())?.notes).toBe('after the upgrade');
    } finally {
      await db.close();
    }
  });

  it('an app of version 0 stops at update-required with its outbox kept; the updated app pushes what it kept, each change once', async () => {
    // The phone's view of the server: its address stays while the server behind it is upgraded,
    // here just after it applied a push whose answer never reached the phone.
    let target = server;
    let upgradeAfterNextPush = false;
    const phoneFetch: typeof fetch = async (input, init) => {
      const url = String(input).replace('http://phone.test', target.url);
      const res = await fetch(url, init);
      if (upgradeAfterNextPush && url.includes('/push')) {
        upgradeAfterNextPush = false;
        target = upgraded;
        throw new TypeError('fetch failed: the answer was lost');
      }
      return res;
    };
    const storage = getRxStorageMemory() as RxStorage<unknown, unknown>;
    const options = { baseUrl: 'http://phone.test', token: tech, storage, name: `phone-${Date.now()}`, collections: ['customers', 'services'], retryMs: 50, fetch: phoneFetch };

    const oldApp = await createPoolClient({ ...options, protocolVersion: 0 });
    open.push(oldApp);
    oldApp.sync.start();
    await oldApp.sync.awaitInSync({ timeoutMs: 20_000 });
    upgradeAfterNextPush = true;
    const applied = await oldApp.recordVisit({ customerId, notes: 'applied, answer lost' });
    const refused = await firstValueFrom(oldApp.sync.status$.pipe(rxFilter((s) => s.state === 'update-required')));
    expect(refused.errorKind).toBe('update-required');
    expect(refused.lastError).toMatch(/Update the app/);
    expect(await notesOnServer(applied.id), 'the push before the upgrade was applied').toBe('applied, answer lost');
    // The office edits that visit meanwhile: a repeat of the phone's change, applied again, would
    // write its notes back over the office's.
    const current = await serverDocument(server, office, 'services', applied.id);
    expect((await pushChanges(server, office, 'services', [{ assumedMasterState: current, newDocumentState: { ...current, notes: 'the office changed it' } }])).status).toBe(200);
    // Sync has stopped; the technician goes on working.
    const kept = await oldApp.recordVisit({ customerId, notes: 'recorded after the upgrade' });
    await new Promise((r) => setTimeout(r, 300));
    const waiting = await firstValueFrom(oldApp.sync.status$);
    expect(waiting.state).toBe('update-required');
    expect(waiting.pendingPushes, 'both changes wait on the phone').toBe(2);
    expect(await notesOnServer(kept.id)).toBeNull();
    await oldApp.close();
    open.pop();

    // The app is updated: the new SDK opens the same replica and syncs.
    const newApp = await createPoolClient(options);
    open.push(newApp);
    expect(await newApp.db.collections.pendingChanges.count().exec(), 'what the old app kept').toBe(2);
    newApp.sync.start();
    await newApp.sync.awaitInSync({ timeoutMs: 20_000 });
    expect(await notesOnServer(kept.id)).toBe('recorded after the upgrade');
    expect(await notesOnServer(applied.id), 'the change applied before the upgrade was recognised by its receipt, not applied again').toBe('the office changed it');
    expect((await newApp.db.collections.services!.findOne(applied.id).exec())?.notes).toBe('the office changed it');
    const { syncConflicts } = ok(await caller(server, office)('{ syncConflicts(filter: {collection: "services"}) { edges { node { documentId } } } }'));
    expect(syncConflicts.edges.filter((e: any) => [applied.id, kept.id].includes(e.node.documentId))).toEqual([]);
  });
});
