import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { visitsBetween } from '../client-sdk/app-kit/visit-range.js';
import type { BoardCustomer, BoardVisit } from '../client-sdk/office-app/board/board-data.js';
import { dayRows, filterRoutes, routesOf, UNASSIGNED, weekRows } from '../client-sdk/office-app/board/routes.js';
import { collectionOf, createReplicaDatabase, type ReplicaDatabase } from '../client-sdk/replica/database.js';
import { SYNC_WRITE_CONTEXT } from '../client-sdk/replica/capture.js';
import { readStored, stateOf, writeStates } from '../client-sdk/replication/replica-store.js';
import type { RxCollection } from 'rxdb';

/**
 * The dispatch board's data on its own: a day's visits read on the replica's start index (not a
 * read of every visit), and the routes a dispatcher reads (what is done, to do and late; first and
 * last stop; zones), with unchanged routes kept as they were so their rows are not drawn again.
 */
const at = (hour: number, minute = 0, day = 0) => new Date(2026, 10, 26 + day, hour, minute).toISOString();

describe('a day on the replica', () => {
  let db: ReplicaDatabase;
  beforeAll(async () => {
    db = await createReplicaDatabase(`board-${Math.random().toString(36).slice(2)}`, getRxStorageMemory() as never, ['services']);
    const now = new Date().toISOString();
    const visit = (id: string, startTime: string | null) => ({ id, startTime, photos: [], createdAt: now, updatedAt: now, _deleted: false, _attachments: {}, _meta: { lwt: 0 }, _rev: '' });
    // Written as a pull writes them (the storage's own path), so the replica's keys are derived on the way in.
    const rows = [visit('before', at(23, 59, -1)), visit('first', at(0)), visit('late', at(17, 30)), visit('noon', at(12)), visit('undated', null), visit('after', at(0, 0, 1))];
    await collectionOf(db, 'services')!.storageInstance.bulkWrite(rows.map((document) => ({ document })) as never, SYNC_WRITE_CONTEXT);
  });
  afterAll(async () => {
    await db.close();
  });

  it('reads the day as a range of the start index, in time order, and nothing else', async () => {
    const query = visitsBetween(collectionOf(db, 'services')!, at(0), at(0, 0, 1));
    const plan = query.getPreparedQuery().queryPlan;
    // RxDB puts `_deleted` first in every index (live documents only).
    expect(plan.index).toEqual(['_deleted', 'startKey', 'id']);
    expect(plan.sortSatisfiedByIndex).toBe(true);
    expect(plan.selectorSatisfiedByIndex).toBe(true);
    expect(plan.startKeys.slice(0, 2)).toEqual([false, at(0)]);
    expect(plan.endKeys.slice(0, 2)).toEqual([false, at(0, 0, 1)]);
    expect((await query.exec()).map((d) => d.id)).toEqual(['first', 'noon', 'late']);
  });

  it("a visit's keys follow its start and technician when they change", async () => {
    // As a pulled state is written over the stored one.
    const visits = collectionOf(db, 'services')! as unknown as RxCollection;
    const stored = await readStored(visits, ['undated']);
    await writeStates(visits, [{ ...stateOf(stored.get('undated')!, 'services'), startTime: at(9), newTechnicianId: 'tech-9' }], stored);
    const moved = await visitsBetween(collectionOf(db, 'services')!, at(0), at(0, 0, 1)).exec();
    expect(moved.map((d) => d.id)).toEqual(['first', 'undated', 'noon', 'late']);
    expect(moved[1]!.toJSON()).toMatchObject({ startKey: at(9), technicianKey: 'tech-9' });
  });
});

describe('routes of a day', () => {
  const now = Date.parse(at(13));
  const technicians = [
    { id: 'ana', name: 'Ana' },
    { id: 'ben', name: 'Ben' },
  ];
  const customers = new Map<string, BoardCustomer>([
    ['c1', { id: 'c1', firstName: 'Carla', lastName: 'Smith', streetAddress: '1 Palm St', city: 'Mesa', state: 'AZ', zipCode: '85201', zone: 'East' }],
    ['c2', { id: 'c2', firstName: 'Derek', lastName: 'Rossi', streetAddress: '2 Elm St', city: 'Tempe', state: 'AZ', zipCode: '85281', zone: 'East' }],
    ['c3', { id: 'c3', firstName: 'Elena', lastName: 'Silva', streetAddress: '3 Oak St', city: 'Phoenix', state: 'AZ', zipCode: '85016', zone: 'West' }],
  ]);
  const visit = (id: string, technician: string | null, customer: string, start: string, end: string | null = null): BoardVisit =>
    ({ id, newTechnicianId: technician, customerId: customer, startTime: start, endTime: end, updatedAt: '2026-11-26T00:00:00.000Z', typeId: null, photos: [], chemicalReadings: null }) as BoardVisit;
  const visits = [
    visit('v3', 'ana', 'c2', at(14)),
    visit('v1', 'ana', 'c1', at(8), at(8, 40)),
    visit('v2', 'ana', 'c1', at(10)), // not done three hours after its start: late
    visit('v4', 'ben', 'c3', at(11, 30)), // started 90 minutes ago: late
    visit('v5', null, 'c3', at(16)),
  ];

  it('says per technician what is done, to do and late, with the first and last stop, and the visits nobody has last', () => {
    const routes = routesOf(visits, technicians, customers, now);
    expect(routes.map((r) => [r.technicianId, r.done, r.toDo, r.late, r.zone, r.visits.map((v) => v.id)])).toEqual([
      ['ana', 1, 2, 1, 'East', ['v1', 'v2', 'v3']],
      ['ben', 0, 1, 1, 'West', ['v4']],
      [UNASSIGNED, 0, 1, 0, 'West', ['v5']],
    ]);
  });

  it('keeps a route as it was when its visits did not change, and makes a new one when they did', () => {
    const first = routesOf(visits, technicians, customers, now);
    const changed = visits.map((v) => (v.id === 'v4' ? { ...v, endTime: at(12, 30), updatedAt: '2026-11-26T12:30:00.000Z' } : { ...v }));
    const second = routesOf(changed, technicians, customers, now, new Map(first.map((r) => [r.technicianId, r])));
    expect(second[0]).toBe(first[0]);
    expect(second[1]).not.toBe(first[1]);
    expect(second[1]).toMatchObject({ done: 1, toDo: 0, late: 0 });
  });

  it('filters by technician or customer and groups by zone under headings', () => {
    const routes = routesOf(visits, technicians, customers, now);
    expect(filterRoutes(routes, 'ben', customers).map((r) => r.technicianId)).toEqual(['ben']);
    expect(filterRoutes(routes, 'rossi tempe', customers).map((r) => r.technicianId)).toEqual(['ana']);
    expect(dayRows(routes, 'zone').map((row) => (row.kind === 'zone' ? `zone ${row.zone} ${row.routes}/${row.visits}` : row.route.technicianId))).toEqual([
      'zone East 1/3',
      'ana',
      'zone West 2/2',
      'ben',
      UNASSIGNED,
    ]);
  });

  it('counts a week per technician and day, done of all', () => {
    const days = Array.from({ length: 7 }, (_, i) => new Date(2026, 10, 23 + i));
    const week = weekRows([...visits, visit('v6', 'ben', 'c3', at(9, 0, 1), at(9, 30, 1))], technicians, days);
    expect(week.map((r) => [r.technicianId, r.total, r.days[3], r.days[4]])).toEqual([
      ['ana', 3, { done: 1, total: 3 }, { done: 0, total: 0 }],
      ['ben', 2, { done: 0, total: 1 }, { done: 1, total: 1 }],
      [UNASSIGNED, 1, { done: 0, total: 1 }, { done: 0, total: 0 }],
    ]);
  });
});
