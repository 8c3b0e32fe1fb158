import { isDeparture } from '../shared/index.js';
import { describe, expect, it } from 'vitest';
import { readFeed } from '../server/storage/table-feed.js';
import { SYNC_COLLECTIONS } from '../server/operations/sync/collections.js';
import { toDocument } from '../server/operations/sync/doc.js';
import { caller, ok, tokenFor } from './support/api.js';
import { engines, type TestStore } from './support/engines.js';
import { useTestServer } from './support/fixture.js';
import { type TestServer } from './support/server.js';
import { pullAll, pullChanges, pushChanges, serverDocument } from './support/sync.js';

/** The replication endpoint over HTTP: pull, idempotent push, merge rules, roles, quarantine, ledger. */
describe.each(engines)('sync protocol on %s', (engine) => {
  let store: TestStore;
  let server: TestServer;
  let office: string;
  let tech: string;
  let tech2: string;
  let techUserId: string;
  let gql: ReturnType<typeof caller>;

  useTestServer(engine, { organization: 'Sync Pools' }, async (fixture) => {
    ({ store, server } = fixture);
    office = fixture.token;
    gql = caller(server, office);
    const t = await tokenFor(server, office, 'TECHNICIAN');
    tech = t.token;
    techUserId = t.apiToken.userId;
    tech2 = (await tokenFor(server, office, 'TECHNICIAN')).token;
  });

  let n = 0;
  const uid = (prefix: string) => `${prefix}-${++n}-${Math.random().toString(36).slice(2, 8)}`;

  it('pull delivers changes after a checkpoint in order, with _deleted, in limited batches', async () => {
    const { checkpoint: start } = await pullAll(server, office, 'customers');
    const ids = [uid('c'), uid('c'), uid('c')];
    for (const id of ids) {
      // The answer is the stored document: what the server added (timestamps, nulls) reaches the
      // device with the push itself.
      const answer = (await pushChanges(server, office, 'customers', [{ newDocumentState: { id, lastName: id } }])).body;
      expect(answer).toEqual([expect.objectContaining({ id, lastName: id, firstName: null, createdAt: expect.any(String), _deleted: false })]);
    }
    const first = await pullChanges(server, office, 'customers', start, 2);
    expect(first.status).toBe(200);
    expect(first.body.documents.map((d: any) => d.id)).toEqual(ids.slice(0, 2));
    expect(first.body.documents[0]).toMatchObject({ id: ids[0], lastName: ids[0], _deleted: false, createdAt: expect.any(String) });
    const rest = await pullChanges(server, office, 'customers', first.body.checkpoint.seq, 2);
    expect(rest.body.documents.map((d: any) => d.id)).toEqual([ids[2]]);
    const empty = await pullChanges(server, office, 'customers', rest.body.checkpoint.seq, 2);
    expect(empty.body).toEqual({ documents: [], checkpoint: rest.body.checkpoint });

    ok(await gql(`mutation($id: ID!) { deleteCustomer(id: $id) { id } }`, { id: ids[1] }));
    const tomb = await pullChanges(server, office, 'customers', rest.body.checkpoint.seq);
    expect(tomb.body.documents).toEqual([expect.objectContaining({ id: ids[1], _deleted: true })]);
  });

  it('pulled pages carry text beyond ASCII intact (pages are assembled as bytes)', async () => {
    const { checkpoint } = await pullAll(server, office, 'customers');
    const names = ['Núñez', 'Øre-Ångström', '池の手入れ', 'Pool 🏊‍♀️ "deep" \\ end'];
    for (const lastName of names) await pushChanges(server, office, 'customers', [{ newDocumentState: { id: uid('utf8'), lastName } }]);
    const page = await pullChanges(server, office, 'customers', checkpoint);
    expect(page.body.documents.map((d: any) => d.lastName)).toEqual(names);
  });

  it('bad pull and push requests are refused clearly', async () => {
    expect((await pullChanges(server, office, 'nope')).status).toBe(404);
    expect((await pullChanges(server, office, 'customers', -1)).status).toBe(400);
    expect((await pullChanges(server, office, 'customers', 0, 100_000)).status).toBe(400);
    expect((await pullChanges(server, 'pst_wrong', 'customers')).status).toBe(401);
    const notArray = await fetch(`${server.url}/sync/customers/push`, {
      method: 'POST',
      headers: { authorization: `Bearer ${office}`, 'content-type': 'application/json' },
      body: JSON.stringify({ newDocumentState: {} }),
    });
    expect(notArray.status).toBe(400);
    expect((await notArray.json()).error.code).toBe('BAD_USER_INPUT');
  });

  it('the same push sent twice changes nothing the second time and returns no conflict', async () => {
    const conflictsLogged = async () => ok(await gql(`{ syncConflicts(first: 100) { edges { node { id } } } }`)).syncConflicts.edges.length;
    const logged = await conflictsLogged();
    const id = uid('svc');
    const rows = [{ assumedMasterState: null, newDocumentState: { id, notes: 'Brushed', waterLevel: 'NORMAL', photos: [] } }];
    const first = (await pushChanges(server, tech, 'services', rows)).body;
    expect(first).toEqual([expect.objectContaining({ id, notes: 'Brushed', createdAt: expect.any(String) })]);
    const { checkpoint } = await pullAll(server, office, 'services');
    // The retry (its answer was lost) writes nothing and is answered with the same stored state.
    expect((await pushChanges(server, tech, 'services', rows)).body).toEqual(first);
    expect((await pullChanges(server, office, 'services', checkpoint)).body.documents).toEqual([]);
    // An edit retried with its (now stale) assumed state is also recognised as applied.
    const before = await serverDocument(server, office, 'services', id);
    const edit = [{ assumedMasterState: before, newDocumentState: { ...before, notes: 'Brushed, vacuumed' } }];
    const edited = (await pushChanges(server, tech, 'services', edit)).body;
    expect(edited).toEqual([expect.objectContaining({ id, notes: 'Brushed, vacuumed' })]);
    expect(edited[0].updatedAt).not.toBe(before.updatedAt);
    const { checkpoint: after } = await pullAll(server, office, 'services');
    expect((await pushChanges(server, tech, 'services', edit)).body).toEqual(edited);
    expect((await pullChanges(server, office, 'services', after)).body.documents).toEqual([]);
    // A device that already holds the stored state and sends it again is told nothing.
    const current = await serverDocument(server, office, 'services', id);
    expect((await pushChanges(server, tech, 'services', [{ assumedMasterState: current, newDocumentState: current }])).body).toEqual([]);
    expect(await conflictsLogged()).toBe(logged);
  });

  it('a push naming the device checkpoint says when its own writes need not be pulled back, and only then', async () => {
    const { checkpoint: start } = await pullAll(server, office, 'services');
    const ids = [uid('own'), uid('own')];
    const rows = ids.map((id) => ({ newDocumentState: { id, notes: `pushed ${id}`, photos: [] }, changeId: `chg-${id}` }));
    const mine = await pushChanges(server, office, 'services', rows, start);
    expect(mine.status).toBe(200);
    // Everything between the two positions is the push's own rows, and the answer is each as stored.
    const between = (await pullChanges(server, office, 'services', start)).body;
    expect(between.checkpoint.seq).toBe(mine.movedTo);
    expect(between.documents).toEqual(mine.body);
    expect((await pullChanges(server, office, 'services', mine.movedTo!)).body.documents).toEqual([]);

    // A repeat (its answer was lost) writes nothing: the device may stay where it is.
    expect((await pushChanges(server, office, 'services', rows, mine.movedTo!)).movedTo).toBe(mine.movedTo);

    // Someone else wrote after the device's checkpoint: no shortcut, and a pull brings both.
    const theirs = uid('theirs');
    await pushChanges(server, tech2, 'services', [{ newDocumentState: { id: theirs, notes: 'other device', photos: [] } }]);
    const stale = await pushChanges(server, office, 'services', [{ newDocumentState: { id: uid('own'), notes: 'late', photos: [] } }], mine.movedTo!);
    expect(stale.movedTo).toBeNull();
    const caughtUp = (await pullChanges(server, office, 'services', mine.movedTo!)).body.documents.map((d: any) => d.id);
    expect(caughtUp).toContain(theirs);

    // A deletion is not answered with the stored tombstone: the device pulls it.
    const { checkpoint: head } = await pullAll(server, office, 'services');
    const doomed = await serverDocument(server, office, 'services', ids[0]!);
    const deleted = await pushChanges(server, office, 'services', [{ assumedMasterState: doomed, newDocumentState: { ...doomed, _deleted: true } }], head);
    expect(deleted.movedTo).toBeNull();
    // Stock RxDB clients send no checkpoint and get no header.
    expect((await pushChanges(server, office, 'services', [{ newDocumentState: { id: uid('stock'), notes: 'x', photos: [] } }])).movedTo).toBeNull();
  });

  it('a bad push checkpoint is refused and writes nothing', async () => {
    const id = uid('badcp');
    for (const checkpoint of ['-1', 'soon', '1.5']) {
      const answer = await pushChanges(server, office, 'services', [{ newDocumentState: { id, notes: 'x', photos: [] } }], checkpoint);
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('BAD_USER_INPUT');
    }
    expect(await serverDocument(server, office, 'services', id)).toBeUndefined();
  });

  it('visits merge three-way: different fields both survive; a clash goes to the field owner and is logged', async () => {
    const id = uid('visit');
    await pushChanges(server, tech, 'services', [{ newDocumentState: { id, notes: 'Arrived', billingStatus: 'NOT_BILLED', flag: null, photos: [] } }]);
    const base = await serverDocument(server, office, 'services', id);
    // Both sides edit offline from the same base: different fields, then the same fields.
    const fromTech = { ...base, notes: 'Green pool, shocked', waterColor: 'GREEN', flag: 'TECH_FLAG' };
    const fromOffice = { ...base, billingStatus: 'READY', notes: 'Office note', flag: 'FOLLOW_UP' };
    await pushChanges(server, office, 'services', [{ assumedMasterState: base, newDocumentState: fromOffice }]);
    const answer = await pushChanges(server, tech, 'services', [{ assumedMasterState: base, newDocumentState: fromTech }]);
    const merged = await serverDocument(server, office, 'services', id);
    expect(merged).toMatchObject({ notes: 'Green pool, shocked', waterColor: 'GREEN', billingStatus: 'READY', flag: 'FOLLOW_UP' });
    // The technician's device is told the merged state (the office's billing status and flag).
    expect(answer.body).toEqual([expect.objectContaining({ id, billingStatus: 'READY', flag: 'FOLLOW_UP', notes: 'Green pool, shocked' })]);
    const log = ok(await gql(`query($f: SyncConflictFilter) { syncConflicts(filter: $f, first: 10) { edges { node { collection documentId field keptValue lostValue rule pushedBy } } } }`, { f: { documentId: id } }))
      .syncConflicts.edges.map((e: any) => e.node);
    expect(log).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ collection: 'services', field: 'notes', keptValue: 'Green pool, shocked', lostValue: 'Office note', rule: 'technician-owned field, pushed by TECHNICIAN', pushedBy: techUserId }),
        expect.objectContaining({ field: 'flag', keptValue: 'FOLLOW_UP', lostValue: 'TECH_FLAG', rule: 'office-owned field, pushed by TECHNICIAN' }),
      ]),
    );
    expect(log).toHaveLength(2);
    expect(ok(await gql(`{ syncConflicts(filter: {collection: "customers", documentId: "${id}"}) { edges { node { id } } } }`)).syncConflicts.edges).toEqual([]);
    const techRead = await caller(server, tech)(`{ syncConflicts { edges { node { id } } } }`);
    expect(techRead.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });

  it('photo lists unite by id and customer tags merge as a set', async () => {
    const id = uid('visit');
    const photo = (pid: string, caption: string) => ({ id: pid, caption, url: null, contentType: null, size: null, takenAt: null });
    await pushChanges(server, tech, 'services', [{ newDocumentState: { id, photos: [photo('p1', 'pump')] } }]);
    const base = await serverDocument(server, office, 'services', id);
    await pushChanges(server, tech, 'services', [{ assumedMasterState: base, newDocumentState: { ...base, photos: [photo('p1', 'pump'), photo('p2', 'filter')] } }]);
    await pushChanges(server, tech2, 'services', [{ assumedMasterState: base, newDocumentState: { ...base, photos: [photo('p1', 'pump'), photo('p3', 'skimmer')] } }]);
    expect((await serverDocument(server, office, 'services', id)).photos.map((p: any) => p.id)).toEqual(['p1', 'p2', 'p3']);

    const cid = uid('cust');
    await pushChanges(server, office, 'customers', [{ newDocumentState: { id: cid, lastName: 'Tagged', tags: ['weekly', 'dog'] } }]);
    const cbase = await serverDocument(server, office, 'customers', cid);
    await pushChanges(server, office, 'customers', [{ assumedMasterState: cbase, newDocumentState: { ...cbase, tags: ['weekly', 'dog', 'vip'] } }]);
    await pushChanges(server, tech, 'customers', [{ assumedMasterState: cbase, newDocumentState: { ...cbase, tags: ['weekly', 'gate-code'] } }]);
    expect((await serverDocument(server, office, 'customers', cid)).tags).toEqual(['weekly', 'vip', 'gate-code']);
  });

  it('role rules: refused rows are answered with the server state, and the rest of the batch still applies', async () => {
    const org = (await pullAll(server, tech, 'organization')).documents[0];
    const itemId = uid('item');
    const officeQuoteCustomer = uid('cust');
    await pushChanges(server, office, 'customers', [{ newDocumentState: { id: officeQuoteCustomer, lastName: 'Quoted' } }]);
    const officeQuote = ok(await gql(`mutation($i: CreateQuoteInput!) { createQuote(input: $i) { id } }`, { i: { customerId: officeQuoteCustomer, title: 'Office quote' } })).createQuote.id;
    const quoteDoc = await serverDocument(server, office, 'quotes', officeQuote);
    const visit = uid('visit');
    const orgAnswer = await pushChanges(server, tech, 'organization', [{ assumedMasterState: org, newDocumentState: { ...org, name: 'Hijacked' } }]);
    expect(orgAnswer.body).toEqual([expect.objectContaining({ id: org.id, name: 'Sync Pools' })]);
    const itemAnswer = await pushChanges(server, tech, 'inventoryItems', [
      { newDocumentState: { id: itemId, name: 'Free chlorine', category: 'CHEMICAL', unitPrice: 0.01, isActive: true, quantity: 0 } },
    ]);
    expect(itemAnswer.body).toEqual([expect.objectContaining({ id: itemId, _deleted: true })]);
    const mixed = await pushChanges(server, tech, 'quotes', [
      { assumedMasterState: quoteDoc, newDocumentState: { ...quoteDoc, title: 'Changed by tech' } },
    ]);
    expect(mixed.body).toEqual([expect.objectContaining({ id: officeQuote, title: 'Office quote' })]);
    const batch = await pushChanges(server, tech, 'services', [
      { newDocumentState: { id: visit, notes: 'fine', photos: [] } },
      { newDocumentState: { id: uid('visit'), notes: 42, photos: [] } },
      { newDocumentState: { id: uid('visit'), notes: 'also fine', photos: [] } },
    ]);
    // The two fine visits come back as stored; the invalid one as a tombstone (quarantined).
    expect(batch.body).toHaveLength(3);
    expect(batch.body.filter((d: any) => d._deleted)).toHaveLength(1);
    expect(await serverDocument(server, office, 'services', visit)).toMatchObject({ notes: 'fine' });
  });

  it('a row the database refuses (a NUL in text) is quarantined alone; the rest of the batch applies', async () => {
    const good = [uid('visit'), uid('visit')];
    const bad = uid('visit');
    const answer = await pushChanges(server, tech, 'services', [
      { newDocumentState: { id: good[0], notes: 'before', photos: [] } },
      { newDocumentState: { id: bad, notes: 'nul \u0000 byte', photos: [] } },
      { newDocumentState: { id: good[1], notes: 'after', photos: [] } },
    ]);
    expect(answer.status).toBe(200);
    expect(answer.body.filter((d: any) => d._deleted)).toEqual([expect.objectContaining({ id: bad, _deleted: true })]);
    expect(answer.body.filter((d: any) => !d._deleted).map((d: any) => d.id).sort()).toEqual([...good].sort());
    const docs = (await pullAll(server, office, 'services')).documents;
    expect(docs.filter((d: any) => good.includes(d.id)).map((d: any) => d.notes).sort()).toEqual(['after', 'before']);
    expect(docs.some((d: any) => d.id === bad)).toBe(false);
    const entries = ok(await gql(`{ syncQuarantine(first: 50) { edges { node { documentId reason } } } }`)).syncQuarantine.edges.map((e: any) => e.node);
    expect(entries.find((e: any) => e.documentId === bad)?.reason).toMatch(/could not be stored/);
  });

  it('an invalid document without a server state is quarantined, answered with a tombstone, and visible to the office', async () => {
    const id = uid('bad');
    const answer = await pushChanges(server, tech, 'services', [{ newDocumentState: { id, notes: 'Typed offline', chemicalReadings: { ph: 'seven' }, photos: [] } }]);
    expect(answer.body).toEqual([expect.objectContaining({ id, notes: 'Typed offline', _deleted: true })]);
    const entries = ok(await gql(`{ syncQuarantine(collection: "services", first: 50) { edges { node { collection documentId document reason pushedBy } } } }`))
      .syncQuarantine.edges.map((e: any) => e.node);
    const entry = entries.find((e: any) => e.documentId === id);
    expect(entry).toMatchObject({ collection: 'services', pushedBy: techUserId, document: { id, notes: 'Typed offline' } });
    expect(entry.reason).toMatch(/chemicalReadings\.ph/);
    // Retrying the same bad document does not wedge anything either.
    expect((await pushChanges(server, tech, 'services', [{ newDocumentState: { id, notes: 'Typed offline', chemicalReadings: { ph: 'seven' }, photos: [] } }])).body[0]._deleted).toBe(true);
  });

  it('technicians sync their own visits of the window and ahead; the office syncs everything', async () => {
    const old = uid('visit');
    const recent = uid('visit');
    const future = uid('visit');
    const someoneElses = uid('visit');
    const day = 86_400_000;
    const at = (days: number) => new Date(Date.now() + days * day).toISOString();
    await pushChanges(server, office, 'services', [
      { newDocumentState: { id: old, startTime: at(-90), newTechnicianId: techUserId, photos: [] } },
      { newDocumentState: { id: recent, startTime: at(-10), newTechnicianId: techUserId, photos: [] } },
      { newDocumentState: { id: future, startTime: at(30), newTechnicianId: techUserId, photos: [] } },
      { newDocumentState: { id: someoneElses, startTime: at(-1), newTechnicianId: 'another-technician', photos: [] } },
    ]);
    const techIds = (await pullAll(server, tech, 'services')).documents.map((d: any) => d.id);
    const officeIds = (await pullAll(server, office, 'services')).documents.map((d: any) => d.id);
    expect(techIds).toEqual(expect.arrayContaining([recent, future]));
    expect(techIds).not.toContain(old);
    expect(techIds).not.toContain(someoneElses);
    expect(officeIds).toEqual(expect.arrayContaining([old, recent, future, someoneElses]));
  });

  it('stock movements apply exactly once; two devices using stock offline both count; below zero is recorded', async () => {
    // The first technician's truck: their phone holds its stock, whoever uses it.
    const loc = ok(await gql(`mutation($t: ID) { createInventoryLocation(input: {name: "Truck ${uid('t')}", technicianId: $t}) { id } }`, { t: techUserId })).createInventoryLocation.id;
    const item = ok(await gql(`mutation($l: ID) { createInventoryItem(input: {name: "Acid", category: CHEMICAL, unitPrice: 9, locationId: $l, quantity: 3}) { id } }`, { l: loc })).createInventoryItem.id;
    const use = (id: string, delta: number) => ({ newDocumentState: { id, itemId: item, locationId: loc, delta, reason: 'USE', note: 'visit' } });
    const a = use(uid('mv'), -2);
    const b = use(uid('mv'), -2);
    const applied = (await pushChanges(server, tech, 'stockMovements', [a])).body;
    expect(applied).toEqual([expect.objectContaining({ id: a.newDocumentState.id, delta: -2, createdAt: expect.any(String) })]);
    expect((await pushChanges(server, tech, 'stockMovements', [a])).body).toEqual(applied);
    expect((await pushChanges(server, tech2, 'stockMovements', [b])).body).toEqual([expect.objectContaining({ id: b.newDocumentState.id })]);
    const quantity = ok(await gql(`query($id: ID!) { inventoryItem(selector: {id: $id}) { quantity stockLevels { quantity } } }`, { id: item })).inventoryItem;
    expect(quantity).toEqual({ quantity: -1, stockLevels: [{ quantity: -1 }] });
    const levels = (await pullAll(server, tech, 'stockLevels')).documents.filter((d: any) => d.itemId === item);
    expect(levels).toEqual([expect.objectContaining({ itemId: item, locationId: loc, quantity: -1 })]);
    const items = (await pullAll(server, tech, 'inventoryItems')).documents.filter((d: any) => d.id === item);
    expect(items.at(-1).quantity).toBe(-1);
    const flagged = ok(await gql(`{ infiniteInventoryItems(first: 100, filter: {negativeStock: true}) { edges { node { id } } } }`)).infiniteInventoryItems.edges;
    expect(flagged.map((e: any) => e.node.id)).toEqual([item]);
    const low = ok(await gql(`{ infiniteInventoryItems(first: 100, filter: {lowStock: true}) { edges { node { id } } } }`)).infiniteInventoryItems.edges;
    expect(low.map((e: any) => e.node.id)).toContain(item);
    // Editing a recorded movement is refused with the recorded state; an unknown item is quarantined.
    const edited = await pushChanges(server, tech, 'stockMovements', [{ newDocumentState: { ...a.newDocumentState, delta: -200 } }]);
    expect(edited.body).toEqual([expect.objectContaining({ id: a.newDocumentState.id, delta: -2 })]);
    const unknown = await pushChanges(server, tech, 'stockMovements', [use(uid('mv'), -1)].map((r) => ({ newDocumentState: { ...r.newDocumentState, itemId: 'no-such-item' } })));
    expect(unknown.body[0]._deleted).toBe(true);
  });

  it('quotes created offline get their number and totals from the server on push', async () => {
    const customer = uid('cust');
    await pushChanges(server, tech, 'customers', [{ newDocumentState: { id: customer, lastName: 'Offline' } }]);
    const quote = uid('quote');
    const answer = await pushChanges(server, tech, 'quotes', [
      { newDocumentState: { id: quote, title: 'Field estimate', customerId: quote && customer, lineItems: [{ id: 'l1', description: 'Pump', quantity: 2, unitPrice: 100.5, amount: 0 }], photos: [], number: 'FAKE', total: 1 } },
    ]);
    expect(answer.body).toEqual([expect.objectContaining({ id: quote, number: expect.stringMatching(/^Q-\d{4}$/), subtotal: 201, total: 201, status: 'DRAFT' })]);
    expect(answer.body[0].lineItems[0].amount).toBe(201);
  });

  it('pulled documents, written as JSON by the database, equal the records as the API reads them, in every collection', async () => {
    // Every column type appears: timestamps with microseconds (set by triggers), money, dates,
    // text arrays, nested JSON, nulls, tombstones.
    const customer = uid('cust');
    ok(await gql(`mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { id } }`, {
      input: { firstName: 'Ann "Quoted"', lastName: 'Typed\nLine', customerSinceDate: '2019-02-28', tags: ['vip', 'a,b'] },
    }));
    await pushChanges(server, office, 'customers', [{ newDocumentState: { id: customer, lastName: 'Émile ☀', tags: ['x'] } }]);
    ok(await gql(`mutation($id: ID!) { deleteCustomer(id: $id) { id } }`, { id: customer }));
    const { orgId } = (await store.db.query<{ orgId: string }>(`select org_id as "orgId" from customers where id = $1`, [customer])).rows[0]!;
    const pulled: Record<string, any[]> = {};
    for (const collection of SYNC_COLLECTIONS) {
      // The office's devices hold a window of some collections (a visit of an earlier test's, moved
      // weeks back, has left it): every document it holds is the record as the API reads it.
      const { documents: all } = await pullAll(server, office, collection.name);
      const documents = all.filter((d: any) => !isDeparture(d));
      const records = new Map((await readFeed<{ id: string }>(store.db, collection.table, orgId, 0, 100_000)).map((r) => [r.record.id, toDocument(r.record, r.deleted)]));
      expect(documents, collection.name).toEqual(documents.map((d: any) => records.get(d.id)));
      pulled[collection.name] = documents;
    }
    expect(pulled.customers).toContainEqual(expect.objectContaining({ id: customer, _deleted: true }));
    expect(pulled.customers).toContainEqual(expect.objectContaining({ customerSinceDate: '2019-02-28', tags: ['vip', 'a,b'], lastName: 'Typed\nLine' }));
    expect(pulled.quotes).toContainEqual(expect.objectContaining({ subtotal: 201, lineItems: [expect.objectContaining({ unitPrice: 100.5 })] }));
    expect(pulled.customers![0].updatedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
});
