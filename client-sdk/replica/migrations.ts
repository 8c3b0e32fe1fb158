import { replicaSchemaOf, type ReplicatedResource, type RxJsonSchemaLike } from '../../shared/index.js';

type Stored = Record<string, unknown>;

/**
 * How a synced collection is opened: its schema at the current version (shared/sync/
 * replica-schemas.ts) and a migration step for every earlier one. A replica stored under an older
 * schema is the server's data plus this device's unsynced edits, so a step keeps every document
 * and drops only what the new schema no longer has: fields added since are nullable, left out
 * until the server's next state of the document brings them. RxDB runs the steps when the
 * collection opens; its writes are not local changes (replica/capture.ts lets them through).
 */
export function replicaCollectionOf(resource: ReplicatedResource): { schema: RxJsonSchemaLike; migrationStrategies: Record<number, (doc: Stored) => Stored> } {
  const schema = replicaSchemaOf(resource);
  const known = new Set(Object.keys(schema.properties));
  const keepKnown = (doc: Stored): Stored => Object.fromEntries(Object.entries(doc).filter(([field]) => known.has(field) || field.startsWith('_')));
  const migrationStrategies: Record<number, (doc: Stored) => Stored> = {};
  for (let version = 1; version <= schema.version; version++) migrationStrategies[version] = keepKnown;
  return { schema, migrationStrategies };
}
