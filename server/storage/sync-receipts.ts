import type { Queryable } from './db.js';

/**
 * Receipts of applied sync changes (migration 0007): which device-named changes the server has
 * already applied, so a push repeated after a lost answer is recognised and changes nothing.
 */
/**
 * The start of a sync push, in one round trip (function `sync_push_start`, migration 0034): takes
 * the organization's change-feed lock for the rest of the transaction (the lock every write of the
 * organization takes anyway, at its first row), then reads which of the change ids the push
 * mentions (its rows' and their earlier states') were applied before, then records the push's own
 * (`applying`) as applied. Returns those applied before.
 *
 * The lock comes before the reads: a push must not read what it merges against while another push
 * of the organization is still writing, or a device's retry arriving while its first attempt was
 * in its transaction would see neither the document nor the receipt, and insert the document a
 * second time. The receipts are recorded at the start, in the same transaction as the writes: the
 * push applies or answers every row it records, and a failed push records nothing.
 */
export async function startPush(tx: Queryable, orgId: string, mentioned: readonly string[], applying: readonly string[]): Promise<Set<string>> {
  const { rows } = await tx.query<{ change_id: string }>('select sync_push_start($1, $2::text[], $3::text[]) as change_id', [
    orgId,
    [...new Set(mentioned)],
    [...new Set(applying)],
  ]);
  return new Set(rows.map((r) => r.change_id));
}

/** Deletes receipts older than the given number of days; returns how many. */
export async function pruneReceipts(q: Queryable, days: number): Promise<number> {
  const { rowCount } = await q.query(`delete from sync_receipts where created_at < now() - make_interval(days => $1::int)`, [days]);
  return rowCount;
}
