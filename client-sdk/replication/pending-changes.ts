import { normalizeMangoQuery, prepareQuery, type MangoQuery, type RxCollection, type RxDocumentData } from 'rxdb';
import { MAX_EARLIER } from '../../shared/index.js';
import type { Observable } from 'rxjs';
import type { PendingChange } from '../replica/local-collections.js';

const PENDING = { refused: null };
/** The write context of the pending changes' own writes (they are not captured: capture.ts). */
const CONTEXT = 'pool-pending-changes';

export const pendingKey = (collection: string, id: string) => `${collection}/${id}`;


/**
 * The device's pending changes (replica/local-collections.ts has what an entry holds): read,
 * counted and settled by the sync engine, written by the one local write path (local-changes.ts).
 *
 * What the engine and the write path read and write goes to the collection's storage itself, not
 * through RxDB's query and document caches: where tabs share the replica, another tab may have
 * written an entry a moment ago, and its change event (which refreshes those caches) can arrive
 * after this tab took the write lock. Read from storage under the lock, an entry is always the
 * one stored, `sent` states and change ids included, so a repeat after a handover is exact.
 * Counts for the app's status are RxDB's live queries, which those events keep current.
 */
export class PendingChanges {
  constructor(private readonly entries: RxCollection<PendingChange>) {}

  /** Changes waiting for the server (refused ones excluded). */
  count$(): Observable<number> {
    return this.entries.count({ selector: PENDING }).$;
  }

  async count(): Promise<number> {
    return (await this.entries.storageInstance.count(this.prepared({ selector: PENDING }))).count;
  }

  /** Changes the server refused, kept on the device. */
  refusedCount$(): Observable<number> {
    return this.entries.count({ selector: { refused: { $ne: null } } }).$;
  }

  async get(keys: readonly string[]): Promise<Map<string, PendingChange>> {
    if (!keys.length) return new Map();
    const docs = await this.entries.storageInstance.findDocumentsById([...new Set(keys)], false);
    return new Map(docs.map((doc) => [doc.key, entryOf(doc)]));
  }

  /**
   * The entries among `keys`, all of one collection. A pulled page asks for up to a thousand keys
   * while the pending changes mostly holds none of that collection: then one count of the collection's index
   * answers, instead of a lookup per key (in a browser, each key a request of its own to IndexedDB:
   * a third of the main thread's reads in the office's first sync). The count is asked of the
   * storage itself, not through a query object: RxDB keeps one object per query text, and once a
   * run of it fails every later run of it fails too (its queue stays rejected), where this runs for
   * every pulled page of a collection.
   */
  async among(collection: string, keys: readonly string[]): Promise<Map<string, PendingChange>> {
    if (!keys.length) return new Map();
    const { count } = await this.entries.storageInstance.count(this.prepared({ selector: { collectionName: collection } }));
    return count === 0 ? new Map() : this.get(keys);
  }

  /** The oldest entries of a collection waiting to be pushed. */
  async oldest(collection: string, limit: number): Promise<PendingChange[]> {
    return (await this.query({ selector: { collectionName: collection, ...PENDING }, sort: [{ updatedAt: 'asc' }], limit })).map(entryOf);
  }

  async save(entries: readonly PendingChange[]): Promise<void> {
    const trimmed = entries.map((e) => (e.sent.length > MAX_EARLIER ? { ...e, sent: e.sent.slice(-MAX_EARLIER) } : e));
    await this.write(trimmed, false);
  }

  /** The changes the server refused, oldest first. */
  async refused(): Promise<PendingChange[]> {
    const docs = await this.entries.find({ selector: { refused: { $ne: null } }, sort: [{ updatedAt: 'asc' }] }).exec();
    return docs.map((d) => d.toMutableJSON() as PendingChange);
  }

  /**
   * Sets a change aside: the server refused the request carrying it (`changeId`), and retrying it
   * as it is would fail again. A refused request was never applied (the server checks a request
   * whole before it writes anything), so that state leaves `sent`: the next push need not carry it.
   */
  async refuse(key: string, reason: string, changeId: string): Promise<void> {
    const entry = (await this.get([key])).get(key);
    if (entry) await this.save([{ ...entry, refused: reason, sent: entry.sent.filter((s) => s.changeId !== changeId) }]);
  }

  async remove(keys: readonly string[]): Promise<void> {
    const stored = await this.get(keys);
    await this.write([...stored.values()], true);
  }

  private async query(query: MangoQuery<PendingChange>): Promise<RxDocumentData<PendingChange>[]> {
    return (await this.entries.storageInstance.query(this.prepared(query))).documents;
  }

  /** A query of the storage, of live entries only (removed ones stay as tombstones), as RxDB's own queries ask. */
  private prepared(query: MangoQuery<PendingChange>) {
    const schema = this.entries.schema.jsonSchema;
    const normalized = normalizeMangoQuery(schema, query);
    return prepareQuery(schema, { ...normalized, selector: { ...normalized.selector, _deleted: { $eq: false } } });
  }

  /** Writes entries (or their deletions) over what is stored: one bulk write, through RxDB's storage instance (so its change events go out). */
  private async write(entries: readonly PendingChange[], deleted: boolean): Promise<void> {
    if (!entries.length) return;
    const byKey = new Map(entries.map((e) => [e.key, e]));
    const instance = this.entries.storageInstance;
    const stored = new Map((await instance.findDocumentsById([...byKey.keys()], true)).map((doc) => [doc.key, doc]));
    const rows = [...byKey.values()].map((entry) => {
      const previous = stored.get(entry.key);
      const document = { ...entry, _deleted: deleted, _attachments: {}, _meta: previous ? { ...previous._meta } : { lwt: 0 }, _rev: previous?._rev ?? '' };
      return previous ? { previous, document } : { document };
    });
    const { error } = await instance.bulkWrite(rows, CONTEXT);
    if (error.length) throw new Error(`pending change ${error[0]!.documentId} was not written (status ${error[0]!.status})`);
  }
}

/** An entry as stored, without RxDB's bookkeeping. */
function entryOf({ _deleted, _attachments, _meta, _rev, ...entry }: RxDocumentData<PendingChange>): PendingChange {
  return entry;
}
