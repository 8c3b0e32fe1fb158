import { createHash } from 'node:crypto';
import type { Database } from './db.js';
import { scopeSql } from './scope-sql.js';

/** Any constant: the same lock the migrations take, so processes starting together install once. */
const MIGRATION_LOCK_KEY = 7_406_113;

export interface ScopeOptions {
  /** Days of past visits and stock movements a technician's device holds (SYNC_SERVICE_WINDOW_DAYS). */
  windowDays: number;
}

export const DEFAULT_WINDOW_DAYS = 60;

/**
 * Installs the scope triggers (scope-sql.ts) when the rules or the window differ from what the
 * store has, and then recomputes every organization's scopes: rows that now enter or leave a
 * technician's scope get entries like any move, so devices follow at their next pull. Returns
 * whether anything was installed.
 */
export async function installScopes(db: Database, { windowDays }: ScopeOptions): Promise<boolean> {
  const sql = scopeSql();
  const hash = createHash('sha256').update(sql).digest('hex');
  return db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await tx.exec('set local statement_timeout = 0');
    const { rows } = await tx.query<{ rules_hash: string; window_days: number }>('select rules_hash, window_days from scope_settings');
    if (rows[0]?.rules_hash === hash && rows[0].window_days === windowDays) return false;
    await tx.exec(sql);
    await tx.query(
      `insert into scope_settings (id, rules_hash, window_days) values (1, $1, $2)
       on conflict (id) do update set rules_hash = excluded.rules_hash, window_days = excluded.window_days`,
      [hash, windowDays],
    );
    const orgs = await tx.query<{ id: string }>('select id from organizations order by id');
    for (const { id } of orgs.rows) await tx.query('select scope_rebuild($1)', [id]);
    return true;
  });
}
