import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { firstValueFrom } from 'rxjs';
import { createPoolClient, PoolClientError, type PoolClient } from '../../client-sdk/index.js';
import { performAction, type ActionRequest } from './device-actions.js';

/**
 * One simulated device: an SDK client in its own process (RxDB allows 13 open collections per
 * process, and a device opens up to 12), driven by the simulation over IPC. Its replica lives in
 * RxDB's memory storage, kept across a restart of the client (the app is killed and opened again;
 * the storage stays, as IndexedDB would).
 */
export interface DeviceConfig {
  baseUrl: string;
  token: string;
  name: string;
  collections: string[];
  requestTimeoutMs: number;
  retryMs: number;
}

export type DeviceRequest =
  | { op: 'open'; config: DeviceConfig }
  | { op: 'act'; action: ActionRequest }
  | { op: 'restart' }
  | { op: 'sync'; timeoutMs: number }
  | { op: 'dump' }
  | { op: 'close' };

let config: DeviceConfig | null = null;
let client: PoolClient | null = null;
const storages = new Map<string, ReturnType<typeof getRxStorageMemory>>();

async function open(next: DeviceConfig): Promise<void> {
  config = next;
  const storage = storages.get(next.name) ?? getRxStorageMemory();
  storages.set(next.name, storage);
  client = await createPoolClient({ ...next, storage: storage as never });
  client.sync.start();
}

async function close(): Promise<void> {
  await client?.close();
  client = null;
}

async function dump(): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const name of config!.collections) out[name] = (await client!.db.collections[name]!.find().exec()).map((d) => d.toJSON());
  return out;
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
    case 'sync': {
      await client!.sync.awaitInSync({ timeoutMs: request.timeoutMs });
      return firstValueFrom(client!.sync.status$);
    }
    case 'dump':
      return dump();
    case 'close': {
      await close();
      storages.delete(config!.name);
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
process.send!({ ready: true });
