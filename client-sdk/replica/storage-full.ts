import { instanceWithWrites } from './instance-with-writes.js';
import type { RxStorage, RxStorageInstance, RxStorageInstanceCreationParams } from 'rxdb';

/**
 * A write the device's storage refused for want of space: the browser's quota for the site is
 * used up (IndexedDB throws QuotaExceededError, which our storage and RxDB pass on, sometimes wrapped).
 * The write fails as before; this only makes sure the app hears of it, whoever wrote.
 */
export interface StorageFull {
  at: string;
  /** The replica collection the write was for (services, the photo queue, ...). */
  collection: string;
  message: string;
}

/** `storage`, telling `onFull` of every write of any collection refused for want of space. */
export function reportingStorageFull<I, O>(storage: RxStorage<I, O>, onFull: (full: StorageFull) => void): RxStorage<I, O> {
  return {
    ...storage,
    name: storage.name,
    rxdbVersion: storage.rxdbVersion,
    async createStorageInstance<D>(params: RxStorageInstanceCreationParams<D, O>): Promise<RxStorageInstance<D, I, O>> {
      const instance = await storage.createStorageInstance(params);
      return withFullReported(instance, onFull);
    },
  };
}

function withFullReported<D, I, O>(instance: RxStorageInstance<D, I, O>, onFull: (full: StorageFull) => void): RxStorageInstance<D, I, O> {
  return instanceWithWrites(instance, async (rows, context) => {
    try {
      return await instance.bulkWrite(rows, context);
    } catch (error) {
      if (isQuotaError(error)) onFull({ at: new Date().toISOString(), collection: instance.collectionName, message: messageOf(error) });
      throw error;
    }
  });
}

/**
 * QuotaExceededError itself, or an error carrying it: Dexie's `inner` (a transaction aborted for
 * want of space) and `failures` (a bulk write whose puts failed), RxDB's parameters, `cause`.
 */
export function isQuotaError(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 4) return false;
  const e = error as { name?: unknown; message?: unknown; inner?: unknown; cause?: unknown; failures?: unknown; parameters?: { error?: unknown } };
  if (e.name === 'QuotaExceededError' || (typeof e.message === 'string' && /QuotaExceeded/i.test(e.message))) return true;
  const failures = Array.isArray(e.failures) ? e.failures : [];
  return [e.inner, e.cause, e.parameters?.error, ...failures].some((inner) => isQuotaError(inner, depth + 1));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
