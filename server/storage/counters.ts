import type { Queryable } from './db.js';

/**
 * Draws the next value of a per-organization counter. Call inside the transaction that uses the
 * value: the row lock serializes concurrent callers, and the counter never moves back, so a value
 * is never handed to two records.
 */
export async function nextCounterValue(tx: Queryable, orgId: string, name: string): Promise<number> {
  return nextCounterValues(tx, orgId, name, 1);
}

/**
 * Draws `n` consecutive values at once (n >= 1) and answers the first: the caller owns `first` to
 * `first + n - 1`. The same row lock as nextCounterValue, held to the end of the transaction, so
 * another caller's values come wholly before or wholly after these, and a rollback returns them all.
 */
export async function nextCounterValues(tx: Queryable, orgId: string, name: string, n: number): Promise<number> {
  if (!Number.isInteger(n) || n < 1) throw new Error(`a counter advances by a whole number of values, at least 1 (not ${n})`);
  const { rows } = await tx.query<{ value: number | string }>(
    `insert into org_counters (org_id, name, value) values ($1, $2, $3)
     on conflict (org_id, name) do update set value = org_counters.value + $3
     returning value`,
    [orgId, name, n],
  );
  return Number(rows[0]!.value) - n + 1;
}
