import {
  categorizeBulkWriteRows,
  getQueryMatcher,
  getSortComparator,
  now,
  type BulkWriteRow,
  type CategorizeBulkWriteRowsOutput,
  type EventBulk,
  type PreparedQuery,
  type RxDocumentData,
  type RxJsonSchema,
  type RxStorageBulkWriteResponse,
  type RxStorageChangeEvent,
  type RxStorageCountResult,
  type RxStorageDefaultCheckpoint,
  type RxStorageInstance,
  type RxStorageQueryResult,
} from 'rxdb';
import type { Observable, Subject } from 'rxjs';
import { closeChanges, openChanges } from './changes.js';
import { documentOf, indexKeyOf, indexNameOf as indexName, keyRangeOf, recordOf, type RecordShape } from './records.js';
import { deleteDatabase, getAllInPieces, getMany, readThenWrite, requestResult, transactionDone } from './requests.js';

export const DOCS = 'docs';

type Changes<T> = EventBulk<RxStorageChangeEvent<RxDocumentData<T>>, RxStorageDefaultCheckpoint>;
export interface IndexedDbInternals {
  db: IDBDatabase;
  databaseName: string;
  shape: RecordShape;
}

/**
 * One collection in its own IndexedDB database (see records.ts for how documents are kept). A
 * bulk write is one transaction; a query reads its plan's index range in one request.
 */
export class IndexedDbInstance<T> implements RxStorageInstance<T, IndexedDbInternals, Record<string, never>, RxStorageDefaultCheckpoint> {
  readonly options = {};
  private readonly changes: Subject<Changes<T>>;
  private closed = false;

  constructor(
    readonly databaseName: string,
    readonly collectionName: string,
    readonly schema: Readonly<RxJsonSchema<RxDocumentData<T>>>,
    readonly internals: IndexedDbInternals,
  ) {
    this.changes = openChanges(internals.databaseName);
  }

  private get shape(): RecordShape {
    return this.internals.shape;
  }

  async bulkWrite(rows: BulkWriteRow<T>[], context: string): Promise<RxStorageBulkWriteResponse<T>> {
    this.ensureOpen();
    if (!rows.length) return { error: [] };
    // Most writes are new documents (a first sync fills the replica with them), and reading each
    // one before writing it cost IndexedDB nearly as much as a write: a row with no previous state
    // is added without a read, and if one is stored after all, the transaction is undone and the
    // write done again, reading every row first.
    const categorized = (await this.write(rows, context, 'assume-new').catch(unlessStoredAlready)) ?? (await this.write(rows, context, 'read-all'));
    if (categorized.eventBulk.events.length) {
      const newest = categorized.newestRow!.document;
      categorized.eventBulk.checkpoint = { id: newest[this.shape.primaryPath as keyof typeof newest] as string, lwt: newest._meta.lwt };
      this.changes.next(categorized.eventBulk);
    }
    return { error: categorized.errors };
  }

  private async write(rows: BulkWriteRow<T>[], context: string, mode: 'assume-new' | 'read-all'): Promise<CategorizeBulkWriteRowsOutput<T>> {
    const { primaryPath } = this.shape;
    const transaction = this.internals.db.transaction(DOCS, 'readwrite');
    const done = transactionDone(transaction);
    const store = transaction.objectStore(DOCS);
    const read = mode === 'read-all' ? rows : rows.filter((row) => row.previous);
    const ids = read.map((row) => (row.document as Record<string, string>)[primaryPath]!);
    let categorized: CategorizeBulkWriteRowsOutput<T> | undefined;
    let failure: unknown;
    readThenWrite(store, ids, (found) => {
      try {
        const stored = new Map<string, RxDocumentData<T>>();
        found.forEach((record, i) => record && stored.set(ids[i]!, documentOf<T>(this.shape, record)));
        categorized = categorizeBulkWriteRows<T>(this, primaryPath as never, stored, rows, context);
        // An insert assumed new is an add: it fails if the document is stored after all (see
        // bulkWrite). Once read, a put: the same id twice in one batch leaves the last, as RxDB's
        // other storages do.
        const insert = mode === 'assume-new' ? store.add.bind(store) : store.put.bind(store);
        for (const row of categorized.bulkInsertDocs) insert(recordOf(this.shape, row.document));
        for (const row of categorized.bulkUpdateDocs) store.put(recordOf(this.shape, row.document));
      } catch (error) {
        // Thrown in IndexedDB's callback, it would only abort the transaction, unheard.
        failure = error;
        transaction.abort();
      }
    });
    await done.catch((error) => Promise.reject(failure ?? error));
    return categorized!;
  }

  async findDocumentsById(ids: string[], withDeleted: boolean): Promise<RxDocumentData<T>[]> {
    this.ensureOpen();
    const transaction = this.internals.db.transaction(DOCS, 'readonly');
    const records = await getMany(transaction.objectStore(DOCS), ids);
    const docs: RxDocumentData<T>[] = [];
    for (const record of records) {
      if (record === undefined) continue;
      const doc = documentOf<T>(this.shape, record);
      if (withDeleted || !doc._deleted) docs.push(doc);
    }
    return docs;
  }

  async query(prepared: PreparedQuery<T>): Promise<RxStorageQueryResult<T>> {
    this.ensureOpen();
    const { query, queryPlan: plan } = prepared;
    const skip = query.skip ?? 0;
    const end = typeof query.limit === 'number' ? skip + query.limit : Infinity;
    const indexed = this.shape.indexes.has(indexName(plan.index));
    const matches = indexed && plan.selectorSatisfiedByIndex ? undefined : getQueryMatcher(this.schema, query);
    const inOrder = indexed && plan.sortSatisfiedByIndex;
    // Where the index answers the selector and the order, only the rows wanted are read.
    let docs = await this.read(plan, !matches && inOrder && end !== Infinity ? end : undefined);
    if (matches) docs = docs.filter((doc) => matches(doc));
    if (!inOrder) docs.sort(getSortComparator(this.schema, query));
    return { documents: skip || docs.length > end ? docs.slice(skip, end) : docs };
  }

  async count(prepared: PreparedQuery<T>): Promise<RxStorageCountResult> {
    this.ensureOpen();
    const plan = prepared.queryPlan;
    const name = indexName(plan.index);
    if (!plan.selectorSatisfiedByIndex || !this.shape.indexes.has(name)) {
      const { documents } = await this.query({ ...prepared, query: { ...prepared.query, skip: 0, limit: undefined as never } });
      return { count: documents.length, mode: 'slow' };
    }
    const range = keyRangeOf(this.shape, plan);
    if (!range) return { count: 0, mode: 'fast' };
    const index = this.internals.db.transaction(DOCS, 'readonly').objectStore(DOCS).index(name);
    return { count: await requestResult(index.count(range)), mode: 'fast' };
  }

  /**
   * The documents in the plan's index range, in index order; a plan on an index IndexedDB does not
   * keep (RxDB's write times) reads every document, in primary key order, for the caller to match
   * and sort.
   */
  private async read(plan: PreparedQuery<T>['queryPlan'], count?: number): Promise<RxDocumentData<T>[]> {
    const store = this.internals.db.transaction(DOCS, 'readonly').objectStore(DOCS);
    const name = indexName(plan.index);
    const fields = this.shape.indexes.get(name);
    let records: unknown[];
    if (fields) {
      const range = keyRangeOf(this.shape, plan);
      records = range ? await getAllInPieces(store.index(name), range, indexKeyOf(fields), count) : [];
    } else {
      records = await getAllInPieces(store, undefined, indexKeyOf([this.shape.primaryPath]));
    }
    return records.map((r) => documentOf<T>(this.shape, r));
  }

  async getAttachmentData(): Promise<Blob> {
    throw new Error('IndexedDB storage: attachments are not supported');
  }

  changeStream(): Observable<Changes<T>> {
    this.ensureOpen();
    return this.changes.asObservable();
  }

  /**
   * Removes tombstones written `minimumDeletedTime` or longer ago (RxDB's cleanup; this SDK does not
   * run it). By RxDB's clock, which stamped their write times: it reads ahead of Date.now(), by at
   * least 0.01 ms and by whole milliseconds once it is read more than 99 times in one.
   */
  async cleanup(minimumDeletedTime: number): Promise<boolean> {
    this.ensureOpen();
    const until = now() - minimumDeletedTime;
    const transaction = this.internals.db.transaction(DOCS, 'readwrite');
    const done = transactionDone(transaction);
    const cursor = transaction.objectStore(DOCS).openCursor();
    cursor.onsuccess = () => {
      const at = cursor.result;
      if (!at) return;
      const doc = documentOf<T>(this.shape, at.value);
      if (doc._deleted && doc._meta.lwt <= until) at.delete();
      at.continue();
    };
    await done;
    return true;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    closeChanges(this.internals.databaseName);
    this.internals.db.close();
  }

  async remove(): Promise<void> {
    this.ensureOpen();
    await this.close();
    await deleteDatabase(this.internals.databaseName);
  }

  private ensureOpen(): void {
    if (this.closed) throw new Error(`IndexedDB storage: ${this.collectionName} is closed`);
  }
}

/** A write that assumed its new documents new, undone because one was stored: answered null, to be written again. */
const unlessStoredAlready = (error: unknown) => ((error as DOMException | null)?.name === 'ConstraintError' ? null : Promise.reject(error));
