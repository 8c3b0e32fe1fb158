import type { Queryable } from './db.js';

/**
 * Keys of requests sent with an Idempotency-Key header (migration 0019), per organization and
 * user. A key is claimed by inserting its row inside the transaction that does the request's
 * writes, and its answer is written there too: both commit together or not at all.
 */
export interface KeyRef {
  orgId: string;
  userId: string;
  key: string;
}

export interface StoredKey {
  requestHash: string;
  answer: unknown;
}

/**
 * Claims a key for this transaction. On PostgreSQL a claim by another transaction still running
 * makes this one wait (its row is not committed yet) for at most `waitMs`: then 'busy'. 'taken'
 * means the key was committed earlier; read it with `storedKey`.
 */
export async function claimKey(q: Queryable, ref: KeyRef, requestHash: string, waitMs: number): Promise<'claimed' | 'taken' | 'busy'> {
  const { rows } = await q.query<{ previous: string }>(`select current_setting('lock_timeout') as previous`);
  await q.query(`select set_config('lock_timeout', $1, true)`, [`${Math.max(1, Math.round(waitMs))}ms`]);
  try {
    const { rowCount } = await q.query(
      `insert into idempotency_keys (org_id, user_id, key, request_hash) values ($1, $2, $3, $4)
       on conflict (org_id, user_id, key) do nothing returning 1`,
      [ref.orgId, ref.userId, ref.key, requestHash],
    );
    return rowCount > 0 ? 'claimed' : 'taken';
  } catch (error) {
    // lock_not_available: the other transaction holding the key ran longer than we wait.
    if ((error as { code?: unknown })?.code === '55P03') return 'busy';
    throw error;
  } finally {
    // The request's own statements run with the server's usual lock wait.
    await q.query(`select set_config('lock_timeout', $1, true)`, [rows[0]!.previous]).catch(() => {});
  }
}

export async function storedKey(q: Queryable, ref: KeyRef): Promise<StoredKey | null> {
  const { rows } = await q.query<StoredKey>(
    `select request_hash as "requestHash", answer from idempotency_keys where org_id = $1 and user_id = $2 and key = $3`,
    [ref.orgId, ref.userId, ref.key],
  );
  return rows[0] ?? null;
}

export async function saveAnswer(q: Queryable, ref: KeyRef, answer: unknown): Promise<void> {
  await q.query(`update idempotency_keys set answer = $4 where org_id = $1 and user_id = $2 and key = $3`, [
    ref.orgId,
    ref.userId,
    ref.key,
    JSON.stringify(answer),
  ]);
}

/** Deletes keys created before `before`, of every organization on purpose (see SPANNING_STATEMENTS in distribution.ts); returns how many. */
export async function pruneKeys(q: Queryable, before: Date): Promise<number> {
  const { rowCount } = await q.query(`delete from idempotency_keys where created_at < $1`, [before]);
  return rowCount;
}
