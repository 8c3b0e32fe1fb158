import {
  fillWithDefaultSettings,
  getQueryMatcher,
  getSortComparator,
  normalizeMangoQuery,
  now,
  prepareQuery,
  randomToken,
  type MangoQuery,
  type RxDocumentData,
  type RxJsonSchema,
  type RxStorage,
  type RxStorageInstance,
} from 'rxdb';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { EXAMPLE_REVISION_1 } from 'rxdb/plugins/test-utils';
import { indexedDbStorage } from '../../client-sdk/replica/indexeddb/storage.js';
import { seededRandom } from '../../shared/seeded-random.js';

/**
 * What the storage conformance suite (test/storage-conformance.unit.test.ts) runs each case
 * against: the SDK's own IndexedDB storage and RxDB's memory storage, the storage RxDB's own tests
 * treat as the reference. A new storage object for every open, so a reopen of ours reads IndexedDB
 * and nothing kept in memory (RxDB's memory storage keeps its data in the module, across objects).
 */
export interface StorageUnderTest {
  name: string;
  ours: boolean;
  storage: () => RxStorage<any, any>;
}

export const STORAGES: StorageUnderTest[] = [
  { name: "the SDK's IndexedDB storage", ours: true, storage: () => indexedDbStorage() as RxStorage<any, any> },
  { name: "RxDB's memory storage", ours: false, storage: () => getRxStorageMemory() },
];

export type Doc = Record<string, unknown>;
export type Instance = RxStorageInstance<Doc, any, any>;

export interface Names {
  databaseName: string;
  collectionName: string;
}

export const freshNames = (): Names => ({ databaseName: `db${randomToken(10)}`, collectionName: `c${randomToken(10)}` });

/** The schema as RxDB hands it to a storage: `_deleted` first in every index, the primary key last, RxDB's index of write times. */
export function storageSchema(schema: object): RxJsonSchema<RxDocumentData<Doc>> {
  return fillWithDefaultSettings(structuredClone(schema) as never) as RxJsonSchema<RxDocumentData<Doc>>;
}

/** A minimal schema: primary key `key`, a string `value` indexed. */
export const keyValueSchema = () =>
  storageSchema({
    version: 0,
    type: 'object',
    primaryKey: 'key',
    properties: { key: { type: 'string', maxLength: 100 }, value: { type: 'string', maxLength: 100 } },
    required: ['key', 'value'],
    indexes: ['value'],
  });

/** A document as RxDB writes it: its fields and the storage's own (revision, write time, tombstone flag). */
export function stored(fields: Doc, meta: { rev?: string; deleted?: boolean } = {}): RxDocumentData<Doc> {
  return { ...structuredClone(fields), _deleted: meta.deleted ?? false, _attachments: {}, _rev: meta.rev ?? EXAMPLE_REVISION_1, _meta: { lwt: now() } } as RxDocumentData<Doc>;
}

/** The next state of a stored document: changed fields, a new revision, a new write time. */
export function next(previous: RxDocumentData<Doc>, rev: string, changes: Doc = {}): RxDocumentData<Doc> {
  return { ...structuredClone(previous), ...changes, _rev: rev, _meta: { lwt: now() } } as RxDocumentData<Doc>;
}

/** Opens the collection `names` on `storage` under `schema` (closed or removed by the caller). */
export function openInstance(storage: RxStorage<any, any>, schema: RxJsonSchema<RxDocumentData<Doc>>, names: Names = freshNames(), multiInstance = false): Promise<Instance> {
  return storage.createStorageInstance<Doc>({
    databaseInstanceToken: randomToken(10),
    databaseName: names.databaseName,
    collectionName: names.collectionName,
    schema,
    options: {},
    multiInstance,
    devMode: true,
  }) as Promise<Instance>;
}

/** A Mango query as RxDB runs it on a storage: normalized (the primary key closing the sort) and planned. */
export function planned(schema: RxJsonSchema<RxDocumentData<Doc>>, query: MangoQuery<Doc>) {
  return prepareQuery<Doc>(schema, normalizeMangoQuery<Doc>(schema, query));
}

/**
 * What a query must answer, worked out without any index: every stored state that RxDB's matcher
 * accepts (tombstones included: a storage answers what it is asked, RxDB adds `_deleted: false`),
 * in the order of RxDB's sort comparator, then skip and limit.
 */
export function expectedAnswer(schema: RxJsonSchema<RxDocumentData<Doc>>, docs: readonly RxDocumentData<Doc>[], query: MangoQuery<Doc>): RxDocumentData<Doc>[] {
  const normalized = normalizeMangoQuery<Doc>(schema, query);
  const matches = getQueryMatcher(schema, normalized);
  const all = docs.filter((doc) => matches(doc)).sort(getSortComparator(schema, normalized));
  const skip = normalized.skip ?? 0;
  return all.slice(skip, typeof normalized.limit === 'number' ? skip + normalized.limit : undefined);
}

/**
 * `make()` with Math.random seeded: RxDB's test-utils generate their documents with Math.random, and
 * a failing query must fail again on the next run with the same documents.
 */
export function seeded<T>(seed: number, make: () => T): T {
  const original = Math.random;
  Math.random = seededRandom(seed);
  try {
    return make();
  } finally {
    Math.random = original;
  }
}
