import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceMayWrite, SYNC_RULES, technicianVisitWindow } from '../shared/index.js';
import { seededRandom } from '../shared/seeded-random.js';
import { READ_ONLY_COLLECTIONS } from '../client-sdk/replica/database.js';
import { SYNC_COLLECTIONS } from '../server/operations/sync/collections.js';
import { engines, openTestStore, type TestStore } from './support/engines.js';

/**
 * The sync rules are written once (shared/sync/rules.ts) and each end reads them. Where a rule has
 * two forms, the SQL the pull filters with and the predicate the live stream filters with, both
 * are run on the same generated visits and must agree.
 */
describe.each(engines)('the technician window on %s: the SQL and the predicate agree', (engine) => {
  let store: TestStore;
  beforeAll(async () => {
    store = await openTestStore(engine);
  });
  afterAll(async () => {
    await store?.drop();
  });

  it('on 2,000 generated visits, with and without a start time, around the window’s edge', async () => {
    const random = seededRandom(26);
    const day = 86_400_000;
    const days = 60;
    const base = Date.now();
    // Times spread over 200 days either side, many within an hour of the edge; some visits have no start.
    const visits = Array.from({ length: 2000 }, (_, i) => {
      const offset = i % 3 === 0 ? (-days * day + (random() - 0.5) * 3_600_000) : (random() - 0.5) * 400 * day;
      const at = new Date(base + offset).toISOString();
      return random() < 0.3 ? { id: `v${i}`, startTime: null, createdAt: at } : { id: `v${i}`, startTime: at, createdAt: new Date(base - random() * 400 * day).toISOString() };
    });
    const { rows } = await store.db.query<{ id: string; inside: boolean; now: Date }>(
      `select v.id, ${technicianVisitWindow.sql('t', '$2')} as inside, now() as now
         from jsonb_to_recordset($1::jsonb) as v(id text, "startTime" timestamptz, "createdAt" timestamptz),
              lateral (select v."startTime" as start_time, v."createdAt" as created_at) t`,
      [JSON.stringify(visits), days],
    );
    expect(rows).toHaveLength(visits.length);
    const now = new Date(rows[0]!.now).getTime();
    const byId = new Map(visits.map((v) => [v.id, v]));
    const disagreements = rows.filter((r) => r.inside !== technicianVisitWindow.holds(byId.get(r.id)!, days, now));
    expect(disagreements).toEqual([]);
    // Both sides of the edge were exercised.
    expect(rows.some((r) => r.inside) && rows.some((r) => !r.inside)).toBe(true);
  });
});

describe('the sync rules are read, not copied', () => {
  it('the server’s collections take kind, writers and references from the shared rules', () => {
    for (const c of SYNC_COLLECTIONS) {
      const rule = SYNC_RULES[c.name]!;
      expect({ kind: c.kind, writers: c.writers, references: c.references.map((r) => ({ field: r.field, what: r.what, table: r.table.resource.table })) }).toEqual({
        kind: rule.kind,
        writers: rule.writers,
        references: rule.references.map((r) => ({ field: r.field, what: r.what, table: SYNC_COLLECTIONS.find((x) => x.name === r.collection)!.resource.table })),
      });
    }
    expect(SYNC_COLLECTIONS.map((c) => c.name).sort()).toEqual(Object.keys(SYNC_RULES).sort());
  });

  it('the SDK refuses locally exactly what the kinds forbid', () => {
    expect([...READ_ONLY_COLLECTIONS].sort()).toEqual(['organization', 'serviceTypes', 'stockLevels']);
    expect(['insert', 'change', 'delete'].map((w) => deviceMayWrite('stockMovements', w as never))).toEqual([true, false, false]);
    expect(deviceMayWrite('customers', 'delete')).toBe(true);
    expect(deviceMayWrite('stockLevels', 'insert')).toBe(false);
    expect(deviceMayWrite('nothing', 'insert')).toBe(false);
  });
});
