import type { RxStorage } from 'rxdb';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { filter, firstValueFrom, Subject, type Observable, type Subscription } from 'rxjs';
import { isDeparture, MAX_PUSH_ROWS, PULL_LIMIT, type CollectionName, type DocumentOf, type PriorityName, type Payment, type Quote, type Service, type StockMovement } from '../shared/index.js';
import { correctDose, recordDose, type DoseInput } from './actions/doses.js';
import { createQuote, type QuoteInput } from './actions/quotes.js';
import type { Replica } from './actions/replica.js';
import { transferStock, useStock } from './actions/stock.js';
import { balanceDue$, takePayment, type BalanceDue, type TakePaymentInput } from './actions/payments.js';
import { addVisitPhoto, recordVisit, updateVisit, type PhotoBytes, type VisitInput } from './actions/visits.js';
import { badInput } from './errors.js';
import { collectionByName, COLLECTION_NAMES, createReplicaDatabase, READ_ONLY_COLLECTIONS, type ReplicaDatabase } from './replica/database.js';
import { Departures, type Departure } from './replication/departures.js';
import { nextMove, SyncFailure } from './replication/failure.js';
import { FirstSync, firstSyncState$ } from './replication/first-sync.js';
import { Checkpoints } from './replication/checkpoints.js';
import { probe, type SyncEndpoint } from './replication/http.js';
import { ConnectionWatch } from './replication/liveness.js';
import { LocalChanges } from './replication/local-changes.js';
import { PendingChanges } from './replication/pending-changes.js';
import { PENDING_CHANGES } from './replica/local-collections.js';
import { PieceSize } from './replication/piece-size.js';
import { readStored } from './replication/replica-store.js';
import { startReplicating } from './replication/replicator.js';
import { SyncControl } from './replication/sync-control.js';
import { unsyncedSince$ } from './replication/unsynced.js';
import type { StorageFull } from './replica/storage-full.js';
import { moveReplicaFromDexie } from './replica/indexeddb/from-dexie.js';
import { indexedDbStorage } from './replica/indexeddb/storage.js';
import { WriteLock } from './replication/write-lock.js';
import { wipeSyncedDocuments, type WipeResult } from './replication/wipe.js';
import { StatusTracker, type MergedChange, type SyncStatus } from './status.js';
import { DEFAULT_UPLOAD_STALL_MS, PhotoUploader } from './uploads/photo-queue.js';
import { PHOTO_QUEUE } from './replica/local-collections.js';

/** IndexedDB in a browser (replica/indexeddb/); memory in Node. */
async function defaultStorage(): Promise<RxStorage<unknown, unknown>> {
  if (typeof indexedDB !== 'undefined') return indexedDbStorage() as RxStorage<unknown, unknown>;
  return getRxStorageMemory() as RxStorage<unknown, unknown>;
}

/** Whether this JavaScript context can share a replica with others of its browser profile: Web Locks and BroadcastChannel. */
function tabsCanShare(): boolean {
  return typeof navigator !== 'undefined' && typeof navigator.locks?.request === 'function' && typeof BroadcastChannel === 'function';
}

/** Synced collections a client may open: RxDB's 13 per process, less the pending changes and the photo queue. */
export const MAX_SYNCED_COLLECTIONS = 11;
/** What a client replicates unless told otherwise: everything but the recurring schedule, which no app on a device reads. */
export const DEFAULT_COLLECTIONS: readonly CollectionName[] = COLLECTION_NAMES.filter((c) => c !== 'appointments');

export interface PoolClientOptions {
  baseUrl: string;
  token: string;
  /** Any RxStorage; default the SDK's own IndexedDB storage in a browser (replica/indexeddb/), RxDB's memory storage in Node. */
  storage?: RxStorage<unknown, unknown>;
  /** Replica name: a client opened again with the same name and storage continues where it was. */
  name?: string;
  /**
   * Collections to replicate: default every one but `appointments` (eleven), which neither app
   * reads; with the two local ones that is RxDB's open-source limit of 13 collections per process.
   * Naming more than eleven is refused; fewer leaves room for another client in the process.
   */
  collections?: readonly string[];
  /** For tests and custom transports. */
  fetch?: typeof fetch;
  /** First wait before retrying after a failure (backoff grows from there, to 30 s). */
  retryMs?: number;
  /** Deadline of one pull, push or stream connection attempt (default 30 s). */
  requestTimeoutMs?: number;
  /**
   * The least time a photo upload waits for its answer (default 10 s); each upload also gets the
   * time its bytes take at 32 KB/s, doubled for each earlier attempt of the photo that ran out.
   */
  uploadStallMs?: number;
  /** Silence after which the live stream counts as dead; default 2.5 x the server's heartbeat. */
  streamIdleTimeoutMs?: number;
  /** Documents per pull (default 1000, at most 5000) and per push (default 200, at most 2000). */
  pullBatchSize?: number;
  pushBatchSize?: number;
  /**
   * The sync protocol version this client says it speaks (default: this SDK's, the protocol's
   * current version). For tests that play an app from before an upgrade: 0 names no version,
   * as apps from before versions did (shared/sync/README.md, "Versions").
   */
  protocolVersion?: number;
  /**
   * Tabs (and workers) of one browser profile that open the same replica share it: one of them
   * replicates, every one sees every change at once, and when it closes another takes over
   * (client-sdk/replication/README.md). Default: true with the default storage in a browser that
   * has Web Locks and BroadcastChannel (every current one); false otherwise (Node, or a storage
   * of the app's, which may not pass changes between tabs). True where it cannot work throws.
   */
  sharedAcrossTabs?: boolean;
}

export interface PoolClient {
  db: ReplicaDatabase;
  sync: {
    /**
     * Starts syncing. Where tabs share the replica (`sharedAcrossTabs`), this tab joins them: it
     * replicates if no other tab does, and takes over when the one that does closes; meanwhile its
     * changes go to the shared replica, which the leading tab pushes, and `status$` is the leader's.
     */
    start(): void;
    /** Stops syncing here (where tabs share the replica, another started tab takes over). */
    stop(): Promise<void>;
    /**
     * True while this client is the one replicating: always once started when alone; where tabs
     * share the replica, in one tab at a time.
     */
    leader$: Observable<boolean>;
    /**
     * Resolves when nothing local is pending (changes pushed and acknowledged, photos uploaded)
     * and the replica has pulled everything the server had when it was called. Waits through
     * network trouble; `timeoutMs` makes it reject instead. In a tab that does not lead, the
     * leader is asked (and the next one, should it close meanwhile).
     */
    awaitInSync(options?: { timeoutMs?: number }): Promise<void>;
    /**
     * Where sync stands. Where tabs share the replica, every tab tells the same: the counts, the
     * first sync's progress and what waits are read from the shared replica, and the state, last
     * sync and last failure are the leading tab's.
     */
    status$: Observable<SyncStatus>;
    /**
     * Resolves once the first sync's band is on the device ('today': today's visits and their
     * customers; 'week': this week's), or, with 'all', once everything has been pulled once; at
     * once when it already is (also offline, after an earlier first sync). `timeoutMs` makes it
     * reject instead of waiting on.
     */
    awaitReady(band: PriorityName | 'all', options?: { timeoutMs?: number }): Promise<void>;
    /** Local changes the server refused as they are (say, a document too large to sync), kept on the device until changed again. */
    refusedChanges(): Promise<{ collection: string; id: string; reason: string }[]>;
  };
  /** Documents the server answered with after merging (the replica has adopted them); every tab sharing the replica hears of them. */
  conflicts$: Observable<MergedChange>;
  /**
   * Rows that left this device's scope and are gone from the replica (a visit given to another
   * technician, a truck to someone else). `changesDelivered`: changes made on the device were
   * pushed first. Every tab sharing the replica hears of them.
   */
  departures$: Observable<Departure>;
  /**
   * Writes the device's storage refused for want of space (the browser's quota for the site is
   * used up), whoever made them in this tab (the app, or sync where this tab replicates): the
   * write failed and nothing of it was kept. Apps must tell the person (what they entered exists
   * only on screen), as both apps do (their READMEs say how).
   */
  storageFull$: Observable<StorageFull>;
  recordVisit(input: VisitInput): Promise<Service>;
  updateVisit(id: string, patch: VisitInput): Promise<Service>;
  addVisitPhoto(visitId: string, bytes: PhotoBytes, caption?: string | null): Promise<string>;
  useStock(itemId: string, locationId: string, quantity: number, visitId?: string | null): Promise<StockMovement>;
  transferStock(itemId: string, fromLocationId: string, toLocationId: string, quantity: number): Promise<StockMovement>;
  /** A chemical poured on a visit, from a location (the truck): a USE movement carrying what was suggested. */
  recordDose(input: DoseInput): Promise<StockMovement>;
  /** How much of a recorded dose was really used (whole units of its item): one compensating movement of the difference. */
  correctDose(movementId: string, usedQuantity: number): Promise<StockMovement>;
  createQuote(input: QuoteInput): Promise<Quote>;
  /**
   * A payment taken at the door (cash or a check), with its own id: written to the replica at once
   * (offline too, kept across restarts), pushed once; the server applies it to the customer's
   * invoices (those named first, then the oldest owed). Bad input throws before anything is written.
   */
  takePayment(input: TakePaymentInput): Promise<Payment>;
  /**
   * What a customer owes as this device knows it: their open invoices' balances as last synced,
   * less the payments taken here that the server has not accepted yet; emits again whenever
   * either changes (see actions/payments.ts).
   */
  balanceDue$(customerId: string): Observable<BalanceDue>;
  /** The same, once. */
  balanceDue(customerId: string): Promise<BalanceDue>;
  /** Changes fields of any writable document (validated against the shared definition first). */
  patch<C extends CollectionName>(collection: C, id: string, fields: Partial<DocumentOf<C>>): Promise<DocumentOf<C>>;
  /** Deletes a document of a writable collection (the tombstone replicates). */
  remove(collection: CollectionName, id: string): Promise<void>;
  /**
   * Deletes what the replica holds of the organization, keeping only this device's work not yet
   * synced: the pending changes (with their bases) and the documents they change, and the queued
   * photos and the documents they belong to. What an app does once `status.state` is `signed-out`
   * (a token revoked or expired): a lost phone keeps nothing of the customers. Sync stops first;
   * the checkpoints and the first sync start over, so a client signed in again on this replica
   * pushes the kept work (each change once: the server keeps receipts of change ids) and pulls its
   * scope anew. See replication/wipe.ts.
   */
  wipeSyncedData(): Promise<WipeResult>;
  /** Stops sync (where tabs share the replica, another takes over), aborts every request in flight and closes the replica. */
  close(): Promise<void>;
}

/**
 * The SDK: an RxDB replica that works offline for days and syncs when it can. In a browser, tabs
 * that open the same replica share it: one syncs for all, each sees every change at once
 * (`sharedAcrossTabs`; client-sdk/replication/README.md).
 *
 * @example
 *   const client = await createPoolClient({ baseUrl: 'https://api.example.com', token })
 *   client.sync.start()
 *   const visit = await client.recordVisit({ customerId, readings: { freeChlorine: 2.5, ph: 7.4 } })
 *   await client.addVisitPhoto(visit.id, jpegBytes, 'Before')
 *   client.sync.status$.subscribe((s) => render(s.online, s.pendingPushes))
 */
export async function createPoolClient(options: PoolClientOptions): Promise<PoolClient> {
  const collections = COLLECTION_NAMES.filter((c) => (options.collections ?? DEFAULT_COLLECTIONS).includes(c));
  if (collections.length > MAX_SYNCED_COLLECTIONS) {
    throw badInput(`collections: at most ${MAX_SYNCED_COLLECTIONS} (RxDB's open-source edition opens 13 collections per process, and the replica keeps two of its own); ${collections.length} named`);
  }
  const name = options.name ?? 'pool-replica';
  const shared = options.sharedAcrossTabs ?? (!options.storage && typeof indexedDB !== 'undefined' && tabsCanShare());
  if (shared && !tabsCanShare()) throw badInput('sharedAcrossTabs: this context has no Web Locks or BroadcastChannel to share a replica with');
  const closing = new AbortController();
  const watch = new ConnectionWatch(() => probe(endpoint));
  const endpoint: SyncEndpoint = {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    token: options.token,
    fetch: options.fetch,
    requestTimeoutMs: options.requestTimeoutMs,
    ...(options.protocolVersion === undefined ? {} : { protocolVersion: options.protocolVersion }),
    signal: closing.signal,
    watch,
  };
  const retryMs = options.retryMs ?? 1000;
  // Bound below, once the pending changes exists: the app's RxDB writes to synced collections go through it.
  let capture: LocalChanges | null = null;
  const storageFull$ = new Subject<StorageFull>();
  const db = await createReplicaDatabase(name, options.storage ?? (await defaultStorage()), collections, {
    capture: () => (capture ? (...args) => capture!.captured(...args) : null),
    onStorageFull: (full) => storageFull$.next(full),
    multiInstance: shared,
  });
  // One lock for every tab of the replica: a follower's edit and the leader's pull take turns.
  const lock = new WriteLock(shared ? `pool-replica-writes:${name}` : undefined);
  // A browser's replica kept by an SDK from before this storage brings its unsynced work along (one tab moves it).
  if (!options.storage && typeof indexedDB !== 'undefined') await lock.run(() => moveReplicaFromDexie(db));
  const tracker = new StatusTracker();
  const pending = new PendingChanges(db.collections[PENDING_CHANGES]);
  const collection = (name: string) => {
    const c = collectionByName(db, name);
    if (!c) throw badInput(`${name} is not replicated by this client`);
    return c;
  };
  const uploader = new PhotoUploader(
    db.collections[PHOTO_QUEUE],
    endpoint,
    { succeeded: () => tracker.succeeded(), failed: (failure) => failedWith(failure) },
    retryMs,
    options.uploadStallMs ?? DEFAULT_UPLOAD_STALL_MS,
    // Deleted, not departed: a visit that moved to another technician lives on, and so do its photos.
    async (parent, id) => {
      const replicaOf = db.collections[parent];
      const stored = replicaOf ? (await readStored(replicaOf, [id])).get(id) : undefined;
      return stored?._deleted === true && !isDeparture(stored);
    },
  );
  const departures = new Departures((d) => tracker.departures$.next(d));
  const control = new SyncControl(
    () =>
      startReplicating({
        db,
        collections,
        writable: new Set(collections.filter((c) => !READ_ONLY_COLLECTIONS.has(c))),
        endpoint,
        watch,
        collection,
        pending,
        lock,
        departures,
        uploader,
        tracker,
        writePieces: new PieceSize(),
        retryMs,
        pullBatchSize: Math.min(options.pullBatchSize ?? PULL_LIMIT.default, PULL_LIMIT.max),
        pushBatchSize: Math.min(options.pushBatchSize ?? 200, MAX_PUSH_ROWS),
        streamIdleTimeoutMs: options.streamIdleTimeoutMs,
        failed: (error) => failedWith(error),
        uploadWhenQueued: shared,
      }),
    tracker,
    shared ? name : null,
  );
  const changes = new LocalChanges(collection, pending, lock, () => control.pushSoon());
  capture = changes;
  const replica: Replica = { db, changes };
  // What the status reads from the replica, in every tab alike: another tab's writes show too.
  const firstSync$ = firstSyncState$(db);
  const { ready, done } = await firstValueFrom(firstSync$);
  tracker.update({ ready, firstSyncDone: done });
  const counts: Subscription[] = [
    firstSync$.subscribe((state) => tracker.update({ ready: state.ready, firstSyncDone: state.done })),
    pending.count$().subscribe((n) => tracker.update({ pendingPushes: n })),
    pending.refusedCount$().subscribe((n) => tracker.update({ refusedChanges: n })),
    uploader.pending$.subscribe((n) => tracker.update({ pendingPhotoUploads: n })),
    unsyncedSince$(db.collections[PENDING_CHANGES], db.collections[PHOTO_QUEUE]).subscribe((since) => tracker.update({ unsyncedSince: since })),
  ];

  /**
   * Every failure of sync is shown; a 401 or a 426 also stops it, since no retry can succeed until
   * the app signs in again or is updated. Stopping touches no pending change: they wait on the device.
   */
  function failedWith(error: unknown): void {
    tracker.failed(error);
    if (error instanceof SyncFailure && 'stop' in nextMove(error)) void control.stop(error);
  }

  async function awaitInSync({ timeoutMs }: { timeoutMs?: number } = {}): Promise<void> {
    return withTimeout(control.awaitInSync(), timeoutMs, 'not in sync');
  }

  async function awaitReady(band: PriorityName | 'all', { timeoutMs }: { timeoutMs?: number } = {}): Promise<void> {
    const ready = firstValueFrom(tracker.status$.pipe(filter((s) => s.firstSyncDone || (band !== 'all' && s.ready.includes(band)))));
    await withTimeout(ready, timeoutMs, `${band === 'all' ? 'the first sync' : `the ${band} band`} not on the device`);
  }

  function patch<C extends CollectionName>(name: C, id: string, fields: Partial<DocumentOf<C>>): Promise<DocumentOf<C>> {
    return changes.update(name, id, `patch ${name}`, () => fields);
  }

  async function wipeSyncedData(): Promise<WipeResult> {
    await control.stop();
    return lock.run(async () => {
      const wiped = await wipeSyncedDocuments(db, collections);
      // Replication reads where it stands from the replica when it starts: from the beginning again, bands first.
      await new Checkpoints(db).reset(collections);
      await (await FirstSync.open(db, () => {})).reset();
      return wiped;
    });
  }

  async function refusedChanges() {
    return (await pending.refused()).map((e) => ({ collection: e.collectionName, id: e.docId, reason: e.refused ?? '' }));
  }

  return {
    db,
    sync: {
      start: () => {
        if (!closing.signal.aborted) control.start();
      },
      stop: () => control.stop(),
      leader$: control.leader$.asObservable(),
      awaitInSync,
      awaitReady,
      status$: tracker.status$.asObservable(),
      refusedChanges,
    },
    conflicts$: tracker.conflicts$.asObservable(),
    departures$: tracker.departures$.asObservable(),
    storageFull$: storageFull$.asObservable(),
    recordVisit: (input) => recordVisit(replica, input),
    updateVisit: (id, fields) => updateVisit(replica, id, fields),
    addVisitPhoto: async (visitId, bytes, caption) => {
      const id = await addVisitPhoto(replica, visitId, bytes, caption ?? null);
      control.kickUploads();
      return id;
    },
    useStock: (itemId, locationId, quantity, visitId) => useStock(replica, itemId, locationId, quantity, visitId ?? null),
    transferStock: (itemId, from, to, quantity) => transferStock(replica, itemId, from, to, quantity),
    recordDose: (input) => recordDose(replica, input),
    correctDose: (movementId, usedQuantity) => correctDose(replica, movementId, usedQuantity),
    createQuote: (input) => createQuote(replica, input),
    takePayment: (input) => takePayment(replica, input),
    balanceDue$: (customerId) => balanceDue$(replica, customerId),
    balanceDue: (customerId) => firstValueFrom(balanceDue$(replica, customerId)),
    patch,
    remove: async (name, id) => {
      await changes.remove(name, id, `remove ${name}`);
    },
    wipeSyncedData,
    async close() {
      closing.abort(new Error('client closed'));
      watch.close();
      await control.close();
      await lock.run(async () => undefined);
      for (const s of counts) s.unsubscribe();
      tracker.close();
      await db.close();
    },
  };
}

/** `promise`, or a rejection naming `what` once `timeoutMs` has passed (no timeout: the promise itself). */
function withTimeout<T>(promise: Promise<T>, timeoutMs: number | undefined, what: string): Promise<T> {
  if (!timeoutMs) return promise;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}
