import { getSchemaByObjectPath, INDEX_MAX, INDEX_MIN, type RxDocumentData, type RxJsonSchema, type RxQueryPlan } from 'rxdb';

/**
 * How a collection's documents are kept in IndexedDB: each document as its own record, keyed by
 * its primary key, with one IndexedDB index for each of the schema's indexes but RxDB's
 * `[_meta.lwt, id]`. IndexedDB cannot index a boolean, so a boolean field of an index (`_deleted`
 * in every one) is stored as 0 or 1 and given back as a boolean when read.
 */
export interface RecordShape {
  primaryPath: string;
  /** The schema's indexes that IndexedDB keeps, by the name of their IndexedDB index. */
  indexes: Map<string, string[]>;
  /** Fields of those indexes that are booleans. */
  booleans: string[];
}

export function recordShapeOf(schema: RxJsonSchema<RxDocumentData<unknown>>): RecordShape {
  const primaryPath = typeof schema.primaryKey === 'string' ? schema.primaryKey : schema.primaryKey.key;
  const indexes = new Map<string, string[]>();
  for (const index of (schema.indexes ?? []).map((i) => (Array.isArray(i) ? [...i] : [i as string]))) {
    // RxDB's index of write times serves only its own replication and cleanup, which this SDK does
    // not use: an index entry less for every document written (they still work, reading every
    // document; see `query`). An index without the primary key (none of the replica's: RxDB adds it
    // to every index it is given) is read the same way, as its keys could repeat. So is an index on
    // a field the schema does not require (RxDB allows it for strings and numbers): IndexedDB
    // leaves a record without it out of the index, where RxDB's answer must include it.
    if (index[0] !== '_meta.lwt' && index.includes(primaryPath) && index.every((field) => isRequired(schema, field))) indexes.set(indexNameOf(index), index);
  }
  const fields = new Set([...indexes.values()].flat());
  const booleans = [...fields].filter((field) => getSchemaByObjectPath(schema, field)?.type === 'boolean');
  const nested = booleans.find((field) => field.includes('.'));
  if (nested) throw new Error(`IndexedDB storage: the boolean ${nested} is inside an object and cannot be indexed`);
  return { primaryPath, indexes, booleans };
}

/** Whether every document has the field: it is required, and so is each object on its path. */
function isRequired(schema: RxJsonSchema<RxDocumentData<unknown>>, path: string): boolean {
  const steps = path.split('.');
  return steps.every((step, i) => {
    const parent = i === 0 ? schema : getSchemaByObjectPath(schema, steps.slice(0, i).join('.'));
    return Boolean(parent?.required && (parent.required as readonly string[]).includes(step));
  });
}

export const indexNameOf = (index: readonly string[]) => index.join('+');

/** A stored record's key in an index of these fields (as IndexedDB derives it from the record). */
export function indexKeyOf(fields: readonly string[]): (record: unknown) => IDBValidKey {
  const valueAt = (record: unknown, path: string) => path.split('.').reduce((value, step) => (value as Record<string, unknown>)[step], record) as IDBValidKey;
  return fields.length === 1 ? (record) => valueAt(record, fields[0]!) : (record) => fields.map((field) => valueAt(record, field));
}

/** The record a document is stored as (a copy: the document itself is RxDB's and is not changed). */
export function recordOf(shape: RecordShape, doc: RxDocumentData<unknown>): Record<string, unknown> {
  if (!shape.booleans.length) return doc as Record<string, unknown>;
  const record: Record<string, unknown> = { ...(doc as Record<string, unknown>) };
  for (const field of shape.booleans) record[field] = record[field] ? 1 : 0;
  return record;
}

/** The document a record holds; the record is a fresh copy read from IndexedDB, so it is changed in place. */
export function documentOf<T>(shape: RecordShape, record: unknown): RxDocumentData<T> {
  const doc = record as Record<string, unknown>;
  for (const field of shape.booleans) doc[field] = doc[field] === 1;
  return doc as RxDocumentData<T>;
}

/**
 * The key range a query plan reads from its index, as IndexedDB orders keys (RxDB's lowest and
 * highest markers as the lowest number and the highest string; booleans as 0 and 1). Undefined
 * when the range holds nothing (its start after its end).
 */
export function keyRangeOf(shape: RecordShape, plan: RxQueryPlan): IDBKeyRange | undefined {
  const keyOf = (values: unknown[]) => {
    const key = values.map((value, i) => partOf(shape, plan.index[i]!, value));
    return key.length === 1 ? key[0] : key;
  };
  try {
    return IDBKeyRange.bound(keyOf(plan.startKeys), keyOf(plan.endKeys), !plan.inclusiveStart, !plan.inclusiveEnd);
  } catch (error) {
    if ((error as DOMException).name === 'DataError') return undefined;
    throw error;
  }
}

function partOf(shape: RecordShape, field: string, value: unknown): unknown {
  if (shape.booleans.includes(field)) return value === INDEX_MAX || value === true ? 1 : 0;
  return value === INDEX_MIN ? -Infinity : value;
}
