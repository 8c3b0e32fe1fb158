import { columnName, replicatedResources, type CollectionName, type FieldMeta, type ReplicatedResource } from '../../shared/index.js';

/** The resource and table of a replicated collection, for SQL generated from shared declarations. */
export const resourceOf = (collection: CollectionName): ReplicatedResource => replicatedResources.find((r) => r.collection === collection)!;
export const tableOf = (collection: CollectionName): string => resourceOf(collection).table;

/**
 * The SQL of a field of `alias`'s row, for SQL generated from the sync declarations (scopes,
 * priority bands); `object.field` reads inside a stored object (jsonb). Throws at generation time
 * when a declaration names a field the collection does not have.
 */
export function fieldSql(collection: CollectionName, alias: string, path: string): string {
  const [field, ...inside] = path.split('.');
  const fields: Readonly<Record<string, { meta: FieldMeta }>> = resourceOf(collection).fields;
  const meta = fields[field!]?.meta;
  if (!meta) throw new Error(`A sync declaration names ${path}, which ${collection} does not have`);
  const column = `${alias}.${columnName(field!, meta)}`;
  return inside.length ? `(${column} #>> '{${inside.join(',')}}')` : column;
}
