import { normalizeMangoQuery, prepareQuery, type RxCollection } from 'rxdb';
import { collectionByName, type ReplicaDatabase } from '../replica/database.js';
import { SYNC_WRITE_CONTEXT } from '../replica/capture.js';
import { PENDING_CHANGES, PHOTO_QUEUE } from '../replica/local-collections.js';
import type { Stored } from './replica-store.js';

/**
 * Deleting what a device holds of its organization (a phone signed out: its token revoked or
 * expired) while keeping the work it has not synced, which goes up once someone signs in again:
 * - kept: the pending changes (each with its base and change ids, so the server merges it and
 *   applies it once) and the documents they change; the photo queue and the documents its photos
 *   belong to (a photo whose visit is gone from the replica would be dropped as deleted);
 * - deleted: every other document of every synced collection, tombstones included (a tombstone
 *   of a pulled document still holds its fields).
 *
 * The documents go through the storage, below RxDB's document API (as pulls do): a live document
 * is first written as a tombstone, so the app's queries and observers hear it is gone, and then
 * every tombstone not kept is removed from the storage for good (the storage's `cleanup`, whose
 * cut-off counts only what was deleted before this moment). A kept tombstone (a delete waiting to
 * be pushed) is put back after the cleanup. The device's storage is not a secure erase: the
 * browser may keep freed pages of its files until it reuses them.
 */
export interface WipeResult {
  /** Documents deleted from the replica, tombstones included. */
  deleted: number;
  /** Documents kept: those with changes waiting for the server, and those a waiting photo belongs to. */
  kept: number;
  /** Changes waiting for the server (refused ones included), all kept. */
  pendingChanges: number;
  /** Photos waiting for upload, all kept. */
  photos: number;
}

/** Documents read or written at a time. */
const PIECE = 500;

export async function wipeSyncedDocuments(db: ReplicaDatabase, collections: readonly string[]): Promise<WipeResult> {
  const { keep, pendingChanges, photos } = await unsyncedWork(db);
  const result: WipeResult = { deleted: 0, kept: 0, pendingChanges, photos };
  for (const name of collections) {
    const collection = collectionByName(db, name);
    if (!collection) continue;
    const { deleted, kept } = await wipeCollection(collection, keep.get(name) ?? new Set());
    result.deleted += deleted;
    result.kept += kept;
  }
  return result;
}

/** The documents the unsynced work is about, by collection, and how much work there is. */
async function unsyncedWork(db: ReplicaDatabase): Promise<{ keep: Map<string, Set<string>>; pendingChanges: number; photos: number }> {
  const keep = new Map<string, Set<string>>();
  const add = (collection: string, id: string) => keep.set(collection, (keep.get(collection) ?? new Set()).add(id));
  const changes = await db.collections[PENDING_CHANGES].find().exec();
  for (const change of changes) add(change.collectionName, change.docId);
  const queued = await db.collections[PHOTO_QUEUE].find().exec();
  for (const photo of queued) add(photo.parent, photo.parentId);
  return { keep, pendingChanges: changes.length, photos: queued.length };
}

async function wipeCollection(collection: RxCollection, keep: ReadonlySet<string>): Promise<{ deleted: number; kept: number }> {
  const instance = collection.storageInstance;
  let deleted = 0;
  let kept = 0;
  const keptTombstones: Stored[] = [];
  // Written a moment in the past, so the cleanup below (which removes tombstones older than now) takes them all.
  const before = Date.now() - 1;
  for await (const piece of storedInPieces(collection)) {
    const gone = piece.filter((d) => !keep.has(d.id));
    deleted += gone.length;
    kept += piece.length - gone.length;
    keptTombstones.push(...piece.filter((d) => keep.has(d.id) && d._deleted));
    const live = gone.filter((d) => !d._deleted);
    if (!live.length) continue;
    const rows = live.map((previous) => ({ previous, document: { ...previous, _deleted: true, _meta: { ...previous._meta, lwt: Math.min(previous._meta.lwt, before) } } }));
    const { error } = await instance.bulkWrite(rows as never, SYNC_WRITE_CONTEXT);
    if (error.length) throw new Error(`wiping ${collection.name}: ${error.length} documents could not be deleted (status ${error[0]!.status})`);
  }
  await instance.cleanup(0);
  // The cleanup took the kept tombstones too (deletes waiting to be pushed): put them back as they were.
  for (let at = 0; at < keptTombstones.length; at += PIECE) {
    await instance.bulkWrite(keptTombstones.slice(at, at + PIECE).map((document) => ({ document })) as never, SYNC_WRITE_CONTEXT);
  }
  return { deleted, kept };
}

/** Every stored document of the collection, tombstones included, in primary key order, a piece at a time. */
async function* storedInPieces(collection: RxCollection): AsyncGenerator<Stored[]> {
  const schema = collection.schema.jsonSchema;
  const primary = collection.schema.primaryPath as string;
  let after: string | null = null;
  for (;;) {
    const selector = after === null ? {} : { [primary]: { $gt: after } };
    const query = prepareQuery(schema, normalizeMangoQuery(schema, { selector, sort: [{ [primary]: 'asc' }], limit: PIECE }));
    const { documents } = (await collection.storageInstance.query(query)) as { documents: Stored[] };
    if (!documents.length) return;
    yield documents;
    if (documents.length < PIECE) return;
    after = (documents.at(-1) as unknown as Record<string, string>)[primary]!;
  }
}
