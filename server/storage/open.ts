import type { Database } from './db.js';
import { migrate } from './migrate.js';
import { openPglite } from './pglite.js';
import { openPostgres } from './postgres.js';
import { installEventTriggers } from './events.js';
import { DEFAULT_WINDOWS, installScopes } from './scopes.js';

export interface StoreOptions {
  databaseUrl?: string | undefined;
  dataDir?: string | undefined;
  /** PGlite's buffer cache (see pglite.ts); ignored with PostgreSQL. */
  pgliteSharedBuffersMb?: number | undefined;
  /** Acknowledge embedded-store writes before they are on disk (UNSAFE_NO_FSYNC; see pglite.ts). */
  unsafeNoFsync?: boolean | undefined;
  /** An in-memory embedded store starts from this dump (see pglite.ts); its migrations still run. */
  pgliteDump?: Blob | undefined;
  /** PostgreSQL cancels a statement running longer (REQUEST_TIMEOUT_MS); the embedded store has no such limit. */
  statementTimeoutMs?: number | undefined;
  /** Days of past visits and movements a technician's device holds (default 60). */
  syncWindowDays?: number | undefined;
  /** Days of past visits and movements the office's devices hold (default 14). */
  officeWindowDays?: number | undefined;
}

/** Opens the configured engine and brings its schema (with the scope and event triggers) up to date. */
export async function openStore(options: StoreOptions): Promise<Database> {
  const db = options.databaseUrl
    ? await openPostgres(options.databaseUrl, { statementTimeoutMs: options.statementTimeoutMs })
    : await openPglite(options.dataDir, { sharedBuffersMb: options.pgliteSharedBuffersMb, unsafeNoFsync: options.unsafeNoFsync, loadDataDir: options.pgliteDump });
  try {
    await migrate(db);
    await installScopes(db, { TECHNICIAN: options.syncWindowDays ?? DEFAULT_WINDOWS.TECHNICIAN, OFFICE: options.officeWindowDays ?? DEFAULT_WINDOWS.OFFICE });
    await installEventTriggers(db);
    return db;
  } catch (error) {
    await db.close();
    throw error;
  }
}
