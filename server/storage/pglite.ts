import { existsSync } from 'node:fs';
import path from 'node:path';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { Database, Durability, QueryResult, Queryable } from './db.js';
import { translateDatabaseError } from './db-errors.js';
import { lockFolder, type FolderLock } from './folder-lock.js';
import { SyncingNodeFS, syncTree } from './pglite-fs-sync.js';
import type { WalSync } from './wal-sync.js';
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

export interface PgliteOptions {
  sharedBuffersMb?: number | undefined;
  /**
   * Acknowledge writes before they are on disk (UNSAFE_NO_FSYNC): PGlite's own `-F` and no syncs,
   * for throwaway stores. Writes survive a crash of the process, not of the machine.
   */
  unsafeNoFsync?: boolean | undefined;
  /** An in-memory store starts as a copy of this dump (dumpEmbeddedStore) instead of empty. */
  loadDataDir?: Blob | undefined;
}

export async function openPglite(dataDir?: string, options: PgliteOptions = {}): Promise<Database> {
  const lock: FolderLock | null = dataDir ? lockFolder(dataDir) : null;
  try {
    const fs = dataDir && !options.unsafeNoFsync ? new SyncingNodeFS(dataDir) : undefined;
    const fresh = dataDir !== undefined && !existsSync(path.join(dataDir, 'PG_VERSION'));
    const pg = await PGlite.create(dataDir, {
      ...(fs ? { fs } : {}),
      ...(options.loadDataDir && !dataDir ? { loadDataDir: options.loadDataDir } : {}),
      extensions: { pg_trgm },
      parsers: valueParsers,
      startParams: startParams(options.sharedBuffersMb ?? DEFAULT_PGLITE_SHARED_BUFFERS_MB, fs !== undefined),
    });
    if (fs && fresh) syncTree(dataDir!);
    await pg.exec("SET TIME ZONE 'UTC'");
    return new PgliteDatabase(pg, lock, fs?.wal ?? null, durabilityOf(dataDir, fs !== undefined));
  } catch (error) {
    lock?.release();
    throw error;
  }
}

/**
 * PGlite's defaults, less `-F` (fsync off) when syncing: with fsync on, PostgreSQL asks for the
 * syncs that SyncingNodeFS carries out. WAL is synced by fsync(2), the one sync call NODEFS can be
 * given (fdatasync(2) is a no-op compiled into PGlite).
 */
function startParams(sharedBuffersMb: number, syncing: boolean): string[] {
  const defaults = syncing ? PGlite.defaultStartParams.filter((p) => p !== '-F') : PGlite.defaultStartParams;
  const sync = syncing ? ['-c', 'wal_sync_method=fsync'] : [];
  return [...defaults, '-c', `shared_buffers=${sharedBuffersMb}MB`, ...sync];
}

function durabilityOf(dataDir: string | undefined, syncing: boolean): Durability {
  if (syncing) return { syncsToDisk: true, warnings: [] };
  const why = dataDir ? 'UNSAFE_NO_FSYNC is set' : 'the store is in memory';
  return { syncsToDisk: false, warnings: [`${why}: writes are acknowledged before they are on disk, and a power cut or an OS crash can lose them`] };
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

/**
 * The store's own handle. Every write it acknowledges passes `durable` once, here: a statement or
 * transaction on the top level resolves only after the WAL it wrote is on disk (see
 * pglite-fs-sync.ts). Inside a transaction nothing waits; its commit does.
 */
class PgliteDatabase extends PgliteQueryable implements Database {
  readonly engine = 'pglite' as const;

  constructor(
    private readonly db: PGlite,
    private readonly lock: FolderLock | null,
    private readonly wal: WalSync | null,
    readonly durability: Durability,
  ) {
    super(db);
  }

  override query<T>(sql: string, params?: readonly unknown[]): Promise<QueryResult<T>> {
    return this.durable(super.query<T>(sql, params));
  }

  override exec(sql: string): Promise<void> {
    return this.durable(super.exec(sql));
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.durable(this.db.transaction((tx) => fn(new PgliteQueryable(tx))));
  }

  private async durable<T>(done: Promise<T>): Promise<T> {
    const result = await done;
    if (this.wal?.pending) await this.wal.barrier();
    return result;
  }

  dumpDataDir(): Promise<Blob> {
    return this.db.dumpDataDir('none');
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

/**
 * The whole embedded store as one archive PGlite can start from (`loadDataDir`): the tests open
 * every in-memory store from one migrated copy rather than running the migrations each time.
 */
export function dumpEmbeddedStore(db: Database): Promise<Blob> {
  if (!(db instanceof PgliteDatabase)) throw new Error('only an embedded store can be dumped');
  return db.dumpDataDir();
}
