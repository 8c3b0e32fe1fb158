import { replicateRxCollection, type RxReplicationState } from 'rxdb/plugins/replication';
import type { RxCollection } from 'rxdb';
import { pullBatch, pushRows, type Checkpoint, type SyncEndpoint } from './http.js';
import type { LiveStream } from './stream.js';

/**
 * Replicates one collection with RxDB's own replication (pull, push, live stream) against our
 * endpoint. Conflicts are settled by the server's merge; the server answers with its state and
 * RxDB's default conflict handler adopts it. Read-only collections only pull.
 */
export const READ_ONLY_COLLECTIONS = new Set(['organization', 'serviceTypes', 'stockLevels']);

export interface ReplicateOptions {
  endpoint: SyncEndpoint;
  stream: LiveStream;
  /** Distinguishes replications of the same collection to different servers or users. */
  identifier: string;
  pullBatchSize?: number;
  pushBatchSize?: number;
  retryTime?: number;
}

export function replicateCollection(collection: RxCollection, options: ReplicateOptions): RxReplicationState<unknown, Checkpoint> {
  const name = collection.name;
  return replicateRxCollection<unknown, Checkpoint>({
    collection,
    replicationIdentifier: `${options.identifier}:${name}`,
    live: true,
    retryTime: options.retryTime ?? 2000,
    waitForLeadership: false,
    autoStart: true,
    pull: {
      batchSize: options.pullBatchSize ?? 1000,
      handler: (checkpoint, batchSize) => pullBatch(options.endpoint, name, checkpoint, batchSize),
      stream$: options.stream.events(name) as never,
    },
    push: READ_ONLY_COLLECTIONS.has(name)
      ? undefined
      : {
          batchSize: options.pushBatchSize ?? 200,
          handler: (rows) => pushRows(options.endpoint, name, rows),
        },
  });
}
