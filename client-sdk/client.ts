import type { RxStorage } from 'rxdb';
import type { RxReplicationState } from 'rxdb/plugins/replication';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { firstValueFrom, type Observable } from 'rxjs';
import { filter } from 'rxjs/operators';
import type { Quote, Service, StockMovement } from '../shared/index.js';
import { createQuote, type QuoteInput } from './actions/quotes.js';
import { transferStock, useStock } from './actions/stock.js';
import { addVisitPhoto, recordVisit, updateVisit, type PhotoBytes, type VisitInput } from './actions/visits.js';
import { COLLECTION_NAMES, createReplicaDatabase, type ReplicaDatabase } from './replica/database.js';
import type { Checkpoint, SyncEndpoint } from './replication/http.js';
import { replicateCollection } from './replication/replicate.js';
import { LiveStream } from './replication/stream.js';
import { StatusTracker, type MergedChange, type SyncStatus } from './status.js';
import { PHOTO_QUEUE, PhotoUploader, type QueuedPhoto } from './uploads/photo-queue.js';

/** IndexedDB (through Dexie, RxDB's open-source IndexedDB storage) in a browser; memory in Node. */
async function defaultStorage(): Promise<RxStorage<unknown, unknown>> {
  if (typeof indexedDB !== 'undefined') {
    const { getRxStorageDexie } = await import('rxdb/plugins/storage-dexie');
    return getRxStorageDexie() as RxStorage<unknown, unknown>;
  }
  return getRxStorageMemory() as RxStorage<unknown, unknown>;
}

export interface PoolClientOptions {
  baseUrl: string;
  token: string;
  /** Any RxStorage; default IndexedDB (Dexie) in a browser, RxDB's memory storage in Node. */
  storage?: RxStorage<unknown, unknown>;
  /** Replica name: a client opened again with the same name and storage continues where it was. */
  name?: string;
  /** Collections to replicate (default all ten); fewer leaves room under RxDB's 13-collection limit. */
  collections?: readonly string[];
  /** For tests and custom transports. */
  fetch?: typeof fetch;
  /** First wait before retrying after a failure (backoff grows from there). */
  retryMs?: number;
}

export interface PoolClient {
  db: ReplicaDatabase;
  sync: {
    start(): void;
    stop(): Promise<void>;
    /** Resolves when every collection has pulled and pushed everything, and no photo waits. */
    awaitInSync(): Promise<void>;
    status$: Observable<SyncStatus>;
  };
  /** Documents the server answered with after merging (the replica has adopted them). */
  conflicts$: Observable<MergedChange>;
  recordVisit(input: VisitInput): Promise<Service>;
  updateVisit(id: string, patch: VisitInput): Promise<Service>;
  addVisitPhoto(visitId: string, bytes: PhotoBytes, caption?: string | null): Promise<string>;
  useStock(itemId: string, locationId: string, quantity: number, visitId?: string | null): Promise<StockMovement>;
  transferStock(itemId: string, fromLocationId: string, toLocationId: string, quantity: number): Promise<StockMovement>;
  createQuote(input: QuoteInput): Promise<Quote>;
  /** Stops sync and closes the replica (its collections count against RxDB's per-process limit). */
  close(): Promise<void>;
}

/**
 * The SDK: an RxDB replica that works offline for days and syncs when it can.
 *
 * @example
 *   const client = await createPoolClient({ baseUrl: 'https://api.example.com', token })
 *   client.sync.start()
 *   const visit = await client.recordVisit({ customerId, readings: { freeChlorine: 2.5, ph: 7.4 } })
 *   await client.addVisitPhoto(visit.id, jpegBytes, 'Before')
 *   client.sync.status$.subscribe((s) => render(s.online, s.pendingPushes))
 */
export async function createPoolClient(options: PoolClientOptions): Promise<PoolClient> {
  const collections = options.collections ?? COLLECTION_NAMES;
  const endpoint: SyncEndpoint = { baseUrl: options.baseUrl.replace(/\/+$/, ''), token: options.token, fetch: options.fetch };
  const db = await createReplicaDatabase(options.name ?? 'pool-replica', options.storage ?? (await defaultStorage()), collections);
  const tracker = new StatusTracker();
  const uploader = new PhotoUploader(
    db.collections[PHOTO_QUEUE] as never as import('rxdb').RxCollection<QueuedPhoto>,
    endpoint,
    (ok, error) => (ok ? tracker.succeeded() : tracker.failed(error)),
    options.retryMs ?? 1000,
  );
  uploader.pending$.subscribe((n) => tracker.update({ pendingPhotoUploads: n }));

  let stream: LiveStream | null = null;
  let replications: RxReplicationState<unknown, Checkpoint>[] = [];

  function start(): void {
    if (stream) return;
    stream = new LiveStream(endpoint, {
      collections,
      retryMs: options.retryMs ?? 1000,
      onStatus: (connected, error) => {
        if (connected) {
          tracker.update({ online: true });
          uploader.kick();
        } else tracker.failed(error ?? 'live stream disconnected');
      },
    });
    replications = collections.map((name) =>
      replicateCollection(db.collections[name]!, {
        endpoint,
        stream: stream!,
        identifier: `pool:${endpoint.baseUrl}`,
        retryTime: options.retryMs ?? 1000,
        observer: {
          pulled: () => tracker.succeeded(),
          pushed: (collection, sent, answered) => {
            tracker.pushed(collection, sent, answered);
            if (collection === 'services') uploader.kick();
          },
          failed: (_c, error) => tracker.failed(error),
        },
      }),
    );
    stream.start();
    uploader.start();
  }

  async function stop(): Promise<void> {
    uploader.stop();
    stream?.close();
    stream = null;
    await Promise.all(replications.map((r) => r.cancel()));
    replications = [];
  }

  async function awaitInSync(): Promise<void> {
    if (!stream) throw new Error('sync is not started');
    for (let round = 0; round < 3; round++) {
      await Promise.all(replications.map((r) => r.awaitInSync()));
      await uploader.idle();
    }
    await firstValueFrom(tracker.status$.pipe(filter((s) => s.pendingPhotoUploads === 0)));
  }

  const tracked = async <T extends { id: string }>(collection: string, write: Promise<T>): Promise<T> => {
    const doc = await write;
    tracker.wrote(collection, doc.id);
    return doc;
  };

  return {
    db,
    sync: { start, stop, awaitInSync, status$: tracker.status$.asObservable() },
    conflicts$: tracker.conflicts$.asObservable(),
    recordVisit: (input) => tracked('services', recordVisit(db, input)),
    updateVisit: (id, patch) => tracked('services', updateVisit(db, id, patch)),
    addVisitPhoto: async (visitId, bytes, caption) => {
      const id = await addVisitPhoto(db, visitId, bytes, caption ?? null);
      tracker.wrote('services', visitId);
      uploader.kick();
      return id;
    },
    useStock: (itemId, locationId, quantity, visitId) => tracked('stockMovements', useStock(db, itemId, locationId, quantity, visitId ?? null)),
    transferStock: (itemId, from, to, quantity) => tracked('stockMovements', transferStock(db, itemId, from, to, quantity)),
    createQuote: (input) => tracked('quotes', createQuote(db, input)),
    async close() {
      await stop();
      tracker.close();
      await db.close();
    },
  };
}
