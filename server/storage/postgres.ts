import pg from 'pg';
import type { Database, Durability, PoolStats, QueryResult, Queryable } from './db.js';
import { translateDatabaseError } from './db-errors.js';
import { readPostgresDurability } from './postgres-durability.js';
import { valueParsers } from './types.js';

export interface PostgresOptions {
  maxConnections?: number;
  /** Longest a statement may run before PostgreSQL cancels it (0 or unset: no limit). */
  statementTimeoutMs?: number | undefined;
}

/** Real PostgreSQL through a pg connection pool. */
export async function openPostgres(connectionString: string, { maxConnections = 10, statementTimeoutMs }: PostgresOptions = {}): Promise<Database> {
  const pool = new pg.Pool({
    connectionString,
    max: maxConnections,
    // A stuck query must not hold a connection (and the request waiting on it) forever.
    ...(statementTimeoutMs ? { statement_timeout: statementTimeoutMs } : {}),
    // Same clock as the embedded engine, so date arithmetic in SQL agrees.
    options: '-c TimeZone=UTC',
    types: { getTypeParser: getTypeParser as typeof pg.types.getTypeParser },
  });
  // An idle client that loses its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  try {
    const durability = await readPostgresDurability(new PostgresQueryable(pool));
    return new PostgresDatabase(pool, connectionString, durability);
  } catch (error) {
    await pool.end();
    throw error;
  }
}

function getTypeParser(oid: number, format?: 'text' | 'binary'): unknown {
  return valueParsers[oid] ?? pg.types.getTypeParser(oid, format ?? 'text');
}

class PostgresQueryable implements Queryable {
  constructor(protected readonly client: pg.Pool | pg.PoolClient) {}

  async query<T>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<T>> {
    try {
      const result = await this.client.query(sql, params as unknown[]);
      return { rows: result.rows as T[], rowCount: result.rowCount ?? result.rows.length };
    } catch (error) {
      throw translateDatabaseError(error);
    }
  }

  async exec(sql: string): Promise<void> {
    await this.client.query(sql);
  }
}

class PostgresDatabase extends PostgresQueryable implements Database {
  readonly engine = 'postgres' as const;

  constructor(
    private readonly pool: pg.Pool,
    private readonly connectionString: string,
    readonly durability: Durability,
  ) {
    super(pool);
  }

  poolStats(): PoolStats {
    return { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount };
  }

  /** A dedicated connection per channel (LISTEN needs one), re-opened after it drops. */
  async listen(channel: string, onPayload: (payload: string) => void, onGap?: () => void, onLost?: () => void): Promise<() => Promise<void>> {
    let client: pg.Client | null = null;
    let stopped = false;
    let retrying = false;
    const connect = async (): Promise<void> => {
      const next = new pg.Client({ connectionString: this.connectionString });
      next.on('notification', (message) => {
        if (message.channel === channel) onPayload(message.payload ?? '');
      });
      // A server restart ends the connection with an error, a clean close without one: either
      // way notifications stop, so reconnect (and tell the listener it may have missed some).
      next.on('error', () => lost(next));
      next.on('end', () => lost(next));
      try {
        await next.connect();
        await next.query(`listen "${channel.replace(/"/g, '""')}"`);
      } catch (error) {
        next.removeAllListeners('end').removeAllListeners('error').on('error', () => {});
        void next.end().catch(() => {});
        throw error;
      }
      client = next;
    };
    const lost = (which: pg.Client) => {
      if (client !== which || stopped) return;
      client = null;
      void which.end().catch(() => {});
      onLost?.();
      retry();
    };
    const retry = () => {
      if (retrying || stopped) return;
      retrying = true;
      setTimeout(() => {
        retrying = false;
        if (stopped) return;
        connect().then(
          () => onGap?.(),
          () => retry(),
        );
      }, 500).unref();
    };
    await connect();
    return async () => {
      stopped = true;
      const last = client as pg.Client | null;
      client = null;
      await last?.end().catch(() => {});
    };
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    // pg-pool guards idle clients only: a connection that dies while checked out (PostgreSQL
    // restarted, the backend terminated) emits 'error' on the client, which would end the
    // process. The query in flight fails on its own; release(error) drops the dead client.
    let broken: Error | undefined;
    const onError = (error: Error) => {
      broken = error;
    };
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      const result = await fn(new PostgresQueryable(client));
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
