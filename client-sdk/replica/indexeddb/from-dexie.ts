import { getSchemaByObjectPath, type RxCollection, type RxJsonSchema } from 'rxdb';
import { migrateDocumentData } from 'rxdb/plugins/migration-schema';
import { PENDING_CHANGES, type PendingChange } from '../local-collections.js';
import { PHOTO_QUEUE } from '../local-collections.js';
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
 *
 * A collection may be held under an older schema version (an SDK from before a schema change that
 * was never opened since): its documents are migrated as RxDB would have. Kept, not deleted: a
 * database of a version newer than this SDK's, and a collection this client does not open whose
 * documents an unsynced change is about (a client opened with all collections moves them).
 */
export async function moveReplicaFromDexie(db: ReplicaDatabase): Promise<number> {
  const prefix = `rxdb-dexie-${db.name}--`;
  const old = typeof indexedDB.databases === 'function' ? (await indexedDB.databases()).map((d) => d.name ?? '').filter((n) => n.startsWith(prefix)) : [];
  if (!old.length) return 0;
  const held = old.map((name) => ({ name, ...partsOf(name.slice(prefix.length)) }));
  /** The collection's databases this SDK can read, newest version first. */
  const versionsOf = (collection: RxCollection) =>
    held.filter((h) => h.collection === collection.name && h.version <= collection.schema.version).sort((a, b) => b.version - a.version);

  let moved = 0;
  const changes: PendingChange[] = [];
  for (const collection of [db.collections[PENDING_CHANGES], db.collections[PHOTO_QUEUE]] as RxCollection[]) {
    for (const { name, version } of versionsOf(collection)) {
      const docs = (await readDexie(name, collection.schema.jsonSchema)).filter((d) => !d._deleted);
      const current = await migrated(collection, version, docs);
      moved += await insert(collection, current);
      if (collection.name === PENDING_CHANGES) changes.push(...(current as unknown as PendingChange[]));
    }
  }
  const versionHere = (name: string) => (db.collections[name as keyof typeof db.collections] as RxCollection | undefined)?.schema.version;
  const keep = new Set(held.filter((h) => h.version > (versionHere(h.collection) ?? Infinity)).map((h) => h.name));
  for (const [name, ids] of idsByCollection(changes)) {
    const collection = db.collections[name as keyof typeof db.collections] as RxCollection | undefined;
    if (!collection) {
      for (const h of held) if (h.collection === name) keep.add(h.name);
      continue;
    }
    for (const { name: database, version } of versionsOf(collection)) {
      moved += await insert(collection, await migrated(collection, version, await readDexie(database, collection.schema.jsonSchema, ids)));
    }
  }
  // Only now: a device stopped before this point moves again from the start next time.
  for (const name of old) if (!keep.has(name)) await deleteDatabase(name);
  return moved;
}

/** `<version>--<collection>` of a Dexie database's name, after the replica's prefix. */
function partsOf(rest: string): { version: number; collection: string } {
  const match = /^(\d+)--(.+)$/.exec(rest);
  return match ? { version: Number(match[1]), collection: match[2]! } : { version: -1, collection: rest };
}

/** Documents stored under an older schema version, taken through the collection's migration strategies (those a strategy drops are left out). */
async function migrated(collection: RxCollection, version: number, docs: Record<string, unknown>[]): Promise<Record<string, unknown>[]> {
  if (version === collection.schema.version) return docs;
  const results = await Promise.all(docs.map((doc) => migrateDocumentData(collection, version, doc) as Promise<Record<string, unknown> | null>));
  return results.filter((doc): doc is Record<string, unknown> => doc !== null);
}

/**
 * Stored documents written into the replica past the capture of app writes (RxDB's storage wrapper
 * gives each a new revision and write time; their fields are as they were).
 */
async function insert(collection: RxCollection, docs: unknown[]): Promise<number> {
  if (!docs.length) return 0;
  const result = await collection.storageInstance.bulkWrite(docs.map((document) => ({ document })) as never, SYNC_WRITE_CONTEXT);
  // Moved before and stopped before the old databases were deleted, or held under two versions
  // (the newer is written first): those are here already.
  const failed = result.error.filter((e) => e.status !== 409);
  if (failed.length) throw new Error(`moving ${collection.name}/${failed[0]!.documentId} out of Dexie failed (status ${failed[0]!.status})`);
  return docs.length - result.error.length;
}

function idsByCollection(changes: PendingChange[]): Map<string, string[]> {
  const ids = new Map<string, string[]>();
  for (const change of changes) ids.set(change.collectionName, [...(ids.get(change.collectionName) ?? []), change.docId]);
  return ids;
}

/**
 * Documents of a Dexie database as RxDB's Dexie storage kept them, read with IndexedDB alone (so the
 * apps do not carry Dexie for this): one store, `docs`, each record the document with its indexed
 * booleans (`_deleted` in every schema) as '1' or '0'. (Dexie also renames fields beginning with '|',
 * which only RxDB's key compression makes; the replica never used it.) All of them, or those of
 * `ids`. A database deleted since it was listed (another tab moved it) holds nothing: opening it
 * must not create it again.
 */
async function readDexie(name: string, schema: RxJsonSchema<any>, ids?: string[]): Promise<Record<string, unknown>[]> {
  const opening = indexedDB.open(name);
  opening.onupgradeneeded = () => opening.transaction!.abort();
  const db = await requestResult(opening).catch(() => null);
  if (!db) return [];
  try {
    if (!db.objectStoreNames.contains('docs')) return [];
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
