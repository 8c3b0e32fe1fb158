import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database } from './db.js';

/**
 * Applies the numbered .sql files in ./migrations that the store has not seen yet, in order, in
 * one transaction, and records each in schema_migrations. An advisory lock makes several server
 * processes starting together on one PostgreSQL apply each migration once.
 */
// Resolved from server/storage/ (run from source) and from server/dist/ (the bundle `npm start`
// runs) alike: both are one level below server/.
const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'storage', 'migrations');
const MIGRATION_LOCK_KEY = 7_406_113; // any constant; only migrations take this lock

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return fs
    .readdirSync(dir)
    .filter((file) => /^\d{4}_[\w-]+\.sql$/.test(file))
    .sort()
    .map((file) => ({
      version: Number(file.slice(0, 4)),
      name: file.slice(5, -4),
      sql: fs.readFileSync(path.join(dir, file), 'utf8'),
    }));
}

/** Returns the versions it applied (empty when the store was up to date). */
export async function migrate(db: Database, migrations = readMigrations()): Promise<number[]> {
  return db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    // A migration may rewrite a large table; the per-request statement limit is not for it.
    await tx.exec('set local statement_timeout = 0');
    await tx.exec(`create table if not exists schema_migrations (
      version integer primary key,
      name text not null,
      applied_at timestamptz not null default now()
    )`);
    const { rows } = await tx.query<{ version: number }>('select version from schema_migrations');
    const applied = new Set(rows.map((r) => r.version));
    const pending = migrations.filter((m) => !applied.has(m.version));
    for (const migration of pending) {
      await tx.exec(migration.sql);
      await tx.query('insert into schema_migrations (version, name) values ($1, $2)', [
        migration.version,
        migration.name,
      ]);
    }
    return pending.map((m) => m.version);
  });
}
