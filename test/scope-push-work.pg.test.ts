import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../server/operations/auth.js';
import type { OperationContext } from '../server/operations/context.js';
import { provisionOrganization } from '../server/operations/organization.js';
import { push } from '../server/operations/sync/push.js';
import type { Database, Queryable } from '../server/storage/db.js';
import { engines, openTestStore, type TestStore } from './support/engines.js';

/**
 * A one-visit push does the same work whatever the size of its customer: keeping every device's
 * scope (server/storage/scope-sql.ts) is incremental, never a recomputation of what the customer's
 * other visits say. Work is counted, not timed: the rows each table and index of the store gives
 * its readers inside the push's own transaction (PostgreSQL's per-backend counters, which the
 * statements of triggers add to like any other), with 100 and then 10,000 visits of the customer.
 * A trigger that reads every visit of the customer hides inside the one insert statement; these
 * counters see it.
 */

/** Rows read per relation: a table's sequential and index fetches, an index's entries returned. */
type Reads = Record<string, number>;

const READS_SQL = `
  select c.relname as name,
         (case when c.relkind = 'i' then pg_stat_get_xact_tuples_returned(c.oid)
               else pg_stat_get_xact_tuples_returned(c.oid) + pg_stat_get_xact_tuples_fetched(c.oid) end)::bigint as n
    from pg_class c
   where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'i')`;

async function readsSoFar(tx: Queryable): Promise<Reads> {
  const { rows } = await tx.query<{ name: string; n: number | string }>(READS_SQL);
  return Object.fromEntries(rows.map((r) => [r.name, Number(r.n)]));
}

/**
 * The store as the push sees it, except that each transaction's reads are taken: the counters are
 * read as it begins and again before it commits (inside one transaction a backend never flushes
 * them), and the difference is the transaction's own.
 */
function counted(db: Database, onReads: (reads: Reads) => void): Database {
  const transaction = <T,>(fn: (tx: Queryable) => Promise<T>): Promise<T> =>
    db.transaction(async (tx) => {
      const before = await readsSoFar(tx);
      const result = await fn(tx);
      const after = await readsSoFar(tx);
      onReads(Object.fromEntries(Object.entries(after).flatMap(([name, n]) => (n - (before[name] ?? 0) > 0 ? [[name, n - (before[name] ?? 0)]] : []))));
      return result;
    });
  return new Proxy(db, { get: (target, key) => (key === 'transaction' ? transaction : Reflect.get(target, key, target)) });
}

const total = (reads: Reads) => Object.values(reads).reduce((a, b) => a + b, 0);

describe.each(engines)('a one-visit push on %s', (engine) => {
  let store: TestStore;
  let orgId: string;
  let technician: OperationContext['viewer'];

  beforeAll(async () => {
    store = await openTestStore(engine);
    orgId = (await provisionOrganization(store.db, { name: 'Busy Pools' })).organization.id;
    const issued = await issueToken(store.db, orgId, { name: 'Field', role: 'TECHNICIAN' });
    technician = { userId: issued.apiToken.userId, orgId, role: 'TECHNICIAN', tokenId: issued.apiToken.id };
    await store.db.query(`insert into customers (org_id, id, last_name) values ($1, 'regular', 'Regular'), ($1, 'other', 'Other')`, [orgId]);
  });
  afterAll(async () => {
    await store?.drop();
  });

  /** Gives the customer visits of the technician's, up to `count`, then refreshes the planner's statistics as the statistics keeper would. */
  async function growCustomerTo(customer: string, count: number): Promise<void> {
    await store.db.query(
      `insert into services (org_id, id, customer_id, new_technician_id, start_time, photos)
       select $1, $2 || '-' || i, $2, $3, now() - make_interval(days => (i % 30)::int), '[]'
         from generate_series((select count(*) from services where org_id = $1 and customer_id = $2) + 1, $4::int) i`,
      [orgId, customer, technician.userId, count],
    );
    await store.db.exec('analyze');
  }

  /** One new visit of the customer's, pushed by the technician; what its transaction read. */
  async function pushOneVisit(id: string): Promise<Reads> {
    let reads: Reads = {};
    const db = counted(store.db, (r) => (reads = r));
    const outcome = await push({ db, blobs: null as never, viewer: technician }, 'services', [
      { changeId: `change-${id}`, newDocumentState: { id, customerId: 'regular', newTechnicianId: technician.userId, startTime: new Date().toISOString(), photos: [] } },
    ]);
    expect(outcome.written).toBe(1);
    return reads;
  }

  it('reads as much with 10,000 visits of its customer as with 100', async () => {
    // The company is large at both measures (another customer's 10,000 visits), so that the tables
    // are read the way a large company's are (by their indexes) at both.
    await growCustomerTo('other', 10_000);
    await growCustomerTo('regular', 100);
    await pushOneVisit('warm-up');
    const small = await pushOneVisit('at-100');
    await growCustomerTo('regular', 10_000);
    await pushOneVisit('warm-up-2');
    const large = await pushOneVisit('at-10000');
    const grown = Object.entries(large).filter(([name, n]) => n > (small[name] ?? 0) + 5);
    expect(grown, `rows read by the push, per table and index: at 100 visits ${JSON.stringify(small)}, at 10,000 ${JSON.stringify(large)}`).toEqual([]);
    expect(total(large)).toBeLessThanOrEqual(total(small) + 20);
    // A few dozen rows, where the customer has 10,000 visits (reading those was 50,000 rows).
    expect(total(large)).toBeLessThan(500);
    // The visit reached the technician's feed and the office's, and both still hold the customer.
    const { rows } = await store.db.query<{ audience: string; collection: string }>(
      `select audience, collection from scope_rows where org_id = $1 and present and row_id in ('at-10000', 'regular')`,
      [orgId],
    );
    const held = rows.map((r) => `${r.audience === technician.userId ? 'technician' : r.audience} ${r.collection}`).sort();
    expect(held).toEqual(['@office customers', '@office services', 'technician customers', 'technician services']);
  });
});
