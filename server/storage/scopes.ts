import { createHash } from 'node:crypto';
import { DEFAULT_SCOPE_WINDOWS, SCOPED_COLLECTIONS, type ScopeWindows } from '../../shared/index.js';
import type { Database, Queryable } from './db.js';
import { scopeSql } from './scope-sql.js';

/** Any constant: the same lock the migrations take, so processes starting together install once. */
const MIGRATION_LOCK_KEY = 7_406_113;

/**
 * Days back of each scope's window: a technician's (SYNC_SERVICE_WINDOW_DAYS) and the office's
 * (SYNC_OFFICE_WINDOW_DAYS).
 */
export type ScopeOptions = ScopeWindows;
export const DEFAULT_WINDOWS: ScopeWindows = DEFAULT_SCOPE_WINDOWS;

/** Functions of the scope triggers before each scope had its own (one set for technicians only). */
const LEGACY_FUNCTIONS = SCOPED_COLLECTIONS.flatMap((c) => [`scope_refresh_${c}(text, text[], boolean)`, `scope_after_${c}(text, text[])`]);

/**
 * Installs the scope triggers (scope-sql.ts) when the rules or the window differ from what the
 * store has, and then recomputes every organization's scopes: rows that now enter or leave a
 * technician's scope get entries like any move, so devices follow at their next pull. Returns
 * whether anything was installed.
 */
export async function installScopes(db: Database, windows: ScopeOptions): Promise<boolean> {
  const sql = scopeSql();
  const hash = createHash('sha256').update(sql).digest('hex');
  return db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await tx.exec('set local statement_timeout = 0');
    const { rows } = await tx.query<{ rules_hash: string; window_days: number; office_window_days: number }>('select rules_hash, window_days, office_window_days from scope_settings');
    const installed = rows[0];
    if (installed?.rules_hash === hash && installed.window_days === windows.TECHNICIAN && installed.office_window_days === windows.OFFICE) return false;
    await tx.exec(sql);
    await tx.exec(LEGACY_FUNCTIONS.map((f) => `drop function if exists ${f};`).join('\n'));
    await tx.query(
      `insert into scope_settings (id, rules_hash, window_days, office_window_days) values (1, $1, $2, $3)
       on conflict (id) do update set rules_hash = excluded.rules_hash, window_days = excluded.window_days, office_window_days = excluded.office_window_days`,
      [hash, windows.TECHNICIAN, windows.OFFICE],
    );
    const orgs = await tx.query<{ id: string }>('select id from organizations order by id');
    for (const { id } of orgs.rows) await tx.query('select scope_rebuild($1)', [id]);
    return true;
  });
}

/**
 * Ages every organization's scopes: rows whose time left a scope's window since `since` (null: ever)
 * are recomputed, and leave the devices that no longer hold them (scope-sql.ts, `scope_age_*`).
 * One transaction per organization and scope, each under the organization's feed lock like any
 * write, so a large company's writes wait for one short step at a time. Returns the organizations aged.
 */
export async function ageScopes(db: Database, since: Date | null): Promise<number> {
  const { rows } = await db.query<{ id: string }>('select id from organizations order by id');
  for (const { id } of rows) {
    for (const scope of ['tech', 'office']) {
      await db.transaction((tx) => tx.query(`select scope_age_${scope}($1, $2::timestamptz)`, [id, since ? since.toISOString() : '-infinity']));
    }
  }
  return rows.length;
}

/** The windows the store's scopes keep (what `installScopes` last installed). */
export async function installedWindows(q: Queryable): Promise<ScopeWindows> {
  const { rows } = await q.query<{ window_days: number; office_window_days: number }>('select window_days, office_window_days from scope_settings');
  return rows[0] ? { TECHNICIAN: rows[0].window_days, OFFICE: rows[0].office_window_days } : DEFAULT_WINDOWS;
}
