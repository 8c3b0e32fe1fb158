import { addRxPlugin, createRxDatabase, type RxCollection, type RxDatabase, type RxStorage } from 'rxdb';
import { RxDBLocalDocumentsPlugin } from 'rxdb/plugins/local-documents';
import { RxDBMigrationSchemaPlugin } from 'rxdb/plugins/migration-schema';
import { replicatedResources, syncRule, withNullsLeftOut, type CollectionName, type DocumentOf, type ReplicaKeyFields } from '../../shared/index.js';
import { PENDING_CHANGES, pendingChangesMigrations, pendingChangesSchema, type PendingChange } from './local-collections.js';
import { capturingStorage, type WriteCapture } from './capture.js';
import { keyedStorage } from './keys.js';
import { replicaCollectionOf } from './migrations.js';
import { PHOTO_QUEUE, photoQueueSchema, type QueuedPhoto } from './local-collections.js';
import { reportingStorageFull, type StorageFull } from './storage-full.js';

/**
 * The device replica: one RxDB collection per replicated resource (schemas derived from shared/),
 * plus two local ones: the pending changes of changes waiting for the server and the photo upload queue.
 * Thirteen collections at most (eleven synced, client.ts), RxDB's open-source limit of 13 per process; a client may open
 * fewer (`collections`). Pull checkpoints live in the database's local documents.
 */
/** Fields whose value may be null: the RxDB schema does not require them. */
type NullableKeys<T> = { [K in keyof T]: null extends T[K] ? K : never }[keyof T];
/**
 * A document of a synced collection as RxDB holds it: the resource's fields, those that may be null
 * also left out, and the timestamps the SDK stamps on every local write (and the server on push).
 */
export type ReplicaDocument<C extends CollectionName> = Omit<DocumentOf<C>, NullableKeys<DocumentOf<C>> | 'createdAt' | 'updatedAt'> &
  Partial<Pick<DocumentOf<C>, NullableKeys<DocumentOf<C>> | 'createdAt' | 'updatedAt'>> &
  (C extends keyof ReplicaKeyFields ? Partial<ReplicaKeyFields[C]> : unknown);

export type SyncedCollections = { [C in CollectionName]?: RxCollection<ReplicaDocument<C>> };
/** Each collection typed by its name: `db.collections.services` holds `Service` documents (absent if not opened). */
export type ReplicaCollections = SyncedCollections & { [PENDING_CHANGES]: RxCollection<PendingChange>; [PHOTO_QUEUE]: RxCollection<QueuedPhoto> };
export type ReplicaDatabase = RxDatabase<ReplicaCollections>;

/** The replicated collection names, in dependency order. */
export const COLLECTION_NAMES: readonly CollectionName[] = replicatedResources.map((r) => r.collection);

/**
 * A synced collection by a name known only at run time, as the sync engine handles every one of
 * them alike (its documents as the protocol's states; their types are the app's business).
 */
export function collectionByName(db: ReplicaDatabase, name: string): RxCollection | undefined {
  return isCollectionName(name) ? (db.collections[name] as RxCollection | undefined) : undefined;
}

/** A synced collection by its name, typed by it: `collectionOf(db, 'services')` holds `Service` documents. */
export function collectionOf<C extends CollectionName>(db: ReplicaDatabase, name: C): RxCollection<ReplicaDocument<C>> | undefined {
  return (db.collections as SyncedCollections)[name] as RxCollection<ReplicaDocument<C>> | undefined;
}

const resourceByCollection = new Map(replicatedResources.map((r) => [r.collection, r]));

/**
 * A replica document as the app reads it: its resource's fields, each nullable one the replica
 * leaves out given as null, so the value is the resource's own type. The one place a stored state
 * is taken for its collection's type: every state of a synced collection was checked against its
 * resource before it was written (the SDK's own writes) or sent (the server's).
 */
export function documentOf<C extends CollectionName>(collection: C, stored: object): DocumentOf<C> {
  return withNullsLeftOut(resourceByCollection.get(collection)!, stored as Readonly<Record<string, unknown>> & { id: string }) as DocumentOf<C>;
}

export function isCollectionName(name: string): name is CollectionName {
  return (COLLECTION_NAMES as readonly string[]).includes(name);
}

/** Collections a device only reads: the server's alone to write (shared/sync/rules.ts). */
export const READ_ONLY_COLLECTIONS: ReadonlySet<string> = new Set(COLLECTION_NAMES.filter((c) => syncRule(c)?.kind === 'readonly'));

addRxPlugin(RxDBLocalDocumentsPlugin);
// A replica opened by a newer SDK migrates its local collections (the pending changes) in place.
addRxPlugin(RxDBMigrationSchemaPlugin);

export interface ReplicaOptions {
  /** Every write the app makes to a synced collection through RxDB goes to it first (replica/capture.ts), so it syncs like the SDK's actions' writes. */
  capture?: () => WriteCapture | null;
  /** Told of every write refused for want of space, whoever made it. */
  onStorageFull?: (full: StorageFull) => void;
  /**
   * Other tabs (JavaScript realms) open the same replica: RxDB's multiInstance, so each one's
   * queries see the others' writes (the storage must pass them on, as replica/indexeddb/ does).
   */
  multiInstance?: boolean;
}

/** Opens the replica. */
export async function createReplicaDatabase(
  name: string,
  storage: RxStorage<unknown, unknown>,
  collections: readonly string[] = COLLECTION_NAMES,
  { capture, onStorageFull, multiInstance = false }: ReplicaOptions = {},
): Promise<ReplicaDatabase> {
  const unknown = collections.filter((c) => !isCollectionName(c));
  if (unknown.length) throw new Error(`Unknown collections: ${unknown.join(', ')}`);
  // allowSlowCount: the photo queue counts its waiting photos by a nullable field, which no index
  // can hold; IndexedDB storage refuses such a count unless allowed (a browser test caught it).
  // The queue holds a handful of photos, so counting them by reading them is cheap.
  // Nearest the device's storage, so a write refused for want of space is heard whoever wrote it.
  const reporting = onStorageFull ? reportingStorageFull(storage, onStorageFull) : storage;
  const db = await createRxDatabase<ReplicaCollections>({
    name,
    // Keys below capture: whatever is written, by whom, carries its replica keys.
    storage: capture ? capturingStorage(keyedStorage(reporting), new Set(collections), capture) : keyedStorage(reporting),
    multiInstance,
    closeDuplicates: true,
    allowSlowCount: true,
    localDocuments: true,
  });
  const wanted = replicatedResources.filter((r) => collections.includes(r.collection));
  await db.addCollections({
    ...Object.fromEntries(wanted.map((r) => [r.collection, replicaCollectionOf(r) as never])),
    [PENDING_CHANGES]: { schema: pendingChangesSchema as never, migrationStrategies: pendingChangesMigrations as never },
    [PHOTO_QUEUE]: { schema: photoQueueSchema as never },
  });
  return db;
}
