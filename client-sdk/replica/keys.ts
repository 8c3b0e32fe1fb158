import { instanceWithWrites } from './instance-with-writes.js';
import type { RxStorage, RxStorageInstance, RxStorageInstanceCreationParams } from 'rxdb';
import { REPLICA_KEYS, replicaKeysOf } from '../../shared/index.js';

/**
 * `storage`, with each write to a collection that has replica keys (shared/sync/replica-keys.ts)
 * given its keys, derived from the document being written: whoever writes (a pull, a push answer,
 * the app's own change, a schema migration), the replica's indexes hold. Nothing else changes.
 */
export function keyedStorage<I, O>(storage: RxStorage<I, O>): RxStorage<I, O> {
  return {
    ...storage,
    name: storage.name,
    rxdbVersion: storage.rxdbVersion,
    async createStorageInstance<D>(params: RxStorageInstanceCreationParams<D, O>): Promise<RxStorageInstance<D, I, O>> {
      const instance = await storage.createStorageInstance(params);
      if (!Object.hasOwn(REPLICA_KEYS, params.collectionName)) return instance;
      return withKeys(instance, params.collectionName);
    },
  };
}

function withKeys<D, I, O>(instance: RxStorageInstance<D, I, O>, collection: string): RxStorageInstance<D, I, O> {
  return instanceWithWrites(instance, (rows, context) => {
    const keyed = rows.map((row) => {
      const keys = replicaKeysOf(collection, row.document as Record<string, unknown>)!;
      // The document is the writer's own (a pulled state, RxDB's new revision): keyed in place,
      // unless RxDB's dev-mode froze it.
      const document = Object.isFrozen(row.document) ? { ...row.document, ...keys } : Object.assign(row.document as object, keys);
      return { ...row, document: document as typeof row.document };
    });
    return instance.bulkWrite(keyed, context);
  });
}
