import { deepEqual } from 'rxdb/plugins/utils';
import { BehaviorSubject, Subject } from 'rxjs';
import { replicatedResources, type PriorityName } from '../shared/index.js';
import type { Departure } from './replication/departures.js';
import { SyncFailure, type FailureKind } from './replication/failure.js';

/** Per collection, the fields a device writes (server-owned ones are the server's to set). */
const DEVICE_FIELDS = new Map<string, string[]>(
  replicatedResources.map((r) => [r.collection, Object.entries(r.fields).filter(([, { meta }]) => meta.owner !== 'server').map(([f]) => f)]),
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
 * Where sync stands, one word for the app to show:
 * - stopped: not started, or stopped by the app;
 * - connecting: started, the live stream not yet up, nothing failed yet;
 * - online: the live stream is up and alive (its heartbeats arrive);
 * - offline: the stream is down and the last attempt failed (no network, or the server failing);
 *   sync retries by itself;
 * - rate-limited: the server asked to wait (429); sync resumes by itself when the time is up;
 * - signed-out: the server does not accept the token (401: revoked or unknown); sync has stopped,
 *   and the app must sign in again;
 * - update-required: the server no longer serves the sync protocol this app speaks (426); sync
 *   has stopped with every pending change kept on the device, and the app must be updated (an
 *   updated app opened on the same replica pushes them).
 */
export type SyncState = 'stopped' | 'connecting' | 'online' | 'offline' | 'rate-limited' | 'signed-out' | 'update-required';

/**
 * What the app shows about sync. Network trouble is reported here, never thrown.
 */
export interface SyncStatus {
  state: SyncState;
  /** The live stream is connected and alive (`state === 'online'`). */
  online: boolean;
  /** Local changes the server has not acknowledged, counted from the replica (restarts included). */
  pendingPushes: number;
  /** Local changes the server refused as they are (too large, invalid), kept on the device; see `sync.refusedChanges()`. */
  refusedChanges: number;
  /** Photos waiting for upload (refused ones excluded). */
  pendingPhotoUploads: number;
  /**
   * When the oldest change or photo still waiting for the server was made on this device (null
   * when nothing waits): work a lost or wiped device would lose. Apps show it as at risk after a
   * while (the apps: 12 hours unless set).
   */
  unsyncedSince: string | null;
  /** When a sync cycle last completed. */
  lastSyncedAt: string | null;
  /** The last failure, cleared by the next success. */
  lastError: string | null;
  /** Its kind (see client-sdk/replication/failure.ts), or null. */
  errorKind: FailureKind | null;
  /**
   * Once `signed-out`: why the server refused the token, as it said (`revoked`: the office revoked
   * this device; `expired`: unused longer than the server allows; `unknown`: never issued), so the
   * app can tell the person. Null otherwise. See `client.wipeSyncedData()` for what an app does next.
   */
  signedOutReason: string | null;
  /**
   * The first sync's priority bands on the device (shared/sync/priorities.ts), in order: 'today'
   * once today's visits and their customers are here, 'week' once this week's are. Kept across
   * restarts; every band once `firstSyncDone`.
   */
  ready: PriorityName[];
  /** Every collection has been pulled to the end once: the device holds its whole scope. */
  firstSyncDone: boolean;
}

/** A server answer that differs from what the device sent: the server's merge result, adopted. */
export interface MergedChange {
  collection: string;
  id: string;
  sent: unknown;
  server: unknown;
}

/** What the state is made of; `state` is derived from these alone (see `stateOf`). */
interface Condition {
  started: boolean;
  streamAlive: boolean;
  failedSinceStart: boolean;
  /** Set by a 401 or a 426 (until started again) or a 429 (until the next success). */
  blocked: 'signed-out' | 'update-required' | 'rate-limited' | null;
}

function stateOf(c: Condition): SyncState {
  if (!c.started) return c.blocked === 'signed-out' || c.blocked === 'update-required' ? c.blocked : 'stopped';
  if (c.blocked) return c.blocked;
  if (c.streamAlive) return 'online';
  return c.failedSinceStart ? 'offline' : 'connecting';
}

export class StatusTracker {
  private condition: Condition = { started: false, streamAlive: false, failedSinceStart: false, blocked: null };
  readonly status$ = new BehaviorSubject<SyncStatus>({
    state: 'stopped',
    online: false,
    pendingPushes: 0,
    refusedChanges: 0,
    pendingPhotoUploads: 0,
    unsyncedSince: null,
    lastSyncedAt: null,
    lastError: null,
    errorKind: null,
    signedOutReason: null,
    ready: [],
    firstSyncDone: false,
  });
  readonly conflicts$ = new Subject<MergedChange>();
  readonly departures$ = new Subject<Departure>();

  update(patch: Partial<SyncStatus>): void {
    if (this.status$.closed) return;
    const next = { ...this.status$.value, ...patch };
    if (JSON.stringify(next) !== JSON.stringify(this.status$.value)) this.status$.next(next);
  }

  started(): void {
    this.set({ started: true, streamAlive: false, failedSinceStart: false, blocked: null }, { signedOutReason: null });
  }

  stopped(): void {
    this.set({ started: false, streamAlive: false });
  }

  /**
   * Where tabs share the replica, a tab that does not replicate shows the leader's view of the
   * network (its state, last sync and last failure), as the leader tells it (replication/tabs.ts).
   */
  mirror(leader: Pick<SyncStatus, 'state' | 'online' | 'lastSyncedAt' | 'lastError' | 'errorKind'>): void {
    this.update(leader);
  }

  /** The live stream came up (true) or went down (false). */
  stream(alive: boolean): void {
    this.set({ streamAlive: alive });
  }

  succeeded(): void {
    this.set({ blocked: this.condition.blocked === 'rate-limited' ? null : this.condition.blocked }, { lastSyncedAt: new Date().toISOString(), lastError: null, errorKind: null });
  }

  failed(error: unknown): void {
    const kind = error instanceof SyncFailure ? error.kind : null;
    const blocked = kind === 'signed-out' || kind === 'update-required' || kind === 'rate-limited' ? kind : this.condition.blocked;
    const signedOut = kind === 'signed-out' ? { signedOutReason: (error as SyncFailure).details.reason ?? 'unknown' } : {};
    this.set({ failedSinceStart: true, blocked }, { lastError: error instanceof Error ? error.message : String(error), errorKind: kind, ...signedOut });
  }

  private set(condition: Partial<Condition>, patch: Partial<SyncStatus> = {}): void {
    this.condition = { ...this.condition, ...condition };
    const state = stateOf(this.condition);
    this.update({ ...patch, state, online: state === 'online' });
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
    this.departures$.complete();
  }
}
