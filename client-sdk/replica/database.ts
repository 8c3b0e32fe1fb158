import { addRxPlugin, createRxDatabase, type RxCollection, type RxDatabase, type RxStorage } from 'rxdb';
import { RxDBLocalDocumentsPlugin } from 'rxdb/plugins/local-documents';
import { RxDBMigrationSchemaPlugin } from 'rxdb/plugins/migration-schema';
import { replicatedResources, rxSchemaOf, syncRule } from '../../shared/index.js';
import { OUTBOX, outboxMigrations, outboxSchema } from '../replication/outbox.js';
import { capturingStorage, type WriteCapture } from './capture.js';
import { PHOTO_QUEUE, photoQueueSchema } from '../uploads/photo-queue.js';

/**
 * The device replica: one RxDB collection per replicated resource (schemas derived from shared/),
 * plus two local ones: the outbox of changes waiting for the server and the photo upload queue.
 * Twelve collections at most, under RxDB's open-source limit of 13 per process; a client may open
 * fewer (`collections`). Pull checkpoints live in the database's local documents.
 */
export type ReplicaCollections = Record<string, RxCollection>;
export type ReplicaDatabase = RxDatabase<ReplicaCollections>;

/** The replicated collection names, in dependency order. */
export const COLLECTION_NAMES = replicatedResources.map((r) => r.collection!);

/** Collections a device only reads: the server's alone to write (shared/sync/rules.ts). */
export const READ_ONLY_COLLECTIONS: ReadonlySet<string> = new Set(COLLECTION_NAMES.filter((c) => syncRule(c)?.kind === 'readonly'));

addRxPlugin(RxDBLocalDocumentsPlugin);
// A replica opened by a newer SDK migrates its local collections (the outbox) in place.
addRxPlugin(RxDBMigrationSchemaPlugin);

/**
 * Opens the replica. With `capture`, every write the app makes to a synced collection through RxDB
 * goes to it first (replica/capture.ts), so it syncs like the SDK's actions' writes.
 */
export async function createReplicaDatabase(
  name: string,
  storage: RxStorage<unknown, unknown>,
  collections: readonly string[] = COLLECTION_NAMES,
  capture?: () => WriteCapture | null,
): Promise<ReplicaDatabase> {
  const unknown = collections.filter((c) => !COLLECTION_NAMES.includes(c));
  if (unknown.length) throw new Error(`Unknown collections: ${unknown.join(', ')}`);
  // allowSlowCount: the photo queue counts its waiting photos by a nullable field, which no index
  // can hold; IndexedDB storage refuses such a count unless allowed (a browser test caught it).
  // The queue holds a handful of photos, so counting them by reading them is cheap.
  const db = await createRxDatabase<ReplicaCollections>({
    name,
    storage: capture ? capturingStorage(storage, new Set(collections), capture) : storage,
    multiInstance: false,
    closeDuplicates: true,
    allowSlowCount: true,
    localDocuments: true,
  });
  const wanted = replicatedResources.filter((r) => collections.includes(r.collection!));
  await db.addCollections({
    ...Object.fromEntries(wanted.map((r) => [r.collection!, { schema: rxSchemaOf(r) as never }])),
    [OUTBOX]: { schema: outboxSchema as never, migrationStrategies: outboxMigrations as never },
    [PHOTO_QUEUE]: { schema: photoQueueSchema as never },
  });
  return db;
}
