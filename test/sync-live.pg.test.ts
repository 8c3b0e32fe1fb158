import { firstValueFrom, filter as rxFilter, take, toArray } from 'rxjs';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { createRxDatabase, type RxCollection } from 'rxdb';
import { customerResource, rxSchemaOf, serviceResource, SYNC_STREAM_HEADER } from '../shared/index.js';
import { replicateCollection } from '../client-sdk/replication/replicate.js';
import { LiveStream, type ChangeBatch, type StreamItem } from '../client-sdk/replication/stream.js';
import { openStore } from '../server/storage/open.js';
import { caller, ok, tokenFor } from './support/api.js';
import { engines, type TestStore } from './support/engines.js';
import { useTestServer } from './support/fixture.js';
import { newOrganization, startTestServer, type TestServer } from './support/server.js';
import { switchableFetch } from './support/switchable-fetch.js';
import { pullAll, pushChanges } from './support/sync.js';

/** The change feed under concurrency, the live stream, fan-out across processes, and RxDB itself. */
describe.each(engines)('live sync on %s', (engine) => {
  let store: TestStore;
  let server: TestServer;
  let office: string;
  let tech: string;
  let techUser: string;
  let orgId: string;

  useTestServer(engine, { organization: 'Live Pools' }, async (t) => {
    ({ store, server } = t);
    office = t.token;
    orgId = t.org.id;
    const t2 = await tokenFor(server, office, 'TECHNICIAN');
    tech = t2.token;
    techUser = t2.apiToken.userId;
  });

  it.runIf(engine === 'postgres')('a slow transaction’s row is delivered by a later pull, never skipped', async () => {
    const pool = new pg.Pool({ connectionString: store.url });
    const other = await newOrganization(store.db, 'Unrelated Pools');
    try {
      const { checkpoint } = await pullAll(server, office, 'customers');
      const slow = await pool.connect();
      await slow.query('begin');
      await slow.query(`insert into customers (org_id, id, last_name) values ($1, 'slow-writer', 'Slow')`, [orgId]);
      // A faster writer in the same organization, and one in another organization.
      let fastDone = false;
      const fast = pool.query(`insert into customers (org_id, id, last_name) values ($1, 'fast-writer', 'Fast')`, [orgId]).then(() => {
        fastDone = true;
      });
      await pool.query(`insert into customers (org_id, id, last_name) values ($1, 'elsewhere', 'Other')`, [other.org.id]);
      await new Promise((r) => setTimeout(r, 300));
      expect(fastDone).toBe(false);
      const during = await pullAll(server, office, 'customers', checkpoint);
      expect(during.documents).toEqual([]);
      await slow.query('commit');
      slow.release();
      await fast;
      const after = await pullAll(server, office, 'customers', during.checkpoint);
      expect(after.documents.map((d: any) => d.id)).toEqual(['slow-writer', 'fast-writer']);
    } finally {
      await pool.end();
    }
  });

  it('the stream says RESYNC on connect, then carries each committed change', async () => {
    const stream = new LiveStream({ baseUrl: server.url, token: office }, { collections: ['services', 'customers'] });
    const received = firstValueFrom(stream.events<any>('services').pipe(take(2), toArray()));
    stream.start();
    await firstValueFrom(stream.events('customers').pipe(rxFilter((e) => e === 'RESYNC')));
    await pushChanges(server, tech, 'services', [{ newDocumentState: { id: 'live-visit-1', notes: 'on the way', photos: [] } }]);
    const [resync, batch] = (await received) as [StreamItem<any>, StreamItem<any>];
    stream.close();
    expect(resync).toBe('RESYNC');
    expect(batch).toMatchObject({ documents: [expect.objectContaining({ id: 'live-visit-1', notes: 'on the way', _deleted: false })], checkpoint: { seq: expect.any(Number) } });
  });

  it("a push naming its device's stream is not sent back on it; another stream of the token gets it; a later change by anyone else does reach it", async () => {
    const { checkpoint } = await pullAll(server, office, 'services');
    const batches = { own: [] as ChangeBatch[], other: [] as ChangeBatch[] };
    const open = (into: ChangeBatch[]) =>
      new LiveStream({ baseUrl: server.url, token: office }, { collections: ['services'], onEvent: (e) => void (e !== 'RESYNC' && into.push(e)) });
    const own = open(batches.own);
    const other = open(batches.other);
    try {
      const ready = (s: LiveStream) => firstValueFrom(s.events('services').pipe(rxFilter((e) => e === 'RESYNC')));
      const resyncs = Promise.all([ready(own), ready(other)]);
      own.start();
      other.start();
      await resyncs;
      expect(own.id).toMatch(/^[0-9a-f-]{36}$/);
      const pushed = await pushChanges(server, office, 'services', [
        { newDocumentState: { id: 'own-1', notes: 'mine', photos: [] }, changeId: 'own-change-1' },
        { newDocumentState: { id: 'own-2', notes: 'mine too', photos: [] }, changeId: 'own-change-2' },
      ], checkpoint, own.id!);
      expect(pushed.movedTo).toBeGreaterThan(checkpoint);
      // Someone else (the office on another device, no stream named) edits one of them afterwards.
      await pushChanges(server, office, 'services', [{ assumedMasterState: pushed.body.find((d: any) => d.id === 'own-1'), newDocumentState: { ...pushed.body.find((d: any) => d.id === 'own-1'), notes: 'edited elsewhere' } }]);
      const ids = (list: ChangeBatch[]) => list.flatMap((b) => b.documents.map((d) => `${d.id} ${String(d.notes)}`));
      await vi.waitFor(() => expect([ids(batches.other), ids(batches.own)].every((l) => l.includes('own-1 edited elsewhere'))).toBe(true), { timeout: 10_000 });
      expect(ids(batches.other)).toEqual(['own-1 mine', 'own-2 mine too', 'own-1 edited elsewhere']);
      // The pusher's stream: only the later change, after the push's own entries (a device that
      // did not take the push's checkpoint would see the gap and pull).
      expect(ids(batches.own)).toEqual(['own-1 edited elsewhere']);
      expect(batches.own[0]!.since).toEqual({ seq: pushed.movedTo });
    } finally {
      await Promise.all([own.close(), other.close()]);
    }
  });

  it('a stream id a device may not choose is replaced by the server\'s, and a push naming an unknown stream is answered as any', async () => {
    const opened = async (id: string) => {
      const aborted = new AbortController();
      const res = await fetch(`${server.url}/sync/stream?collections=services&stream=${encodeURIComponent(id)}`, { headers: { authorization: `Bearer ${office}` }, signal: aborted.signal });
      aborted.abort();
      return { status: res.status, id: res.headers.get(SYNC_STREAM_HEADER) };
    };
    expect(await opened('phone-stream-0001')).toEqual({ status: 200, id: 'phone-stream-0001' });
    for (const bad of ['short', 'has spaces in it', 'x'.repeat(65), 'semi;colon-0001']) {
      const { status, id } = await opened(bad);
      expect(status).toBe(200);
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    }
    const { checkpoint } = await pullAll(server, office, 'services');
    const pushed = await pushChanges(server, office, 'services', [{ newDocumentState: { id: 'unknown-stream-1', notes: 'kept', photos: [] }, changeId: 'unknown-stream-change-1' }], checkpoint, 'no-such-stream-0001');
    expect(pushed.movedTo).toBeGreaterThan(checkpoint);
    expect((await pullAll(server, office, 'services')).documents.map((d: any) => d.id)).toContain('unknown-stream-1');
  });

  it.runIf(engine === 'postgres')('a write through one server process reaches a stream subscriber on another', async () => {
    const secondDb = await openStore({ databaseUrl: store.url });
    const second = await startTestServer(secondDb);
    const stream = new LiveStream({ baseUrl: second.url, token: office }, { collections: ['services'] });
    try {
      const events = stream.events<any>('services');
      const batch = firstValueFrom(events.pipe(rxFilter((e) => e !== 'RESYNC' && e.documents.some((d: any) => d.id === 'cross-process')), take(1)));
      const ready = firstValueFrom(events.pipe(rxFilter((e) => e === 'RESYNC')));
      stream.start();
      await ready;
      await pushChanges(server, tech, 'services', [{ newDocumentState: { id: 'cross-process', notes: 'via A', photos: [] } }]);
      expect(await batch).toMatchObject({ documents: [expect.objectContaining({ id: 'cross-process', notes: 'via A' })] });
    } finally {
      stream.close();
      await second.close();
      await secondDb.close();
    }
  });

  it('RxDB replicates: initial sync, offline edits and deletes, a conflict, reconnect, and equal state at the end', async () => {
    const gql = caller(server, office);
    const customerId = ok(await gql(`mutation { createCustomer(input: {firstName: "Rx", lastName: "Replica"}) { id } }`)).createCustomer.id;
    for (let i = 0; i < 30; i++) {
      await pushChanges(server, office, 'services', [{ newDocumentState: { id: `rx-visit-${i}`, customerId, notes: `visit ${i}`, newTechnicianId: techUser, photos: [] } }]);
    }
    const net = switchableFetch();
    const endpoint = { baseUrl: server.url, token: tech, fetch: net.fetch };
    // A stock RxDB app: its own database, with the collections' schemas as the shared definitions give them.
    const db = await createRxDatabase<{ services: RxCollection; customers: RxCollection }>({ name: `rx${Math.random().toString(36).slice(2)}`, storage: getRxStorageMemory(), multiInstance: false });
    await db.addCollections({ services: { schema: rxSchemaOf(serviceResource) as never }, customers: { schema: rxSchemaOf(customerResource) as never } });
    const stream = new LiveStream(endpoint, { collections: ['services', 'customers'], retryMs: 50, maxRetryMs: 200 });
    const replications = (['services', 'customers'] as const).map((name) =>
      replicateCollection(db.collections[name]!, { endpoint, stream, identifier: 'test', retryTime: 100 }),
    );
    const errors: unknown[] = [];
    for (const r of replications) r.error$.subscribe((e) => errors.push(e));
    try {
      stream.start();
      const inSync = () => Promise.all(replications.map((r) => r.awaitInSync()));
      await inSync();
      expect(await db.collections.services!.count().exec()).toBeGreaterThanOrEqual(30);

      // Offline: edit, create, delete on the device while the office edits the same visit.
      net.setOnline(false);
      stream.stop();
      const visits = db.collections.services!;
      await (await visits.findOne('rx-visit-1').exec())!.incrementalPatch({ notes: 'tech notes', waterLevel: 'LOW' });
      await (await visits.findOne('rx-visit-2').exec())!.remove();
      await visits.insert({ id: 'rx-new-visit', customerId, notes: 'made offline', photos: [], createdAt: new Date().toISOString(), updatedAt: new Date().toISOString() });
      const base = (await pullAll(server, office, 'services')).documents.filter((d: any) => d.id === 'rx-visit-1').at(-1);
      await pushChanges(server, office, 'services', [{ assumedMasterState: base, newDocumentState: { ...base, notes: 'office notes', billingStatus: 'READY' } }]);

      net.setOnline(true);
      stream.start();
      for (const r of replications) r.reSync();
      await new Promise((r) => setTimeout(r, 300));
      await inSync();
      await new Promise((r) => setTimeout(r, 300));
      await inSync();

      const server_ = new Map((await pullAll(server, tech, 'services')).documents.map((d: any) => [d.id, d]));
      const local = await visits.find().exec();
      expect(local.length).toBe([...server_.values()].filter((d: any) => !d._deleted).length);
      for (const doc of local) {
        const { _deleted, ...expected } = server_.get(doc.id) as any;
        expect(_deleted).toBe(false);
        expect(doc.toJSON()).toEqual(expected);
      }
      expect(server_.get('rx-visit-2')._deleted).toBe(true);
      expect(server_.get('rx-new-visit')).toMatchObject({ notes: 'made offline', _deleted: false });
      // The clash on notes went to the technician (technician-owned); billing stayed the office's.
      expect(server_.get('rx-visit-1')).toMatchObject({ notes: 'tech notes', waterLevel: 'LOW', billingStatus: 'READY' });
      expect((await visits.findOne('rx-visit-1').exec())!.toJSON()).toMatchObject({ billingStatus: 'READY', notes: 'tech notes' });
    } finally {
      stream.close();
      await Promise.all(replications.map((r) => r.cancel()));
      await db.close();
    }
    expect(errors.filter((e) => !String(e).includes('offline'))).toEqual([]);
  });
});
