import type { PullAnswer } from '../../shared/index.js';
import { pullBatch, pushWithCheckpoint, type PullOptions, type PushAnswer, type SyncEndpoint } from './http.js';

/**
 * The server as the sync engine sees it: pull a page, push rows. The engine and its steps know
 * nothing of HTTP, so they can be driven by a fake in unit tests (`test/sync-engine.unit.test.ts`),
 * as RxDB's replication talks to its server only through handlers.
 */
export interface SyncRemote {
  /**
   * A page of the collection's feed; with `band`, a page of that priority band instead; with
   * `held`, a feed page that leaves out what that band on the device brought (shared/sync/priorities.ts).
   */
  pull(collection: string, checkpoint: number, limit: number, options?: PullOptions): Promise<PullAnswer>;
  /**
   * `checkpoint`: the device's pull position, so the server can say its own writes need no pulling
   * back (nor sending back on the device's live stream, which the push names when it is open).
   */
  push(collection: string, rows: unknown[], checkpoint: number): Promise<PushAnswer>;
}

/** `stream`: the id of the device's open live stream, or null. */
export function httpRemote(endpoint: SyncEndpoint, stream: () => string | null = () => null): SyncRemote {
  return {
    pull: (collection, checkpoint, limit, options) => pullBatch(endpoint, collection, { seq: checkpoint }, limit, options),
    push: (collection, rows, checkpoint) => pushWithCheckpoint(endpoint, collection, rows, checkpoint, stream()),
  };
}
