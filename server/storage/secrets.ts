import { randomBytes } from 'node:crypto';
import type { Queryable } from './db.js';

/**
 * A platform secret generated on first use and kept in the database, so every server process on
 * the same database agrees on it (and it survives restarts).
 */
export async function sharedSecret(q: Queryable, name: string): Promise<string> {
  await q.query('insert into server_secrets (name, value) values ($1, $2) on conflict (name) do nothing', [
    name,
    randomBytes(32).toString('base64url'),
  ]);
  const { rows } = await q.query<{ value: string }>('select value from server_secrets where name = $1', [name]);
  return rows[0]!.value;
}
