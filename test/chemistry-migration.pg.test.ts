import { afterAll, describe, expect, it } from 'vitest';
import type { Database } from '../server/storage/db.js';
import { migrate, readMigrations } from '../server/storage/migrate.js';
import { openPglite } from '../server/storage/pglite.js';
import { openPostgres } from '../server/storage/postgres.js';
import { createTestDatabase, engines } from './support/engines.js';

/**
 * Readings and volumes became bounded. A store written before may hold a pH of 74 (for
 * 7.4) or a pool of 0 gallons, which would make every later change of that visit or customer fail
 * validation. The migration clears them and keeps each in the conflict log the office reads.
 */
describe.each(engines)('the water chemistry migration on %s', (engine) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  async function storeBefore(): Promise<Database> {
    let db: Database;
    if (engine === 'pglite') db = await openPglite();
    else {
      const { url, dropDatabase } = await createTestDatabase();
      db = await openPostgres(url);
      cleanups.push(dropDatabase);
    }
    cleanups.unshift(() => db.close());
    await migrate(db, readMigrations().filter((m) => !m.name.startsWith('water_chemistry')));
    return db;
  }

  it('clears impossible readings and volumes, keeps each in the conflict log, and leaves good values alone', async () => {
    const db = await storeBefore();
    await db.exec(`
      insert into organizations (org_id, id, name, slug, timezone, currency, settings, accounting_connected, payment_processor_connected)
        values ('o1', 'o1', 'Old Pools', 'old-pools', 'UTC', 'USD', '{}', false, false);
      insert into customers (org_id, id, last_name, pool, bodies_of_water) values
        ('o1', 'c1', 'Zero', '{"kind": "POOL", "volumeGallons": 0, "gateCode": "#1"}',
         '[{"id": "b1", "name": "Main", "kind": "POOL", "volumeGallons": 15000}, {"id": "b2", "name": "Spa", "kind": "SPA", "volumeGallons": -600}]'),
        ('o1', 'c2', 'Fine', '{"kind": "POOL", "volumeGallons": 12000}', null);
      insert into services (org_id, id, customer_id, photos, chemical_readings) values
        ('o1', 'v1', 'c2', '[]', '{"ph": 74, "freeChlorine": 2.5, "temperature": 20, "salt": -3}'),
        ('o1', 'v2', 'c2', '[]', '{"ph": 7.4, "freeChlorine": 0, "temperature": 130}');`);
    await migrate(db);

    const visits = await db.query<{ id: string; chemical_readings: Record<string, unknown> }>(`select id, chemical_readings from services order by id`);
    expect(visits.rows).toEqual([
      { id: 'v1', chemical_readings: { ph: null, freeChlorine: 2.5, temperature: null, salt: null } },
      { id: 'v2', chemical_readings: { ph: 7.4, freeChlorine: 0, temperature: 130 } },
    ]);
    const customers = await db.query<{ id: string; pool: any; bodies_of_water: any }>(`select id, pool, bodies_of_water from customers order by id`);
    expect(customers.rows[0]).toEqual({
      id: 'c1',
      pool: { kind: 'POOL', volumeGallons: null, gateCode: '#1' },
      bodies_of_water: [
        { id: 'b1', name: 'Main', kind: 'POOL', volumeGallons: 15000 },
        { id: 'b2', name: 'Spa', kind: 'SPA', volumeGallons: null },
      ],
    });
    expect(customers.rows[1]!.pool).toEqual({ kind: 'POOL', volumeGallons: 12000 });
    const logged = await db.query(`select collection, document_id as "documentId", field, kept_value as kept, lost_value as lost from sync_conflicts order by document_id, field`);
    expect(logged.rows).toEqual([
      { collection: 'customers', documentId: 'c1', field: 'bodiesOfWater.b2.volumeGallons', kept: null, lost: -600 },
      { collection: 'customers', documentId: 'c1', field: 'pool.volumeGallons', kept: null, lost: 0 },
      { collection: 'services', documentId: 'v1', field: 'chemicalReadings.ph', kept: null, lost: 74 },
      { collection: 'services', documentId: 'v1', field: 'chemicalReadings.salt', kept: null, lost: -3 },
      { collection: 'services', documentId: 'v1', field: 'chemicalReadings.temperature', kept: null, lost: 20 },
    ]);
  });
});
