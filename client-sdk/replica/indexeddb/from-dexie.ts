import { getSchemaByObjectPath, type RxCollection, type RxJsonSchema } from 'rxdb';
import { OUTBOX, type OutboxEntry } from '../../replication/outbox.js';
import { PHOTO_QUEUE } from '../../uploads/photo-queue.js';
import { SYNC_WRITE_CONTEXT } from '../capture.js';
import type { ReplicaDatabase } from '../database.js';
import { deleteDatabase, requestResult } from './requests.js';

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
  const dexieName = (collection: RxCollection) => `${prefix}${collection.schema.version}--${collection.name}`;
  const heldIn = (collection: RxCollection) => old.includes(dexieName(collection));

  let moved = 0;
  const changes: OutboxEntry[] = [];
  for (const collection of [db.collections[OUTBOX], db.collections[PHOTO_QUEUE]] as RxCollection[]) {
    if (!heldIn(collection)) continue;
    const docs = (await readDexie(dexieName(collection), collection.schema.jsonSchema)).filter((d) => !d._deleted);
    moved += await insert(collection, docs);
    if (collection.name === OUTBOX) changes.push(...(docs as unknown as OutboxEntry[]));
  }
  for (const [name, ids] of idsByCollection(changes)) {
    const collection = db.collections[name as keyof typeof db.collections] as RxCollection | undefined;
    if (!collection || !heldIn(collection)) continue;
    moved += await insert(collection, await readDexie(dexieName(collection), collection.schema.jsonSchema, ids));
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

/**
 * Documents of a Dexie database as RxDB's Dexie storage kept them, read with IndexedDB alone (so the
 * apps do not carry Dexie for this): one store, `docs`, each record the document with its indexed
 * booleans (`_deleted` in every schema) as '1' or '0'. (Dexie also renames fields beginning with '|',
 * which only RxDB's key compression makes; the replica never used it.) All of them, or those of `ids`.
 */
async function readDexie(name: string, schema: RxJsonSchema<any>, ids?: string[]): Promise<Record<string, unknown>[]> {
  const db = await requestResult(indexedDB.open(name));
  try {
    const store = db.transaction('docs', 'readonly').objectStore('docs');
    const records = ids ? await Promise.all(ids.map((id) => requestResult(store.get(id)))) : await requestResult(store.getAll());
    const booleans = [...new Set([...(schema.indexes ?? []).flat(), '_deleted'])].filter((f) => f === '_deleted' || getSchemaByObjectPath(schema, f)?.type === 'boolean');
    return (records.filter(Boolean) as Record<string, unknown>[]).map((record) => {
      for (const field of booleans) record[field] = record[field] === '1';
      return record;
    });
  } finally {
    db.close();
  }
}
