import { replicateRxCollection, type RxReplicationState } from 'rxdb/plugins/replication';
import type { RxCollection, WithDeleted } from 'rxdb';
import { READ_ONLY_COLLECTIONS } from '../replica/database.js';
import type { Checkpoint } from '../../shared/index.js';
import { pullBatch, pushRows, type SyncEndpoint } from './http.js';
import { pullAhead } from './pull-ahead.js';
import type { LiveStream } from './stream.js';

/** What RxDB's handlers return: the protocol's documents, which always carry `_deleted` from the server. */
type WithDeletedFlags<T> = T extends { documents: unknown[] } ? Omit<T, 'documents'> & { documents: WithDeleted<unknown>[] } : WithDeleted<unknown>[];
const asRxDocuments = <T>(answer: Promise<T>) => answer as unknown as Promise<WithDeletedFlags<T>>;

/**
 * Replicates one collection with RxDB's own replication (pull, push, live stream) against our
 * endpoint: what a stock RxDB app does. The SDK does not use it (see engine.ts for why); it is kept
 * to show, and test, that the server serves such clients. Conflicts are settled by the server's
 * merge; the server answers with its state and RxDB's default conflict handler adopts it.
 * Read-only collections only pull. Caveats: client-sdk/README.md, "What stock RxDB clients get".
 */
export interface ReplicateOptions {
  endpoint: SyncEndpoint;
  stream: LiveStream;
  /** Distinguishes replications of the same collection to different servers or users. */
  identifier: string;
  pullBatchSize?: number;
  pushBatchSize?: number;
  retryTime?: number;
  /** Told of every handler call, for the client's status. */
  observer?: ReplicationObserver;
}

export interface ReplicationObserver {
  pulled?(collection: string): void;
  /** `answered` are the server states the device must adopt (merged or refused rows). */
  pushed?(collection: string, sent: unknown[], answered: unknown[]): void;
  failed?(collection: string, error: unknown): void;
}

export function replicateCollection(collection: RxCollection, options: ReplicateOptions): RxReplicationState<unknown, Checkpoint> {
  const name = collection.name;
  const pullPage = pullAhead((checkpoint, limit) => pullBatch(options.endpoint, name, checkpoint, limit));
  return replicateRxCollection<unknown, Checkpoint>({
    collection,
    replicationIdentifier: `${options.identifier}:${name}`,
    live: true,
    retryTime: options.retryTime ?? 2000,
    waitForLeadership: false,
    autoStart: true,
    pull: {
      batchSize: options.pullBatchSize ?? 1000,
      handler: (checkpoint, batchSize) =>
        observe(options.observer, name, asRxDocuments(pullPage(checkpoint, batchSize)), (o) => o.pulled?.(name)),
      stream$: options.stream.events(name) as never,
    },
    push: READ_ONLY_COLLECTIONS.has(name)
      ? undefined
      : {
          batchSize: options.pushBatchSize ?? 200,
          handler: (rows) =>
            observe(options.observer, name, asRxDocuments(pushRows(options.endpoint, name, rows)), (o, answered) =>
              o.pushed?.(name, rows.map((r) => r.newDocumentState), answered),
            ),
        },
  });
}

async function observe<T>(
  observer: ReplicationObserver | undefined,
  name: string,
  call: Promise<T>,
  done: (observer: ReplicationObserver, result: T) => void,
): Promise<T> {
  try {
    const result = await call;
    if (observer) done(observer, result);
    return result;
  } catch (error) {
    observer?.failed?.(name, error);
    throw error;
  }
}
