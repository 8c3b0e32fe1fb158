import { PGlite, type Transaction } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { Database, QueryResult, Queryable } from './db.js';
import { translateDatabaseError } from './db-errors.js';
import { lockFolder, type FolderLock } from './folder-lock.js';
import { valueParsers } from './types.js';

/**
 * The embedded engine: PostgreSQL compiled to WebAssembly, files under a local folder.
 * Pass no folder for an in-memory database (tests).
 *
 * PostgreSQL's buffer cache lives inside the WebAssembly memory, which never shrinks: PGlite's
 * default of 128 MB made a server that had read a 50,000-visit table hold about 110 MB more than
 * with 16 MB, at the same sync speed. The price is in searches that touch most of a large table
 * (a trigram search over 200,000 visits: 128 ms at 128 MB, 225 ms at 32 MB), hence a setting.
 */
export const DEFAULT_PGLITE_SHARED_BUFFERS_MB = 32;

export async function openPglite(dataDir?: string, sharedBuffersMb = DEFAULT_PGLITE_SHARED_BUFFERS_MB): Promise<Database> {
  const lock: FolderLock | null = dataDir ? lockFolder(dataDir) : null;
  try {
    const pg = await PGlite.create(dataDir, {
      extensions: { pg_trgm },
      parsers: valueParsers,
      startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${sharedBuffersMb}MB`],
    });
    await pg.exec("SET TIME ZONE 'UTC'");
    return new PgliteDatabase(pg, lock);
  } catch (error) {
    lock?.release();
    throw error;
  }
}

type PgliteLike = Pick<PGlite | Transaction, 'query' | 'exec'>;

class PgliteQueryable implements Queryable {
  constructor(protected readonly pg: PgliteLike) {}

  async query<T>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<T>> {
    try {
      const result = await this.pg.query<T>(sql, params as unknown[]);
      return { rows: result.rows, rowCount: result.affectedRows || result.rows.length };
    } catch (error) {
      throw translateDatabaseError(error);
    }
  }

  async exec(sql: string): Promise<void> {
    await this.pg.exec(sql);
  }
}

class PgliteDatabase extends PgliteQueryable implements Database {
  readonly engine = 'pglite' as const;

  constructor(
    private readonly db: PGlite,
    private readonly lock: FolderLock | null,
  ) {
    super(db);
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.db.transaction((tx) => fn(new PgliteQueryable(tx)));
  }

  poolStats(): null {
    return null;
  }

  async listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>> {
    // One process owns an embedded store, so its own notifications are all there are.
    return this.db.listen(channel, onPayload);
  }

  async close(): Promise<void> {
    try {
      await this.db.close();
    } finally {
      this.lock?.release();
    }
  }
}
