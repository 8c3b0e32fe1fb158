import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openStore } from '../../server/storage/open.js';
import { dumpEmbeddedStore } from '../../server/storage/pglite.js';

/**
 * Vitest global setup: one embedded store, migrated and with its scope triggers, dumped to a file
 * the test workers start every in-memory store from (support/engines.ts). Migrating each of the
 * suite's ~100 embedded stores took 1.5 s of CPU apiece; starting from the dump takes none of it,
 * and each store still runs `openStore`'s migrations, which find nothing left to do.
 */
export const DUMP_ENV = 'POOL_TEST_PGLITE_DUMP';

export default async function dumpMigratedStore(): Promise<() => Promise<void>> {
  const folder = await mkdtemp(path.join(tmpdir(), 'pool-test-dump-'));
  const db = await openStore({});
  try {
    const file = path.join(folder, 'migrated.tar');
    await writeFile(file, Buffer.from(await (await dumpEmbeddedStore(db)).arrayBuffer()));
    process.env[DUMP_ENV] = file;
  } finally {
    await db.close();
  }
  return () => rm(folder, { recursive: true, force: true });
}
