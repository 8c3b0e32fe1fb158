import { deepEqual } from 'rxdb/plugins/utils';
import { BehaviorSubject, Subject } from 'rxjs';
import { replicatedResources } from '../shared/index.js';

/** Per collection, the fields a device writes (server-owned ones are the server's to set). */
const DEVICE_FIELDS = new Map(
  replicatedResources.map((r) => [r.collection!, Object.entries(r.fields).filter(([, { meta }]) => meta.owner !== 'server').map(([f]) => f)]),
);

/**
 * Whether the server's answer changed something the device wrote (a merge or a refusal), as
 * opposed to only adding what the server sets (timestamps, numbers, totals), which every
 * accepted write comes back with.
 */
function changedByServer(collection: string, sent: Record<string, unknown> | undefined, server: Record<string, unknown>): boolean {
  if (!sent) return true;
  if (Boolean(server._deleted) !== Boolean(sent._deleted)) return true;
  return (DEVICE_FIELDS.get(collection) ?? []).some((f) => f in sent && !deepEqual(sent[f] ?? null, server[f] ?? null));
}

/**
 * What the app shows about sync. Network trouble is reported here, never thrown.
 */
export interface SyncStatus {
  /** The live stream is connected and alive (its heartbeats arrive). */
  online: boolean;
  /** Local changes the server has not acknowledged, counted from the replica (restarts included). */
  pendingPushes: number;
  /** Photos waiting for upload (refused ones excluded). */
  pendingPhotoUploads: number;
  /** When a sync cycle last completed. */
  lastSyncedAt: string | null;
  /** The last failure, cleared by the next success. */
  lastError: string | null;
}

/** A server answer that differs from what the device sent: the server's merge result, adopted. */
export interface MergedChange {
  collection: string;
  id: string;
  sent: unknown;
  server: unknown;
}

export class StatusTracker {
  readonly status$ = new BehaviorSubject<SyncStatus>({
    online: false,
    pendingPushes: 0,
    pendingPhotoUploads: 0,
    lastSyncedAt: null,
    lastError: null,
  });
  readonly conflicts$ = new Subject<MergedChange>();

  update(patch: Partial<SyncStatus>): void {
    if (this.status$.closed) return;
    const next = { ...this.status$.value, ...patch };
    if (JSON.stringify(next) !== JSON.stringify(this.status$.value)) this.status$.next(next);
  }

  succeeded(): void {
    this.update({ lastSyncedAt: new Date().toISOString(), lastError: null });
  }

  failed(error: unknown): void {
    this.update({ lastError: error instanceof Error ? error.message : String(error) });
  }

  /** Reports the answers that changed something the device wrote. */
  pushed(collection: string, sent: unknown[], answered: unknown[]): void {
    const byId = new Map(sent.map((d) => [(d as { id: string }).id, d]));
    for (const doc of answered) {
      const id = (doc as { id: string }).id;
      const sentDoc = byId.get(id) as Record<string, unknown> | undefined;
      if (changedByServer(collection, sentDoc, doc as Record<string, unknown>)) this.conflicts$.next({ collection, id, sent: sentDoc, server: doc });
    }
  }

  close(): void {
    this.status$.complete();
    this.conflicts$.complete();
  }
}
