import { addRxStorageMultiInstanceSupport, ensureRxStorageInstanceParamsAreCorrect, RXDB_VERSION, type RxStorage, type RxStorageInstanceCreationParams } from 'rxdb';
import { DOCS, IndexedDbInstance, type IndexedDbInternals } from './instance.js';
import { recordShapeOf } from './records.js';
import { deleteDatabase, openDatabase } from './requests.js';

/**
 * The replica's storage in a browser: IndexedDB, one database per collection and schema version.
 * Written for the replica rather than taken from RxDB's Dexie storage, which keeps three index
 * entries of its own for every document and reads every document before writing it: a first sync
 * of a company's office (65,000 documents) spent most of its time in IndexedDB doing that (README.md
 * beside this file: why, what it relies on in RxDB, and how to upgrade RxDB; the figures in
 * test/bench/RESULTS.md, "The office at company scale").
 */
export function indexedDbStorage(): RxStorage<IndexedDbInternals, Record<string, never>> {
  return {
    name: STORAGE_NAME,
    rxdbVersion: RXDB_VERSION,
    async createStorageInstance<T>(params: RxStorageInstanceCreationParams<T, Record<string, never>>) {
      ensureRxStorageInstanceParamsAreCorrect(params);
      if (params.schema.attachments) throw new Error(`IndexedDB storage: ${params.collectionName} has attachments, which it does not keep`);
      const shape = recordShapeOf(params.schema as never);
      const databaseName = `${prefixOf(params.databaseName)}${params.collectionName}:${params.schema.version}`;
      const db = await openDatabase(databaseName, (created) => {
        const store = created.createObjectStore(DOCS, { keyPath: shape.primaryPath });
        for (const [name, fields] of shape.indexes) store.createIndex(name, fields.length === 1 ? fields[0]! : fields);
      });
      const instance = new IndexedDbInstance<T>(params.databaseName, params.collectionName, params.schema, { db, databaseName, shape });
      // A write is told to the instances of this page (changes.ts). With RxDB's multiInstance (tabs
      // sharing the replica, replication/README.md), it also goes to the other tabs' instances over
      // a BroadcastChannel, and theirs come in here: their queries, counts and caches see every
      // tab's writes. Without multiInstance, this does nothing.
      addRxStorageMultiInstanceSupport(STORAGE_NAME, params, instance);
      return instance;
    },
  };
}

const STORAGE_NAME = 'pool-indexeddb';

// The storage's own version in the name: a later way of keeping records opens new databases.
const prefixOf = (replica: string) => `pool-replica-v1:${replica}:`;

/** Deletes every database of a replica (each collection's, RxDB's own): a device that gives its replica up. */
export async function deleteReplicaDatabases(replica: string): Promise<void> {
  const names = (await indexedDB.databases()).map((d) => d.name ?? '').filter((name) => name.startsWith(prefixOf(replica)));
  await Promise.all(names.map(deleteDatabase));
}
