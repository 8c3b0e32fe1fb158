import { prepareQuery, type RxCollection, type RxStorageInstance } from 'rxdb';
import { OUTBOX, type OutboxEntry } from '../../replication/outbox.js';
import { PHOTO_QUEUE } from '../../uploads/photo-queue.js';
import { SYNC_WRITE_CONTEXT } from '../capture.js';
import type { ReplicaDatabase } from '../database.js';
import { deleteDatabase } from './requests.js';

/**
 * A replica an earlier SDK kept in RxDB's Dexie storage, moved into this storage when the device
 * opens it: what only the device has (the changes the server has not taken, the photos waiting to
 * be sent) and the documents those changes are about, so the person still sees their work; then
 * the old databases are deleted. Everything else comes again from the server (a first sync; for an
 * office, copying 65,000 documents out of Dexie would take longer than pulling them). Run before
 * the replica syncs; answers how many documents were moved.
 */
export async function moveReplicaFromDexie(db: ReplicaDatabase): Promise<number> {
  const prefix = `rxdb-dexie-${db.name}--`;
  const old = typeof indexedDB.databases === 'function' ? (await indexedDB.databases()).map((d) => d.name ?? '').filter((n) => n.startsWith(prefix)) : [];
  if (!old.length) return 0;
  const { getRxStorageDexie } = await import('rxdb/plugins/storage-dexie');
  const dexie = getRxStorageDexie();
  const heldIn = (collection: RxCollection) => old.includes(`${prefix}${collection.schema.version}--${collection.name}`);
  const open = (collection: RxCollection) =>
    dexie.createStorageInstance({ databaseName: db.name, collectionName: collection.name, schema: collection.schema.jsonSchema, options: {}, multiInstance: false, databaseInstanceToken: 'move-from-dexie', devMode: false }) as Promise<RxStorageInstance<any, unknown, unknown>>;

  let moved = 0;
  const changes: OutboxEntry[] = [];
  for (const collection of [db.collections[OUTBOX], db.collections[PHOTO_QUEUE]] as RxCollection[]) {
    if (!heldIn(collection)) continue;
    const instance = await open(collection);
    const docs = (await instance.query(prepareQuery(collection.schema.jsonSchema, { selector: {}, sort: [{ [collection.schema.primaryPath]: 'asc' }], skip: 0 } as never))).documents;
    await instance.close();
    moved += await insert(collection, docs);
    if (collection.name === OUTBOX) changes.push(...(docs as OutboxEntry[]));
  }
  for (const [name, ids] of idsByCollection(changes)) {
    const collection = db.collections[name as keyof typeof db.collections] as RxCollection | undefined;
    if (!collection || !heldIn(collection)) continue;
    const instance = await open(collection);
    const docs = await instance.findDocumentsById(ids, true);
    await instance.close();
    moved += await insert(collection, docs);
  }
  // Only now: a device stopped before this point moves again from the start next time.
  for (const name of old) await deleteDatabase(name);
  return moved;
}

/** Stored documents written as they were (their revisions and times), past the capture of app writes. */
async function insert(collection: RxCollection, docs: unknown[]): Promise<number> {
  if (!docs.length) return 0;
  const result = await collection.storageInstance.bulkWrite(docs.map((document) => ({ document })) as never, SYNC_WRITE_CONTEXT);
  // Moved before and stopped before the old databases were deleted: those are here already.
  const failed = result.error.filter((e) => e.status !== 409);
  if (failed.length) throw new Error(`moving ${collection.name}/${failed[0]!.documentId} out of Dexie failed (status ${failed[0]!.status})`);
  return docs.length - result.error.length;
}

function idsByCollection(changes: OutboxEntry[]): Map<string, string[]> {
  const ids = new Map<string, string[]>();
  for (const change of changes) ids.set(change.collectionName, [...(ids.get(change.collectionName) ?? []), change.docId]);
  return ids;
}
