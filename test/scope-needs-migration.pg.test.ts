import { afterAll, describe, expect, it } from 'vitest';
import type { Database, Queryable } from '../server/storage/db.js';
import { migrate, readMigrations } from '../server/storage/migrate.js';
import { openPglite } from '../server/storage/pglite.js';
import { openPostgres } from '../server/storage/postgres.js';
import { DEFAULT_WINDOWS, installScopes } from '../server/storage/scopes.js';
import { createTestDatabase, engines, openTestStore } from './support/engines.js';

/**
 * A store from before migration 0020 holds every device's entries (`scope_rows`) but not what
 * each entry counts as needing, nor the counts. The migration fills both from the entries, and the
 * rebuild that follows at start (the generated SQL changed) finds nothing to change: the entries a
 * current store keeps for the same rows, with their `needs` and counts, are what the old store ends with.
 */
describe.each(engines)('migrating a store to counted needs on %s', (engine) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  /** A store with no migration applied. */
  async function open(): Promise<Database> {
    let db: Database;
    if (engine === 'pglite') db = await openPglite();
    else {
      const { url, dropDatabase } = await createTestDatabase();
      db = await openPostgres(url);
      cleanups.push(dropDatabase);
    }
    cleanups.unshift(() => db.close());
    return db;
  }

  /** Technicians, customers, visits (live, deleted, unassigned, another technician's) and quotes (open and won). */
  async function writeCompany(q: Queryable): Promise<void> {
    await q.exec(`
      insert into organizations (org_id, id, name, slug, timezone, currency, settings, accounting_connected, payment_processor_connected)
        values ('o1', 'o1', 'Old Pools', 'old-pools', 'UTC', 'USD', '{}', false, false);
      insert into users (org_id, id, name, role) values ('o1', 't1', 'Ann', 'TECHNICIAN'), ('o1', 't2', 'Ben', 'TECHNICIAN'), ('o1', 'office', 'Office', 'OFFICE');
      insert into customers (org_id, id, last_name) select 'o1', 'c' || i, 'Customer ' || i from generate_series(1, 6) i;
      insert into services (org_id, id, customer_id, new_technician_id, start_time, photos, _deleted)
        select 'o1', 'v' || i, 'c' || (1 + i % 4), case when i % 5 = 0 then null when i % 3 = 0 then 't2' else 't1' end,
               now() - make_interval(days => (i % 40)::int, hours => 12), '[]', i % 7 = 0
          from generate_series(1, 60) i;
      insert into quotes (org_id, id, number, title, customer_id, status, subtotal, tax, total, created_by_id)
        values ('o1', 'q1', 'Q-1', 'Heater', 'c5', 'DRAFT', 0, 0, 0, 't1'), ('o1', 'q2', 'Q-2', 'Pump', 'c6', 'ACCEPTED', 0, 0, 0, 'office');`);
  }

  const entries = (q: Queryable) =>
    q.query('select audience, collection, row_id, present, needs from scope_rows order by audience, collection, row_id').then((r) => r.rows);
  const counts = (q: Queryable) => q.query('select audience, collection, row_id, holders from scope_needs order by audience, collection, row_id').then((r) => r.rows);

  it('fills what each entry needs and the counts from the entries, as the triggers keep them', async () => {
    // Today's store, its entries kept by the triggers as the company is written.
    const store = await openTestStore(engine);
    cleanups.unshift(() => store.drop());
    const current = store.db;
    await writeCompany(current);
    const kept = { entries: await entries(current), counts: await counts(current) };
    expect(kept.counts.length).toBeGreaterThan(4);

    // The same company in a store from before 0020, holding the same entries (seq aside).
    const old = await open();
    await migrate(old, readMigrations().filter((m) => m.version < 20));
    await writeCompany(old);
    const { rows } = await current.query<Record<string, unknown>>('select audience, collection, row_id, seq, present from scope_rows');
    await old.query(
      `insert into scope_rows (org_id, audience, collection, row_id, seq, present)
       select 'o1', e.audience, e.collection, e.row_id, e.seq, e.present from jsonb_to_recordset($1::jsonb) e(audience text, collection text, row_id text, seq bigint, present boolean)`,
      [JSON.stringify(rows)],
    );

    // 0020 and whatever came after it.
    expect(await migrate(old)).toContain(20);
    expect(await entries(old)).toEqual(kept.entries);
    expect(await counts(old)).toEqual(kept.counts);
    // The first start installs the generated SQL and rebuilds: nothing to change.
    expect(await installScopes(old, DEFAULT_WINDOWS)).toBe(true);
    expect(await entries(old)).toEqual(kept.entries);
    expect(await counts(old)).toEqual(kept.counts);
  });
});
