import { withoutReplicaKeys } from '../../shared/index.js';
import type { RxStorage } from 'rxdb';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { firstValueFrom } from 'rxjs';
import { createPoolClient, PoolClientError, type PoolClient } from '../../client-sdk/index.js';
import { collectionByName } from '../../client-sdk/replica/database.js';
import { deleteReplicaDatabases, indexedDbStorage } from '../../client-sdk/replica/indexeddb/storage.js';
import { Checkpoints } from '../../client-sdk/replication/checkpoints.js';
import { PENDING_CHANGES } from '../../client-sdk/replica/local-collections.js';
import { PHOTO_QUEUE } from '../../client-sdk/replica/local-collections.js';
import { performAction, type ActionRequest } from './device-actions.js';

/**
 * One simulated device: an SDK client in its own process (RxDB allows 13 open collections per
 * process, and a device opens up to 12), driven by the simulation over IPC. Its replica lives in
 * RxDB's memory storage or the SDK's IndexedDB storage (below), kept across a restart of the client
 * (the app is killed and opened again; the storage stays, as IndexedDB would). The process collects its garbage every 500 ms (it runs
 * with --expose-gc), as a phone's busy app would: a deadline that a collection can make vanish
 * (Node 20's AbortSignal.any) shows up here as a device that never recovers.
 */
export interface DeviceConfig {
  baseUrl: string;
  token: string;
  name: string;
  collections: string[];
  requestTimeoutMs?: number;
  retryMs?: number;
}

export type DeviceRequest =
  | { op: 'open'; config: DeviceConfig }
  | { op: 'act'; action: ActionRequest }
  | { op: 'restart' }
  | { op: 'newPhone' }
  | { op: 'sync'; timeoutMs: number }
  | { op: 'dump' }
  | { op: 'probe' }
  | { op: 'close' };

/** What the device holds back and where it stands, read without waking its sync. */
export interface DeviceProbe {
  pending: number;
  checkpoints: Record<string, number>;
}

let config: DeviceConfig | null = null;
let client: PoolClient | null = null;
let phones = 0;
/**
 * Where the replica is kept: RxDB's memory storage, or with SIM_DEVICE_STORAGE=indexeddb the SDK's
 * browser storage on fake-indexeddb (IndexedDB in this process). Either outlives the client across
 * its restarts, as a phone's IndexedDB outlives the app.
 */
const onIndexedDb = process.env.SIM_DEVICE_STORAGE === 'indexeddb';
if (onIndexedDb) {
  const { indexedDB, IDBKeyRange } = await import('fake-indexeddb');
  Object.assign(globalThis, { indexedDB, IDBKeyRange });
}
const storages = new Map<string, RxStorage<unknown, unknown>>();

async function open(next: DeviceConfig): Promise<void> {
  config = next;
  const storage = storages.get(next.name) ?? ((onIndexedDb ? indexedDbStorage() : getRxStorageMemory()) as RxStorage<unknown, unknown>);
  storages.set(next.name, storage);
  client = await createPoolClient({ ...next, storage });
  client.sync.start();
}

/** The replica given up: a later device of the same name starts empty. */
async function forget(name: string): Promise<void> {
  storages.delete(name);
  if (onIndexedDb) await deleteReplicaDatabases(name);
}

async function close(): Promise<void> {
  await client?.close();
  client = null;
}

async function dump(): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const name of config!.collections) out[name] = (await collectionByName(client!.db, name)!.find().exec()).map((d) => withoutReplicaKeys(name, d.toJSON()));
  return out;
}

async function probe(): Promise<DeviceProbe> {
  // Counted from the replica itself (status$ follows it a moment later).
  const changes = await client!.db.collections[PENDING_CHANGES]!.count({ selector: { refused: null } }).exec();
  const photos = await client!.db.collections[PHOTO_QUEUE]!.count({ selector: { failure: null } }).exec();
  const checkpoints = new Checkpoints(client!.db);
  const entries = await Promise.all(config!.collections.map(async (name) => [name, await checkpoints.get(name)] as const));
  return { pending: changes + photos, checkpoints: Object.fromEntries(entries) };
}

async function handle(request: DeviceRequest): Promise<unknown> {
  switch (request.op) {
    case 'open':
      return open(request.config);
    case 'act':
      return performAction(client!, request.action).catch((error: unknown) => {
        if (error instanceof PoolClientError) return { done: false, reason: error.message };
        throw error;
      });
    case 'restart':
      await close();
      return open(config!);
    case 'newPhone': {
      // The technician signs in on a new phone: an empty replica whose first sync (priority bands,
      // then every feed) runs while the others go on writing. Only once this one has nothing left
      // to send: a phone with unsynced work is not the one given up (it would still sync later).
      if ((await probe()).pending > 0) return false;
      await close();
      await forget(config!.name);
      await open({ ...config!, name: `${config!.name.replace(/-phone\d+$/, '')}-phone${++phones}` });
      return true;
    }
    case 'sync': {
      await client!.sync.awaitInSync({ timeoutMs: request.timeoutMs });
      return firstValueFrom(client!.sync.status$);
    }
    case 'dump':
      return dump();
    case 'probe':
      return probe();
    case 'close': {
      await close();
      await forget(config!.name);
      return null;
    }
  }
}

process.on('message', (message: { id: number; request: DeviceRequest }) => {
  handle(message.request).then(
    (result) => process.send!({ id: message.id, ok: true, result }),
    (error: unknown) => process.send!({ id: message.id, ok: false, error: error instanceof Error ? `${error.message}\n${error.stack}` : String(error) }),
  );
});
/**
 * A full collection every half second: every request deadline here is 5 s or more, so each pending
 * request lives through ten or more collections, enough to collect any deadline held only weakly.
 * (Every 100 ms, four devices spent half of this machine's two cores collecting, and seeds slowed
 * from 15 s to 47 s over a run of 80 as the heaps grew.)
 */
const GC_EVERY_MS = 500;
const collectGarbage = (globalThis as { gc?: () => void }).gc;
if (collectGarbage) setInterval(collectGarbage, GC_EVERY_MS).unref();
process.send!({ ready: true });
