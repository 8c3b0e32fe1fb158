import 'fake-indexeddb/auto';
import { IDBKeyRange as FakeKeyRange, indexedDB as fakeIndexedDB } from 'fake-indexeddb';
import { createRxDatabase, type RxCollection } from 'rxdb';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import { afterEach, describe, expect, it } from 'vitest';
import { collectionOf, createReplicaDatabase, type ReplicaDatabase } from '../client-sdk/replica/database.js';
import { moveReplicaFromDexie } from '../client-sdk/replica/indexeddb/from-dexie.js';
import { indexedDbStorage } from '../client-sdk/replica/indexeddb/storage.js';
import { pendingKey } from '../client-sdk/replication/pending-changes.js';
import { PENDING_CHANGES, pendingChangesSchema } from '../client-sdk/replica/local-collections.js';
import { REPLICA_SCHEMA_HISTORY } from '../shared/index.js';
import { insertStates } from '../client-sdk/replication/replica-store.js';

/**
 * The replica on the SDK's IndexedDB storage (client-sdk/replica/indexeddb/), on fake-indexeddb
 * (IndexedDB in Node): what is particular to this storage (its reads in pieces, the IndexedDB
 * indexes it keeps, the databases it leaves) and the move of a replica an earlier SDK kept in
 * Dexie. What every RxDB storage must answer, and how, is test/storage-conformance.unit.test.ts;
 * the browser tests run the same storage on Chromium's IndexedDB.
 */
const open: ReplicaDatabase[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

async function replica(name: string, storage = indexedDbStorage()): Promise<ReplicaDatabase> {
  const db = await createReplicaDatabase(name, storage as never, ['services']);
  open.push(db);
  return db;
}
const visits = (db: ReplicaDatabase) => collectionOf(db, 'services')! as unknown as RxCollection;
const stamp = '2026-11-28T08:00:00.000Z';
const visit = (id: string, fields: Record<string, unknown> = {}) => ({ id, photos: [], createdAt: stamp, updatedAt: stamp, _deleted: false, ...fields });
const uniqueName = (label: string) => `${label}-${Math.random().toString(36).slice(2)}`;

describe('the replica on IndexedDB', () => {
  it('a range read in pieces that ends exactly where a piece ends answers, and completely', async () => {
    const db = await replica(uniqueName('pieces'));
    // 1,000 visits without a start (startKey ''): 500 of them up to v0499, one full piece.
    await insertStates(visits(db), Array.from({ length: 1000 }, (_, i) => visit(`v${String(i).padStart(4, '0')}`)));
    const found = await visits(db).find({ selector: { startKey: '', id: { $lte: 'v0499' } }, sort: [{ startKey: 'asc' }, { id: 'asc' }] } as never).exec();
    expect(found.map((d) => d.id)).toEqual(Array.from({ length: 500 }, (_, i) => `v${String(i).padStart(4, '0')}`));
  });

  it('keeps an IndexedDB index for each of the schema\'s indexes but RxDB\'s index of write times', async () => {
    // What RxDB asks by write times (changes since a checkpoint, cleanup) is answered by reading
    // every document: test/storage-conformance.unit.test.ts checks those answers.
    const db = await replica(uniqueName('indexes'));
    const store = (visits(db).storageInstance.internals as { db: IDBDatabase }).db.transaction('docs').objectStore('docs');
    expect(Array.from(store.indexNames).sort()).toEqual(['_deleted+startKey+id', '_deleted+technicianKey+startKey+id']);
  });

  it('a removed replica leaves no database behind', async () => {
    const name = uniqueName('removed');
    const db = await replica(name);
    await insertStates(visits(db), [visit('a')]);
    open.pop();
    await db.remove();
    const left = (await indexedDB.databases()).map((d) => d.name).filter((n) => n?.includes(name));
    expect(left).toEqual([]);
  });
});

describe('a replica an earlier SDK kept in Dexie', () => {
  const dexie = () => getRxStorageDexie({ indexedDB: fakeIndexedDB, IDBKeyRange: FakeKeyRange });
  const dexieNames = async (name: string) => (await indexedDB.databases()).map((d) => d.name!).filter((n) => n.startsWith(`rxdb-dexie-${name}--`));

  it('moves its unsynced changes, migrated from an older outbox, and the documents they are about; then deletes it', async () => {
    const name = uniqueName('from-dexie');
    // Written by an SDK whose outbox had no refusals yet (version 0) and whose visits were at version 0.
    const { refused: _refused, ...fieldsBefore } = pendingChangesSchema.properties;
    const old = await createRxDatabase({ name, storage: dexie(), multiInstance: false });
    const versionZero = { ...(await replica(uniqueName('shape'))).collections.services!.schema.jsonSchema };
    open.pop();
    expect(REPLICA_SCHEMA_HISTORY.services.length).toBeGreaterThan(1);
    await old.addCollections({
      [PENDING_CHANGES]: { schema: { ...pendingChangesSchema, version: 0, properties: fieldsBefore } as never },
      services: { schema: { ...versionZero, version: 0, indexes: [], properties: Object.fromEntries(Object.entries(versionZero.properties).filter(([k]) => !['startKey', 'technicianKey', '_deleted', '_rev', '_meta', '_attachments'].includes(k))) } as never },
    });
    await old.collections.services!.insert(visit('unsynced', { notes: 'made offline' }));
    await old.collections.services!.insert(visit('synced', { notes: 'the server has it' }));
    await old.collections[PENDING_CHANGES]!.insert({ key: pendingKey('services', 'unsynced'), collectionName: 'services', docId: 'unsynced', base: null, changeId: 'c-1', sent: [], updatedAt: stamp });
    await old.close();
    expect(await dexieNames(name)).toEqual(expect.arrayContaining([`rxdb-dexie-${name}--0--pendingChanges`, `rxdb-dexie-${name}--0--services`]));

    const db = await replica(name);
    await moveReplicaFromDexie(db);
    const entries = await db.collections[PENDING_CHANGES].find().exec();
    expect(entries.map((e) => [e.key, e.refused])).toEqual([[pendingKey('services', 'unsynced'), null]]);
    expect((await visits(db).find().exec()).map((d) => [d.id, d.get('notes')])).toEqual([['unsynced', 'made offline']]);
    expect(await dexieNames(name)).toEqual([]);
  });

  it('a Dexie database deleted since it was listed (another tab moved it) is neither read nor made again', async () => {
    const name = uniqueName('gone');
    // An empty database under a Dexie name, as a tab's open without a version would leave it.
    await new Promise<void>((resolve) => {
      const request = indexedDB.open(`rxdb-dexie-${name}--1--pendingChanges`, 1);
      request.onsuccess = () => {
        request.result.close();
        resolve();
      };
    });
    const db = await replica(name);
    await expect(moveReplicaFromDexie(db)).resolves.toBe(0);
    expect(await dexieNames(name)).toEqual([]);
  });
});
