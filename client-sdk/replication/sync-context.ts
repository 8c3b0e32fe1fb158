import type { RxCollection } from 'rxdb';
import type { Checkpoints } from './checkpoints.js';
import type { Departures } from './departures.js';
import type { FirstSync } from './first-sync.js';
import type { PendingChanges } from './pending-changes.js';
import type { PieceSize } from './piece-size.js';
import type { SyncRemote } from './remote.js';
import type { WriteLock } from './write-lock.js';

/** What the engine's push and pull steps share: the replica, its pending changes and checkpoints, the server. */
export interface SyncContext {
  collection(name: string): RxCollection;
  pending: PendingChanges;
  checkpoints: Checkpoints;
  lock: WriteLock;
  remote: SyncRemote;
  pullBatchSize: number;
  pushBatchSize: number;
  /** How many pulled documents to write at a time, learnt from this replica's own writes. */
  writePieces: PieceSize;
  /** Told of rows that left the device's scope. */
  departures?: Departures;
  /** The first sync's progress; without it, no priority bands are pulled. */
  firstSync?: FirstSync;
}
