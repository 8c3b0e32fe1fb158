import type { Database } from './db.js';
import { migrate } from './migrate.js';
import { openPglite } from './pglite.js';
import { openPostgres } from './postgres.js';
import { DEFAULT_WINDOW_DAYS, installScopes } from './scopes.js';

export interface StoreOptions {
  databaseUrl?: string | undefined;
  dataDir?: string | undefined;
  /** PGlite's buffer cache (see pglite.ts); ignored with PostgreSQL. */
  pgliteSharedBuffersMb?: number | undefined;
  /** PostgreSQL cancels a statement running longer (REQUEST_TIMEOUT_MS); the embedded store has no such limit. */
  statementTimeoutMs?: number | undefined;
  /** Days of past visits and movements a technician's device holds (default 60). */
  syncWindowDays?: number | undefined;
}

/** Opens the configured engine and brings its schema up to date. */
export async function openStore(options: StoreOptions): Promise<Database> {
  const db = options.databaseUrl
    ? await openPostgres(options.databaseUrl, { statementTimeoutMs: options.statementTimeoutMs })
    : await openPglite(options.dataDir, options.pgliteSharedBuffersMb);
  try {
    await migrate(db);
    await installScopes(db, { windowDays: options.syncWindowDays ?? DEFAULT_WINDOW_DAYS });
    return db;
  } catch (error) {
    await db.close();
    throw error;
  }
}
