import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLocalBlobStore } from '../server/storage/local-blobs.js';
import type { OperationContext } from '../server/operations/context.js';
import { listCustomers } from '../server/operations/customers.js';
import { listInventoryItems } from '../server/operations/inventory.js';
import { listQuotes } from '../server/operations/quotes.js';
import { listServices } from '../server/operations/services.js';
import type { Database, Queryable } from '../server/storage/db.js';
import { serviceIdsMatching } from '../server/storage/services.js';
import { SEED_TECHNICIANS, seedOrganizationData } from './bench/seed.js';
import { engines, openTestStore, type TestStore } from './support/engines.js';
import { newOrganization } from './support/server.js';

/**
 * Every main list and search query is answered from an index: the statements the operations
 * really send are captured and EXPLAINed on seeded data, on both engines.
 */
interface Captured {
  sql: string;
  params: readonly unknown[];
}

function capturing(db: Database): { db: Database; last: () => Captured } {
  const seen: Captured[] = [];
  const record = (q: Queryable): Queryable => ({
    query: (sql, params = []) => {
      seen.push({ sql, params });
      return q.query(sql, params);
    },
    exec: (sql) => q.exec(sql),
  });
  const wrapped: Database = {
    ...record(db),
    engine: db.engine,
    durability: db.durability,
    transaction: (fn) => db.transaction((tx) => fn(record(tx))),
    listen: (channel, onPayload, onGap) => db.listen(channel, onPayload, onGap),
    poolStats: () => db.poolStats(),
    close: () => db.close(),
  };
  return { db: wrapped, last: () => seen.at(-1)! };
}

describe.each(engines)('list queries use their indexes on %s', (engine) => {
  let store: TestStore;
  let ctx: OperationContext;
  let last: () => Captured;

  beforeAll(async () => {
    store = await openTestStore(engine);
    const { org } = await newOrganization(store.db, 'Explain Pools');
    await seedOrganizationData(store.db, org.id, { customers: 5000, services: 10000 });
    const capture = capturing(store.db);
    last = capture.last;
    const blobs = await openLocalBlobStore(await mkdtemp(path.join(tmpdir(), 'explain-blobs-')));
    ctx = { db: capture.db, blobs, viewer: { orgId: org.id, userId: 'u', role: 'ADMIN', tokenId: 't' } };
  });
  afterAll(async () => {
    await store?.drop();
  });

  async function plan(run: () => Promise<unknown>): Promise<string> {
    await run();
    const { sql, params } = last();
    const { rows } = await store.db.query<Record<string, string>>(`explain ${sql}`, params);
    return rows.map((r) => Object.values(r)[0]).join('\n');
  }

  it('customers by name, and by created date, read an index in order (no sort, no table scan)', async () => {
    const byName = await plan(() => listCustomers(ctx, { first: 50 }));
    expect(byName).toContain('customers_by_name');
    expect(byName).not.toMatch(/Seq Scan|Sort/);
    const byCreated = await plan(() => listCustomers(ctx, { first: 50, sort: [{ field: 'CREATED_AT', direction: 'DESC' }] }));
    expect(byCreated).toContain('customers_by_created');
    expect(byCreated).not.toMatch(/Seq Scan/);
  });

  it('customer search and its totalCount use the trigram index', async () => {
    // The matches come from the trigram index; joining them to their rows is the planner's call
    // (over 5,000 rows a hash join may read the table; at 100,000 it probes the primary key).
    const search = await plan(() => listCustomers(ctx, { first: 50, selector: { search: 'smi' } }));
    expect(search).toContain('customer_search_trgm');
    expect(search).not.toContain('Seq Scan on customer_search');
    const count = await plan(async () => (await listCustomers(ctx, { first: 50, selector: { search: 'john smi' } })).totalCount());
    expect(count).toContain('customer_search_trgm');
    expect(count).not.toContain('Seq Scan on customer_search');
  });

  it('the visit list and a technician’s visits in a date range use indexes', async () => {
    const all = await plan(() => listServices(ctx, { first: 50 }));
    expect(all).toContain('services_by_start');
    expect(all).not.toMatch(/Seq Scan|Sort/);
    const filtered = await plan(() =>
      listServices(ctx, {
        first: 50,
        selector: { filters: { technicians: [SEED_TECHNICIANS[2]], startTime: { gte: '2026-01-01T00:00:00Z', lte: '2026-03-31T23:59:59Z' } } },
      }),
    );
    expect(filtered).toMatch(/services_by_(secondary_)?technician/);
    expect(filtered).not.toContain('Seq Scan on services');
    // A common word (one visit in 15): the page is found walking the start-time index, one
    // search-row lookup per visit, without gathering every match.
    const common = await plan(() => listServices(ctx, { first: 50, selector: { search: 'skimmer' } }));
    expect(common).toContain('services_by_start');
    expect(common).toContain('service_search_pkey');
    expect(common).not.toMatch(/Seq Scan|service_search_trgm/);
    // A rare one is not on the next 2,000 visits: its few matches come from the trigram index.
    const rare = await plan(() => listServices(ctx, { first: 50, selector: { search: 'resurfaced' } }));
    expect(rare).toContain('service_search_trgm');
    expect(rare).not.toContain('Seq Scan on service_search');
  });

  it('a page found by walking the sort index is exactly the page the gathered matches give, page after page', async () => {
    const { rows } = await store.db.query<{ id: string }>(
      `select s.id from services s join service_search ss on ss.org_id = s.org_id and ss.id = s.id
        where s.org_id = $1 and not s._deleted and ss.doc like '%skimmer%'
        order by coalesce(s.start_time, '-infinity'::timestamptz) desc, s.id desc limit 150`,
      [ctx.viewer.orgId],
    );
    const seen: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 3; page++) {
      const connection = await listServices(ctx, { first: 50, after, selector: { search: 'skimmer' } });
      seen.push(...connection.edges.map((e) => e.node.id));
      after = connection.pageInfo.endCursor;
    }
    expect(seen).toEqual(rows.map((r) => r.id));
  });

  it('after one statement rewrites the notes of 3,000 visits, search still reads the trigram index and finds them all', async () => {
    // Migration 0006 lets a statement append to the index's pending list and merges it when the
    // statement ends; nothing may be left behind for the planner to price the index by.
    await store.db.query(
      `update services set notes = coalesce(notes, '') || ' resurfaced plaster' where org_id = $1 and id in (select id from services where org_id = $1 order by id limit 3000)`,
      [ctx.viewer.orgId],
    );
    // Every match gathered (a bulk operation's selection; a search page whose word is this
    // common walks the sort index instead, see above).
    const search = await plan(() => serviceIdsMatching(ctx.db, ctx.viewer.orgId, { search: 'resurfaced' }));
    expect(search).toContain('service_search_trgm');
    expect(search).not.toContain('Seq Scan on service_search');
    expect(await serviceIdsMatching(ctx.db, ctx.viewer.orgId, { search: 'resurfaced plaster' })).toHaveLength(3000);
    const { rows } = await store.db.query<{ n: number }>(`select count(*)::int as n from service_search where org_id = $1 and doc like '%resurfaced plaster%'`, [ctx.viewer.orgId]);
    expect(rows[0]!.n).toBe(3000);
  });

  it('quotes and inventory lists read their indexes', async () => {
    const quotes = await plan(() => listQuotes(ctx, { first: 50, filter: { status: 'SENT' } }));
    expect(quotes).toMatch(/quotes_by_(status|created)/);
    expect(quotes).not.toContain('Seq Scan');
    const items = await plan(() => listInventoryItems(ctx, { first: 50 }));
    expect(items).toContain('inventory_items_by_name');
    expect(items).not.toContain('Seq Scan');
  });
});
