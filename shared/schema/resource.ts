import { f, type FieldMap, type FieldMeta, type InferFields } from './fields.js';

/**
 * A resource is a record type with its own table: the one definition from which every other
 * form (TypeScript, RxDB, GraphQL, SQL, validators) is derived.
 *
 * @example
 *   export const taxResource = defineResource({
 *     name: 'Tax', table: 'taxes', collection: null,
 *     fields: { name: f.string(), rate: f.float() },
 *   })
 *   export type Tax = RecordOf<typeof taxResource>   // { id, name, rate, createdAt, updatedAt }
 */
export interface ResourceDef<F extends FieldMap = FieldMap, C extends string | null = string | null> {
  /** GraphQL type name. */
  readonly name: string;
  /** SQL table; every table also carries org_id. */
  readonly table: string;
  /**
   * RxDB collection name when the resource replicates to devices, else null. Replicated tables
   * carry the change-feed columns (_seq, _deleted, updated_at) kept by the trigger in migrations.
   */
  readonly collection: C;
  readonly description?: string;
  /** Every stored field, including the base fields id, createdAt, updatedAt. */
  readonly fields: F & typeof baseFields;
  /**
   * GraphQL-only fields resolved from other records (for example Quote.customer), as SDL types.
   * They are not stored and not replicated.
   */
  readonly relations: Readonly<Record<string, string>>;
}

/** Fields every resource has. The server assigns all three; clients never set them. */
export const baseFields = {
  id: f.id().doc('Unique identifier; generated on the device for replicated records'),
  createdAt: f.dateTime().owner('server').doc('Creation timestamp, set by the server'),
  updatedAt: f.dateTime().owner('server').doc('Last change, set by the server on every write'),
} as const;

export function defineResource<F extends FieldMap, const C extends string | null>(def: {
  name: string;
  table: string;
  /** Kept as its literal type: the SDK's collections are typed by name (`DocumentOf<'services'>`). */
  collection: C;
  description?: string;
  fields: F;
  relations?: Record<string, string>;
}): ResourceDef<F, C> {
  return {
    name: def.name,
    table: def.table,
    collection: def.collection,
    description: def.description,
    fields: { ...baseFields, ...def.fields },
    relations: def.relations ?? {},
  };
}

/** The stored record type of a resource. */
export type RecordOf<R extends ResourceDef> = InferFields<R['fields']>;

/**
 * The resource's fields of `doc`, with null for each nullable field it leaves out (a bulk insert
 * names every column); whatever is not a field of the resource is dropped.
 */
export function withNullsLeftOut<R extends ResourceDef>(resource: R, doc: Readonly<Record<string, unknown>> & { id: string }): Partial<RecordOf<R>> & { id: string } {
  const full: Record<string, unknown> = {};
  for (const [field, { meta }] of Object.entries(resource.fields)) {
    if (field in doc) full[field] = doc[field];
    else if (meta.nullable) full[field] = null;
  }
  return { ...(full as Partial<RecordOf<R>>), id: doc.id };
}

export interface InputOptions {
  /** Fields that must be given (non-null in the SDL, required by the validator). */
  readonly required?: readonly string[];
  /** Fields the input leaves out, besides id, timestamps, server-owned and internal fields. */
  readonly omit?: readonly string[];
}

/** The client-writable fields of a resource for an input type. */
export function writableFields(resource: ResourceDef, options: InputOptions = {}): [string, FieldMeta][] {
  const omit = new Set(['id', 'createdAt', 'updatedAt', ...(options.omit ?? [])]);
  return Object.entries(resource.fields)
    .filter(([name, { meta }]) => !omit.has(name) && !meta.internal && meta.owner !== 'server')
    .map(([name, { meta }]) => [name, meta]);
}
