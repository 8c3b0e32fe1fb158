import type { Database, Queryable } from './db.js';

/**
 * The planner's statistics, kept up to date where nothing else does it. PostgreSQL's autovacuum
 * analyzes a table after enough of it changed; PGlite runs no autovacuum at all, and a PostgreSQL
 * may run with it off. A table without statistics is planned on guesses: with 13,000 customers
 * never analyzed, the office's first sync looked each customer up through the smaller
 * `customers_by_updated` index instead of the primary key (a scan of the organization's whole
 * index per customer), and one page of its week band took 35 s instead of 1.4 s.
 *
 * A table is stale when it has grown by more than a fifth since it was last analyzed (or was never
 * analyzed) and is at least `minPages` large: read from the catalog (its size now against the size
 * its statistics were taken at), which both engines keep exactly, unlike PGlite's change counters.
 * Changes that do not grow a table (updates in place, deletions) are not noticed; the statistics
 * that matter here, rows per organization and per key, follow growth.
 */
export interface StaleTable {
  name: string;
  /** Pages now, and at the last analysis (0 when never analyzed). */
  pages: number;
  analyzedPages: number;
}

/** Tables smaller than this (8 KB pages: 512 KB) are planned well enough on guesses. */
export const MIN_PAGES = 64;
const GROWTH = 1.2;

export async function staleTables(q: Queryable, minPages = MIN_PAGES): Promise<StaleTable[]> {
  const { rows } = await q.query<{ name: string; pages: string | number; analyzed_pages: number; reltuples: number }>(
    `select c.relname as name, pg_relation_size(c.oid) / current_setting('block_size')::int as pages,
            c.relpages as analyzed_pages, c.reltuples
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and c.relkind = 'r'
      order by c.relname`,
  );
  return rows
    .map((r) => ({ name: r.name, pages: Number(r.pages), analyzedPages: r.reltuples < 0 ? 0 : r.analyzed_pages }))
    .filter((t) => t.pages >= minPages && t.pages > t.analyzedPages * GROWTH);
}

export async function analyzeTable(q: Queryable, name: string): Promise<void> {
  await q.exec(`analyze "${name.replace(/"/g, '""')}"`);
}

/** Whether PostgreSQL's autovacuum keeps this store's statistics (never on PGlite). */
export async function autovacuumKeepsStatistics(db: Database): Promise<boolean> {
  if (db.engine !== 'postgres') return false;
  const { rows } = await db.query<{ on: boolean }>("select current_setting('autovacuum') = 'on' and current_setting('track_counts') = 'on' as on");
  return rows[0]?.on === true;
}
