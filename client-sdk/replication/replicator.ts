import type { RxCollection } from 'rxdb';
import { filter, pairwise, type Subscription } from 'rxjs';
import type { ReplicaDatabase } from '../replica/database.js';
import type { StatusTracker } from '../status.js';
import type { PhotoUploader } from '../uploads/photo-queue.js';
import { Checkpoints } from './checkpoints.js';
import type { Departures } from './departures.js';
import { SyncEngine } from './engine.js';
import { FirstSync } from './first-sync.js';
import type { SyncEndpoint } from './http.js';
import type { ConnectionWatch } from './liveness.js';
import type { PendingChanges } from './pending-changes.js';
import type { PieceSize } from './piece-size.js';
import { httpRemote } from './remote.js';
import { LiveStream } from './stream.js';
import type { WriteLock } from './write-lock.js';

/**
 * The replica's sync while this client replicates it: the engine (push, pull), the live stream
 * and the photo uploads, all started together and stopped together. A client alone replicates
 * from `sync.start()` to `sync.stop()`; where tabs share the replica, the leading tab does, for as
 * long as it leads (sync-control.ts). Each time is a fresh start: checkpoints and the first sync's
 * progress are read from the replica, where the tab before may have moved them.
 */
export interface Replicating {
  /** A local change was written: push soon. */
  pushSoon(): void;
  /** A photo was queued: try the uploads now. */
  kickUploads(): void;
  /** Resolves when nothing local is pending and a full pull that started after the call is done. */
  awaitInSync(): Promise<void>;
  /** Stops everything; whoever waits on `awaitInSync` is told `why`. */
  stop(why?: Error): Promise<void>;
}

export interface ReplicatorDeps {
  db: ReplicaDatabase;
  collections: readonly string[];
  writable: ReadonlySet<string>;
  endpoint: SyncEndpoint;
  watch: ConnectionWatch;
  collection(name: string): RxCollection;
  pending: PendingChanges;
  lock: WriteLock;
  departures: Departures;
  uploader: PhotoUploader;
  tracker: StatusTracker;
  writePieces: PieceSize;
  retryMs: number;
  pullBatchSize: number;
  pushBatchSize: number;
  streamIdleTimeoutMs?: number;
  /** Every failure of sync (the client shows it, and stops sync on a 401). */
  failed(error: unknown): void;
  /**
   * Other tabs queue photos in the shared replica: upload whenever the queue grows, not only
   * when this tab queued one.
   */
  uploadWhenQueued: boolean;
}

export async function startReplicating(d: ReplicatorDeps): Promise<Replicating> {
  const { tracker, uploader } = d;
  const firstSync = await FirstSync.open(d.db, ({ ready, done }) => tracker.update({ ready, firstSyncDone: done }));
  let stream: LiveStream | null = null;
  const engine = new SyncEngine(
    {
      collection: d.collection,
      pending: d.pending,
      checkpoints: new Checkpoints(d.db),
      lock: d.lock,
      remote: httpRemote(d.endpoint, () => stream?.id ?? null),
      departures: d.departures,
      firstSync,
      pullBatchSize: d.pullBatchSize,
      pushBatchSize: d.pushBatchSize,
      writePieces: d.writePieces,
    },
    { collections: d.collections, writable: d.writable, retryMs: d.retryMs },
    {
      pushed: (name, { rows, answered }) => {
        tracker.pushed(name, rows.map((r) => r.newDocumentState), answered);
        d.departures.pushed(name, rows.map((r) => r.newDocumentState.id));
        if (name === 'services') uploader.kick();
      },
      cycleSucceeded: () => {
        tracker.succeeded();
        stream?.retryNow();
      },
      failed: (error) => d.failed(error),
    },
  );
  stream = new LiveStream(d.endpoint, {
    collections: d.collections,
    retryMs: d.retryMs,
    idleTimeoutMs: d.streamIdleTimeoutMs,
    onStatus: (connected, failure) => {
      tracker.stream(connected);
      if (failure) d.failed(failure);
      if (connected) uploader.kick();
    },
    onEvent: (event) => (event === 'RESYNC' ? engine.resync() : engine.received(event)),
  });

  /** The platform says the network is back (a browser's `online`): requests on the old one are dead; try everything now. */
  function networkBack(): void {
    d.watch.networkBack();
    engine.resync();
    stream?.retryNow();
    uploader.kick();
  }
  const browser = typeof window !== 'undefined' && typeof window.addEventListener === 'function';

  tracker.started();
  if (browser) window.addEventListener('online', networkBack);
  engine.start();
  stream.start();
  uploader.start();
  const queued: Subscription | undefined = d.uploadWhenQueued
    ? uploader.pending$.pipe(pairwise(), filter(([before, now]) => now > before)).subscribe(() => uploader.kick())
    : undefined;

  return {
    pushSoon: () => engine.pushSoon(),
    kickUploads: () => uploader.kick(),
    async awaitInSync() {
      for (;;) {
        await engine.synced();
        await uploader.idle();
        if ((await d.pending.count()) === 0 && uploader.pending$.value === 0) return;
      }
    },
    async stop(why?: Error) {
      queued?.unsubscribe();
      if (browser) window.removeEventListener('online', networkBack);
      const open = stream;
      stream = null;
      await Promise.all([uploader.stop(), open?.close(), engine.stop(why)]);
    },
  };
}
