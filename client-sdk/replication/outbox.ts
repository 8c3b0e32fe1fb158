import type { RxCollection } from 'rxdb';
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
 *   go with every push of the document, so the server can tell which of them it applied.
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
}

export const outboxSchema = {
  version: 0,
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
  },
  required: ['key', 'collectionName', 'docId', 'changeId', 'sent', 'updatedAt'],
  indexes: [['collectionName', 'updatedAt']],
  additionalProperties: false,
} as const;

export const outboxKey = (collection: string, id: string) => `${collection}/${id}`;

/** How many sends without an answer an entry remembers (the server accepts this many). */
const MAX_SENT = 20;

export class Outbox {
  constructor(private readonly entries: RxCollection<OutboxEntry>) {}

  count$(): Observable<number> {
    return this.entries.count().$;
  }

  async count(): Promise<number> {
    return this.entries.count().exec();
  }

  async get(keys: readonly string[]): Promise<Map<string, OutboxEntry>> {
    if (!keys.length) return new Map();
    const docs = await this.entries.findByIds([...new Set(keys)]).exec();
    return new Map([...docs].map(([key, doc]) => [key, doc.toMutableJSON() as OutboxEntry]));
  }

  /** The oldest entries of a collection. */
  async oldest(collection: string, limit: number): Promise<OutboxEntry[]> {
    const docs = await this.entries.find({ selector: { collectionName: collection }, sort: [{ updatedAt: 'asc' }], limit }).exec();
    return docs.map((d) => d.toMutableJSON() as OutboxEntry);
  }

  async save(entries: readonly OutboxEntry[]): Promise<void> {
    if (!entries.length) return;
    const trimmed = entries.map((e) => (e.sent.length > MAX_SENT ? { ...e, sent: e.sent.slice(-MAX_SENT) } : e));
    await this.entries.bulkUpsert(trimmed);
  }

  async remove(keys: readonly string[]): Promise<void> {
    if (keys.length) await this.entries.bulkRemove([...keys]);
  }
}
