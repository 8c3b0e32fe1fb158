import { normalizeMangoQuery, prepareQuery, type RxCollection } from 'rxdb';
import { MAX_EARLIER } from '../../shared/index.js';
import type { Observable } from 'rxjs';
import type { PendingChange } from '../replica/local-collections.js';

const PENDING = { refused: null };

export const pendingKey = (collection: string, id: string) => `${collection}/${id}`;


/**
 * The device's pending changes (replica/local-collections.ts has what an entry holds): read,
 * counted and settled by the sync engine, written by the one local write path (local-changes.ts).
 */
export class PendingChanges {
  constructor(private readonly entries: RxCollection<PendingChange>) {}

  /** Changes waiting for the server (refused ones excluded). */
  count$(): Observable<number> {
    return this.entries.count({ selector: PENDING }).$;
  }

  async count(): Promise<number> {
    return this.entries.count({ selector: PENDING }).exec();
  }

  /** Changes the server refused, kept on the device. */
  refusedCount$(): Observable<number> {
    return this.entries.count({ selector: { refused: { $ne: null } } }).$;
  }

  async get(keys: readonly string[]): Promise<Map<string, PendingChange>> {
    if (!keys.length) return new Map();
    const docs = await this.entries.findByIds([...new Set(keys)]).exec();
    return new Map([...docs].map(([key, doc]) => [key, doc.toMutableJSON() as PendingChange]));
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
    const schema = this.entries.schema.jsonSchema;
    const query = prepareQuery(schema, normalizeMangoQuery(schema, { selector: { collectionName: collection } }));
    const { count } = await this.entries.storageInstance.count(query);
    return count === 0 ? new Map() : this.get(keys);
  }

  /** The oldest entries of a collection waiting to be pushed. */
  async oldest(collection: string, limit: number): Promise<PendingChange[]> {
    const docs = await this.entries.find({ selector: { collectionName: collection, ...PENDING }, sort: [{ updatedAt: 'asc' }], limit }).exec();
    return docs.map((d) => d.toMutableJSON() as PendingChange);
  }

  async save(entries: readonly PendingChange[]): Promise<void> {
    if (!entries.length) return;
    const trimmed = entries.map((e) => (e.sent.length > MAX_EARLIER ? { ...e, sent: e.sent.slice(-MAX_EARLIER) } : e));
    await this.entries.bulkUpsert(trimmed);
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
    if (keys.length) await this.entries.bulkRemove([...keys]);
  }
}
