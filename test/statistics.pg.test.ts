import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keepStatistics } from '../server/jobs/statistics-keeper.js';
import type { Queryable } from '../server/storage/db.js';
import { autovacuumKeepsStatistics, staleTables } from '../server/storage/statistics.js';
import { engines, openTestStore, type TestStore } from './support/engines.js';
import { newOrganization, startTestServer, type TestServer } from './support/server.js';
import { pushChanges } from './support/sync.js';

/**
 * The planner's statistics on a store whose autovacuum does not keep them (PGlite always; this
 * machine's PostgreSQL runs with autovacuum off): a company's customers imported through sync
 * leave the table unanalyzed (the planner guesses 2 customers for an organization of 3,000), and
 * one round of the keeper analyzes it. At the office's 13,000 customers such a guess looked each
 * customer up by scanning a smaller index of the whole organization instead of the primary key:
 * 35 s for a page of the first sync's week band, 1.4 s once analyzed (a plan only that size shows,
 * so it is measured by `BENCH_ONLY=company npm run bench`, not here).
 */
const CUSTOMERS = 3_000;

describe.each(engines)('planner statistics on %s', (engine) => {
  let store: TestStore;
  let server: TestServer;
  let orgId: string;

  beforeAll(async () => {
    store = await openTestStore(engine);
    server = await startTestServer(store.db);
    const { org, token } = await newOrganization(store.db, 'Statistics Pools');
    orgId = org.id;
    for (let at = 0; at < CUSTOMERS; at += 1_000) {
      const rows = Array.from({ length: 1_000 }, (_, i) => ({
        newDocumentState: { id: `stat-${at + i}`, firstName: `First${at + i}`, lastName: `Customer ${at + i}`, city: 'Phoenix', streetAddress: `${at + i} Palm St` },
      }));
      const answer = await pushChanges(server, token, 'customers', rows);
      expect(answer.status).toBe(200);
    }
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await store?.drop();
  });

  it('finds the imported table stale, analyzes it in one round, and then finds nothing to do', async () => {
    expect((await staleTables(store.db)).map((t) => t.name)).toContain('customers');
    expect(await keepStatistics(store.db)).toContain('customers');
    const { rows } = await store.db.query<{ reltuples: number }>("select reltuples from pg_class where relname = 'customers' and relkind = 'r'");
    expect(rows[0]!.reltuples).toBeGreaterThan(CUSTOMERS * 0.9);
    expect(rows[0]!.reltuples).toBeLessThan(CUSTOMERS * 1.1);
    expect(await keepStatistics(store.db)).toEqual([]);
  });

  it("then plans on the organization's real size, not on a guess", async () => {
    const estimate = await estimatedRows(store.db, orgId);
    expect(estimate).toBeGreaterThan(CUSTOMERS * 0.9);
    expect(estimate).toBeLessThan(CUSTOMERS * 1.1);
  });

  it('says whether autovacuum keeps the statistics instead: never on the embedded store', async () => {
    const kept = await autovacuumKeepsStatistics(store.db);
    if (engine === 'pglite') expect(kept).toBe(false);
    else {
      const { rows } = await store.db.query<{ autovacuum: string }>("select current_setting('autovacuum') as autovacuum");
      expect(kept).toBe(rows[0]!.autovacuum === 'on');
    }
  });
});

/** How many of the organization's customers the planner expects (read off its plan). */
async function estimatedRows(db: Queryable, orgId: string): Promise<number> {
  const { rows } = await db.query<{ 'QUERY PLAN': string }>('explain select id from customers where org_id = $1', [orgId]);
  return Number(/rows=(\d+)/.exec(rows[0]!['QUERY PLAN'])![1]);
}
