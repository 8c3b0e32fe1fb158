import 'fake-indexeddb/auto';
import { IDBKeyRange as FakeKeyRange, indexedDB as fakeIndexedDB } from 'fake-indexeddb';
import { createRxDatabase, getChangedDocumentsSince, type RxCollection } from 'rxdb';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { afterEach, describe, expect, it } from 'vitest';
import { SYNC_WRITE_CONTEXT } from '../client-sdk/replica/capture.js';
import { collectionOf, createReplicaDatabase, type ReplicaDatabase } from '../client-sdk/replica/database.js';
import { moveReplicaFromDexie } from '../client-sdk/replica/indexeddb/from-dexie.js';
import { indexedDbStorage } from '../client-sdk/replica/indexeddb/storage.js';
import { pendingKey } from '../client-sdk/replication/pending-changes.js';
import { PENDING_CHANGES, pendingChangesSchema } from '../client-sdk/replica/local-collections.js';
import { REPLICA_SCHEMA_HISTORY } from '../shared/index.js';
import { insertStates, readStored, stateOf, writeStates } from '../client-sdk/replication/replica-store.js';

/**
 * The replica's IndexedDB storage (client-sdk/replica/indexeddb/), on fake-indexeddb (IndexedDB in
 * Node): what RxDB asks of a storage, answered as RxDB's own memory storage answers it. The
 * browser tests run the same storage on Chromium's IndexedDB.
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
const pulled = (docs: ReturnType<typeof visit>[]) => docs.map((d) => ({ document: { ...d, _attachments: {}, _meta: { lwt: 1 }, _rev: '1-a' } }));
const uniqueName = (label: string) => `${label}-${Math.random().toString(36).slice(2)}`;

describe('the replica on IndexedDB', () => {
  it('keeps what was written across a reopen, tombstones included, and names each document it holds', async () => {
    const name = uniqueName('reopen');
    let db = await replica(name);
    await insertStates(visits(db), [visit('a', { notes: 'first' }), visit('b'), visit('c')]);
    const stored = await readStored(visits(db), ['a', 'c']);
    await writeStates(visits(db), [{ ...stateOf(stored.get('a')!, 'services'), notes: 'changed' }, { ...stateOf(stored.get('c')!, 'services'), _deleted: true }], stored);
    await db.close();
    open.pop();

    db = await replica(name);
    expect((await visits(db).find().exec()).map((d) => [d.id, d.get('notes')])).toEqual([
      ['a', 'changed'],
      ['b', undefined],
    ]);
    const all = await visits(db).storageInstance.findDocumentsById(['a', 'b', 'c', 'missing'], true);
    expect(all.map((d) => [d.id, d._deleted])).toEqual([
      ['a', false],
      ['b', false],
      ['c', true],
    ]);
    expect((await visits(db).storageInstance.findDocumentsById(['c'], false)).length).toBe(0);
  });

  it('a write based on a revision that is not the stored one is refused with what is stored, and the rest of its batch is written', async () => {
    const db = await replica(uniqueName('conflict'));
    await insertStates(visits(db), [visit('a', { notes: 'stored' })]);
    const [stored] = await visits(db).storageInstance.findDocumentsById(['a'], false);
    const stale = { ...stored!, _rev: '1-stale' };
    const result = await visits(db).storageInstance.bulkWrite([{ previous: stale, document: { ...stale, notes: 'lost', _rev: '2-x' } }, ...pulled([visit('b')])] as never, SYNC_WRITE_CONTEXT);
    expect(result.error.map((e) => [e.documentId, e.status, (e as { documentInDb?: { notes?: string } }).documentInDb?.notes])).toEqual([['a', 409, 'stored']]);
    expect((await visits(db).find().exec()).map((d) => [d.id, d.get('notes')])).toEqual([
      ['a', 'stored'],
      ['b', undefined],
    ]);
  });

  it('inserting documents it holds already answers each with what is stored, and inserts the new ones of the batch', async () => {
    // Inserts are added without a read; one that is there after all undoes the transaction and the
    // batch is written again after reading (instance.ts).
    const db = await replica(uniqueName('insert'));
    await insertStates(visits(db), [visit('a', { notes: 'stored' }), visit('b', { notes: 'stored' })]);
    const held = await insertStates(visits(db), [visit('a', { notes: 'again' }), visit('c', { notes: 'new' }), visit('b', { notes: 'again' })]);
    expect([...held.keys()].sort()).toEqual(['a', 'b']);
    expect(held.get('a')!.notes).toBe('stored');
    expect((await visits(db).find().exec()).map((d) => [d.id, d.get('notes')])).toEqual([
      ['a', 'stored'],
      ['b', 'stored'],
      ['c', 'new'],
    ]);
  });

  it('answers queries on its indexes (ranges, order, skip, limit, counts) as RxDB memory storage does', async () => {
    const ours = await replica(uniqueName('queries'));
    const reference = await replica(uniqueName('reference'), getRxStorageMemory() as never);
    // A day and a half of visits for three technicians (and none), some without a start, some
    // deleted: more than a piece of a read (500), so ranges are read in several.
    const docs = Array.from({ length: 1300 }, (_, i) =>
      visit(`v${String((i * 7919) % 1300).padStart(4, '0')}`, {
        startTime: i % 17 === 0 ? null : new Date(Date.parse('2026-11-28T00:00:00.000Z') + ((i * 37) % 36) * 3_600_000).toISOString(),
        newTechnicianId: ['ana', 'ben', 'cy', null][i % 4],
        notes: `n${i % 5}`,
        _deleted: i % 11 === 0,
      }),
    );
    for (const db of [ours, reference]) await visits(db).storageInstance.bulkWrite(pulled(docs) as never, SYNC_WRITE_CONTEXT);

    const day = { $gte: '2026-11-28T00:00:00.000Z', $lt: '2026-11-29T00:00:00.000Z' };
    const queries = [
      { selector: { startKey: day }, sort: [{ startKey: 'asc' }] },
      { selector: { startKey: day }, sort: [{ startKey: 'desc' }], skip: 3, limit: 10 },
      { selector: { startKey: { $gt: '2026-11-28T05:00:00.000Z', $lte: '2026-11-28T20:00:00.000Z' } }, sort: [{ startKey: 'asc' }], limit: 7 },
      { selector: { technicianKey: 'ben', startKey: day }, sort: [{ technicianKey: 'asc' }, { startKey: 'asc' }] },
      { selector: { technicianKey: '' }, sort: [{ technicianKey: 'asc' }, { startKey: 'asc' }] },
      { selector: { startKey: day, notes: 'n2' }, sort: [{ startKey: 'asc' }], limit: 5 },
      { selector: { notes: { $in: ['n1', 'n3'] } }, sort: [{ id: 'asc' }], skip: 2 },
      { selector: { startKey: { $gt: '2026-12-01T00:00:00.000Z' } } },
      { selector: { startKey: day }, sort: [{ startKey: 'asc' }], limit: 0 },
      { selector: {} },
    ];
    for (const query of queries) {
      const answer = async (db: ReplicaDatabase) => (await visits(db).find(query as never).exec()).map((d) => d.id);
      const count = async (db: ReplicaDatabase) => visits(db).count({ selector: query.selector } as never).exec();
      expect(await answer(ours), JSON.stringify(query)).toEqual(await answer(reference));
      expect(await count(ours), JSON.stringify(query)).toBe(await count(reference));
    }
    expect((await visits(ours).find({ selector: { startKey: day } } as never).exec()).length).toBeGreaterThan(10);
  });

  it('a range read in pieces that ends exactly where a piece ends answers, and completely', async () => {
    const db = await replica(uniqueName('pieces'));
    // 1,000 visits without a start (startKey ''): 500 of them up to v0499, one full piece.
    await insertStates(visits(db), Array.from({ length: 1000 }, (_, i) => visit(`v${String(i).padStart(4, '0')}`)));
    const found = await visits(db).find({ selector: { startKey: '', id: { $lte: 'v0499' } }, sort: [{ startKey: 'asc' }, { id: 'asc' }] } as never).exec();
    expect(found.map((d) => d.id)).toEqual(Array.from({ length: 500 }, (_, i) => `v${String(i).padStart(4, '0')}`));
  });

  it('the same document twice in one batch of new ones leaves the last, as RxDB memory storage does', async () => {
    const db = await replica(uniqueName('twice'));
    await insertStates(visits(db), [visit('a', { notes: 'first' }), visit('b'), visit('a', { notes: 'second' })]);
    expect((await visits(db).find().exec()).map((d) => [d.id, d.get('notes')])).toEqual([
      ['a', 'second'],
      ['b', undefined],
    ]);
  });

  it('keeps no index of write times, and still answers what changed since a point by them', async () => {
    const db = await replica(uniqueName('since'));
    // RxDB stamps each write's time (`_meta.lwt`): written z, x, y, a few milliseconds apart.
    for (const id of ['z', 'x', 'y']) {
      await visits(db).storageInstance.bulkWrite(pulled([visit(id)]) as never, SYNC_WRITE_CONTEXT);
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    const first = await getChangedDocumentsSince(visits(db).storageInstance, 2);
    expect(first.documents.map((d) => d.id)).toEqual(['z', 'x']);
    const rest = await getChangedDocumentsSince(visits(db).storageInstance, 2, first.checkpoint);
    expect(rest.documents.map((d) => d.id)).toEqual(['y']);
    const idb = (visits(db).storageInstance.internals as { db: IDBDatabase }).db;
    expect(Array.from({ length: idb.transaction('docs').objectStore('docs').indexNames.length }, (_, i) => idb.transaction('docs').objectStore('docs').indexNames.item(i)).sort()).toEqual(['_deleted+startKey+id', '_deleted+technicianKey+startKey+id']);
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
