import type { RxStorage } from 'rxdb';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import { runPerformanceTests } from 'rxdb/plugins/test-utils';
import { indexedDbStorage } from '../../client-sdk/replica/indexeddb/storage.js';

/**
 * The storage bench's page (test/bench/storage.ts bundles it): RxDB's own storage performance test
 * (`runPerformanceTests` of rxdb/plugins/test-utils) on the SDK's IndexedDB storage or on RxDB's
 * Dexie storage, in the page's IndexedDB.
 */
const storages: Record<string, () => RxStorage<any, any>> = {
  'the SDK\'s IndexedDB storage': () => indexedDbStorage() as RxStorage<any, any>,
  'RxDB\'s Dexie storage': () => getRxStorageDexie(),
};

(window as unknown as { storageBench: unknown }).storageBench = {
  names: Object.keys(storages),
  run: (name: string, runs: number, docsAmount: number) => runPerformanceTests(storages[name]!(), name, { runs, docsAmount, log: false }),
};
