import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { migrate, readMigrations } from '../server/storage/migrate.js';
import { openStore } from '../server/storage/open.js';
import { openPglite } from '../server/storage/pglite.js';
import { caller, ok, tokenFor } from './support/api.js';
import { engines, type TestStore } from './support/engines.js';
import { useTestServer } from './support/fixture.js';
import { openEventStream } from './support/event-stream.js';
import { newOrganization, startTestServer, type TestServer } from './support/server.js';
import { pullAll, pullChanges, pushChanges, serverDocument } from './support/sync.js';

/**
 * What went wrong under faults, one test each, on both engines: a push whose answer was
 * lost or that was edited in flight, a retried quote, a revoked token's stream, a bad reference,
 * a retried invalid row, and a live feed that must not start past an uncommitted write.
 */
describe.each(engines)('sync under faults on %s', (engine) => {
  let store: TestStore;
  let server: TestServer;
  let office: string;
  let orgId: string;
  let tech: { token: string; apiToken: { userId: string } };
  let gql: ReturnType<typeof caller>;
  let customerId: string;
  let n = 0;
  const uid = (p: string) => `${p}-${engine}-${++n}`;
  const conflictsOf = async (id: string) =>
    ok(await gql(`query($id: ID) { syncConflicts(filter: {documentId: $id}) { edges { node { field keptValue lostValue } } } }`, { id })).syncConflicts.edges.map((e: any) => e.node);

  useTestServer(engine, { organization: 'Fault Pools', server: { heartbeatMs: 200 } }, async (t) => {
    ({ store, server } = t);
    office = t.token;
    orgId = t.org.id;
    gql = caller(server, office);
    tech = await tokenFor(server, office, 'TECHNICIAN');
    customerId = ok(await gql(`mutation { createCustomer(input: {firstName: "Fay", lastName: "Ult"}) { id } }`)).createCustomer.id;
  });

  it('an answer lost after commit, then an edit: the next push names the lost change and nothing is logged as a conflict', async () => {
    const id = uid('visit');
    const made = { id, customerId, notes: 'Arrived', waterLevel: 'LOW', photos: [] };
    // The device pushes the new visit; the answer never arrives.
    await pushChanges(server, tech.token, 'services', [{ assumedMasterState: null, newDocumentState: made, changeId: `${id}-c1` } as never]);
    // It edits the same fields again and pushes, still without a base, naming the unanswered send.
    const edited = { ...made, notes: 'Arrived, brushed', waterLevel: 'NORMAL' };
    const answer = await pushChanges(server, tech.token, 'services', [
      { assumedMasterState: null, newDocumentState: edited, changeId: `${id}-c2`, earlier: [{ changeId: `${id}-c1`, state: made }] } as never,
    ]);
    expect(answer.status).toBe(200);
    expect(await serverDocument(server, office, 'services', id)).toMatchObject({ notes: 'Arrived, brushed', waterLevel: 'NORMAL' });
    expect(await conflictsOf(id)).toEqual([]);
  });

  it('a push repeated after the office changed the field leaves the office’s later value alone', async () => {
    const id = uid('visit');
    const row = { assumedMasterState: null, newDocumentState: { id, customerId, notes: 'From the van', photos: [] }, changeId: `${id}-c1` };
    await pushChanges(server, tech.token, 'services', [row as never]);
    ok(await gql(`mutation($id: ID!) { updateService(id: $id, input: {notes: "Office corrected it"}) { id } }`, { id }));
    const { checkpoint } = await pullAll(server, office, 'services');
    const repeat = await pushChanges(server, tech.token, 'services', [row as never]);
    // Answered with the current state; nothing written, nothing logged.
    expect(repeat.body).toEqual([expect.objectContaining({ id, notes: 'Office corrected it' })]);
    expect((await pullChanges(server, office, 'services', checkpoint)).body.documents).toEqual([]);
    expect(await conflictsOf(id)).toEqual([]);
  });

  it('a new quote pushed twice without a base (a stock RxDB client’s retry) changes nothing the second time', async () => {
    const id = uid('quote');
    const quote = { id, customerId, title: 'New pump', status: 'DRAFT', lineItems: [{ id: `${id}-l1`, description: 'Pump', quantity: 2, unitPrice: 310.25, amount: 620.5 }], photos: [] };
    const first = (await pushChanges(server, tech.token, 'quotes', [{ assumedMasterState: null, newDocumentState: quote }])).body[0];
    expect(first).toMatchObject({ id, subtotal: 620.5, number: expect.any(String) });
    const { checkpoint } = await pullAll(server, office, 'quotes');
    const second = (await pushChanges(server, tech.token, 'quotes', [{ assumedMasterState: null, newDocumentState: quote }])).body[0];
    expect(second).toEqual(first);
    expect((await pullChanges(server, office, 'quotes', checkpoint)).body.documents).toEqual([]);
    expect(await conflictsOf(id)).toEqual([]);
  });

  it('malformed change ids and earlier states are refused with a clear error, and nothing is stored', async () => {
    const id = uid('visit');
    const doc = { id, customerId, notes: 'x', photos: [] };
    const cases: [unknown, RegExp][] = [
      [{ newDocumentState: doc, changeId: '' }, /changeId/],
      [{ newDocumentState: doc, changeId: 'x'.repeat(101) }, /changeId/],
      [{ newDocumentState: doc, changeId: 'c', earlier: Array.from({ length: 21 }, (_, i) => ({ changeId: `e${i}`, state: doc })) }, /earlier/],
      [{ newDocumentState: doc, changeId: 'c', earlier: [{ changeId: 'e1' }] }, /earlier\.0\.state/],
    ];
    for (const [row, message] of cases) {
      const answer = await pushChanges(server, tech.token, 'services', [row as never]);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'BAD_USER_INPUT', message: expect.stringMatching(message) });
    }
    expect(await serverDocument(server, office, 'services', id)).toBeUndefined();
  });

  it('a revoked token’s open stream ends at once', async () => {
    const revoked = await tokenFor(server, office, 'TECHNICIAN');
    const stream = await openEventStream(server, revoked.token, ['customers']);
    await stream.next((e) => e.type === 'RESYNC');
    const tokenId = ok(await gql(`{ apiTokens { id userId } }`)).apiTokens.find((t: any) => t.userId === revoked.apiToken.userId).id;
    const started = Date.now();
    ok(await gql(`mutation($id: ID!) { revokeApiToken(id: $id) { id } }`, { id: tokenId }));
    await stream.ended;
    expect(Date.now() - started).toBeLessThan(2000);
    ok(await gql(`mutation { createCustomer(input: {lastName: "After revocation"}) { id } }`));
    await new Promise((r) => setTimeout(r, 300));
    expect(stream.events.filter((e) => e.type === 'changes')).toEqual([]);
    expect((await pullChanges(server, revoked.token, 'customers')).status).toBe(401);
  });

  it('a sync update naming a customer that does not exist is refused, and quotes still read', async () => {
    const id = uid('quote');
    const made = (await pushChanges(server, tech.token, 'quotes', [{ newDocumentState: { id, customerId, title: 'Filter', status: 'DRAFT', lineItems: [], photos: [] } }])).body[0];
    const answer = await pushChanges(server, tech.token, 'quotes', [{ assumedMasterState: made, newDocumentState: { ...made, customerId: 'no-such-customer' } }]);
    expect(answer.body).toEqual([expect.objectContaining({ id, customerId })]);
    const visit = uid('visit');
    await pushChanges(server, tech.token, 'services', [{ newDocumentState: { id: visit, customerId, photos: [] } }]);
    const stored = await serverDocument(server, office, 'services', visit);
    const refused = await pushChanges(server, tech.token, 'services', [{ assumedMasterState: stored, newDocumentState: { ...stored, customerId: 'no-such-customer' } }]);
    expect(refused.body).toEqual([expect.objectContaining({ id: visit, customerId })]);
    const list = await gql(`{ infiniteQuotes(first: 100) { edges { node { id customer { id } } } } }`);
    expect(list.errors).toBeUndefined();
    expect(list.data!.infiniteQuotes.edges.map((e: any) => e.node.id)).toContain(id);
    // The database holds to it as well.
    await expect(store.db.query(`insert into quotes (org_id, id, number, title, customer_id, status, subtotal, tax, total) values ($1, 'dangling', 'Q-X', 'x', 'nobody', 'DRAFT', 0, 0, 0)`, [orgId])).rejects.toThrow(/foreign key/);
  });

  it('an invalid document pushed again is quarantined once', async () => {
    const quarantined = async () => ok(await gql(`{ syncQuarantine(first: 100) { edges { node { documentId } } } }`)).syncQuarantine.edges.filter((e: any) => e.node.documentId.startsWith('bad-'));
    const before = (await quarantined()).length;
    const plain = { newDocumentState: { id: uid('bad-visit'), customerId: 'nobody', photos: [] } };
    const named = { newDocumentState: { id: uid('bad-visit'), customerId: 'nobody', photos: [] }, changeId: uid('bad-change') };
    for (let attempt = 0; attempt < 2; attempt++) {
      const answer = await pushChanges(server, tech.token, 'services', [plain, named as never]);
      expect(answer.body.map((d: any) => d._deleted)).toEqual([true, true]);
    }
    expect((await quarantined()).length).toBe(before + 2);
  });

  it('a live batch names where it follows on, and a stream opened during a write still delivers it', async () => {
    const stream = await openEventStream(server, office, ['customers']);
    try {
      await stream.next((e) => e.type === 'RESYNC');
      const { checkpoint } = await pullAll(server, office, 'customers');
      ok(await gql(`mutation { createCustomer(input: {lastName: "Live one"}) { id } }`));
      const batch = await stream.next((e) => e.type === 'changes' && e.documents.some((d: any) => d.lastName === 'Live one'));
      expect(batch.since.seq).toBeLessThanOrEqual(checkpoint);
      expect(batch.checkpoint.seq).toBeGreaterThan(checkpoint);
    } finally {
      stream.close();
    }
  });

  it.runIf(engine === 'postgres')('a feed started while a write is uncommitted delivers that write once it commits', async () => {
    const other = await newOrganization(store.db, 'Late Pools');
    const pool = new pg.Pool({ connectionString: store.url, max: 1 });
    const slow = await pool.connect();
    try {
      await slow.query('begin');
      await slow.query(`insert into customers (org_id, id, last_name) values ($1, 'in-flight', 'In flight')`, [other.org.id]);
      // The organization's first subscriber arrives while the row is uncommitted.
      const stream = await openEventStream(server, other.token, ['customers']);
      await stream.next((e) => e.type === 'RESYNC');
      await slow.query('commit');
      const batch = await stream.next((e) => e.type === 'changes' && e.documents.some((d: any) => d.id === 'in-flight'));
      expect(batch.collection).toBe('customers');
      stream.close();
    } finally {
      slow.release();
      await pool.end();
    }
  });

  it.runIf(engine === 'postgres')('a retry arriving while the first attempt is still writing is recognised, not inserted twice', async () => {
    const id = uid('quote');
    const row = { assumedMasterState: null, newDocumentState: { id, customerId, title: 'Raced', status: 'DRAFT', lineItems: [], photos: [] }, changeId: `${id}-c1` };
    const pool = new pg.Pool({ connectionString: store.url, max: 1 });
    const holder = await pool.connect();
    try {
      // Another writer of the organization holds its feed lock; both attempts arrive meanwhile.
      await holder.query('begin');
      await holder.query(`select pg_advisory_xact_lock(hashtextextended('change-feed:' || $1, 0))`, [orgId]);
      // Each attempt is known to wait on the lock (pg_locks shows it), not assumed to after a pause.
      const waiting = async () =>
        Number(
          (
            await holder.query(
              `select count(*) as n from pg_locks where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())`,
            )
          ).rows[0].n,
        );
      const first = pushChanges(server, tech.token, 'quotes', [row as never]);
      await expect.poll(waiting).toBe(1);
      const retry = pushChanges(server, tech.token, 'quotes', [row as never]);
      await expect.poll(waiting).toBe(2);
      await holder.query('commit');
      const answers = await Promise.all([first, retry]);
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      expect(answers.map((a) => a.body[0]?._deleted)).toEqual([false, false]);
    } finally {
      holder.release();
      await pool.end();
    }
    const quarantined = ok(await gql(`{ syncQuarantine(first: 100) { edges { node { documentId } } } }`)).syncQuarantine.edges;
    expect(quarantined.filter((e: any) => e.node.documentId === id)).toEqual([]);
    expect(await serverDocument(server, office, 'quotes', id)).toMatchObject({ title: 'Raced', _deleted: false });
  });

  it.runIf(engine === 'postgres')('revoking a token through one server process ends its stream on another', async () => {
    const second = await openStore({ databaseUrl: store.url });
    const other = await startTestServer(second, { heartbeatMs: 200 });
    try {
      const revoked = await tokenFor(server, office, 'TECHNICIAN');
      const stream = await openEventStream(other, revoked.token, ['customers']);
      await stream.next((e) => e.type === 'RESYNC');
      const tokenId = ok(await gql(`{ apiTokens { id userId } }`)).apiTokens.find((t: any) => t.userId === revoked.apiToken.userId).id;
      ok(await gql(`mutation($id: ID!) { revokeApiToken(id: $id) { id } }`, { id: tokenId }));
      await stream.ended;
    } finally {
      await other.close();
      await second.close();
    }
  });
});

describe('migration 0008 on a store with a quote whose customer is missing', () => {
  it('gives the quote a deleted placeholder customer, so quotes read again', async () => {
    const db = await openPglite(undefined); // in memory, not migrated yet
    try {
      await migrate(db, readMigrations().filter((m) => m.version < 8));
      const { provisionOrganization } = await import('../server/operations/organization.js');
      const { organization, token } = await provisionOrganization(db, { name: 'Old data' });
      await db.query(`insert into quotes (org_id, id, number, title, customer_id, status, subtotal, tax, total) values ($1, 'orphan', 'Q-1', 'Orphan', 'gone', 'DRAFT', 0, 0, 0)`, [organization.id]);
      await migrate(db);
      const server = await startTestServer(db);
      try {
        const list = await caller(server, token)(`{ infiniteQuotes(first: 10) { edges { node { id customer { id lastName } } } } }`);
        expect(list.errors ?? []).toEqual([]);
        expect(list.data!.infiniteQuotes.edges[0].node).toEqual({ id: 'orphan', customer: { id: 'gone', lastName: 'Unknown customer' } });
        // Deleted: not among the organization's customers.
        const customers = await caller(server, token)(`{ infiniteCustomers(first: 10) { edges { node { id } } } }`);
        expect(customers.data!.infiniteCustomers.edges).toEqual([]);
      } finally {
        await server.close();
      }
    } finally {
      await db.close();
    }
  });
});
