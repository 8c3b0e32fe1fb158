import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GLOBAL_TABLES, SPANNING_STATEMENTS } from '../server/storage/distribution.js';
import { engines, openTestStore, type TestStore } from './support/engines.js';

/**
 * The migrated schema follows the rules a distributed PostgreSQL (Citus) puts on tables
 * distributed by org_id: a unique constraint must include the distribution column, and so must a
 * foreign key between two distributed tables. A table that is not distributed is declared, with
 * what it becomes (server/storage/distribution.ts).
 */
describe.each(engines)('the schema distributes by organization on %s', (engine) => {
  let store: TestStore;
  beforeAll(async () => {
    store = await openTestStore(engine);
  });
  afterAll(async () => {
    await store?.drop();
  });

  const tables = async () => (await store.db.query<{ name: string }>(`select tablename as name from pg_tables where schemaname = 'public' order by 1`)).rows.map((r) => r.name);

  it('every table is distributed by org_id or declared global', async () => {
    const all = await tables();
    const { rows } = await store.db.query<{ name: string }>(
      `select c.relname as name from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind = 'r' and a.attname = 'org_id' and a.attnotnull`,
    );
    const withOrg = new Set(rows.map((r) => r.name));
    expect(all.filter((t) => !withOrg.has(t) && !(t in GLOBAL_TABLES))).toEqual([]);
    expect(Object.keys(GLOBAL_TABLES).filter((t) => !all.includes(t))).toEqual([]);
  });

  it('every unique constraint of a distributed table includes org_id', async () => {
    const { rows } = await store.db.query<{ table: string; index: string; columns: string[] }>(
      `select c.relname as "table", i.relname as "index",
              array(select a.attname::text from unnest(x.indkey) k join pg_attribute a on a.attrelid = c.oid and a.attnum = k) as columns
         from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class c on c.oid = x.indrelid join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and x.indisunique`,
    );
    const offending = rows.filter((r) => !(r.table in GLOBAL_TABLES) && !r.columns.includes('org_id'));
    expect(offending.map((r) => `${r.table}.${r.index} (${r.columns.join(', ')})`)).toEqual([]);
  });

  it('every foreign key between distributed tables includes org_id on both sides', async () => {
    const { rows } = await store.db.query<{ table: string; references: string; columns: string[]; referenced: string[] }>(
      `select c.conrelid::regclass::text as "table", c.confrelid::regclass::text as "references",
              array(select a.attname::text from unnest(c.conkey) k join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k) as columns,
              array(select a.attname::text from unnest(c.confkey) k join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k) as referenced
         from pg_constraint c where c.contype = 'f' and c.connamespace = 'public'::regnamespace`,
    );
    const offending = rows.filter((r) => !(r.references in GLOBAL_TABLES) && (r.columns[r.columns.indexOf('org_id')] === undefined || r.referenced[r.columns.indexOf('org_id')] !== 'org_id'));
    expect(offending.map((r) => `${r.table} -> ${r.references}`)).toEqual([]);
  });
});

describe('statements that span organizations', () => {
  it('each one listed is still where the list says', async () => {
    const missing: string[] = [];
    for (const where of Object.keys(SPANNING_STATEMENTS)) {
      const [file, name] = where.split(' ') as [string, string];
      const module = (await import(`../server/storage/${file.replace(/\.ts$/, '.js')}`)) as Record<string, unknown>;
      if (typeof module[name] !== 'function') missing.push(where);
    }
    expect(missing).toEqual([]);
  });
});
