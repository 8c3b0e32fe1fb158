import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customerResource } from '../shared/index.js';
import type { Database, Engine } from '../server/storage/db.js';
import { migrate, readMigrations } from '../server/storage/migrate.js';
import { openStore } from '../server/storage/open.js';
import { recordTable } from '../server/storage/records.js';
import { newOrganization } from './support/server.js';
import { engines, openTestStore, type TestStore } from './support/engines.js';

/**
 * The same storage cases on every engine. Each case returns what it observed; besides its own
 * assertions, the observations of all engines must be identical.
 */
const observed = new Map<Engine, Record<string, unknown>>();
const customers = recordTable(customerResource);

describe.each(engines)('storage on %s', (engine) => {
  let store: TestStore;
  let db: Database;
  const seen: Record<string, unknown> = {};

  beforeAll(async () => {
    store = await openTestStore(engine);
    db = store.db;
    observed.set(engine, seen);
  });
  afterAll(() => store?.drop());

  it('returns the same JS types from both drivers', async () => {
    const { rows } = await db.query(`select
        9007199254740::int8 as big, 12.50::numeric(12,2) as money, 3::int4 as small, 0.1::float8 as ratio,
        true as flag, '2026-03-01'::date as day,
        '2026-03-01 10:20:30.456+02'::timestamptz as at,
        '{"a": [1, {"b": null}]}'::jsonb as doc, array['x', 'y']::text[] as tags,
        null::text as nothing`);
    const row = rows[0]!;
    expect(row).toEqual({
      big: 9007199254740,
      money: 12.5,
      small: 3,
      ratio: 0.1,
      flag: true,
      day: '2026-03-01',
      at: '2026-03-01T08:20:30.456Z',
      doc: { a: [1, { b: null }] },
      tags: ['x', 'y'],
      nothing: null,
    });
    seen.types = row;
  });

  it('has applied every migration once and re-running applies none', async () => {
    const { rows } = await db.query<{ version: number }>('select version from schema_migrations order by version');
    expect(rows.map((r) => r.version)).toEqual(readMigrations().map((m) => m.version));
    expect(await migrate(db)).toEqual([]);
    seen.migrations = rows.map((r) => r.version);
  });

  it('rolls a failed transaction back completely', async () => {
    const { org } = await newOrganization(db, 'Rollback Pools');
    await expect(
      db.transaction(async (tx) => {
        await customers.insert(tx, org.id, { id: 'c-rollback', lastName: 'Kept?' });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await customers.findById(db, org.id, 'c-rollback')).toBeNull();
    seen.rollback = 'nothing kept';
  });

  it('stamps every replicated write with a new _seq and server-set timestamps', async () => {
    const { org } = await newOrganization(db, 'Feed Pools');
    const clientClaim = '2001-01-01T00:00:00.000Z';
    const created = await customers.insert(db, org.id, {
      id: 'c-feed',
      lastName: 'Smith',
      tags: ['weekly'],
      createdAt: clientClaim,
      updatedAt: clientClaim,
    });
    expect(created.updatedAt).not.toBe(clientClaim);
    const seqOf = async () =>
      (await db.query<{ _seq: number }>('select _seq from customers where org_id = $1 and id = $2', [org.id, 'c-feed']))
        .rows[0]!._seq;
    const firstSeq = await seqOf();
    const updated = await customers.update(db, org.id, 'c-feed', { notes: 'Dog in yard', createdAt: clientClaim });
    expect(await seqOf()).toBeGreaterThan(firstSeq);
    expect(updated!.createdAt).toBe(created.createdAt);
    expect(Date.parse(updated!.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.updatedAt));
    expect(updated).toMatchObject({ lastName: 'Smith', notes: 'Dog in yard', tags: ['weekly'] });
    seen.feed = { tags: updated!.tags, notes: updated!.notes, seqIncreased: true };
  });

  it('never shows one organization a record of another', async () => {
    const a = await newOrganization(db, 'Alpha Pools');
    const b = await newOrganization(db, 'Beta Pools');
    await customers.insert(db, a.org.id, { id: 'shared-id', lastName: 'Alpha customer' });
    await customers.insert(db, b.org.id, { id: 'shared-id', lastName: 'Beta customer' });
    expect((await customers.findById(db, a.org.id, 'shared-id'))!.lastName).toBe('Alpha customer');
    expect(await customers.update(db, b.org.id, 'missing', { notes: 'x' })).toBeNull();
    await customers.update(db, b.org.id, 'shared-id', { notes: 'only beta' });
    expect((await customers.findById(db, a.org.id, 'shared-id'))!.notes).toBeNull();
    seen.tenancy = 'isolated';
  });

  it('keeps jsonb lists as lists (pg would send a JS array as a PostgreSQL array)', async () => {
    const { org } = await newOrganization(db, 'Json Pools');
    const water = [{ id: 'b1', name: 'Main pool', kind: 'POOL' as const, volumeGallons: 15000, surface: null, sanitizer: null, notes: null }];
    await customers.insert(db, org.id, { id: 'c-json', lastName: 'Lee', bodiesOfWater: water, customFields: [1, 'two'] });
    const back = await customers.findById(db, org.id, 'c-json');
    expect(back!.bodiesOfWater).toEqual(water);
    expect(back!.customFields).toEqual([1, 'two']);
    seen.json = back!.bodiesOfWater;
  });
});

describe('the embedded engine', () => {
  it('keeps its buffer cache as configured (it lives in WebAssembly memory, which never shrinks)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pglite-buffers-'));
    try {
      for (const [configured, shown] of [[undefined, '32MB'], [8, '8MB']] as const) {
        const store = await openStore({ dataDir: dir, pgliteSharedBuffersMb: configured });
        const { rows } = await store.query<{ shared_buffers: string }>('show shared_buffers');
        await store.close();
        expect(rows[0]!.shared_buffers).toBe(shown);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('engines agree', () => {
  it.runIf(engines.length > 1)('every storage case observed the same on PGlite and PostgreSQL', () => {
    expect(observed.get('postgres')).toEqual(observed.get('pglite'));
  });
});
