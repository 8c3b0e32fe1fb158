import type { Database, Queryable } from './db.js';

/**
 * A Database that runs everything inside one open transaction `tx` of `outer`: queries go to
 * `tx`, and `transaction(fn)` becomes a savepoint, so code written for a Database (operations
 * that open their own transactions) runs unchanged inside a request's single transaction, and a
 * failing part rolls back to its savepoint without ending the whole.
 */
export function databaseWithin(tx: Queryable, outer: Database): Database {
  let next = 0;
  return {
    engine: outer.engine,
    // What the outer transaction's commit waits for (its sync) is what makes this one durable.
    durability: outer.durability,
    query: (sql, params) => tx.query(sql, params),
    exec: (sql) => tx.exec(sql),
    async transaction(fn) {
      const name = `sp_${++next}`;
      await tx.query(`savepoint ${name}`);
      try {
        const result = await fn(tx);
        await tx.query(`release savepoint ${name}`);
        return result;
      } catch (error) {
        await tx.query(`rollback to savepoint ${name}`).catch(() => {});
        throw error;
      }
    },
    listen: (channel, onPayload, onGap) => outer.listen(channel, onPayload, onGap),
    poolStats: () => outer.poolStats(),
    close: () => Promise.reject(new Error('A transaction-bound database is closed by whoever opened the transaction')),
  };
}

let savepoints = 0;

/**
 * Runs `fn` behind a savepoint of the open transaction `tx`: kept when it succeeds, undone (and
 * the error rethrown) when it fails, so the transaction goes on without what `fn` wrote (a push
 * redone row by row refuses the one row the database refused and keeps the rest).
 */
export async function inSavepoint<T>(tx: Queryable, fn: () => Promise<T>): Promise<T> {
  const name = `row_${++savepoints}`;
  await tx.query(`savepoint ${name}`);
  try {
    const result = await fn();
    await tx.query(`release savepoint ${name}`);
    return result;
  } catch (error) {
    await tx.query(`rollback to savepoint ${name}`);
    throw error;
  }
}
