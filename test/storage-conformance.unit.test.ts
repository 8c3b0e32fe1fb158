import 'fake-indexeddb/auto';
import {
  createRxDatabase,
  getChangedDocumentsSince,
  getPseudoSchemaForVersion,
  now,
  stackCheckpoints,
  type EventBulk,
  type MangoQuery,
  type RxDocumentData,
  type RxStorageChangeEvent,
  type RxStorageWriteError,
  type RxStorageWriteErrorConflict,
} from 'rxdb';
import { EXAMPLE_REVISION_1, EXAMPLE_REVISION_2, EXAMPLE_REVISION_3, EXAMPLE_REVISION_4, schemaObjects, schemas } from 'rxdb/plugins/test-utils';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { indexedDbStorage } from '../client-sdk/replica/indexeddb/storage.js';
import { expectedAnswer, freshNames, keyValueSchema, next, openInstance, planned, STORAGES, storageSchema, stored, type Doc, type Instance } from './support/storage-conformance.js';
import { QUERY_SCENARIOS } from './support/storage-queries.js';

/**
 * The replica's storage conforms to RxDB's storage contract: every case runs on the SDK's own
 * IndexedDB storage (client-sdk/replica/indexeddb/, on fake-indexeddb) and on RxDB's memory
 * storage with the same expectations, so a difference between them fails. The behaviours are
 * those RxDB's own storage tests check (bulk writes and conflicts, queries and counts, the change
 * stream, changes since a checkpoint, cleanup, reopening, removal); an upgrade of RxDB is safe
 * when this passes (client-sdk/replica/indexeddb/README.md).
 */
const opened: Instance[] = [];
afterEach(async () => {
  // Closing twice, or closing what a case removed, is allowed by the contract.
  await Promise.all(opened.splice(0).map((instance) => instance.close().catch(() => undefined)));
});

const CONTEXT = 'storage-conformance';
const ids = (docs: readonly Doc[], primary = 'key') => docs.map((d) => d[primary]);
/** What is stored, as a conflict answers it. */
const inDb = (error: RxStorageWriteError<Doc>) => (error as RxStorageWriteErrorConflict<Doc>).documentInDb as RxDocumentData<Doc> | undefined;
const fields = (doc: Doc | undefined) => (doc ? Object.fromEntries(Object.entries(doc).filter(([k]) => !k.startsWith('_'))) : doc);

describe.each(STORAGES)('$name', (subject) => {
  async function open(schema = keyValueSchema(), names = freshNames()): Promise<Instance> {
    const instance = await openInstance(subject.storage(), schema, names);
    opened.push(instance);
    return instance;
  }

  describe('opening', () => {
    it('refuses a schema that asks for key compression or encryption it does not do (RxDB UT5, UT6)', async () => {
      const compressed = { ...getPseudoSchemaForVersion<Doc>(0, 'key' as never), keyCompression: true };
      await expect(open(compressed)).rejects.toThrow(/UT5/);
      const encrypted = { ...getPseudoSchemaForVersion<Doc>(0, 'key' as never), encrypted: ['value'] };
      await expect(open(encrypted as never)).rejects.toThrow(/UT6/);
    });

    it('keeps the collections of one database, its schema versions and other databases apart', async () => {
      const names = freshNames();
      const first = await open(keyValueSchema(), names);
      const second = await open(keyValueSchema(), { ...names, collectionName: `${names.collectionName}b` });
      const versionOne = await open(storageSchema({ ...keyValueSchema(), version: 1 }), names);
      const elsewhere = await open(keyValueSchema(), { ...names, databaseName: `${names.databaseName}b` });
      for (const [instance, value] of [[first, 'first'], [second, 'second'], [versionOne, 'v1'], [elsewhere, 'elsewhere']] as const) {
        expect((await instance.bulkWrite([{ document: stored({ key: value, value }) }], CONTEXT)).error).toEqual([]);
      }
      for (const [instance, value] of [[first, 'first'], [second, 'second'], [versionOne, 'v1'], [elsewhere, 'elsewhere']] as const) {
        const all = await instance.query(planned(instance.schema, { selector: {} }));
        expect(ids(all.documents)).toEqual([value]);
      }
    });
  });

  describe('bulk writes and their conflicts', () => {
    it('stores a document exactly as written, special characters included, and finds it by id', async () => {
      const instance = await open(storageSchema(schemas.human));
      const human = stored({ ...schemaObjects.humanData(), firstName: 'äöüßé 😊 🏳️‍🌈', lastName: "[]{}'" });
      expect((await instance.bulkWrite([{ document: structuredClone(human) }], CONTEXT)).error).toEqual([]);
      expect(await instance.findDocumentsById([human.passportId as string, 'missing'], false)).toEqual([human]);
    });

    it('an insert of a stored document is refused with 409 and what is stored; the rest of its batch is written', async () => {
      const instance = await open();
      const a = stored({ key: 'a', value: 'stored' });
      await instance.bulkWrite([{ document: a }, { document: stored({ key: 'b', value: 'stored' }) }], CONTEXT);
      const again = stored({ key: 'a', value: 'again' });
      const told: string[] = [];
      const subscription = instance.changeStream().subscribe((bulk) => told.push(...bulk.events.map((e) => `${e.operation} ${e.documentId}`)));
      const result = await instance.bulkWrite([{ document: again }, { document: stored({ key: 'c', value: 'new' }) }, { document: stored({ key: 'b', value: 'again' }) }], CONTEXT);
      subscription.unsubscribe();
      expect(told).toEqual(['INSERT c']);
      expect(result.error.map((e) => [e.documentId, e.status, fields(inDb(e))])).toEqual([
        ['a', 409, { key: 'a', value: 'stored' }],
        ['b', 409, { key: 'b', value: 'stored' }],
      ]);
      // What is stored, and nothing of the storage's own beside it.
      expect(inDb(result.error[0]!)).toEqual(a);
      expect(result.error[0]!.writeRow.document).toEqual(again);
      const all = await instance.findDocumentsById(['a', 'b', 'c'], false);
      expect(all.map((d) => [d.key, d.value])).toEqual([
        ['a', 'stored'],
        ['b', 'stored'],
        ['c', 'new'],
      ]);
    });

    it('an update based on a stale revision is refused with what is stored; an update on the stored one is written', async () => {
      const instance = await open();
      const first = stored({ key: 'a', value: 'first' });
      await instance.bulkWrite([{ document: first }], CONTEXT);
      const second = next(first, EXAMPLE_REVISION_2, { value: 'second' });
      expect((await instance.bulkWrite([{ previous: first, document: second }], CONTEXT)).error).toEqual([]);
      // Written on the first revision again (another device's view), beside a new document.
      const stale = await instance.bulkWrite([{ previous: first, document: next(first, EXAMPLE_REVISION_3, { value: 'lost' }) }, { document: stored({ key: 'b', value: 'new' }) }], CONTEXT);
      expect(stale.error.map((e) => [e.documentId, e.status, inDb(e)?._rev, inDb(e)?.value])).toEqual([['a', 409, EXAMPLE_REVISION_2, 'second']]);
      // A revision may jump more than one height.
      expect((await instance.bulkWrite([{ previous: second, document: next(second, EXAMPLE_REVISION_4, { value: 'fourth' }) }], CONTEXT)).error).toEqual([]);
      const all = await instance.findDocumentsById(['a', 'b'], false);
      expect(all.map((d) => [d.key, d.value, d._rev])).toEqual([
        ['a', 'fourth', EXAMPLE_REVISION_4],
        ['b', 'new', EXAMPLE_REVISION_1],
      ]);
    });

    it('a deleted document is found only with deleted ones, keeps its fields, and comes back only on its tombstone', async () => {
      const instance = await open();
      const doc = stored({ key: 'a', value: 'one' });
      await instance.bulkWrite([{ document: doc }], CONTEXT);
      const tombstone = next(doc, EXAMPLE_REVISION_2, { value: 'gone', _deleted: true });
      expect((await instance.bulkWrite([{ previous: doc, document: tombstone }], CONTEXT)).error).toEqual([]);
      expect(await instance.findDocumentsById(['a'], false)).toEqual([]);
      expect(await instance.findDocumentsById(['a'], true)).toEqual([tombstone]);
      // A tombstone can change (the server's answer to a pushed delete).
      const changedTombstone = next(tombstone, EXAMPLE_REVISION_3, { value: 'still gone' });
      expect((await instance.bulkWrite([{ previous: tombstone, document: changedTombstone }], CONTEXT)).error).toEqual([]);
      // An insert over it without its state conflicts; on its state, it is written.
      const insertAgain = stored({ key: 'a', value: 'back' });
      const refused = await instance.bulkWrite([{ document: insertAgain }], CONTEXT);
      expect(refused.error.map((e) => [e.status, inDb(e)?._deleted])).toEqual([[409, true]]);
      const undeleted = next(changedTombstone, EXAMPLE_REVISION_4, { value: 'back', _deleted: false });
      expect((await instance.bulkWrite([{ previous: changedTombstone, document: undeleted }], CONTEXT)).error).toEqual([]);
      expect(await instance.findDocumentsById(['a'], false)).toEqual([undeleted]);
    });

    it('an update leaves out a field the new state does not have', async () => {
      const instance = await open(storageSchema({ ...keyValueSchema(), required: ['key'] }));
      const doc = stored({ key: 'a', value: 'one' });
      await instance.bulkWrite([{ document: doc }], CONTEXT);
      const { value: _value, ...withoutValue } = next(doc, EXAMPLE_REVISION_2);
      await instance.bulkWrite([{ previous: doc, document: withoutValue as RxDocumentData<Doc> }], CONTEXT);
      expect(await instance.findDocumentsById(['a'], false)).toEqual([withoutValue]);
    });

    it('a write on a previous state of a document not stored inserts it', async () => {
      // A device's push answered after the document was cleaned away, say.
      const instance = await open();
      const previous = stored({ key: 'a', value: 'before' });
      const result = await instance.bulkWrite([{ previous, document: next(previous, EXAMPLE_REVISION_2, { value: 'after' }) }], CONTEXT);
      expect(result.error).toEqual([]);
      expect((await instance.findDocumentsById(['a'], false)).map((d) => [d.value, d._rev])).toEqual([['after', EXAMPLE_REVISION_2]]);
    });

    it('of two inserts of one document at once, the first is written and the second refused', async () => {
      const instance = await open();
      const [first, second] = await Promise.all([
        instance.bulkWrite([{ document: stored({ key: 'a', value: 'first' }) }], CONTEXT),
        instance.bulkWrite([{ document: stored({ key: 'a', value: 'second' }) }], CONTEXT),
      ]);
      expect(first.error).toEqual([]);
      expect(second.error.map((e) => [e.status, e.writeRow.document.value, inDb(e)?.value])).toEqual([[409, 'second', 'first']]);
    });

    it('one document twice in a batch of new ones leaves the last', async () => {
      const instance = await open();
      const result = await instance.bulkWrite([{ document: stored({ key: 'a', value: 'first' }) }, { document: stored({ key: 'b', value: 'b' }) }, { document: stored({ key: 'a', value: 'second' }) }], CONTEXT);
      expect(result.error).toEqual([]);
      expect((await instance.findDocumentsById(['a', 'b'], false)).map((d) => [d.key, d.value])).toEqual([
        ['a', 'second'],
        ['b', 'b'],
      ]);
    });

    it('writes and finds 2,000 documents in one batch, and counts them', async () => {
      const instance = await open();
      const docs = Array.from({ length: 2000 }, (_, i) => stored({ key: `k${String(i).padStart(5, '0')}`, value: `v${i % 7}` }));
      expect((await instance.bulkWrite(docs.map((document) => ({ document })), CONTEXT)).error).toEqual([]);
      const found = await instance.findDocumentsById(ids(docs) as string[], false);
      expect(found.length).toBe(2000);
      expect((await instance.count(planned(instance.schema, { selector: {} }))).count).toBe(2000);
      expect((await instance.count(planned(instance.schema, { selector: { value: 'v3' } }))).count).toBe(docs.filter((d) => d.value === 'v3').length);
    });

    it('counts tombstones too: RxDB asks for `_deleted: false` when it wants them left out', async () => {
      const instance = await open();
      const count = async (selector: object) => (await instance.count(planned(instance.schema, { selector }))).count;
      expect(await count({})).toBe(0);
      const doc = stored({ key: 'a', value: 'x' });
      await instance.bulkWrite([{ document: doc }, { document: stored({ key: 'b', value: 'x' }) }], CONTEXT);
      await instance.bulkWrite([{ previous: doc, document: next(doc, EXAMPLE_REVISION_2, { _deleted: true }) }], CONTEXT);
      expect([await count({}), await count({ _deleted: false }), await count({ _deleted: true })]).toEqual([2, 1, 1]);
    });
  });

  describe('queries on every index: sort, skip and limit, ranges, $in, $eq null', () => {
    it.each(QUERY_SCENARIOS.map((make) => make()))('$name', async (scenario) => {
      const instance = await open(scenario.schema);
      expect((await instance.bulkWrite(scenario.docs.map((document) => ({ document: structuredClone(document) })), CONTEXT)).error).toEqual([]);
      const primary = scenario.schema.primaryKey as string;
      const wrongHere = subject.ours ? [] : (scenario.memoryAnswersWrongly ?? []);
      for (const query of wrongHere) {
        const { documents } = await instance.query(planned(scenario.schema, query));
        expect(ids(documents, primary), `RxDB's memory storage answers ${JSON.stringify(query)} right now: move it to the scenario's queries`).not.toEqual(ids(expectedAnswer(scenario.schema, scenario.docs, query), primary));
      }
      for (const query of [...scenario.queries, ...(subject.ours ? (scenario.memoryAnswersWrongly ?? []) : [])]) {
        const label = `${scenario.name}: ${JSON.stringify(query)}`;
        const expected = expectedAnswer(scenario.schema, scenario.docs, query);
        const { documents } = await instance.query(planned(scenario.schema, query));
        expect(ids(documents, primary), label).toEqual(ids(expected, primary));
        expect(documents, label).toEqual(expected);
        const { count } = await instance.count(planned(scenario.schema, { selector: query.selector }));
        expect(count, `count of ${label}`).toBe(expectedAnswer(scenario.schema, scenario.docs, { selector: query.selector }).length);
      }
    });
  });

  describe('the change stream', () => {
    it('tells each write before the write returns: inserts, updates and deletes in order, with the context and a checkpoint', async () => {
      const instance = await open();
      const bulks: EventBulk<RxStorageChangeEvent<Doc>, unknown>[] = [];
      const subscription = instance.changeStream().subscribe((bulk) => bulks.push(bulk));
      const a = stored({ key: 'a', value: 'a1' });
      const b = stored({ key: 'b', value: 'b1' });
      await instance.bulkWrite([{ document: a }, { document: b }], CONTEXT);
      expect(bulks.length).toBe(1);
      const a2 = next(a, EXAMPLE_REVISION_2, { value: 'a2' });
      const bGone = next(b, EXAMPLE_REVISION_2, { _deleted: true });
      const c = stored({ key: 'c', value: 'c1' });
      await instance.bulkWrite([{ previous: a, document: a2 }, { previous: b, document: bGone }, { document: c }], 'second-context');
      expect(bulks.length).toBe(2);
      subscription.unsubscribe();

      expect(bulks.map((bulk) => bulk.events.map((e) => [e.operation, e.documentId, e.documentData.value, e.previousDocumentData?.value ?? null]))).toEqual([
        [
          ['INSERT', 'a', 'a1', null],
          ['INSERT', 'b', 'b1', null],
        ],
        [
          ['UPDATE', 'a', 'a2', 'a1'],
          ['DELETE', 'b', 'b1', 'b1'],
          ['INSERT', 'c', 'c1', null],
        ],
      ]);
      expect(bulks.map((bulk) => bulk.context)).toEqual([CONTEXT, 'second-context']);
      expect(bulks[1]!.events[1]!.documentData).toEqual(bGone);
      expect(bulks.map((bulk) => bulk.checkpoint)).toEqual([
        { id: 'b', lwt: b._meta.lwt },
        { id: 'c', lwt: c._meta.lwt },
      ]);
      // From the checkpoints told, nothing written is left to read.
      const since = await getChangedDocumentsSince(instance, 100, stackCheckpoints(bulks.map((bulk) => bulk.checkpoint) as never));
      expect(since.documents).toEqual([]);
    });

    it('tells nothing of a write that was refused whole, and an undelete as an insert', async () => {
      const instance = await open();
      const doc = stored({ key: 'a', value: 'one' });
      await instance.bulkWrite([{ document: doc }], CONTEXT);
      const tombstone = next(doc, EXAMPLE_REVISION_2, { _deleted: true });
      await instance.bulkWrite([{ previous: doc, document: tombstone }], CONTEXT);
      const operations: string[] = [];
      const subscription = instance.changeStream().subscribe((bulk) => operations.push(...bulk.events.map((e) => e.operation)));
      expect((await instance.bulkWrite([{ document: stored({ key: 'a', value: 'conflict' }) }], CONTEXT)).error.length).toBe(1);
      await instance.bulkWrite([{ previous: tombstone, document: next(tombstone, EXAMPLE_REVISION_3, { _deleted: false }) }], CONTEXT);
      subscription.unsubscribe();
      expect(operations).toEqual(['INSERT']);
    });
  });

  describe('changes since a checkpoint', () => {
    it('answers the newest state of each changed document in write order, page by page, and the same checkpoint when nothing changed', async () => {
      const instance = await open();
      const first = await getChangedDocumentsSince(instance, 10);
      expect(first).toEqual({ documents: [], checkpoint: { id: '', lwt: 0 } });

      let foobar = stored({ key: 'foobar', value: '0' });
      await instance.bulkWrite([{ document: foobar }, { document: stored({ key: 'other', value: 'x' }) }], CONTEXT);
      for (let t = 1; t <= 10; t++) {
        const updated = next(foobar, `${t + 1}-${'a'.repeat(32)}`, { value: String(t) });
        expect((await instance.bulkWrite([{ previous: foobar, document: updated }], CONTEXT)).error).toEqual([]);
        foobar = updated;
      }
      const both = await getChangedDocumentsSince(instance, 10);
      expect(both.documents.map((d) => [d.key, d.value])).toEqual([
        ['other', 'x'],
        ['foobar', '10'],
      ]);

      const more = Array.from({ length: 10 }, (_, i) => stored({ key: `m${i}`, value: 'm' }));
      await instance.bulkWrite(more.map((document) => ({ document })), CONTEXT);
      const pages: unknown[][] = [];
      let checkpoint: unknown;
      for (let page = 0; page < 4; page++) {
        const result = await getChangedDocumentsSince(instance, 5, checkpoint as never);
        pages.push(ids(result.documents));
        checkpoint = result.checkpoint;
      }
      expect(pages).toEqual([['other', 'foobar', 'm0', 'm1', 'm2'], ['m3', 'm4', 'm5', 'm6', 'm7'], ['m8', 'm9'], []]);
      const empty = await getChangedDocumentsSince(instance, 5, checkpoint as never);
      expect(empty.checkpoint).toEqual(checkpoint);

      await instance.bulkWrite([{ previous: foobar, document: next(foobar, `12-${'b'.repeat(32)}`, { _deleted: true }) }], CONTEXT);
      const deleted = await getChangedDocumentsSince(instance, 5, checkpoint as never);
      expect(deleted.documents.map((d) => [d.key, d._deleted])).toEqual([['foobar', true]]);
    });

    it('misses nothing written between pages', async () => {
      const instance = await open();
      const batch = (n: number) => Array.from({ length: 18 }, (_, i) => ({ document: stored({ key: `b${n}-${String(i).padStart(2, '0')}`, value: 'v' }) }));
      await instance.bulkWrite(batch(0), CONTEXT);
      const seen = new Set<unknown>();
      let checkpoint: unknown;
      let written = 1;
      for (let run = 0; run < 10; run++) {
        const result = await getChangedDocumentsSince(instance, 9, checkpoint as never);
        for (const doc of result.documents) seen.add(doc.key);
        checkpoint = result.checkpoint;
        if (written < 5) await instance.bulkWrite(batch(written++), CONTEXT);
      }
      expect(seen.size).toBe(90);
    });
  });

  describe('cleanup', () => {
    it('removes tombstones older than the given time, at once for 0, and nothing else', async () => {
      const instance = await open();
      const doc = stored({ key: 'gone', value: 'x' });
      await instance.bulkWrite([{ document: doc }, { document: stored({ key: 'kept', value: 'x' }) }], CONTEXT);
      // RxDB stamps write times by its own clock (`now()`), which reads ahead of Date.now(), by
      // whole milliseconds once it is read more than 99 times in one.
      for (let i = 0; i < 10_000; i++) now();
      await instance.bulkWrite([{ previous: doc, document: next(doc, EXAMPLE_REVISION_2, { _deleted: true }) }], CONTEXT);
      expect(await instance.cleanup(6 * 60_000)).toBe(true);
      expect(ids(await instance.findDocumentsById(['gone', 'kept'], true))).toEqual(['gone', 'kept']);
      expect(await instance.cleanup(0)).toBe(true);
      expect(ids(await instance.findDocumentsById(['gone', 'kept'], true))).toEqual(['kept']);
      expect(ids((await instance.query(planned(instance.schema, { selector: {} }))).documents)).toEqual(['kept']);
    });
  });

  describe('closing, reopening and removing', () => {
    it('a collection closed and opened again under its name has its documents, tombstones and indexes', async () => {
      const names = freshNames();
      const schema = storageSchema(schemas.humanAgeIndex);
      const docs = Array.from({ length: 30 }, (_, i) => stored({ ...schemaObjects.humanData(`p${String(i).padStart(2, '0')}`, 60 - i), lastName: 'L' }, { deleted: i % 4 === 0 }));
      const first = await open(schema, names);
      await first.bulkWrite(docs.map((document) => ({ document })), CONTEXT);
      await first.close();

      const again = await open(schema, names);
      expect(await again.findDocumentsById(ids(docs, 'passportId') as string[], true)).toEqual(docs);
      const query: MangoQuery<Doc> = { selector: { _deleted: false, age: { $gte: 40 } }, sort: [{ age: 'asc' }] };
      expect((await again.query(planned(schema, query))).documents).toEqual(expectedAnswer(schema, docs, query));
      expect((await again.count(planned(schema, { selector: query.selector }))).count).toBe(expectedAnswer(schema, docs, { selector: query.selector }).length);
      // And it is written as before.
      const conflict = await again.bulkWrite([{ document: stored({ ...docs[1]! }) }], CONTEXT);
      expect(conflict.error.map((e) => e.status)).toEqual([409]);
    });

    it('a removed collection opens again empty; it cannot be removed once closed; closing twice or after removing is allowed', async () => {
      const names = freshNames();
      const first = await open(keyValueSchema(), names);
      await first.bulkWrite([{ document: stored({ key: 'a', value: 'x' }) }], CONTEXT);
      await first.remove();
      await first.close();
      const again = await open(keyValueSchema(), names);
      expect(await again.findDocumentsById(['a'], true)).toEqual([]);
      await Promise.all([again.close(), again.close()]);
      await expect(again.remove()).rejects.toThrow();
    });

    it('a database RxDB opens on it, closed and opened again, has its documents and answers by its indexes; removed, it is empty', async () => {
      const name = `rxdb${freshNames().databaseName}`;
      const withHumans = async () => {
        const db = await createRxDatabase({ name, storage: subject.storage(), multiInstance: false, closeDuplicates: true });
        await db.addCollections({ humans: { schema: schemas.humanAgeIndex } });
        return db;
      };
      let db = await withHumans();
      await db.humans!.bulkInsert(Array.from({ length: 20 }, (_, i) => schemaObjects.humanData(`p${i}`, 20 + i)));
      await db.humans!.findOne('p3').remove();
      await db.close();

      db = await withHumans();
      const older = await db.humans!.find({ selector: { age: { $gt: 30 } }, sort: [{ age: 'desc' }] }).exec();
      expect(older.map((d) => d.passportId)).toEqual(['p19', 'p18', 'p17', 'p16', 'p15', 'p14', 'p13', 'p12', 'p11']);
      expect(await db.humans!.count().exec()).toBe(19);
      await db.remove();

      db = await withHumans();
      expect(await db.humans!.count().exec()).toBe(0);
      await db.remove();
    });
  });

  describe('two instances of one collection in one page', () => {
    it('each reads what the other wrote, and is told of it', async () => {
      const names = freshNames();
      const a = await open(keyValueSchema(), names);
      const b = await open(keyValueSchema(), names);
      const told: string[] = [];
      const subscription = b.changeStream().subscribe((bulk) => told.push(...bulk.events.map((e) => `${e.operation} ${e.documentId}`)));
      await a.bulkWrite([{ document: stored({ key: 'a', value: 'by a' }) }], CONTEXT);
      await b.bulkWrite([{ document: stored({ key: 'b', value: 'by b' }) }], CONTEXT);
      for (const instance of [a, b]) expect((await instance.findDocumentsById(['a', 'b'], false)).map((d) => d.value)).toEqual(['by a', 'by b']);
      const conflict = await b.bulkWrite([{ document: stored({ key: 'a', value: 'again' }) }], CONTEXT);
      expect(conflict.error.map((e) => [e.status, inDb(e)?.value])).toEqual([[409, 'by a']]);
      // Closing one leaves the other's stream open.
      await a.close();
      await b.bulkWrite([{ document: stored({ key: 'c', value: 'by b' }) }], CONTEXT);
      subscription.unsubscribe();
      expect(told).toEqual(['INSERT a', 'INSERT b', 'INSERT c']);
    });
  });
});

describe("what the SDK's storage does not do, it refuses clearly", () => {
  it('attachments', async () => {
    const schema = storageSchema({ ...getPseudoSchemaForVersion<Doc>(0, 'key' as never), attachments: {} });
    await expect(openInstance(indexedDbStorage(), schema)).rejects.toThrow(/attachments/);
    const instance = await openInstance(indexedDbStorage(), keyValueSchema());
    opened.push(instance);
    await expect(instance.getAttachmentData('a', 'b', 'digest')).rejects.toThrow(/attachments are not supported/);
  });
});

describe("the SDK's storage in two tabs (RxDB's multiInstance)", () => {
  it("each tab's instance of a collection is told of the other's writes, and reads them", async () => {
    // The other tab: the storage's modules loaded afresh (page-wide change streams of its own, as a
    // page has), on the same IndexedDB; the tabs' BroadcastChannel is Node's.
    vi.resetModules();
    const otherTab = (await import('../client-sdk/replica/indexeddb/storage.js')).indexedDbStorage;
    const names = freshNames();
    const a = await openInstance(indexedDbStorage(), keyValueSchema(), names, true);
    const b = await openInstance(otherTab(), keyValueSchema(), names, true);
    opened.push(a, b);
    const toldB: string[] = [];
    const toldA: string[] = [];
    b.changeStream().subscribe((bulk) => toldB.push(...bulk.events.map((e) => `${e.operation} ${e.documentId}`)));
    a.changeStream().subscribe((bulk) => toldA.push(...bulk.events.map((e) => `${e.operation} ${e.documentId}`)));
    await a.bulkWrite([{ document: stored({ key: 'a', value: 'in tab a' }) }], CONTEXT);
    await expect.poll(() => toldB).toEqual(['INSERT a']);
    await b.bulkWrite([{ document: stored({ key: 'b', value: 'in tab b' }) }], CONTEXT);
    await expect.poll(() => toldA).toEqual(['INSERT a', 'INSERT b']);
    for (const instance of [a, b]) expect((await instance.findDocumentsById(['a', 'b'], false)).map((d) => d.value)).toEqual(['in tab a', 'in tab b']);
    expect(toldB).toEqual(['INSERT a', 'INSERT b']);
  });
});
