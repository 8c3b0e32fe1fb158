import { describe, expect, it } from 'vitest';
import type { Queryable } from '../server/storage/db.js';
import { countCustomers } from '../server/storage/customers.js';
import { caller, ok } from './support/api.js';
import { engines, type TestStore } from './support/engines.js';
import { useTestServer } from './support/fixture.js';
import { newOrganization, type TestServer } from './support/server.js';
import { pushChanges, serverDocument } from './support/sync.js';

/**
 * The customer list's totalCount without filters is read from a count the table's own triggers
 * keep (migration 0010). It must be exact after every kind of write: API creates and deletes,
 * restores through sync, multi-row statements, hard deletes, in another organization too.
 */
describe.each(engines)('customer counts on %s', (engine) => {
  let store: TestStore;
  let server: TestServer;
  let token: string;
  let orgId: string;
  let otherOrg: string;

  useTestServer(engine, { organization: 'Counted Pools' }, async (t) => {
    ({ store, server } = t);
    ({ token, org: { id: orgId } } = t);
    otherOrg = (await newOrganization(store.db, 'Other Pools')).org.id;
  });

  const TOTALS = `query($deleted: Boolean!) {
    live: infiniteCustomers(first: 1) { totalCount }
    gone: infiniteCustomers(first: 1, selector: {filters: {deleted: {eq: $deleted}}}) { totalCount } }`;

  /** What the API answers, and what counting the rows says. */
  async function totals(org = orgId, apiToken = token) {
    const api = ok(await caller(server, apiToken)(TOTALS, { deleted: true }));
    const { rows } = await store.db.query<{ live: number; gone: number }>(
      `select count(*) filter (where not _deleted)::int as live, count(*) filter (where _deleted)::int as gone from customers where org_id = $1`,
      [org],
    );
    return { api: { live: api.live.totalCount, gone: api.gone.totalCount }, counted: rows[0] };
  }

  it('stays exact through creates, deletes, restores, multi-row statements and hard deletes', async () => {
    const gql = caller(server, token);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(ok(await gql(`mutation { createCustomer(input: {lastName: "Count ${i}"}) { id } }`)).createCustomer.id);
    expect((await totals()).api).toEqual({ live: 5, gone: 0 });

    ok(await gql(`mutation($id: ID!) { deleteCustomer(id: $id) { id } }`, { id: ids[0] }));
    ok(await gql(`mutation($id: ID!) { updateCustomer(id: $id, input: {lastName: "Renamed"}) { id } }`, { id: ids[1] }));
    expect((await totals()).api).toEqual({ live: 4, gone: 1 });

    // A device's push of a deleted customer's old state does not bring it back; a statement that
    // undeletes it does.
    const deleted = await serverDocument(server, token, 'customers', ids[0]!);
    expect((await pushChanges(server, token, 'customers', [{ assumedMasterState: deleted, newDocumentState: { ...deleted, _deleted: false } }])).status).toBe(200);
    expect((await totals()).api).toEqual((await totals()).counted);
    await store.db.query(`update customers set _deleted = false where org_id = $1 and id = $2`, [orgId, ids[0]]);
    expect((await totals()).api).toEqual({ live: 5, gone: 0 });

    // One statement inserting 300 rows, one deleting 100 of them softly and one hard-deleting 50.
    await store.db.query(`insert into customers (org_id, id, last_name) select $1, 'bulk-' || i, 'Bulk ' || i from generate_series(1, 300) i`, [orgId]);
    await store.db.query(`update customers set _deleted = true where org_id = $1 and id like 'bulk-%' and substring(id from 6)::int <= 100`, [orgId]);
    await store.db.query(`delete from customers where org_id = $1 and id like 'bulk-%' and substring(id from 6)::int > 250`, [orgId]);
    const after = await totals();
    expect(after.api).toEqual(after.counted);
    expect(after.api).toEqual({ live: 155, gone: 100 });

    // Another organization's count is its own.
    await store.db.query(`insert into customers (org_id, id, last_name) values ($1, 'x1', 'Elsewhere'), ($1, 'x2', 'Elsewhere')`, [otherOrg]);
    expect((await totals()).api).toEqual({ live: 155, gone: 100 });
  });

  it('a filtered or searched count still counts the rows (a hard-deleted row leaves the search with it)', async () => {
    const gql = caller(server, token);
    const searched = ok(await gql(`{ infiniteCustomers(first: 1, selector: {search: "bulk"}) { totalCount } }`));
    expect(searched.infiniteCustomers.totalCount).toBe(150);
    const filtered = ok(await gql(`{ infiniteCustomers(first: 1, selector: {filters: {city: {eq: "Nowhere"}}}) { totalCount } }`));
    expect(filtered.infiniteCustomers.totalCount).toBe(0);
  });

  it('reads the kept count for the whole list instead of counting rows', async () => {
    const statements: string[] = [];
    const watching: Queryable = {
      query: (sql, params) => {
        statements.push(sql);
        return store.db.query(sql, params);
      },
      exec: (sql) => store.db.exec(sql),
    };
    expect(await countCustomers(watching, orgId, {})).toBe(155);
    expect(statements).toEqual([expect.stringContaining('from customer_counts')]);
  });
});
