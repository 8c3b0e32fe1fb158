import { instanceWithWrites } from './instance-with-writes.js';
import type { BulkWriteRow, RxStorage, RxStorageBulkWriteResponse, RxStorageInstance, RxStorageInstanceCreationParams } from 'rxdb';
import type { DocState } from '../../shared/index.js';

/**
 * Makes every write the app makes to a synced collection through RxDB (`client.db`) a local
 * change that syncs. RxDB's document and collection methods (insert, bulkInsert, upsert,
 * bulkUpsert, patch, incrementalPatch, modify, incrementalModify, remove, bulkRemove) all end in
 * one `bulkWrite` of the collection's storage instance; this wraps the storage so that each such
 * write passes through `capture` first, which records it in the pending changes (or throws, and nothing is
 * written). Writes of the SDK itself (pulled states, push answers, the actions' own writes, which
 * record their changes before) carry SYNC_WRITE_CONTEXT and pass straight through.
 *
 * The alternative, RxDB's pre-write hooks, sees neither bulk removes' rows nor the base revision a
 * write was made on, and runs outside the storage write, where a crash could separate the write
 * from its pending change.
 */
export const SYNC_WRITE_CONTEXT = 'pool-sync';

/**
 * A write of the SDK's that only adds documents new to the replica, each an object nothing else
 * holds (a first sync's pulled states, replication/replica-store.ts): RxDB stores them as they are
 * instead of copying each first. Passes straight through like SYNC_WRITE_CONTEXT.
 */
export const SYNC_INSERT_CONTEXT = 'pool-sync-insert';

/**
 * RxDB's schema migration copies a collection's stored documents into the storage of its new
 * version as a storage-to-storage replication, whose writes carry this context: the documents
 * as they were, never a change of the app's (replica/migrations.ts).
 */
const MIGRATION_WRITE_CONTEXT = 'replication-master-write';

export type WriteCapture = (
  collection: string,
  rows: BulkWriteRow<DocState>[],
  context: string,
  write: () => Promise<RxStorageBulkWriteResponse<DocState>>,
) => Promise<RxStorageBulkWriteResponse<DocState>>;

/**
 * `storage`, with the writes to the named collections passed to the capture `capture()` returns
 * (bound once the database, and so the pending changes, exists). A write before it is bound is refused.
 */
export function capturingStorage<I, O>(storage: RxStorage<I, O>, collections: ReadonlySet<string>, capture: () => WriteCapture | null): RxStorage<I, O> {
  return {
    ...storage,
    name: storage.name,
    rxdbVersion: storage.rxdbVersion,
    async createStorageInstance<D>(params: RxStorageInstanceCreationParams<D, O>): Promise<RxStorageInstance<D, I, O>> {
      const instance = await storage.createStorageInstance(params);
      if (!collections.has(params.collectionName)) return instance;
      return withCapturedWrites(instance as unknown as RxStorageInstance<DocState, I, O>, capture) as unknown as RxStorageInstance<D, I, O>;
    },
  };
}

function withCapturedWrites<I, O>(instance: RxStorageInstance<DocState, I, O>, capture: () => WriteCapture | null): RxStorageInstance<DocState, I, O> {
  const name = instance.collectionName;
  return instanceWithWrites(instance, (rows, context) => {
    if (context === SYNC_WRITE_CONTEXT || context === SYNC_INSERT_CONTEXT || context === MIGRATION_WRITE_CONTEXT) return instance.bulkWrite(rows, context);
    const recorder = capture();
    if (!recorder) return Promise.reject(new Error(`${name}: the replica is not ready for writes yet`));
    return recorder(name, rows as BulkWriteRow<DocState>[], context, () => instance.bulkWrite(rows, context));
  });
}
