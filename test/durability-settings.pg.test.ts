import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openStore } from '../server/storage/open.js';
import { createTestDatabase, engines, openTestStore } from './support/engines.js';
import { startTestServer } from './support/server.js';

/**
 * Whether acknowledged writes are on disk is told where an operator looks: /readyz's details (and
 * the log at start, from the same report). PostgreSQL's settings are changed on the test's own
 * database only (`alter database ... set`), never on the cluster.
 */
async function readyz(db: Awaited<ReturnType<typeof openStore>>) {
  const server = await startTestServer(db);
  try {
    const res = await fetch(`${server.url}/readyz`);
    return { status: res.status, body: (await res.json()) as { durability: { syncsToDisk: boolean; warnings: string[] } } };
  } finally {
    await server.close();
  }
}

describe.each(engines)('durability report on %s', (engine) => {
  if (engine === 'pglite') {
    it('a store in a folder syncs to disk and says so; one in memory is ready but warns', { timeout: 180_000 }, async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'pool-durable-'));
      const onDisk = await openStore({ dataDir: dir });
      try {
        expect((await readyz(onDisk)).body.durability).toEqual({ syncsToDisk: true, warnings: [] });
      } finally {
        await onDisk.close();
        await rm(dir, { recursive: true, force: true });
      }
      const inMemory = await openTestStore('pglite');
      try {
        const answer = await readyz(inMemory.db);
        expect(answer.status).toBe(200);
        expect(answer.body.durability.syncsToDisk).toBe(false);
        expect(answer.body.durability.warnings).toEqual([expect.stringMatching(/in memory.*power cut/)]);
      } finally {
        await inMemory.drop();
      }
    });
    return;
  }

  it('fsync and synchronous_commit on: no warning; synchronous_commit off for this database: warned on /readyz', async () => {
    const { url, dropDatabase } = await createTestDatabase();
    try {
      const plain = await openStore({ databaseUrl: url });
      const before = await readyz(plain).finally(() => plain.close());
      expect(before.body.durability).toEqual({ syncsToDisk: true, warnings: [] });

      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`alter database ${new URL(url).pathname.slice(1)} set synchronous_commit = off`);
      await admin.end();

      const relaxed = await openStore({ databaseUrl: url });
      const after = await readyz(relaxed).finally(() => relaxed.close());
      expect(after.status).toBe(200);
      expect(after.body.durability).toEqual({ syncsToDisk: false, warnings: [expect.stringMatching(/synchronous_commit = off/)] });
    } finally {
      await dropDatabase();
    }
  });
});
