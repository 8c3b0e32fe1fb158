import { normalizeMangoQuery, prepareQuery, type RxCollection } from 'rxdb';
import { MAX_EARLIER } from '../../shared/index.js';
import type { Observable } from 'rxjs';
import type { DocState } from './replica-store.js';

/**
 * Local changes not yet acknowledged by the server, one entry per changed document, kept in a
 * collection of the replica (so they survive a restart and `pendingPushes` can be counted from
 * storage). An entry holds:
 * - `base`: the server state the local edits were made on (null for a document made here), sent
 *   as assumedMasterState so the server merges field by field;
 * - `changeId`: a fresh random id for the document's current local state;
 * - `sent`: states pushed whose answer never arrived, with their change ids. Until answered they
 *   go with every push of the document, so the server can tell which of them it applied;
 * - `refused`: why the server refused the whole request holding this change alone (too large,
 *   say), or null. A refused change stays on the device, reported and left out of pushes, so it
 *   does not hold up the rest; the next local change of the document clears it.
 */
export const OUTBOX = 'pendingChanges';

export interface SentState {
  changeId: string;
  state: DocState;
}

export interface OutboxEntry {
  key: string;
  /** The synced collection (named so as not to shadow RxDocument's own `collection`). */
  collectionName: string;
  docId: string;
  base: DocState | null;
  changeId: string;
  sent: SentState[];
  updatedAt: string;
  refused: string | null;
}

export const outboxSchema = {
  version: 1,
  title: 'local changes waiting for the server',
  primaryKey: 'key',
  type: 'object',
  properties: {
    key: { type: 'string', maxLength: 300 },
    collectionName: { type: 'string', maxLength: 40 },
    docId: { type: 'string' },
    base: { type: ['object', 'null'] },
    changeId: { type: 'string' },
    sent: { type: 'array', items: { type: 'object' } },
    updatedAt: { type: 'string', maxLength: 40 },
    refused: { type: ['string', 'null'] },
  },
  required: ['key', 'collectionName', 'docId', 'changeId', 'sent', 'updatedAt'],
  indexes: [['collectionName', 'updatedAt']],
  additionalProperties: false,
} as const;

/** Version 0 had no refusals. */
export const outboxMigrations = { 1: (entry: Omit<OutboxEntry, 'refused'>): OutboxEntry => ({ ...entry, refused: null }) };

const PENDING = { refused: null };

export const outboxKey = (collection: string, id: string) => `${collection}/${id}`;


export class Outbox {
  constructor(private readonly entries: RxCollection<OutboxEntry>) {}

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

  async get(keys: readonly string[]): Promise<Map<string, OutboxEntry>> {
    if (!keys.length) return new Map();
    const docs = await this.entries.findByIds([...new Set(keys)]).exec();
    return new Map([...docs].map(([key, doc]) => [key, doc.toMutableJSON() as OutboxEntry]));
  }

  /**
   * The entries among `keys`, all of one collection. A pulled page asks for up to a thousand keys
   * while the outbox mostly holds none of that collection: then one count of the collection's index
   * answers, instead of a lookup per key (in a browser, each key a request of its own to IndexedDB:
   * a third of the main thread's reads in the office's first sync). The count is asked of the
   * storage itself, not through a query object: RxDB keeps one object per query text, and once a
   * run of it fails every later run of it fails too (its queue stays rejected), where this runs for
   * every pulled page of a collection.
   */
  async among(collection: string, keys: readonly string[]): Promise<Map<string, OutboxEntry>> {
    if (!keys.length) return new Map();
    const schema = this.entries.schema.jsonSchema;
    const query = prepareQuery(schema, normalizeMangoQuery(schema, { selector: { collectionName: collection } }));
    const { count } = await this.entries.storageInstance.count(query);
    return count === 0 ? new Map() : this.get(keys);
  }

  /** The oldest entries of a collection waiting to be pushed. */
  async oldest(collection: string, limit: number): Promise<OutboxEntry[]> {
    const docs = await this.entries.find({ selector: { collectionName: collection, ...PENDING }, sort: [{ updatedAt: 'asc' }], limit }).exec();
    return docs.map((d) => d.toMutableJSON() as OutboxEntry);
  }

  async save(entries: readonly OutboxEntry[]): Promise<void> {
    if (!entries.length) return;
    const trimmed = entries.map((e) => (e.sent.length > MAX_EARLIER ? { ...e, sent: e.sent.slice(-MAX_EARLIER) } : e));
    await this.entries.bulkUpsert(trimmed);
  }

  /** The changes the server refused, oldest first. */
  async refused(): Promise<OutboxEntry[]> {
    const docs = await this.entries.find({ selector: { refused: { $ne: null } }, sort: [{ updatedAt: 'asc' }] }).exec();
    return docs.map((d) => d.toMutableJSON() as OutboxEntry);
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
