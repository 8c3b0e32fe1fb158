import 'fake-indexeddb/auto';
import { createRxDatabase, type RxStorage } from 'rxdb';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { firstValueFrom } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import { createPoolClient, type PoolClient } from '../client-sdk/index.js';
import { indexedDbStorage } from '../client-sdk/replica/indexeddb/storage.js';
import { pendingKey } from '../client-sdk/replication/pending-changes.js';
import { PENDING_CHANGES, pendingChangesMigrations, pendingChangesSchema } from '../client-sdk/replica/local-collections.js';
import { REPLICA_SCHEMA_HISTORY, customerResource, rxSchemaOf, schemaHash, serviceResource, type ReplicatedResource } from '../shared/index.js';
import { caller, ok, tokenFor } from './support/api.js';
import { useTestServer } from './support/fixture.js';
import { startTestServer, type TestServer } from './support/server.js';
import { pushChanges, serverDocument } from './support/sync.js';

/**
 * A phone updated to a new app keeps the replica it holds: its documents and, above all, the
 * changes it made offline and has not synced yet. Here the replica was written by an SDK from
 * before technicians' scopes, whose visits and customers had no `createdById`, and before sync
 * protocol versions: the server, upgraded meanwhile to serve only version 1 and up, refuses the
 * old app's push (it names no version) with nothing written; the current SDK, the app updated,
 * opens the replica, migrates it, and syncs the visit waiting in its outbox, once: on RxDB's
 * memory storage and on the SDK's IndexedDB storage (fake-indexeddb here), which a browser uses.
 */
describe('a replica stored under an earlier schema', () => {
  let server: TestServer;
  /** The same store served by the upgraded server, whose floor is version 1. */
  let upgraded: TestServer;
  let tech: string;
  let office: string;
  const open: PoolClient[] = [];
  useTestServer('pglite', { organization: 'Migrating Pools' }, async (t) => {
    ({ server } = t);
    office = t.token;
    tech = (await tokenFor(server, office, 'TECHNICIAN')).token;
    upgraded = await startTestServer(server.db, { minProtocolVersion: 1 });
  });
  afterAll(async () => {
    while (open.length) await open.pop()!.close();
    await upgraded?.close();
  });

  /**
   * The schema a collection had before fields were added (version 0 of its history), with fields
   * that changed since as they were then (`earlier`).
   */
  function schemaWithout(resource: ReplicatedResource, fields: string[], earlier: Record<string, object> = {}) {
    const { version: _v, ...current } = rxSchemaOf(resource);
    const properties = Object.fromEntries(Object.entries({ ...current.properties, ...earlier }).filter(([name]) => !fields.includes(name)));
    const schema = { ...current, properties, required: current.required.filter((name) => !fields.includes(name)) };
    expect(schemaHash(schema), `version 0 of ${resource.collection}`).toBe(REPLICA_SCHEMA_HISTORY[resource.collection][0]);
    return { ...schema, version: 0 };
  }

  /** The customer fields billing changed, as they were before it. */
  function customersBeforeBilling(): Record<string, object> {
    const { properties } = rxSchemaOf(customerResource as ReplicatedResource) as unknown as { properties: Record<string, { properties?: Record<string, object> }> };
    const freeText = { type: ['string', 'null'], maxLength: 500 };
    const { monthlyRate: _added, ...serviceThen } = properties.service!.properties!;
    return { reportNotification: freeText, billingMethod: freeText, billingFrequency: freeText, service: { ...properties.service, properties: serviceThen } };
  }

  const storages: [string, () => RxStorage<unknown, unknown>][] = [
    ['memory', () => getRxStorageMemory() as RxStorage<unknown, unknown>],
    ['IndexedDB', () => indexedDbStorage() as RxStorage<unknown, unknown>],
  ];
  it.each(storages)('opens with its documents and unsynced changes, and syncs each change once (%s)', async (_kind, storageOf) => {
    const gql = caller(server, office);
    const customerId = ok(await gql('mutation { createCustomer(input: {firstName: "Old", lastName: "Phone"}) { id } }')).createCustomer.id as string;
    const storage = storageOf();
    const name = `old-replica-${Date.now()}`;
    const visitId = crypto.randomUUID();
    const now = new Date().toISOString();

    const old = await createRxDatabase({ name, storage, multiInstance: false, localDocuments: true });
    await old.addCollections({
      // reportNotification was free text then (visit reports gave it its values), and so were
      // billingMethod and billingFrequency (billing gave them theirs, and service.monthlyRate).
      customers: { schema: schemaWithout(customerResource as ReplicatedResource, ['createdById', 'taxId'], customersBeforeBilling()) as never },
      // Added since: createdById (scopes per technician), chemistryVersion (water chemistry).
      services: { schema: schemaWithout(serviceResource as ReplicatedResource, ['createdById', 'chemistryVersion']) as never },
      [PENDING_CHANGES]: { schema: pendingChangesSchema as never, migrationStrategies: pendingChangesMigrations as never },
    });
    const recorded = { id: visitId, customerId, notes: 'Recorded before the update', photos: [], createdAt: now, updatedAt: now };
    const changeId = `change-before-update-${name}`;
    await old.collections.services!.insert(recorded);
    await old.collections[PENDING_CHANGES]!.insert({ key: pendingKey('services', visitId), collectionName: 'services', docId: visitId, base: null, changeId, sent: [{ changeId, state: recorded }], updatedAt: now, refused: null });
    await old.close();
    // The old app's push, as it sends it (no protocol version), to the upgraded server.
    const refused = await pushChanges(upgraded, tech, 'services', [{ assumedMasterState: null, newDocumentState: recorded, changeId }]);
    expect(refused.status).toBe(426);
    expect(refused.body.error).toMatchObject({ code: 'VERSION_NOT_SUPPORTED', clientVersion: 0, minVersion: 1 });
    expect(await serverDocument(server, office, 'services', visitId), 'nothing of the refused push on the server').toBeUndefined();

    const client = await createPoolClient({ baseUrl: upgraded.url, token: tech, storage, name, collections: ['customers', 'services'], retryMs: 50 });
    open.push(client);
    const visit = await client.db.collections.services!.findOne(visitId).exec();
    expect(visit?.notes).toBe('Recorded before the update');
    expect((await firstValueFrom(client.sync.status$)).pendingPushes, 'the change waiting before the update, and nothing the migration wrote').toBe(1);

    client.sync.start();
    await client.sync.awaitInSync({ timeoutMs: 20_000 });
    const stored = await serverDocument(server, office, 'services', visitId);
    expect(stored?.notes).toBe('Recorded before the update');
    expect((await firstValueFrom(client.sync.status$)).pendingPushes).toBe(0);
  });
});
