import type { Durability, Queryable } from './db.js';

/**
 * Reads the two PostgreSQL settings that decide whether a commit PostgreSQL acknowledges is on
 * disk: `fsync` (off: nothing is synced, and an OS crash can corrupt the whole cluster) and
 * `synchronous_commit` (off: the last moments of commits can be lost, the database stays
 * consistent). Read as the server's own connections see them, so a per-database or per-role
 * `alter ... set` counts too. The store opens either way: this is told, not enforced.
 */
export async function readPostgresDurability(db: Queryable): Promise<Durability> {
  const { rows } = await db.query<{ fsync: string; synchronous_commit: string }>(
    "select current_setting('fsync') as fsync, current_setting('synchronous_commit') as synchronous_commit",
  );
  const { fsync, synchronous_commit: synchronousCommit } = rows[0]!;
  const warnings: string[] = [];
  if (fsync === 'off') {
    warnings.push('PostgreSQL runs with fsync = off: an OS crash or a power cut can lose acknowledged writes and leave the database unrecoverable');
  }
  if (synchronousCommit === 'off') {
    warnings.push('PostgreSQL runs with synchronous_commit = off: an OS crash or a power cut can lose the writes acknowledged in the last moments before it');
  }
  return { syncsToDisk: warnings.length === 0, warnings };
}
