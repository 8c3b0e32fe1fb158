import type { Database, Queryable } from '../../server/storage/db.js';

/** One statement the app sent to the database, with its parameters. */
export interface Statement {
  sql: string;
  params: readonly unknown[];
}

/**
 * The real Database, with every statement the app sends through it (inside transactions too)
 * recorded: for tests that bound what a request costs the database. Nothing is changed or faked.
 */
export function countingDatabase(db: Database): { db: Database; statements: Statement[] } {
  const statements: Statement[] = [];
  const counted = (q: Queryable): Queryable => ({
    query: (sql, params = []) => {
      statements.push({ sql, params });
      return q.query(sql, params);
    },
    exec: (sql) => {
      statements.push({ sql, params: [] });
      return q.exec(sql);
    },
  });
  const wrapped: Database = {
    ...counted(db),
    get engine() {
      return db.engine;
    },
    get durability() {
      return db.durability;
    },
    transaction: (fn) => db.transaction((tx) => fn(counted(tx))),
    listen: (channel, onPayload, onGap) => db.listen(channel, onPayload, onGap),
    poolStats: () => db.poolStats(),
    close: () => db.close(),
  };
  return { db: wrapped, statements };
}
