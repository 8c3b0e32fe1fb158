import type { Queryable } from './db.js';

/**
 * Receipts of applied sync changes (migration 0007): which device-named changes the server has
 * already applied, so a push repeated after a lost answer is recognised and changes nothing.
 */
export async function appliedChanges(q: Queryable, orgId: string, changeIds: readonly string[]): Promise<Set<string>> {
  if (!changeIds.length) return new Set();
  const { rows } = await q.query<{ change_id: string }>(
    'select change_id from sync_receipts where org_id = $1 and change_id = any($2::text[])',
    [orgId, [...new Set(changeIds)]],
  );
  return new Set(rows.map((r) => r.change_id));
}

export async function recordChanges(q: Queryable, orgId: string, changeIds: readonly string[]): Promise<void> {
  if (!changeIds.length) return;
  await q.query(
    `insert into sync_receipts (org_id, change_id) select $1, unnest($2::text[]) on conflict do nothing`,
    [orgId, [...new Set(changeIds)]],
  );
}

/** Deletes receipts older than the given number of days; returns how many. */
export async function pruneReceipts(q: Queryable, days: number): Promise<number> {
  const { rowCount } = await q.query(`delete from sync_receipts where created_at < now() - make_interval(days => $1::int)`, [days]);
  return rowCount;
}
