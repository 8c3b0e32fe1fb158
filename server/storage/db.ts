/**
 * One small interface over the two engines (PGlite embedded, PostgreSQL through pg). Everything
 * above storage talks to a Database; nothing above storage knows which engine it is.
 *
 * @example
 *   const rows = await db.query<{ id: string }>('select id from customers where org_id = $1', [orgId])
 *   await db.transaction(async (tx) => { await tx.query(...); await tx.query(...) })
 */
export type Row = Record<string, unknown>;

export interface QueryResult<T> {
  rows: T[];
  /** Rows inserted, updated, deleted or returned. */
  rowCount: number;
}

export interface Queryable {
  query<T = Row>(sql: string, params?: readonly unknown[]): Promise<QueryResult<T>>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export type Engine = 'pglite' | 'postgres';

export interface Database extends Queryable {
  readonly engine: Engine;
  /**
   * Runs fn in one transaction: committed when fn resolves, rolled back when it throws. Inside,
   * use only `tx`; the embedded engine has a single connection and would wait on itself.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Receives NOTIFY payloads of a channel (from every process on the same database). `onGap` is
   * called after a lost connection was re-established: notifications may have been missed, so
   * the listener should catch up by reading. `onLost` is called when the connection is lost, before
   * any reconnection: from then until `onGap`, notifications go unheard. Resolves to a function
   * that stops listening.
   */
  listen(channel: string, onPayload: (payload: string) => void, onGap?: () => void, onLost?: () => void): Promise<() => Promise<void>>;
  /** Whether an acknowledged write is on disk, and what to tell the operator when it is not. */
  readonly durability: Durability;
  /** PostgreSQL's connection pool: open, idle, and requests waiting; null for the embedded store (one connection, no pool). */
  poolStats(): PoolStats | null;
  close(): Promise<void>;
}

export interface Durability {
  /** True when every write is synced to disk before the call that made it resolves. */
  syncsToDisk: boolean;
  /** One sentence per setting that lets a power cut or an OS crash lose acknowledged writes. */
  warnings: string[];
}

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

/** Whether the store answers a trivial query (readiness); never throws. */
export async function storeAnswers(q: Queryable): Promise<boolean> {
  return q.query('select 1').then(
    () => true,
    () => false,
  );
}
