import type { RxStorageInstance } from 'rxdb';

/**
 * A storage instance that is `instance` in everything but its writes. The replica's storage
 * wrappers (keys.ts, capture.ts, storage-full.ts) each change only what a write does; the rest is
 * delegated here once.
 */
export function instanceWithWrites<D, I, O>(instance: RxStorageInstance<D, I, O>, bulkWrite: RxStorageInstance<D, I, O>['bulkWrite']): RxStorageInstance<D, I, O> {
  return {
    databaseName: instance.databaseName,
    internals: instance.internals,
    options: instance.options,
    schema: instance.schema,
    collectionName: instance.collectionName,
    underlyingPersistentStorage: instance.underlyingPersistentStorage,
    bulkWrite,
    findDocumentsById: instance.findDocumentsById.bind(instance),
    query: instance.query.bind(instance),
    count: instance.count.bind(instance),
    getAttachmentData: instance.getAttachmentData.bind(instance),
    getChangedDocumentsSince: instance.getChangedDocumentsSince?.bind(instance),
    changeStream: instance.changeStream.bind(instance),
    cleanup: instance.cleanup.bind(instance),
    close: instance.close.bind(instance),
    remove: instance.remove.bind(instance),
  };
}
