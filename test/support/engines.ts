import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import type { Database, Engine } from '../../server/storage/db.js';
import { openStore } from '../../server/storage/open.js';
import { DUMP_ENV } from './pglite-dump.js';

/**
 * The engines a *.pg.test.ts runs on: always embedded PGlite, plus real PostgreSQL when
 * TEST_DATABASE_URL is set (.ci/run sets it). Each store is new and empty: PGlite in memory
 * (started from the migrated dump support/pglite-dump.ts makes, when vitest runs), or a freshly
 * created PostgreSQL database that `drop()` removes.
 */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;

export const engines: Engine[] = TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

export interface TestStore {
  db: Database;
  /** Connection string of the PostgreSQL database (postgres engine only). */
  url?: string;
  drop(): Promise<void>;
}

export async function openTestStore(engine: Engine): Promise<TestStore> {
  if (engine === 'pglite') {
    const db = await openStore({ pgliteDump: migratedDump() });
    return { db, drop: () => db.close() };
  }
  const { url, dropDatabase } = await createTestDatabase();
  const db = await openStore({ databaseUrl: url });
  return {
    db,
    url,
    drop: async () => {
      await db.close();
      await dropDatabase();
    },
  };
}

let dump: Blob | undefined;
function migratedDump(): Blob | undefined {
  const file = process.env[DUMP_ENV];
  if (file) dump ??= new Blob([readFileSync(file)]);
  return dump;
}

/**
 * Creates an empty PostgreSQL database beside `baseUrl`'s (TEST_DATABASE_URL by default; the
 * benchmarks pass theirs), named with `prefix` and a random suffix.
 */
export async function createTestDatabase(baseUrl = TEST_DATABASE_URL, prefix = 'pool_test'): Promise<{ url: string; dropDatabase(): Promise<void> }> {
  if (!baseUrl) throw new Error('TEST_DATABASE_URL is not set');
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await withAdminClient(baseUrl, (c) => c.query(`create database ${name}`));
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    dropDatabase: () => withAdminClient(baseUrl, (c) => c.query(`drop database if exists ${name} with (force)`)).then(() => {}),
  };
}

async function withAdminClient<T>(baseUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
