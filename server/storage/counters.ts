import type { Queryable } from './db.js';

/**
 * Draws the next value of a per-organization counter. Call inside the transaction that uses the
 * value: the row lock serializes concurrent callers, and the counter never moves back, so a value
 * is never handed to two records.
 */
export async function nextCounterValue(tx: Queryable, orgId: string, name: string): Promise<number> {
  const { rows } = await tx.query<{ value: number }>(
    `insert into org_counters (org_id, name, value) values ($1, $2, 1)
     on conflict (org_id, name) do update set value = org_counters.value + 1
     returning value`,
    [orgId, name],
  );
  return rows[0]!.value;
}
